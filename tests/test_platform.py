"""steady.platform: exact parsing, formats, validation errors (DESIGN.md, steady-platform v1)."""

import copy
import dataclasses
import json
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import networkx as nx
import pytest
from hypothesis import given, settings

from helpers import examples

from steady import InputError, Link, Platform, default_platform
from steady.strategies import platforms

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def doc(links, **extra):
    """A minimal steady-platform v1 document with source 'S'."""
    d = {"format": "steady-platform", "version": 1, "source": "S", "links": links}
    d.update(extra)
    return d


def arc(tail, head, **numbers):
    return {"from": tail, "to": head, **numbers}


def input_error(build, origin, element, reason) -> InputError:
    """``build()`` raises an InputError naming ``origin``, ``element`` and ``reason``
    (substrings of the error's fields), printed as one line 'origin: element: reason'."""
    with pytest.raises(InputError) as info:
        build()
    err = info.value
    assert err.origin == origin
    assert element in err.element, err
    assert reason in err.reason, err
    assert str(err) == f"{err.origin}: {err.element}: {err.reason}"
    assert "\n" not in str(err)
    return err


# -- exact numbers ---------------------------------------------------------------

@pytest.mark.parametrize("cost, expected", [
    ("0.1", Fraction(1, 10)),
    (0.1, Fraction(1, 10)),              # a Python float, read through its repr
    (Decimal("0.1"), Fraction(1, 10)),
    ("3/4", Fraction(3, 4)),
    ("6/8", Fraction(3, 4)),              # no spaces, no "+": docs/formats.md
    (2, Fraction(2)),
    ("7", Fraction(7)),
    ("1e-2", Fraction(1, 100)),
    ("2.5E1", Fraction(25)),
    (Fraction(5, 3), Fraction(5, 3)),
])
def test_costs_are_exact(cost, expected):
    p = Platform.from_dict(doc([arc("S", "A", cost=cost)]))
    assert p.cost("S", "A") == expected
    assert type(p.cost("S", "A")) is Fraction


def test_json_float_literal_is_its_decimal_text(tmp_path):
    path = tmp_path / "p.json"
    path.write_text('{"source": "S", "links": [{"from": "S", "to": "A", "cost": 0.1},'
                    ' {"from": "A", "to": "B", "cost": 1e-2, "startup": 0.3}]}')
    p = Platform.from_file(path)
    assert p.cost("S", "A") == Fraction(1, 10)       # not 3602879701896397/36028797018963968
    assert p.cost("A", "B") == Fraction(1, 100)
    assert p.links[1].startup == Fraction(3, 10)


@pytest.mark.parametrize("bandwidth, cost", [
    ("4", Fraction(1, 4)), (0.5, Fraction(2)), ("2/3", Fraction(3, 2)),
    ("12.5", Fraction(2, 25)),
])
def test_bandwidth_gives_cost_one_over_bandwidth(bandwidth, cost):
    p = Platform.from_dict(doc([arc("S", "A", bandwidth=bandwidth)]))
    assert p.cost("S", "A") == cost


def test_nodes_are_inferred_in_order_of_appearance():
    p = Platform.from_dict(doc([arc("S", "B", cost=1), arc("B", "A", cost=1)]))
    assert p.nodes == ("S", "B", "A")
    assert p.destinations == ("B", "A")


# -- round trips -------------------------------------------------------------------

def rich_platform():
    return Platform.from_dict(doc(
        [arc("S", "A", cost="1/3", startup="1/7"), arc("A", "B", bandwidth="0.25"),
         arc("S", "B", cost=2), arc("B", "A", cost="0.5")],
        name="rich", nodes=["S", "A", "B"], send_overhead={"A": "1/5", "S": 0}))


