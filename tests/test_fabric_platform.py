"""The platform's port model, switches and symmetry (issue 43; docs/formats.md): read,
written, validated with one-line errors, from networkx, on the command line."""

import json
from fractions import Fraction
from pathlib import Path

import networkx as nx
import pytest

from steady.cli import main
from steady.errors import InputError
from steady.inputs import as_platform
from steady.platform import Link, Platform
from steady.throughput import throughput
from steady.topologies import a100_platform, fat_tree_platform, mi250_platform

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def doc(**extra):
    base = {"format": "steady-platform", "version": 1, "source": "A",
            "links": [{"from": "A", "to": "S", "bandwidth": 2},
                      {"from": "S", "to": "B", "bandwidth": 2},
                      {"from": "B", "to": "S", "bandwidth": 2},
                      {"from": "S", "to": "A", "bandwidth": 2}]}
    base.update(extra)
    return base


def test_fields_round_trip():
    p = Platform.from_dict(doc(ports="multi-port", switches=["S"],
                               symmetry=[{"A": "B", "B": "A"}]))
    assert p.multi_port and p.switches == {"S"} and not p.classic
    assert p.compute_nodes == ("A", "B") and p.destinations == ("B",)
    written = p.to_dict()
    assert written["ports"] == "multi-port" and written["switches"] == ["S"]
    assert written["symmetry"] == [{"A": "B", "B": "A"}]
    assert Platform.from_dict(written) == p
    assert eval(repr(p), {"Platform": Platform, "Link": Link}) == p


def test_default_is_todays_model():
    p = Platform.from_dict(doc())
    assert p.classic and p.ports == "one-port" and not p.switches
    assert "ports" not in p.to_dict() and "switches" not in p.to_dict()


@pytest.mark.parametrize("extra, element, reason", [
    ({"ports": "two-port"}, "ports", "must be 'one-port' or 'multi-port'"),
    ({"switches": "S"}, "switches", "list of node names"),
    ({"switches": ["Z"]}, "switches", "unknown node 'Z'"),
    ({"switches": ["S", "S"]}, "switches[1]", "duplicate switch"),
    ({"switches": ["A"]}, "source", "is a switch"),
    ({"switches": ["S", "B"]}, "switches", "no compute destination"),
    ({"symmetry": {"A": "B"}}, "symmetry", "list of permutations"),
    ({"symmetry": [["A", "B"]]}, "symmetry[0]", "an object"),
    ({"symmetry": [{"A": "S"}]}, "symmetry[0]", "not a permutation"),
    ({"symmetry": [{"A": "Q", "Q": "A"}]}, "symmetry[0]", "unknown node 'Q'"),
    ({"switches": ["S"], "symmetry": [{"A": "S", "S": "A"}]}, "symmetry[0]",
     "a switch and a compute node"),
])
def test_refused_with_the_element_named(extra, element, reason):
    with pytest.raises(InputError) as info:
        Platform.from_dict(doc(**extra), "f.json")
    assert info.value.origin == "f.json"
    assert info.value.element == element and reason in info.value.reason


def test_a_switch_needs_links_in_and_out():
    d = doc(switches=["S", "T"])
    d["links"].append({"from": "T", "to": "A", "cost": 1})
    with pytest.raises(InputError, match=r"switches \(T\): no incoming link"):
        Platform.from_dict(d)
    d = doc(switches=["S", "T"], nodes=["A", "S", "B", "T"])
    with pytest.raises(InputError, match=r"switches \(T\): no link"):
        Platform.from_dict(d)


def test_a_symmetry_must_keep_the_links_and_costs():
    d = doc(symmetry=[{"A": "B", "B": "A"}])
    d["links"][0]["bandwidth"] = 3
    with pytest.raises(InputError, match=r"symmetry\[0\].*a link of another cost"):
        Platform.from_dict(d)


def test_generators_return_verified_groups():
    for p in (a100_platform(2), mi250_platform(2), fat_tree_platform(4)):
        assert p.symmetry and Platform.from_dict(p.to_dict()) == p
    assert len(a100_platform(2).compute_nodes) == 16
    assert len(mi250_platform(1).links) == 56 and len(a100_platform(4).links) == 192


def test_networkx_in_forestcoll_s_style():
    """Edges with 'capacity' (a bandwidth) and the compute nodes named: every other
    node is a switch; or a 'switch' node marker."""
    g = nx.DiGraph()
    for v in ("g0", "g1", "g2"):
        g.add_edge(v, "sw", capacity=300)
        g.add_edge("sw", v, capacity=300)
    g.graph["ports"] = "multi-port"
    p = Platform.from_networkx(g, "g0", compute_nodes=["g0", "g1", "g2"])
    assert p.switches == {"sw"} and p.cost("g0", "sw") == Fraction(1, 300)
    g.nodes["sw"]["switch"] = True
    q = as_platform(g)
    assert q.switches == {"sw"} and q.multi_port and q.source == "g0"


def test_classic_doors_refuse_a_fabric():
    with pytest.raises(InputError, match="collective_throughput"):
        throughput(a100_platform(1))


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_collective(capsys):
    path = str(SAMPLES / "collectives" / "a100-2.json")
    code, out, err = _run(capsys, "throughput", path, "--collective", "allgather",
                          "--size", "16", "--json")
    assert code == 0 and not err
    got = json.loads(out)
    assert got["rate"] == "65/3" and got["bus_bandwidth"] == "325"
    assert got["time"] == "3/65" and got["certificate"]["cut"]["bound"] == "65/3"
    code, out, _ = _run(capsys, "throughput", path, "--collective", "allreduce")
    assert code == 0 and "rate per root  65/6" in out and "= 25/2" in out
    code, out, _ = _run(capsys, "throughput", path)  # a fabric: broadcast by default
    assert code == 0 and "broadcast" in out and "rate per root  200 " in out


@pytest.mark.parametrize("argv, says", [
    (["--collective", "allgather", "--dag"], "--dag: does not apply"),
    (["--collective", "allgather", "--sources", "b0.gpu0"], "--sources: allgather"),
    (["--sources", "b0.nvswitch"], "sources[0]: b0.nvswitch is a switch"),
    (["--rates", "1"], "--rates: give --sources too"),
    (["--collective", "allgather", "--size", "0"], "--size"),
])
def test_cli_refusals(capsys, argv, says):
    path = str(SAMPLES / "collectives" / "a100-2.json")
    code, out, err = _run(capsys, "throughput", path, *argv)
    assert code == 2 and says in err and err.count("\n") == 1 and not out


def test_cli_schedule_of_a_fabric_defaults_to_64_chunks(capsys, tmp_path):
    """A fabric's schedule is a collective's timetable of at most M chunks per root
    (no exact periodic schedule of a fabric is written): without --max-messages, M is
    64 (MSCCL's steps per threadblock), and the sheet says it is the default."""
    path = tmp_path / "s.json"
    code, out, err = _run(capsys, "schedule", str(SAMPLES / "collectives" / "mi250-1.json"),
                          "-o", str(path), "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert 1 <= doc["chunks_per_root"] <= 64 and doc["verified"] is True
    assert path.exists()
    code, out, err = _run(capsys, "schedule", str(SAMPLES / "collectives" / "mi250-1.json"),
                          "--max-messages", "65")
    assert code == 0 and "at most 65)" in out
    code, out, err = _run(capsys, "schedule", str(SAMPLES / "collectives" / "mi250-1.json"))
    assert code == 0 and "at most 64, the default)" in out
