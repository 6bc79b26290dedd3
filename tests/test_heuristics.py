"""steady.heuristics: the single-tree heuristics of seed 000 (Alg 1-7, Multiport
Prune-Degree) and their registry.

Hand-derived cases (the derivation is in each test's comment), the slides' pruning example
(003: simple pruning 1/8, refined pruning and growing 1/5), and properties: every result is
a spanning arborescence of the platform (routed edges: paths of links), its throughput is
the model's formula, never above the MTP optimum in the one-port model, and the same in
every process.  The fast implementations are also checked against naive transcriptions
of the pseudo-code (proofs/heuristics.md, claims 1, 2 and 4).
"""

import subprocess
import sys
from fractions import Fraction

import networkx as nx
import pytest
from hypothesis import given, settings

from helpers import examples
from hypothesis import strategies as st

from steady import InputError, Link, Platform
from steady.generators import random_platform
from steady.heuristics.best_tree import best_tree
from steady.heuristics.lp_based import lp_grow_tree, lp_prune
from steady.heuristics.models import tree_throughput
from steady.heuristics.multi_port import multiport_growing_tree, multiport_prune_degree
from steady.heuristics.one_port import (PrunedGraph, arc_multiplicities, binomial_tree,
                                        growing_minimum_weighted_out_degree_tree,
                                        refined_platform_pruning, routed_throughput,
                                        simple_platform_pruning)
from steady.heuristics.registry import (NEEDS_LP, PAPER_LABELS, TreeResult,
                                        check_tree_result, heuristics_for, run_heuristics)
from steady.platform import default_platform
from steady.strategies import platforms
from steady.throughput import throughput

F = Fraction
SMALL = settings(max_examples=examples(40), deadline=None)


def platform(links, source="S", send=None) -> Platform:
    return Platform(source, [Link(u, v, F(c)) for u, v, c in links], send_overhead=send)


def with_send_overheads(p: Platform) -> Platform:
    """000 §5.1: send_u = 0.8 x the cheapest out-link of u."""
    send = {u: F(4, 5) * min(l.cost for l in p.out_links(u))
            for u in p.nodes if p.out_links(u)}
    return Platform(p.source, p.links, p.nodes, send_overhead=send)


def edges(parent):
    return {(p, c) for c, p in parent.items()}


# -- the slides' worked example (003) ----------------------------------------------------

# The slides' figure is not in the text we have; this platform is built to tell their
# story: S->A 2, S->B 3, S->C 3, A->B 5, A->C 5.
SLIDES = platform([("S", "A", 2), ("S", "B", 3), ("S", "C", 3),
                   ("A", "B", 5), ("A", "C", 5)])


def test_slides_simple_pruning_reaches_one_eighth():
    # Heaviest first: A->B, A->C removable (B, C still fed by S); S->B, S->C, S->A then
    # necessary. The star leaves S sending 2 + 3 + 3 = 8 per message: "throughput 1/8".
    tree = simple_platform_pruning(SLIDES)
    assert edges(tree) == {("S", "A"), ("S", "B"), ("S", "C")}
    assert tree_throughput(SLIDES, tree) == F(1, 8)


def test_slides_refined_pruning_reaches_one_fifth():
    # OutDegree S = 8, A = 10: A drops A->B (heaviest, removable): A = 5. Then S (8):
    # S->B (3, file order first) is now necessary, S->C is removable (A->C): S = 5.
    # Tree S->A, S->B, A->C: S sends 2 + 3, A sends 5: "throughput 1/5".
    tree = refined_platform_pruning(SLIDES)
    assert edges(tree) == {("S", "A"), ("S", "B"), ("A", "C")}
    assert tree_throughput(SLIDES, tree) == F(1, 5)


def test_slides_growing_tree_reaches_one_fifth():
    # S->A (2); then S->B = 2 + 3 = 5 ties A->B = 5 and A->C = 5: the smaller T wins
    # (S->B, 3); then S->C = 5 + 3 = 8 > A->C = 5. Same tree as refined pruning: 1/5.
    tree = growing_minimum_weighted_out_degree_tree(SLIDES)
    assert edges(tree) == {("S", "A"), ("S", "B"), ("A", "C")}
    assert tree_throughput(SLIDES, tree) == F(1, 5)


