"""steady.schedule.dag: the optimal schedule on a DAG of 002 §4.3 Theorem 2.

The worked example of 002 §4.4 (samples/figure5-dag.json) is reproduced number for
number: TP = 4/5, q = 5, the heights table, the layer table with its message ranges, the
per-period counts q·n_jk and the period 5.  A property test (Theorem 2) runs the whole
construction on random small DAGs and checks every postcondition independently, the
verifier, and that the throughput is the SSBPDAG optimum, which on a DAG equals the
graph optimum SSB(G).
"""

import json
import math
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings

from helpers import examples

from steady import Platform
from steady.schedule.dag import (check_layers, check_trees, dag_schedule,
                                 dag_trees, heights, layer_schedule, period_multiplier)
from steady.errors import InputError
from steady.generators import random_dag_platform
from steady.strategies import platforms
from steady.throughput import dag_throughput, throughput
from steady.verify import verify
from helpers import run

F = Fraction
SAMPLES = Path(__file__).resolve().parent.parent / "samples"
FIGURE1 = SAMPLES / "figure1.json"
DAG = SAMPLES / "figure5-dag.json"


@pytest.fixture(scope="module")
def figure5():
    return Platform.from_file(DAG)


# -- 002 §4.4, exactly ----------------------------------------------------------------

def test_figure5_heights_are_the_table_of_4_4(figure5):
    assert heights(figure5) == {"Ps": 0, "P1": 1, "P2": 2, "P3": 3, "P4": 3}


def test_figure5_layer_table_is_the_table_of_4_4(figure5):
    layers = layer_schedule(figure5, dag_throughput(figure5))
    assert layers.q == 5 and layers.messages == 4 and layers.layer_count == 3
    assert [(t.layer, t.tail, t.head, t.first, t.last) for t in layers.transfers] == [
        (0, "Ps", "P1", 0, 3),
        (1, "Ps", "P2", 0, 0), (1, "P1", "P2", 1, 3),
        (2, "P1", "P3", 0, 3), (2, "P2", "P4", 0, 3)]


def test_figure5_trees(figure5):
    trees = dag_trees(layer_schedule(figure5, dag_throughput(figure5)))
    assert trees == [({"P1": "Ps", "P2": "Ps", "P3": "P1", "P4": "P2"}, 1),
                     ({"P1": "Ps", "P2": "P1", "P3": "P1", "P4": "P2"}, 3)]


def test_figure5_schedule(figure5):
    schedule, info = dag_schedule(figure5)
    assert schedule.throughput == F(4, 5) and info["q"] == 5
    assert schedule.period == 5 and schedule.messages_per_period == 4
    assert schedule.messages_per_link() == {("Ps", "P1"): 4, ("Ps", "P2"): 1, ("P1", "P2"): 3,
                                    ("P1", "P3"): 4, ("P2", "P4"): 4}
    assert info["heights"] == {"Ps": 0, "P1": 1, "P2": 2, "P3": 3, "P4": 3}
    assert info["layer_table"][1] == {"layer": 1, "from": "Ps", "to": "P2",
                                      "messages": [0, 0]}
    assert info["trees"] == 2 == len(info["weighted_trees"])
    assert verify(figure5, schedule).ok


def test_dag_optimum_is_the_graph_optimum_on_figure5(figure5):
    """What makes `steady verify` (which checks against the graph optimum) accept it."""
    assert dag_throughput(figure5).throughput == throughput(figure5).throughput == F(4, 5)


def test_q_is_the_smallest_common_multiple(figure5):
    result = dag_throughput(figure5)
    assert period_multiplier(figure5, result) == 5
    doubled = figure5.scale_costs(2)   # rates halve: n = 2/5 .. , t unchanged, TP = 2/5
    assert period_multiplier(doubled, dag_throughput(doubled)) == 10


# -- heights and cycles -----------------------------------------------------------------

def test_heights_as_late_as_possible():
    """A sink hanging off the source goes to the last layer (as P3 in §4.4)."""
    p = Platform("s", [_link("s", "a"), _link("a", "b"), _link("s", "c")])
    assert heights(p) == {"s": 0, "a": 1, "b": 2, "c": 2}


def test_a_cycle_is_named_in_one_input_error():
    p = Platform.from_file(FIGURE1)
    with pytest.raises(InputError) as info:
        dag_schedule(p, "figure1.json")
    assert info.value.origin == "figure1.json" and info.value.element == "links"
    assert info.value.reason.startswith("cycle P1 -> P2 -> P1:")


def test_longer_cycle_is_named():
    p = Platform("s", [_link("s", "a"), _link("a", "b"), _link("b", "c"), _link("c", "a")])
    with pytest.raises(InputError, match=r"cycle (a -> b -> c -> a|b -> c -> a -> b|"
                                         r"c -> a -> b -> c):"):
        heights(p)


def _link(u, v, cost=1):
    from steady.platform import Link
    return Link(u, v, F(cost))


# -- the runtime postconditions reject broken tables ------------------------------------

@pytest.fixture
def layers5(figure5):
    return layer_schedule(figure5, dag_throughput(figure5))


def _with(layers, i, **changes):
    transfers = list(layers.transfers)
    transfers[i] = replace(transfers[i], **changes)
    return replace(layers, transfers=tuple(transfers))


@pytest.mark.parametrize("i, changes, words", [
    (2, {"first": 2}, "not each"),                 # P2 misses message 1
    (0, {"last": 2}, "receives 3 messages"),        # P1 misses message 3
    (3, {"layer": 0}, "not received yet"),          # P1 forwards before it has them
])
def test_check_layers_rejects(layers5, i, changes, words):
    with pytest.raises(AssertionError, match=words):
        check_layers(_with(layers5, i, **changes))