def test_to_dict_from_dict_round_trip():
    p = rich_platform()
    d = p.to_dict()
    assert d["links"][0] == {"from": "S", "to": "A", "cost": "1/3", "startup": "1/7"}
    assert d["links"][1] == {"from": "A", "to": "B", "cost": "4"}
    assert d["send_overhead"] == {"A": "1/5", "S": "0"}
    q = Platform.from_dict(copy.deepcopy(d))
    assert q == p
    assert q.name == "rich" and q.nodes == p.nodes and q.links == p.links
    assert q.to_dict() == d


def test_write_from_file_round_trip(tmp_path):
    p = rich_platform()
    path = tmp_path / "rich.json"
    p.write(path)
    q = Platform.from_file(path)
    assert q == p and q.links == p.links and q.name == p.name
    assert dict(q.send_overhead) == {"A": Fraction(1, 5), "S": Fraction(0)}
    assert json.loads(path.read_text())["format"] == "steady-platform"


def test_written_sample_is_byte_stable():
    text = (SAMPLES / "figure1.json").read_text()
    assert Platform.from_file(SAMPLES / "figure1.json").to_json().strip() == text.strip()


@settings(max_examples=examples(50), deadline=None)
@given(platforms(max_nodes=6))
def test_round_trip_property(p):
    assert Platform.from_dict(p.to_dict()) == p
    assert Platform.from_dict(json.loads(p.to_json())) == p


def test_equality_ignores_order_but_not_costs():
    p = Platform.from_dict(doc([arc("S", "A", cost=1), arc("S", "B", cost=2)]))
    q = Platform.from_dict(doc([arc("S", "B", cost=2), arc("S", "A", cost=1)]))
    r = Platform.from_dict(doc([arc("S", "B", cost=2), arc("S", "A", cost="1.5")]))
    assert p == q and hash(p) == hash(q)
    assert p != r


def test_default_platform_is_figure_1():
    p = default_platform()
    assert p == Platform.from_file(SAMPLES / "figure1.json")
    assert p.cost("P1", "P3") == Fraction(1, 2)
    assert not p.is_dag()
    assert Platform.from_file(SAMPLES / "figure5-dag.json").is_dag()


# -- networkx -------------------------------------------------------------------------

def test_from_networkx_with_cost_or_bandwidth():
    g = nx.DiGraph()
    g.add_edge("S", "A", cost="1/2")
    g.add_edge("A", "B", bandwidth=4, startup="0.1")
    g.add_edge("S", 7, cost=3)                         # node names become strings
    g.nodes["A"]["send_overhead"] = "1/3"
    p = Platform.from_networkx(g, "S", name="nx")
    assert p.cost("S", "A") == Fraction(1, 2)
    assert p.cost("A", "B") == Fraction(1, 4)
    assert {l.arc: l.startup for l in p.links} == {
        ("S", "A"): 0, ("S", "7"): 0, ("A", "B"): Fraction(1, 10)}
    assert p.cost("S", "7") == 3
    assert dict(p.send_overhead) == {"A": Fraction(1, 3)}
    assert p.name == "nx"
    back = p.to_networkx()
    assert back.edges["A", "B"]["cost"] == Fraction(1, 4)
    assert Platform.from_networkx(back, "S", name="nx") == p


def test_from_networkx_errors():
    input_error(lambda: Platform.from_networkx(nx.Graph([("S", "A")]), "S"),
                "<networkx>", "graph", "directed")
    g = nx.DiGraph()
    g.add_edge("S", "A", cost=1, bandwidth=1)
    input_error(lambda: Platform.from_networkx(g, "S"), "<networkx>", "links[0] (S->A)",
                "both given")
    g = nx.DiGraph()
    g.add_edge("S", "A")
    input_error(lambda: Platform.from_networkx(g, "S"), "<networkx>", "links[0] (S->A)",
                "neither given")


# -- validation: every error of DESIGN.md names origin, element and reason -------------

ORIGIN = "my-platform.json"


def parse(d):
    return lambda: Platform.from_dict(d, origin=ORIGIN)


def test_missing_source():
    d = doc([arc("S", "A", cost=1)])
    del d["source"]
    input_error(parse(d), ORIGIN, "source", "missing")


