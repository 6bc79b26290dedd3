"""Seed 004 §3: the switched cluster, its file format, paths, contention; §4.1.2's random
clusters."""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings

from helpers import examples

from steady.errors import InputError
from steady.ethernet.cluster import Cluster
from steady.ethernet.contention import contending_pairs, is_contention_free_tree
from steady.ethernet.generators import random_cluster, switch_chain
from steady.ethernet.strategies import switched_clusters

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def figure1():
    return Cluster.from_file(SAMPLES / "ethernet-figure1.json")


def test_path_of_figure1_is_the_one_in_the_text():
    # 004 §3: path(n0 -> n3) = {(n0, s0), (s0, s1), (s1, s3), (s3, n3)}
    assert figure1().path("n0", "n3") == (("n0", "s0"), ("s0", "s1"), ("s1", "s3"),
                                          ("s3", "n3"))


@settings(max_examples=examples(60), deadline=None)
@given(switched_clusters(max_machines=10, max_switches=6))
def test_path_is_the_simple_path_and_its_reverse(cluster):
    nodes = cluster.switches + cluster.machines
    for u in nodes[:4]:
        for v in nodes:
            path = cluster.path(u, v)
            walk = [u] + [y for _, y in path]
            assert walk[-1] == v and all(a == x for (x, _), a in zip(path, walk))
            assert len(set(walk)) == len(walk)                   # simple
            assert all(b in cluster.neighbours(a) for a, b in path)
            assert cluster.path(v, u) == tuple((b, a) for a, b in reversed(path))


def test_contending_pairs_lists_every_pair_with_the_shared_channels():
    c = figure1()
    # n0 -> n3 and n1 -> n2 both go up (s0, s1); n2 -> n0 goes the other way.
    pattern = [("n0", "n3"), ("n1", "n2"), ("n2", "n0"), ("n4", "n1")]
    pairs = contending_pairs(c, pattern)
    assert [(p.first, p.second, p.edges) for p in pairs] == [
        (("n0", "n3"), ("n1", "n2"), (("s0", "s1"),)),
        (("n2", "n0"), ("n4", "n1"), (("s2", "s1"), ("s1", "s0")))]
    assert pairs[0].text() == "n0->n3 and n1->n2 share (s0,s1)"
    assert not is_contention_free_tree(c, pattern)


def test_communications_from_one_sender_never_contend_in_a_tree():
    c = figure1()
    # the root sends to n3 and to n2 through (s0, s1): one sender, one port (004 §4.1)
    pattern = [("n0", "n3"), ("n0", "n2")]
    assert contending_pairs(c, pattern) != []
    assert contending_pairs(c, pattern, different_senders=True) == []
    assert is_contention_free_tree(c, pattern)


def valid_doc():
    return json.loads((SAMPLES / "ethernet-figure1.json").read_text())


@pytest.mark.parametrize("change, element", [
    (lambda d: d.update(format="steady-platform"), "format"),
    (lambda d: d.update(version=2), "version"),
    (lambda d: d.update(version=True), "version"),     # JSON true == 1 in Python
    (lambda d: d.update(version=1.0), "version"),
    (lambda d: d.update(colour="red"), "key 'colour'"),
    (lambda d: d.pop("root"), "root"),
    (lambda d: d.update(root="s0"), "root"),
    (lambda d: d.update(root="n9"), "root"),
    (lambda d: d.update(switches=[]), "switches"),
    (lambda d: d.update(machines="n0"), "machines"),
    (lambda d: d["machines"].append("s1"), "machines[6]"),
    (lambda d: d["machines"].append(7), "machines[6]"),
    (lambda d: d["links"].append(["n0", "s1"]), "links[9]"),          # machine not a leaf
    (lambda d: d["links"].append(["s0", "s3"]), "links[9]"),          # cycle
    (lambda d: d["links"].append(["s0", "s1"]), "links[9]"),          # duplicate
    (lambda d: d["links"].append(["s2", "s2"]), "links[9]"),          # self-loop
    (lambda d: d["links"].append(["s2", "s9"]), "links[9]"),          # unknown node
    (lambda d: d["links"].__setitem__(0, ["s0"]), "links[0]"),
    (lambda d: d["links"].pop(0), "machines[2]"),                     # disconnected
    (lambda d: (d["machines"].append("n6"), d["links"].append(["n6", "n5"])), "links[9]"),
])
def test_invalid_cluster_documents_name_the_element(change, element):
    doc = valid_doc()
    change(doc)
    with pytest.raises(InputError) as info:
        Cluster.from_dict(doc, "c.json")
    assert info.value.element == element


def test_malformed_json_gives_line_and_column(tmp_path):
    path = tmp_path / "c.json"
    path.write_text('{"format": "steady-ethernet-cluster",\n "version": 1,,}')
    with pytest.raises(InputError) as info:
        Cluster.from_file(path)
    assert info.value.element.startswith("line 2 column")


@settings(max_examples=examples(30), deadline=None)
@given(switched_clusters(max_machines=8, max_switches=5))
def test_cluster_round_trips_through_its_file(cluster):
    assert Cluster.from_dict(json.loads(cluster.to_json())) == cluster


@pytest.mark.parametrize("machines, per_switch, switches", [(1024, 8, 128), (1024, 16, 64),
                                                           (16, 16, 1), (20, 8, 3)])
def test_random_clusters_have_the_paper_densities(machines, per_switch, switches):
    for how in ("links", "attach"):
        c = random_cluster(machines, per_switch, seed=3, switch_tree=how)
        # a validated Cluster is a tree with machines as leaves (004 §3)
        assert (len(c.machines), len(c.switches), c.root) == (machines, switches, "n0")
        assert len(c.links) == machines + switches - 1


def test_random_clusters_are_seeded():
    assert random_cluster(64, 8, 5) == random_cluster(64, 8, 5)
    assert random_cluster(64, 8, 5) != random_cluster(64, 8, 6)
    assert random_cluster(64, 8, 5, "links") != random_cluster(64, 8, 5, "attach")


def test_machines_spread_uniformly_over_switches():
    # 4096 machines on 8 switches: every switch gets 512 +- 5 standard deviations (~106)
    c = random_cluster(4096, 512, seed=1)
    counts = [len(c.machines_on(s)) for s in c.switches]
    assert len(counts) == 8 and all(406 <= n <= 618 for n in counts)


def test_switch_chain_and_the_samples():
    c = switch_chain([2, 0, 1])
    assert c.machines == ("n0", "n1", "n2") and c.switch_of("n2") == "s2"
    assert c.path("n0", "n2") == (("n0", "s0"), ("s0", "s1"), ("s1", "s2"), ("s2", "n2"))
    assert Cluster.from_file(SAMPLES / "ethernet-topology4.json") == switch_chain([8] * 4)
    # the generator still draws the sample (Cluster equality ignores the name)
    assert Cluster.from_file(SAMPLES / "ethernet-random-64.json") == random_cluster(64, 8, 0)
    for path in SAMPLES.glob("ethernet-*.json"):
        Cluster.from_file(path)