# -- hand-derived cases, one per algorithm -----------------------------------------------

def test_simple_and_refined_pruning_on_figure_1_give_the_best_tree():
    # 002 Figure 1. Simple: Ps->P1 (cost 1, first in file order) removable (P1 fed by P2,
    # reached via Ps->P2); Ps->P2 then necessary; P1->P2 removable; the rest necessary.
    # Refined: OutDegree Ps 2, P1 3/2, P2 3/2: Ps drops Ps->P1, then P1 (position before
    # P2) drops P1->P2. Both: Ps->P2, P2->P1, P1->P3, P2->P4; P2 sends 1 + 1/2: TP 2/3,
    # the best tree's value (002 §3.1.2).
    p = default_platform()
    expected = {("Ps", "P2"), ("P2", "P1"), ("P1", "P3"), ("P2", "P4")}
    for heuristic in (simple_platform_pruning, refined_platform_pruning):
        tree = heuristic(p)
        assert edges(tree) == expected
        assert tree_throughput(p, tree) == F(2, 3)


def test_growing_tree_follows_the_text_not_the_pseudo_code_update():
    # S->A 1, S->B 1, S->C 1, A->C 7/2. Text: cost(u, w) = out-degree of u with w added.
    # S->A (1, file order), S->B (1 + 1 = 2), then S->C = 2 + 1 = 3 < A->C = 7/2: the star,
    # S sends 3: TP 1/3. The pseudo-code's cost(u,w) += cost(u,v) would price S->C at
    # 1 + 1 + 2 = 4 > 7/2 and take A->C: TP 2/7.
    p = platform([("S", "A", 1), ("S", "B", 1), ("S", "C", 1), ("A", "C", "7/2")])
    tree = growing_minimum_weighted_out_degree_tree(p)
    assert edges(tree) == {("S", "A"), ("S", "B"), ("S", "C")}
    assert tree_throughput(p, tree) == F(1, 3)


def test_binomial_tree_on_figure_1_routes_missing_edges():
    # Indices Ps 0, P1 1, P2 2, P3 3, P4 4; m = 2: 0->2, 0->1, 2->3, then 4 from 0.
    # P2->P3 is no link: cheapest path P2 P1 P3 (3/2); Ps->P4: Ps P2 P4 (3/2, not
    # Ps P1 P2 P4 = 5/2). Copies: Ps->P2 twice, Ps->P1, P2->P1, P1->P3, P2->P4 once.
    # One-port: Ps sends 2 + 1 = 3, P2 sends 3/2, P1 receives 1 + 1 = 2: TP 1/3.
    # Multi-port with send 1/4: Ps period max(3 x 1/4, 2 x 1) = 2, P2 max(2/4, 1) = 1:
    # TP 1/2.
    p = default_platform()
    parent, routes = binomial_tree(p)
    assert parent == {"P2": "Ps", "P1": "Ps", "P3": "P2", "P4": "Ps"}
    assert routes == {("P2", "P3"): ["P2", "P1", "P3"], ("Ps", "P4"): ["Ps", "P2", "P4"]}
    assert arc_multiplicities(parent, routes) == {
        ("Ps", "P2"): 2, ("Ps", "P1"): 1, ("P2", "P1"): 1, ("P1", "P3"): 1, ("P2", "P4"): 1}
    assert routed_throughput(p, parent, routes) == F(1, 3)
    multi = Platform(p.source, p.links, p.nodes,
                     send_overhead={v: F(1, 4) for v in ("Ps", "P1", "P2")})
    assert routed_throughput(multi, parent, routes, "multi-port") == F(1, 2)