def test_check_layers_rejects_an_overloaded_port(layers5):
    with pytest.raises(AssertionError, match="in layer 0 Ps sends for 4 > q = 3"):
        check_layers(replace(layers5, q=3))


def test_check_trees_rejects(layers5):
    trees = dag_trees(layers5)
    with pytest.raises(AssertionError, match="add up"):
        check_trees(layers5, [trees[0], (trees[1][0], 2)])
    with pytest.raises(AssertionError, match="not a link"):
        check_trees(layers5, [({**trees[0][0], "P3": "Ps"}, 1), trees[1]])
    check_trees(layers5, trees)


# -- Theorem 2 on random DAGs --------------------------------------------------------------

def assert_theorem2(platform):
    result = dag_throughput(platform)
    schedule, info = dag_schedule(platform)
    layers, q, h = info["layers"], info["q"], info["heights"]
    # heights: h(s) = 0 and h grows along every link
    assert h[platform.source] == 0
    assert all(h[u] < h[v] for u, v in platform.arcs)
    # q: the smallest positive integer making q·n, q·t, q·TP integers
    values = [result.throughput] + [x * c for (u, v), x in result.n.items()
                                     for c in (1, platform.cost(u, v))]
    assert q == math.lcm(*(x.denominator for x in values))
    # layers: each node receives each of the q·TP messages once, in layer h - 1
    assert (q * result.throughput).denominator == 1
    m = int(q * result.throughput)
    for v in platform.destinations:   # ranges tile 0..m-1 (m can have 20 digits)
        ranges = sorted((t.first, t.last) for t in layers.transfers if t.head == v)
        assert [a for a, _ in ranges] == [0] + [b + 1 for _, b in ranges[:-1]]
        assert ranges[-1][1] == m - 1 and all(a <= b for a, b in ranges)
    assert all(t.layer == h[t.head] - 1 and h[t.tail] <= t.layer for t in layers.transfers)
    load = Counter()
    for t in layers.transfers:
        load[(t.layer, "out", t.tail)] += t.count * platform.cost(t.tail, t.head)
        load[(t.layer, "in", t.head)] += t.count * platform.cost(t.tail, t.head)
    assert all(x <= q for x in load.values())
    # trees: spanning arborescences, weights q·TP, per link q·n_jk
    trees = info["weighted_trees"]
    for parent, weight in trees:
        platform.check_arborescence(parent)
        assert weight > 0
    assert sum(w for _, w in trees) == m
    assert len(trees) <= 1 + sum(len(platform.in_links(v)) for v in platform.nodes)
    carried = Counter()
    for parent, weight in trees:
        for child, par in parent.items():
            carried[(par, child)] += weight
    assert carried == {arc: q * x for arc, x in result.n.items() if x}
    # the file: verified, optimal, q·n_jk per link per period up to the scale s
    assert verify(platform, schedule).ok
    assert schedule.throughput == result.throughput
    s, rest = divmod(schedule.messages_per_period, m)
    assert rest == 0
    assert schedule.messages_per_link() == {arc: s * q * x for arc, x in result.n.items() if x}


@settings(max_examples=examples(40), deadline=None)
@given(platforms(max_nodes=7, dag=True))
def test_theorem2_on_random_dags(platform):
    """002 §4.3 Theorem 2: the layered schedule reaches the SSBPDAG optimum, which on a
    DAG is the graph optimum (the verifier's optimality check, and SSB(G) itself)."""
    assert_theorem2(platform)
    assert dag_throughput(platform).throughput == throughput(platform).throughput


@pytest.mark.parametrize("seed", range(3))
def test_theorem2_on_generated_dags(seed):
    assert_theorem2(random_dag_platform(8, 0.3, seed=seed))


# -- steady schedule --dag -------------------------------------------------------------------

def test_cli_dag_figure5(capsys, tmp_path):
    path = tmp_path / "dag.json"
    code, out, err = run(capsys, "schedule", "--dag", DAG, "-o", path)
    assert code == 0 and err == ""
    rows = dict(line.split(None, 1) for line in out.splitlines())
    assert rows["throughput"].startswith("4/5 = 0.8 ") and rows["period"].startswith("5 (")
    assert rows["q"].startswith("5 ") and rows["heights"] == "Ps 0, P1 1, P2 2, P3 3, P4 3"
    code, out, err = run(capsys, "verify", DAG, path)
    assert code == 0 and "throughput 4/5 is optimal" in out


def test_cli_dag_json(capsys):
    code, out, _ = run(capsys, "schedule", "--dag", DAG, "--json")
    doc = json.loads(out)
    assert code == 0 and doc["throughput"] == "4/5" and doc["period"] == "5"
    assert doc["q"] == 5 and doc["heights"] == {"Ps": 0, "P1": 1, "P2": 2, "P3": 3, "P4": 3}
    assert doc["layers"][2] == {"layer": 1, "from": "P1", "to": "P2", "messages": [1, 3]}
    assert doc["trees"] == 2 and doc["verified"] is True


def test_cli_dag_on_a_cycle_exits_2(capsys, tmp_path):
    code, out, err = run(capsys, "schedule", "--dag", FIGURE1, "-o", tmp_path / "x.json")
    assert code == 2 and out == "" and "Traceback" not in err
    lines = err.strip().splitlines()
    assert lines == [f"steady: {FIGURE1}: links: cycle P1 -> P2 -> P1: --dag needs a DAG "
                     "(002 §4.3 Theorem 2)"]
    assert list(tmp_path.iterdir()) == []


def test_cli_dag_on_a_cycle_in_a_real_process():
    proc = subprocess.run([sys.executable, "-m", "steady", "schedule", "--dag", str(FIGURE1)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert str(FIGURE1) in proc.stderr and "cycle" in proc.stderr
