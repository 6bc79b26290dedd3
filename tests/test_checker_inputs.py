"""The independent checkers take every platform the solvers take (issue 43's new-user
trial): ``check_collective(G, collective_throughput(G, kind))`` and ``check(G,
throughput(G))`` on a networkx DiGraph (ForestColl's style: ``capacity`` on the arcs, a
``switch`` marker), a dict or a path, as on a Platform."""

from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import networkx as nx
from hypothesis import HealthCheck, given, settings

from helpers import examples
from hypothesis import strategies as st

from steady.certificate import check, check_collective
from steady.strategies import switched_platforms
from steady.throughput import collective_throughput, throughput

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def forestcoll_graph(platform) -> nx.DiGraph:
    """The platform as ForestColl writes one: bandwidths, switches marked."""
    graph = nx.DiGraph(ports=platform.ports)
    for v in platform.nodes:
        graph.add_node(v, switch=v in platform.switches)
    for link in platform.links:
        graph.add_edge(link.tail, link.head, capacity=1 / Fraction(link.cost))
    return graph


def test_a_switch_and_three_gpus_as_a_digraph():
    graph = nx.DiGraph()
    for gpu in "abc":
        graph.add_edge(gpu, "s", capacity=2)
        graph.add_edge("s", gpu, capacity=2)
    graph.nodes["s"]["switch"] = True
    result = collective_throughput(graph, "allgather")
    assert result.rate == 1   # each GPU receives 2 roots' data through 2 units of in-link
    assert check_collective(graph, result).problems == []
    assert check(graph, result).problems == []
    assert not check_collective(graph, replace(result, rate=Fraction(2))).ok


@settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(switched_platforms(ports="multi-port"),
       st.sampled_from(["allgather", "reduce-scatter", "allreduce"]))
def test_the_collective_checker_takes_the_solver_s_digraph(platform, kind):
    graph = forestcoll_graph(platform)
    result = collective_throughput(graph, kind)
    assert result.rate == collective_throughput(platform, kind).rate
    assert check_collective(graph, result).ok
    assert check_collective(platform.to_dict(), result).ok
    # and it still refuses a rate above the certificate's
    assert not check_collective(graph, replace(result, rate=result.rate * 2)).ok


def test_the_broadcast_checker_takes_a_digraph_and_a_path():
    graph = nx.DiGraph(source="P0")
    graph.add_edge("P0", "P1", cost=1)
    graph.add_edge("P0", "P2", cost=2)
    graph.add_edge("P1", "P2", cost=1)
    result = throughput(graph)
    assert result.throughput == 1
    assert check(graph, result).problems == []
    path = SAMPLES / "figure1.json"
    assert check(path, throughput(path)).problems == []