def test_unknown_source():
    d = doc([arc("S", "A", cost=1)], nodes=["S", "A"], source="Z")
    input_error(parse(d), ORIGIN, "source", "unknown source 'Z'")


@pytest.mark.parametrize("cost, shown", [("0", "got 0"), (-1, "got -1"), ("-3/4", "got -3/4"),
                                         ("0.0", "got 0")])
def test_cost_not_positive(cost, shown):
    err = input_error(parse(doc([arc("S", "A", cost=1), arc("A", "B", cost=cost)])),
                      ORIGIN, "links[1] (A->B).cost", "must be > 0")
    assert shown in err.reason


@pytest.mark.parametrize("cost", ["abc", "1/0", [1], True, None, "nan", "", {"v": 1}])
def test_cost_not_a_number(cost):
    err = input_error(parse(doc([arc("S", "A", cost=cost)])), ORIGIN,
                      "links[0] (S->A).cost", "")
    assert ("not a number" in err.reason or "zero denominator" in err.reason
            or err.reason == "missing number (null)")


def test_bandwidth_not_positive():
    input_error(parse(doc([arc("S", "A", bandwidth=0)])), ORIGIN,
                "links[0] (S->A).bandwidth", "must be > 0")


def test_both_cost_and_bandwidth():
    input_error(parse(doc([arc("S", "A", cost=1, bandwidth=2)])), ORIGIN,
                "links[0] (S->A)", "give exactly one of 'cost' and 'bandwidth' (both given)")


def test_neither_cost_nor_bandwidth():
    input_error(parse(doc([arc("S", "A", cost=1), arc("A", "B")])), ORIGIN,
                "links[1] (A->B)", "(neither given)")


def test_self_loop():
    input_error(parse(doc([arc("S", "A", cost=1), arc("A", "A", cost=1)])), ORIGIN,
                "links[1] (A->A)", "self-loop")


def test_duplicate_arc():
    input_error(parse(doc([arc("S", "A", cost=1), arc("S", "A", cost=2)])), ORIGIN,
                "links[1] (S->A)", "duplicate arc")


def test_opposite_arcs_are_not_duplicates():
    p = Platform.from_dict(doc([arc("S", "A", cost=1), arc("A", "S", cost=2)]))
    assert p.cost("A", "S") == 2


def test_unreachable_nodes_are_all_listed():
    d = doc([arc("S", "A", cost=1), arc("B", "C", cost=1), arc("C", "B", cost=1)],
            nodes=["S", "A", "B", "C", "D"])
    err = input_error(parse(d), ORIGIN, "nodes", "unreachable from the source 'S'")
    assert err.reason.endswith(": B, C, D")


def test_arc_into_the_source_does_not_make_a_node_reachable():
    d = doc([arc("S", "A", cost=1), arc("B", "S", cost=1)])
    err = input_error(parse(d), ORIGIN, "nodes", "unreachable")
    assert err.reason.endswith(": B")


@pytest.mark.parametrize("d", [doc([]), doc([], nodes=["S"])])
def test_no_destination(d):
    input_error(parse(d), ORIGIN, "nodes", "no destination")


def test_unknown_top_level_key_is_named():
    err = input_error(parse(doc([arc("S", "A", cost=1)], colour="red")), ORIGIN,
                      "key 'colour'", "unknown key")
    assert "links" in err.reason                       # the allowed keys are listed


def test_unknown_link_key_is_named():
    input_error(parse(doc([arc("S", "A", cost=1, weight=3)])), ORIGIN, "links[0]",
                "unknown key 'weight'")


def test_link_to_a_node_not_in_nodes():
    input_error(parse(doc([arc("S", "A", cost=1), arc("A", "X", cost=1)], nodes=["S", "A"])),
                ORIGIN, "links[1] (A->X)", "unknown node 'X'")


def test_link_missing_endpoint():
    input_error(parse(doc([{"from": "S", "cost": 1}])), ORIGIN, "links[0]", "missing 'to'")