def test_binomial_relay_receptions_count_in_one_port():
    # S->A 1, S->B 1, B->A 3, A->C 1; indices S 0, A 1, B 2, C 3: 0->2, 0->1, 2->3.
    # B->C is routed B A C. Out-ports: S 2, B 3, A 1; A's in-port: 1 (from S) + 3 (the
    # relayed copy from B) = 4 binds: TP 1/4 (ignoring receptions would give 1/3).
    p = platform([("S", "A", 1), ("S", "B", 1), ("B", "A", 3), ("A", "C", 1)])
    parent, routes = binomial_tree(p)
    assert parent == {"B": "S", "A": "S", "C": "B"}
    assert routes == {("B", "C"): ["B", "A", "C"]}
    assert routed_throughput(p, parent, routes) == F(1, 4)


def test_binomial_falls_back_to_an_ancestor_when_the_sender_reaches_nothing():
    # S->A, S->B, S->C; logical edge B->C (index 2 -> 3) but B has no out-link: C gets
    # the message from B's logical parent S, over the link S->C.
    p = platform([("S", "A", 1), ("S", "B", 1), ("S", "C", 1)])
    assert binomial_tree(p) == ({"B": "S", "A": "S", "C": "S"}, {})


def test_binomial_reads_the_text_direction_for_the_last_nodes():
    # 3 nodes: m = 1, stage 0 gives 0->1, then node 2 receives from 2 - 2 = 0 (text),
    # not 2 sending to 0 (pseudo-code's SHORTEST-PATH(u, u - 2^m)).
    p = platform([("S", "A", 1), ("S", "B", 1)])
    assert binomial_tree(p) == ({"A": "S", "B": "S"}, {})


# The DAG of 002 Figure 5 and its optimal per-period counts /5 (DESIGN.md).
DAG = default_platform().subplatform(lambda l: l.arc != ("P2", "P1"))
DAG_N = {("Ps", "P1"): F(4, 5), ("Ps", "P2"): F(1, 5), ("P1", "P2"): F(3, 5),
         ("P1", "P3"): F(4, 5), ("P2", "P4"): F(4, 5)}


def test_lp_prune_deletes_the_fewest_messages_first_as_the_text_says():
    # Non-decreasing n: Ps->P2 (1/5) removable (P2 fed by P1), then P1->P2 (3/5) is
    # necessary, the others too: Figure 4's tree, TP 2/3. (The pseudo-code's
    # non-increasing order would delete P1->P2 and keep Figure 3's tree, TP 1/2.)
    tree = lp_prune(DAG, DAG_N)
    assert edges(tree) == {("Ps", "P1"), ("P1", "P2"), ("P1", "P3"), ("P2", "P4")}
    assert tree_throughput(DAG, tree) == F(2, 3)


def test_lp_prune_removes_the_slower_of_two_unused_arcs_first():
    # n = 0 everywhere except S->A: S->B (cost 2) and A->B (cost 1) tie at 0; the slower
    # S->B goes first, A->B then is necessary.
    p = platform([("S", "A", 1), ("S", "B", 2), ("A", "B", 1)])
    tree = lp_prune(p, {("S", "A"): F(1)})
    assert edges(tree) == {("S", "A"), ("A", "B")}


def test_lp_grow_takes_the_busiest_frontier_link():
    # From Ps: Ps->P1 (4/5) over Ps->P2 (1/5); then P1->P3 (4/5), P1->P2 (3/5), P2->P4.
    tree = lp_grow_tree(DAG, DAG_N)
    assert list(tree.items()) == [("P1", "Ps"), ("P3", "P1"), ("P2", "P1"), ("P4", "P2")]


# S->A 1, S->B 1, S->C 1, A->B 2, A->C 2; send_S = 1/2, send_A = 1.
MULTI = platform([("S", "A", 1), ("S", "B", 1), ("S", "C", 1),
                  ("A", "B", 2), ("A", "C", 2)], send={"S": F(1, 2), "A": F(1)})


