"""Issue 21: what the Python API accepts -- exact numbers from Python (Link, Platform),
platforms as Platform / dict / networkx DiGraph, trees as dict / edge list / networkx
tree -- at every door (steady.inputs), and reprs that round-trip."""

from decimal import Decimal
from fractions import Fraction as F
from pathlib import Path

import networkx as nx
import pytest
from hypothesis import given, settings

from helpers import examples
from hypothesis import strategies as st

from steady import InputError, Link, Platform, default_platform
from steady.inputs import as_platform, as_tree
from steady.schedule import optimal_schedule, periodic_schedule
from steady.schedule.dag import dag_schedule
from steady.schedule.timed import timed_schedule
from steady.schedule_file import timed
from steady.strategies import platforms, platforms_with_tree, schedules
from steady.testing import NAMESPACE
from steady.throughput import dag_throughput, throughput, tree_throughput

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
FAST = settings(max_examples=examples(40), deadline=None)
FIGURE4 = [("Ps", "P1"), ("P1", "P2"), ("P1", "P3"), ("P2", "P4")]   # TP(T) = 2/3


# -- numbers from Python -----------------------------------------------------------------

@pytest.mark.parametrize("given_, exact", [
    (1, F(1)), (F(1, 3), F(1, 3)), (Decimal("0.25"), F(1, 4)), ("1/3", F(1, 3)),
    ("0.1", F(1, 10)), ("2", F(2)), (0.1, F(1, 10)), (0.5, F(1, 2)), ("1e-2", F(1, 100))])
def test_link_costs_are_read_exactly(given_, exact):
    link = Link("a", "b", given_, given_)
    assert type(link.cost) is F and link.cost == exact
    assert type(link.startup) is F and link.startup == exact


@pytest.mark.parametrize("cost, says", [
    (F(-1), "must be an exact number > 0, got -1"), (0, "> 0, got 0"), ("-1/2", "got -1/2"),
    (None, "got None"), (float("nan"), "got nan"), (float("inf"), "got inf"),
    (True, "got True"), ("abc", "got 'abc'"), ([1], "got [1]")])
def test_links_refuse_bad_costs_at_construction(cost, says):
    with pytest.raises(InputError) as info:
        Link("a", "b", cost)
    assert info.value.element == "Link('a', 'b').cost" and says in info.value.reason
    assert "exact number" in info.value.reason


def test_startup_may_be_zero_but_not_negative():
    assert Link("a", "b", 1, 0).startup == 0
    with pytest.raises(InputError, match=r"Link\('a', 'b'\)\.startup: must be an exact "
                                         r"number >= 0, got -1"):
        Link("a", "b", 1, -1)


def test_platform_from_python_numbers():
    p = Platform("a", [Link("a", "b", 1), Link("b", "c", 0.5), Link("a", "c", "1/3")],
                 send_overhead={"a": "1/4", "b": 0})
    assert [l.cost for l in p.links] == [1, F(1, 2), F(1, 3)]
    assert p.send_overhead == {"a": F(1, 4), "b": 0}
    with pytest.raises(InputError, match=r"send_overhead\['a'\]: must be an exact number "
                                         ">= 0, got -1"):
        Platform("a", [Link("a", "b", 1)], send_overhead={"a": -1})


# -- platforms at the doors --------------------------------------------------------------

def figure1_graph(attribute="cost", source=True):
    g = nx.DiGraph()
    for l in default_platform().links:
        g.add_edge(l.tail, l.head, **{attribute: l.cost if attribute != "bandwidth"
                                      else 1 / l.cost})
    if source:
        g.graph["source"] = "Ps"
    return g


@pytest.mark.parametrize("attribute", ["cost", "bandwidth", "weight"])
def test_networkx_platforms_with_cost_bandwidth_or_weight(attribute):
    p = as_platform(figure1_graph(attribute))
    assert p == default_platform()
    assert throughput(figure1_graph(attribute)).throughput == 1