def test_duplicate_node_in_document():
    input_error(parse(doc([arc("S", "A", cost=1)], nodes=["S", "A", "S"])), ORIGIN,
                "nodes[2]", "duplicate node 'S'")


def test_negative_startup_and_overhead():
    input_error(parse(doc([arc("S", "A", cost=1, startup=-1)])), ORIGIN,
                "links[0] (S->A).startup", "must be >= 0")
    input_error(parse(doc([arc("S", "A", cost=1)], send_overhead={"A": "-1/2"})), ORIGIN,
                "send_overhead['A']", "must be >= 0")
    input_error(parse(doc([arc("S", "A", cost=1)], send_overhead={"Q": 1})), ORIGIN,
                "send_overhead['Q']", "unknown node")


def test_wrong_format_and_version():
    input_error(parse(doc([arc("S", "A", cost=1)], format="steady-schedule")), ORIGIN,
                "format", "expected 'steady-platform'")
    input_error(parse(doc([arc("S", "A", cost=1)], version=2)), ORIGIN, "version",
                "unsupported version 2")
    # JSON true and 1.0 equal 1 in Python, but are not version 1
    input_error(parse(doc([arc("S", "A", cost=1)], version=True)), ORIGIN, "version",
                "unsupported version True")
    input_error(parse(doc([arc("S", "A", cost=1)], version=Decimal("1.0"))), ORIGIN,
                "version", "unsupported version Decimal('1.0')")


def test_document_not_an_object():
    input_error(parse([1, 2]), ORIGIN, "document", "JSON object")


def test_malformed_json_file_names_line_and_column(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"source": "S",\n "links": [\n  {"from": "S" "to": "A"}]}\n')
    input_error(lambda: Platform.from_file(path), str(path), "line 3 column 16",
                "malformed JSON")


def test_missing_file(tmp_path):
    path = tmp_path / "nowhere.json"
    input_error(lambda: Platform.from_file(path), str(path), "file", "no such file")


def test_error_in_file_names_the_file(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps(doc([arc("S", "A", cost="-2")])))
    input_error(lambda: Platform.from_file(path), str(path), "links[0] (S->A).cost", "> 0")


def test_absurd_exponent_is_rejected_quickly():
    input_error(parse(doc([arc("S", "A", cost="1e-1000000000")])), ORIGIN,
                "links[0] (S->A).cost", "exponent")


def test_constructor_validates_too():
    with pytest.raises(InputError, match="duplicate node 'A'"):
        Platform("S", [Link("S", "A", Fraction(1))], nodes=["S", "A", "A"])
    with pytest.raises(InputError, match="must be an exact number > 0"):
        Platform("S", [Link("S", "A", -0.5)])     # issue 21: Link itself refuses it
    with pytest.raises(InputError, match="duplicate node"):
        default_platform().relabel({"P3": "P4"})   # not a bijection


# -- immutability --------------------------------------------------------------------

def test_platform_is_immutable():
    p = default_platform()
    with pytest.raises(AttributeError):
        p.name = "other"
    with pytest.raises(AttributeError):
        p.source = "P1"
    with pytest.raises(AttributeError):
        del p.links
    with pytest.raises(TypeError):
        p.send_overhead["P1"] = Fraction(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.links[0].cost = Fraction(5)
    assert isinstance(p.links, tuple) and isinstance(p.nodes, tuple)
    assert p.cost("Ps", "P1") == 1 and p.name == "figure-1"


def test_derived_platforms_leave_the_original_alone():
    p = default_platform()
    q = p.scale_costs(Fraction(3, 2))
    assert q.cost("P1", "P3") == Fraction(3, 4) and p.cost("P1", "P3") == Fraction(1, 2)
    r = p.subplatform(lambda link: link.arc != ("P2", "P1"))
    assert r == Platform.from_file(SAMPLES / "figure5-dag.json")
    assert len(p.links) == 6
    with pytest.raises(InputError, match="unreachable from the source 'Ps': P3"):
        p.subplatform(lambda link: link.arc != ("P1", "P3"))