def test_multiport_growing_tree_prices_the_serialized_sends():
    # Costs: S->x max(1/2, 1) = 1 (S->A, file order); S->B max(2/2, 1) = 1 < A->B 2;
    # S->C max(3/2, 1) = 3/2 < A->C 2: the star, period 3/2, TP 2/3. The one-port Alg 3
    # takes A->C (S->C would cost 3 > 2): in the multi-port model A's period 2, TP 1/2.
    tree = multiport_growing_tree(MULTI)
    assert edges(tree) == {("S", "A"), ("S", "B"), ("S", "C")}
    assert tree_throughput(MULTI, tree, "multi-port") == F(2, 3)
    one_port_tree = growing_minimum_weighted_out_degree_tree(MULTI)
    assert tree_throughput(MULTI, one_port_tree, "multi-port") == F(1, 2)


def test_multiport_prune_degree_prunes_the_longest_period_first():
    # Periods: S max(3/2, 1) = 3/2, A max(2 x 1, 2) = 2. A drops A->B (removable), stays
    # at 2 (T_AC = 2), drops A->C: the star, TP 2/3. Refined (one-port) pruning keeps
    # A->C: TP 1/2 in both models.
    tree = multiport_prune_degree(MULTI)
    assert edges(tree) == {("S", "A"), ("S", "B"), ("S", "C")}
    assert tree_throughput(MULTI, tree, "multi-port") == F(2, 3)
    assert tree_throughput(MULTI, refined_platform_pruning(MULTI), "multi-port") == F(1, 2)


# -- registry ----------------------------------------------------------------------------

def test_registry_models_follow_figures_4_and_5():
    assert heuristics_for("one-port") == ["simple-prune", "refined-prune",
                                          "grow-min-out-degree", "binomial", "lp-prune",
                                          "lp-grow"]
    assert heuristics_for("multi-port") == ["binomial", "lp-prune", "lp-grow",
                                            "multiport-grow", "multiport-prune-degree"]
    assert set(PAPER_LABELS.values()) == set(heuristics_for("one-port"))
    assert NEEDS_LP == {"lp-prune", "lp-grow"}


def test_run_heuristics_on_figure_1():
    # Hand values above: the pruning and growing heuristics reach 2/3, the binomial 1/3;
    # the LP heuristics never exceed the optimum 1.
    results = run_heuristics(default_platform(), "one-port")
    assert list(results) == heuristics_for("one-port")
    assert {n: r.throughput for n, r in results.items() if n not in NEEDS_LP} == {
        "simple-prune": F(2, 3), "refined-prune": F(2, 3), "grow-min-out-degree": F(2, 3),
        "binomial": F(1, 3)}
    assert all(r.throughput <= 1 and r.model == "one-port" for r in results.values())
    assert results["binomial"].routes and not results["simple-prune"].routes


def test_run_heuristics_computes_the_lp_only_when_needed(monkeypatch):
    import steady.throughput as tp

    def refuse(*args, **kwargs):
        raise AssertionError("the LP was computed")

    monkeypatch.setattr(tp, "throughput", refuse)
    out = run_heuristics(default_platform(), "one-port", names=["binomial", "simple-prune"])
    assert list(out) == ["binomial", "simple-prune"]


def test_run_heuristics_rejects_bad_requests():
    p = default_platform()
    with pytest.raises(InputError, match="send_overhead.Ps"):
        run_heuristics(p, "multi-port")
    with pytest.raises(ValueError, match="unknown heuristic"):
        run_heuristics(p, "one-port", names=["prim"])
    with pytest.raises(ValueError, match="does not run in the one-port model"):
        run_heuristics(p, "one-port", names=["multiport-grow"])
    with pytest.raises(ValueError, match="unknown model"):
        run_heuristics(p, "two-port")