def test_networkx_weight_is_the_cost_only_without_cost_or_bandwidth():
    g = nx.DiGraph()
    g.add_edge("s", "t", cost=2, weight=7)
    g.add_edge("t", "u", bandwidth=4, weight=7)
    g.add_edge("s", "u", weight=0.5)                   # a float, by its decimal text
    p = as_platform(g)
    assert (p.cost("s", "t"), p.cost("t", "u"), p.cost("s", "u")) == (2, F(1, 4), F(1, 2))


def test_networkx_source_defaults_to_the_one_node_without_in_link():
    g = figure1_graph(source=False)
    assert as_platform(g).source == "Ps"
    g.add_edge("P4", "Ps", cost=1)                     # now every node has an in-link
    with pytest.raises(InputError, match=r"graph\['source'\]: say which node broadcasts"):
        as_platform(g)
    g.graph["source"] = "P1"
    assert as_platform(g).source == "P1"


def test_networkx_integer_nodes_become_names():
    g = nx.DiGraph([(0, 1), (1, 2), (0, 2)])
    nx.set_edge_attributes(g, 1, "weight")
    p = as_platform(g)
    assert p.source == "0" and p.nodes == ("0", "1", "2")
    assert tree_throughput(g, {1: 0, 2: 1}).throughput == 1
    assert tree_throughput(g, [(0, 1), (0, 2)]).throughput == F(1, 2)


def test_networkx_errors_name_the_element():
    with pytest.raises(InputError, match="must be a directed graph"):
        as_platform(nx.Graph([("s", "t")]))
    g = nx.DiGraph([("s", "t")])
    with pytest.raises(InputError, match=r"links\[0\] \(s->t\): give one of 'cost', "
                                         "'bandwidth', 'capacity' or 'weight'"):
        as_platform(g)
    g["s"]["t"]["weight"] = -1
    with pytest.raises(InputError, match=r"links\[0\] \(s->t\)\.weight: must be > 0"):
        as_platform(g)


def test_platform_documents_and_paths():
    p = default_platform()
    assert as_platform(p) is p
    assert as_platform(p.to_dict()) == p
    assert throughput(p.to_dict()).throughput == 1
    assert as_platform(SAMPLES / "figure1.json") == p
    with pytest.raises(InputError, match=r"<dict>: source: missing"):
        as_platform({"links": []})
    with pytest.raises(TypeError, match="expected a Platform, a steady-platform document"):
        throughput("samples/figure1.json")              # a str is not taken for a path
    with pytest.raises(TypeError, match="got list"):
        as_platform([("a", "b")])


def summary(s):
    # Not the links used: with the arcs in another order, another optimum may be built.
    return s.throughput


@FAST
@given(platforms(max_nodes=6, dag=True))
def test_every_door_accepts_every_form_of_platform(p):
    """The same exact results from a Platform, its document and its networkx graph."""
    g = p.to_networkx()
    g.graph["source"] = p.source
    forms = [p, p.to_dict(), g]
    assert len({throughput(x).throughput for x in forms}) == 1
    assert len({dag_throughput(x).throughput for x in forms}) == 1
    result = throughput(p)
    # (a graph lists its arcs by node: steps and trees may differ, not the numbers)
    assert len({summary(optimal_schedule(x, result)[0]) for x in forms}) == 1
    assert len({dag_schedule(x)[0].throughput for x in forms}) == 1


def test_schedule_builders_accept_documents_and_graphs():
    p = default_platform()
    g = figure1_graph("weight")
    result = throughput(p, "trees")
    assert optimal_schedule(g, result)[0] == optimal_schedule(p, result)[0]
    assert timed_schedule(p.to_dict(), result, 10)[0] == timed_schedule(p, result, 10)[0]
    tree = {"P1": "Ps", "P2": "P1", "P3": "P1", "P4": "P2"}
    assert periodic_schedule(g, [(tree, 1)], 1) == periodic_schedule(p, [(tree, 1)], 1)


# -- trees at the doors ----------------------------------------------------------------