def test_postcondition_catches_a_broken_result():
    p = default_platform()
    good = run_heuristics(p, "one-port", names=["simple-prune"])["simple-prune"]
    cyclic = TreeResult("x", "one-port", {"P1": "P2", "P2": "P1", "P3": "P1", "P4": "P2"},
                        good.throughput)
    with pytest.raises(AssertionError, match="postcondition"):
        check_tree_result(p, cyclic)
    wrong_value = TreeResult("x", "one-port", good.parent, good.throughput / 2)
    with pytest.raises(AssertionError, match="postcondition"):
        check_tree_result(p, wrong_value)
    bad_route = TreeResult("x", "one-port",
                           {"P1": "Ps", "P2": "Ps", "P3": "P2", "P4": "P2"},
                           F(1), {("P2", "P3"): ["P2", "P3"]})
    with pytest.raises(AssertionError, match="postcondition"):
        check_tree_result(p, bad_route)


# -- properties --------------------------------------------------------------------------

def _check_independently(p, result):
    """Spanning arborescence rooted at the source; routed edges are paths of links."""
    if not result.routes:
        p.check_arborescence(result.parent)
        assert result.throughput == tree_throughput(p, result.parent, result.model)
        return
    assert set(result.parent) == set(p.destinations)
    for child, par in result.parent.items():
        path = result.routes.get((par, child), [par, child])
        assert path[0] == par and path[-1] == child
        assert all(p.has_link(a, b) for a, b in zip(path, path[1:]))
    for v in p.destinations:               # every node reaches the source upwards
        seen = set()
        while v != p.source:
            assert v not in seen
            seen.add(v)
            v = result.parent[v]


@SMALL
@given(platforms(min_nodes=2, max_nodes=7, density=0.4))
def test_every_heuristic_gives_a_spanning_tree_below_the_mtp_optimum(p):
    """000 §3-4: every heuristic returns a broadcast tree; a single tree (routed or not)
    is one steady-state schedule, so TP(T) <= TP(G) (proofs/heuristics.md, claim 5)."""
    lp = throughput(p)
    for name, result in run_heuristics(p, "one-port", lp=lp).items():
        _check_independently(p, result)
        assert 0 < result.throughput <= lp.throughput, name
    multi = with_send_overheads(p)
    for result in run_heuristics(multi, "multi-port", lp=lp).values():
        _check_independently(multi, result)


@SMALL
@given(platforms(min_nodes=2, max_nodes=8, density=0.5))
def test_routed_throughput_without_routes_is_the_tree_formula(p):
    """proofs/heuristics.md, claim 5: without routed edges the routed formula is 002
    §3.1.2 eq. (1) (one-port) and the period formula of 000 §3.2 (multi-port)."""
    multi = with_send_overheads(p)
    for tree in (simple_platform_pruning(p), lp_grow_tree(p, {})):
        assert routed_throughput(p, tree, {}) == tree_throughput(p, tree)
        assert routed_throughput(multi, tree, {}, "multi-port") == \
            tree_throughput(multi, tree, "multi-port")


@settings(max_examples=examples(15), deadline=None)
@given(platforms(min_nodes=2, max_nodes=6, density=0.4))
def test_every_heuristic_is_at_most_the_exact_best_tree(p):
    """A heuristic's tree is one single tree; the routed Binomial Tree contains one that is
    at least as good (proofs/heuristics.md, claim 5): TP <= the exact best tree."""
    multi = with_send_overheads(p)
    for model, q in (("one-port", p), ("multi-port", multi)):
        best = best_tree(q, model, time_limit=10)
        assert best.optimal
        for name, result in run_heuristics(q, model).items():
            assert result.throughput <= best.throughput, (model, name)


def _reaches_all(source, nodes, arcs) -> bool:
    graph = nx.DiGraph(list(arcs))
    graph.add_nodes_from(nodes)
    return len(nx.descendants(graph, source)) == len(nodes) - 1


@settings(max_examples=examples(60), deadline=None)
@given(platforms(min_nodes=2, max_nodes=7, density=0.5), st.data())
def test_removability_test_matches_brute_force(p, data):
    """proofs/heuristics.md, claim 1: the test (some other in-neighbour reachable while
    avoiding v), with its memory of necessary arcs, agrees with a full reachability
    check after every removal."""
    graph = PrunedGraph(p)
    arcs = list(p.arcs)
    for arc in data.draw(st.permutations(list(p.arcs))):
        expected = _reaches_all(p.source, p.nodes, [a for a in arcs if a != arc])
        assert graph.removable(*arc) == expected
        if expected and data.draw(st.booleans()):
            graph.remove(*arc)
            arcs.remove(arc)