def test_tree_forms():
    p = default_platform()
    parent = {"P1": "Ps", "P2": "P1", "P3": "P1", "P4": "P2"}
    forms = [lambda: parent, lambda: FIGURE4, lambda: tuple(FIGURE4), lambda: iter(FIGURE4),
             lambda: nx.DiGraph(FIGURE4),
             lambda: nx.Graph([(b, a) for a, b in FIGURE4])]   # undirected: oriented from Ps
    for form in forms:
        assert as_tree(p, form()) == parent
        assert tree_throughput(p, form()).throughput == F(2, 3)
    assert tree_throughput(p.to_dict(), FIGURE4).throughput == F(2, 3)


@pytest.mark.parametrize("tree, element, says", [
    ([("Ps", "P1"), ("P1", "P2"), ("P1", "P3")], "edges", "no parent for: P4"),
    ([("Ps", "P1"), ("P2", "P1")], "edges[1]", "P1 has two parents, Ps and P2"),
    ([("Ps", "P1", "x")], "edges[0]", "an edge is a pair (parent, child)"),
    (["Ps"], "edges[0]", "an edge is a pair"),
    ([("Ps", "P3"), ("Ps", "P1"), ("P1", "P2"), ("P2", "P4")], "edge Ps->P3",
     "not a link of the platform"),
    ({"P1": "P2", "P2": "P1", "P3": "P1", "P4": "P2"}, "edges", "cycle")])
def test_bad_trees_are_input_errors(tree, element, says):
    with pytest.raises(InputError) as info:
        tree_throughput(default_platform(), tree)
    assert info.value.element == element and says in info.value.reason


def test_a_tree_of_the_wrong_kind_is_a_type_error():
    with pytest.raises(TypeError, match="expected a tree as a"):
        as_tree(default_platform(), 3)


@FAST
@given(platforms_with_tree(max_nodes=6))
def test_tree_forms_agree(pair):
    p, parent = pair
    edges = [(par, child) for child, par in parent.items()]
    assert as_tree(p, edges) == as_tree(p, nx.DiGraph(edges)) == parent
    assert tree_throughput(p, edges).throughput == tree_throughput(p, parent).throughput


# -- reprs ------------------------------------------------------------------------------

def test_small_reprs_are_short_and_readable():
    assert repr(Link("a", "b", 1)) == "Link('a', 'b', 1)"
    assert repr(Link("a", "b", "0.5", 2)) == "Link('a', 'b', '1/2', startup=2)"
    p = Platform("a", [Link("a", "b", F(1, 3))])
    assert repr(p) == "Platform('a', [Link('a', 'b', '1/3')])"
    assert repr(Platform("a", [Link("a", "b", 1)], nodes=["b", "a"], name="x",
                         send_overhead={"a": "1/4"})) == (
        "Platform('a', [Link('a', 'b', 1)], nodes=['b', 'a'], name='x', "
        "send_overhead={'a': '1/4'})")


def roundtrip(x):
    back = eval(repr(x), dict(NAMESPACE))
    assert back == x and repr(back) == repr(x)
    return back


def test_figure1_roundtrips():
    p = default_platform()
    assert roundtrip(p).name == "figure-1"
    s, _ = optimal_schedule(p, throughput(p))
    assert roundtrip(s).certificate == s.certificate
    assert roundtrip(timed(s)).version == 2


@FAST
@given(platforms(max_nodes=6, exact_costs=False), st.data())
def test_reprs_roundtrip(p, data):
    roundtrip(p)
    for link in p.links:
        roundtrip(link)
    roundtrip(data.draw(schedules(p, optimal=data.draw(st.booleans(), label="optimal"))))


def test_scale_costs_reads_factors_exactly():
    p = default_platform()
    assert p.scale_costs(0.1).cost("Ps", "P1") == F(1, 10)       # not the binary double
    assert p.scale_costs("1/3").cost("P1", "P3") == F(1, 6)
    with pytest.raises(InputError, match=r"scale_costs\(factor\): must be an exact number > 0"):
        p.scale_costs(0)