def _naive_refined(p, metric):
    """Alg 2 as printed: re-sort the nodes and arcs after every removal, test each arc
    with a full reachability check (the rule of 000 Alg 2, tie order of our docs)."""
    arcs = list(p.arcs)
    index = {a: i for i, a in enumerate(p.arcs)}
    while len(arcs) > len(p.nodes) - 1:
        for u in sorted(p.nodes, key=lambda x: (-metric(x, [b for a, b in arcs if a == x]),
                                                p.nodes.index(x))):
            out = sorted((a for a in arcs if a[0] == u),
                         key=lambda a: (-p.cost(*a), index[a]))
            arc = next((a for a in out if _reaches_all(
                p.source, p.nodes, [b for b in arcs if b != a])), None)
            if arc is not None:
                arcs.remove(arc)
                break
    return {b: a for a, b in arcs}


def _naive_grow(p, key):
    """Alg 3 / 5 / 7 as printed: every step, the minimum over all frontier links."""
    index = {a: i for i, a in enumerate(p.arcs)}
    parent, children = {}, {u: [] for u in p.nodes}
    reached = [p.source]
    while len(reached) < len(p.nodes):
        frontier = [l for l in p.links if l.tail in reached and l.head not in reached]
        link = min(frontier, key=lambda l: (*key(l, children[l.tail]), index[l.arc]))
        parent[link.head] = link.tail
        children[link.tail].append(link)
        reached.append(link.head)
    return parent


@SMALL
@given(platforms(min_nodes=2, max_nodes=7, density=0.5))
def test_fast_skeletons_choose_as_the_pseudo_code(p):
    """proofs/heuristics.md, claims 2 and 4: the heap-and-pointer pruning and the
    pointer-per-node growing make the same choices as the plain transcriptions."""
    multi = with_send_overheads(p)
    send = multi.send_overhead
    weighted = lambda u, heads: sum((p.cost(u, v) for v in heads), F(0))  # noqa: E731
    period = lambda u, heads: max([len(heads) * send.get(u, 0)]  # noqa: E731
                                  + [p.cost(u, v) for v in heads])
    assert refined_platform_pruning(p) == _naive_refined(p, weighted)
    assert multiport_prune_degree(multi) == _naive_refined(p, period)
    assert growing_minimum_weighted_out_degree_tree(p) == _naive_grow(
        p, lambda l, kids: (sum((k.cost for k in kids), l.cost), l.cost))
    assert multiport_growing_tree(multi) == _naive_grow(
        p, lambda l, kids: (max([(len(kids) + 1) * send[l.tail], l.cost]
                                + [k.cost for k in kids]), l.cost))


@pytest.mark.slow
def test_determinism_across_processes():
    """Ties are broken by the platform's orders only, never by set order: two processes
    with different string hash seeds build the same trees."""
    script = ("from steady.generators import random_platform\n"
              "from steady.heuristics.registry import run_heuristics\n"
              "for seed in (1, 2):\n"
              "    p = random_platform(20, 0.2, seed, multiport=True)\n"
              "    for model in ('one-port', 'multi-port'):\n"
              "        for n, r in run_heuristics(p, model).items():\n"
              "            print(model, n, r.throughput, sorted(r.parent.items()),"
              " sorted(r.routes.items()))\n")
    outputs = [subprocess.run([sys.executable, "-c", script], capture_output=True,
                              text=True, env={"PYTHONHASHSEED": str(h), "PATH": ""},
                              check=True).stdout for h in (1, 2)]
    assert outputs[0] == outputs[1] and outputs[0].count("\n") == 22
    p = random_platform(20, 0.2, 1, multiport=True)
    assert run_heuristics(p, "multi-port") == run_heuristics(p, "multi-port")
