"""steady.throughput: exact optimal steady-state throughput (seed 002 §3.1, §4, §5.2).

Known optima are read off the figures of seed 002; the properties are consequences of
the linear programs SSB(G) (§5.2), SSBPDAG(G) (§4.1) and TP(T) (§3.1.2 eq. (1)) and
every one is checked in exact arithmetic.  Also here: the two exact building blocks,
``steady.exact.arborescence.minimum_arborescence`` and ``steady.exact.lp``.
"""

from fractions import Fraction
from itertools import combinations, product
from pathlib import Path

import networkx as nx
import pytest
from hypothesis import given, settings

from helpers import examples
from hypothesis import strategies as st

from steady import InputError, Link, Platform
from steady.exact.arborescence import minimum_arborescence
from steady.certificate import check
from steady.strategies import exact_costs, platforms, relabelings, spanning_trees
from steady.throughput import (CertificationError, dag_throughput, throughput,
                               tree_formula, tree_throughput)
from steady.exact.lp import EQ, GE, LE, LinearProgram, _sympy_fallback
from steady.throughput.ports import port_loads

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
METHODS = ("trees", "cuts", "flow")

SMALL = settings(max_examples=examples(60), deadline=None)

F = Fraction


def load(name: str) -> Platform:
    return Platform.from_file(SAMPLES / name)


def small_platforms(**kw):
    kw.setdefault("min_nodes", 2)
    kw.setdefault("max_nodes", 7)
    return platforms(**kw)


def reachable_from_source(source, arcs) -> set:
    reached, stack = {source}, [source]
    while stack:
        u = stack.pop()
        for a, b in arcs:
            if a == u and b not in reached:
                reached.add(b)
                stack.append(b)
    return reached


@st.composite
def dag_subplatforms(draw, platform):
    """A DAG sub-platform spanning ``platform``: nodes are ordered by a drawn graph search
    from the source (each node is entered by an arc from an earlier node), and only the
    arcs going forward in that order are kept -- acyclic, and still every node is
    reachable from the source."""
    order = [platform.source]
    reached = {platform.source}
    while len(order) < len(platform.nodes):
        frontier = sorted({l.head for l in platform.links
                           if l.tail in reached and l.head not in reached},
                          key=platform.nodes.index)
        v = draw(st.sampled_from(frontier))
        order.append(v)
        reached.add(v)
    rank = {v: i for i, v in enumerate(order)}
    return platform.subplatform(lambda l: rank[l.tail] < rank[l.head])


# -- known optima: seed 002 Figures 1, 4, 5 (§3.1, §4.4) ------------------------------------

@pytest.mark.parametrize("method", METHODS)
def test_figure1_optimal_throughput_is_one(method):
    """002 §3.1.1: on the platform of Figure 1 the optimal throughput is 1."""
    p = load("figure1.json")
    result = throughput(p, method)
    assert result.throughput == 1
    assert result.period == 1
    assert result.scope == "graph"
    assert check(p, result).ok


def test_figure1_default_method_is_one():
    p = load("figure1.json")
    assert throughput(p).throughput == 1


def test_unknown_method_is_rejected():
    with pytest.raises(ValueError, match="unknown method"):
        throughput(load("figure1.json"), "simplex")


def test_figure5_dag_lp_gives_four_fifths_and_the_paper_counts():
    """002 §3.1.3 / §4.4: the DAG of Figure 5 has TP = 4/5 with q = 5 and q·n =
    Ps->P1 4, Ps->P2 1, P1->P2 3, P1->P3 4, P2->P4 4.

    In SSBPDAG these rates are forced (so any optimal vertex has them): P3, P4, P1 have a
    single in-link, so n(P1->P3) = n(P2->P4) = n(Ps->P1) = TP = 4/5; then the out-port of
    Ps gives n(Ps->P2) <= 1/5 and that of P1 gives n(P1->P2) <= 3/5, while P2 must
    receive n(Ps->P2) + n(P1->P2) = 4/5: both bounds are tight."""
    p = load("figure5-dag.json")
    result = dag_throughput(p)
    assert result.throughput == F(4, 5)
    assert result.period == F(5, 4)
    assert result.scope == "dag"
    q = 5
    assert {arc: q * x for arc, x in result.n.items()} == {
        ("Ps", "P1"): 4, ("Ps", "P2"): 1, ("P1", "P2"): 3, ("P1", "P3"): 4, ("P2", "P4"): 4}
    assert result.certificate.scale == q
    assert check(p, result).ok


@pytest.mark.parametrize("method", METHODS)
def test_figure5_graph_throughput_is_four_fifths(method):
    """002 §3.1.3 + Theorem 2: on a DAG, SSB(G) has the optimum of SSBPDAG(G), 4/5.

    SSB(G) only needs every destination to *be able to* receive TP (n bounds a flow), so
    n(P2->P4) is not determined (anything in [4/5, 2] is optimal); the other four rates
    are forced exactly as in the DAG LP (P1, P3 have one in-link; the Ps and P1 out-ports
    are then tight), so we assert those and only the bounds on P2->P4."""
    p = load("figure5-dag.json")
    result = throughput(p, method)
    assert result.throughput == F(4, 5)
    forced = {arc: x for arc, x in result.n.items() if arc != ("P2", "P4")}
    assert forced == {("Ps", "P1"): F(4, 5), ("Ps", "P2"): F(1, 5),
                      ("P1", "P2"): F(3, 5), ("P1", "P3"): F(4, 5)}
    assert F(4, 5) <= result.n[("P2", "P4")] <= 2
    assert check(p, result).ok


def test_figure4_tree_throughput_is_two_thirds():
    """002 §3.1.2 Figure 4: the tree Ps->P1, P1->P2, P1->P3, P2->P4 has TP(T) = 2/3
    (P1 spends 1 + 1/2 per message on its children)."""
    p = load("figure1.json")
    tree = {"P1": "Ps", "P2": "P1", "P3": "P1", "P4": "P2"}
    result = tree_throughput(p, tree)
    assert result.throughput == F(2, 3)
    assert tree_formula(p, tree) == F(2, 3)
    assert result.scope == "tree" and result.tree == tree
    assert {arc: x for arc, x in result.n.items() if x} == {
        ("Ps", "P1"): F(2, 3), ("P1", "P2"): F(2, 3), ("P1", "P3"): F(2, 3),
        ("P2", "P4"): F(2, 3)}
    assert check(p, result).ok
    # The sample file of that tree is a platform on its own: same value by any method.
    assert throughput(load("figure4-tree.json")).throughput == F(2, 3)


def test_figure3_tree_throughput_is_one_half():
    """002 §3.1.2 Figure 3: both P1 and P2 children of the source gives 1/2."""
    p = load("figure1.json")
    assert tree_throughput(p, {"P1": "Ps", "P2": "Ps", "P3": "P1", "P4": "P2"}
                           ).throughput == F(1, 2)


def test_tree_throughput_rejects_a_non_tree():
    p = load("figure1.json")
    with pytest.raises(InputError):
        tree_throughput(p, {"P1": "Ps", "P2": "P1", "P3": "P1"})  # P4 missing
    with pytest.raises(InputError):
        tree_throughput(p, {"P1": "P2", "P2": "P1", "P3": "P1", "P4": "P2"})  # a cycle
    with pytest.raises(InputError):
        tree_throughput(p, {"P1": "Ps", "P2": "Ps", "P3": "P2", "P4": "P2"})  # no P2->P3


def test_dag_throughput_rejects_a_cyclic_platform():
    """002 §4.1 applies to DAGs only: Figure 1 has the cycle P1 <-> P2."""
    with pytest.raises(InputError, match="cycle"):
        dag_throughput(load("figure1.json"))


def test_random10_all_methods_agree_exactly():
    p = load("random-10.json")
    results = {m: throughput(p, m) for m in METHODS}
    values = {r.throughput for r in results.values()}
    assert len(values) == 1
    tp = values.pop()
    assert isinstance(tp, Fraction) and tp > 0
    for r in results.values():
        assert check(p, r).ok


def test_single_link_platform():
    """One link of cost c: TP = 1/c."""
    p = Platform("s", [Link("s", "d", F(7, 3))])
    for m in METHODS:
        assert throughput(p, m).throughput == F(3, 7)
    assert dag_throughput(p).throughput == F(3, 7)


@pytest.mark.parametrize("method", METHODS)
def test_links_into_the_source_carry_nothing(method):
    """Regression: the flow LP let flows return to the source and its vertex put
    n = 1 on P1->P0 and on P2->P0, overloading the source's in-port (002 eq. (15)), so
    throughput(..., "flow") died on its own postcondition.  Star P0 -> P1, P2, P3 at cost
    1 with links back: TP = 1/3 (the source's out-port), nothing on links into P0."""
    p = Platform("P0", [Link("P0", "P1", F(1)), Link("P0", "P2", F(1)),
                        Link("P0", "P3", F(1)), Link("P1", "P0", F(1)),
                        Link("P2", "P0", F(1))])
    result = throughput(p, method)
    assert result.throughput == F(1, 3)
    assert result.n.get(("P1", "P0"), 0) == 0 and result.n.get(("P2", "P0"), 0) == 0
    assert {a: x for a, x in result.n.items() if x} == {
        ("P0", "P1"): F(1, 3), ("P0", "P2"): F(1, 3), ("P0", "P3"): F(1, 3)}
    assert check(p, result).ok


# -- properties of SSB(G) ----------------------------------------------------------------

@SMALL
@given(small_platforms(max_nodes=6), exact_costs())
def test_scaling_costs_divides_throughput(platform, a):
    """Homogeneity of SSB(G) (002 §5.2): if (n, TP) is feasible for costs c then
    (n/a, TP/a) is for costs a·c, and conversely, so TP(a·c) = TP(c)/a."""
    tp = throughput(platform).throughput
    assert throughput(platform.scale_costs(a)).throughput == tp / a


@settings(max_examples=examples(30), deadline=None)
@given(small_platforms(max_nodes=6), st.integers(-60, 60),
       st.sampled_from(["cuts", "trees", "flow"]))
def test_huge_and_tiny_costs_scale_the_throughput(platform, e, method):
    """Homogeneity again, at magnitudes beyond the float solver's tolerances: with
    every cost ~10^30 the rates are ~10^-30 and GLOP alone finds no optimum; the
    solvers work on costs normalised near 1 and scale the certified result back."""
    tp = throughput(platform, method).throughput
    big = platform.scale_costs(Fraction(10) ** e)
    result = throughput(big, method)
    assert result.throughput == tp / Fraction(10) ** e
    assert check(big, result).ok
    if platform.is_dag():
        assert dag_throughput(big).throughput == result.throughput


@SMALL
@given(small_platforms(max_nodes=6), st.data())
def test_adding_a_link_never_lowers_throughput(platform, data):
    """Monotonicity of SSB(G) (002 §5.2): every feasible (n, TP) stays feasible with
    n = 0 on a new link, so TP can only grow."""
    missing = [(u, v) for u in platform.nodes for v in platform.nodes
               if u != v and not platform.has_link(u, v)]
    if not missing:
        return
    u, v = data.draw(st.sampled_from(missing), label="new arc")
    c = data.draw(exact_costs(), label="cost")
    bigger = platform.replace_links(platform.links + (Link(u, v, c),))
    assert throughput(bigger).throughput >= throughput(platform).throughput


@pytest.mark.slow
@SMALL
@given(small_platforms(max_nodes=6), st.data())
def test_removing_a_link_never_raises_throughput(platform, data):
    """Monotonicity of SSB(G) (002 §5.2), the other way round: a solution of the smaller
    platform is one of the larger with n = 0 on the removed link."""
    removable = [l for l in platform.links
                 if reachable_from_source(platform.source,
                                          [a for a in platform.arcs if a != l.arc])
                 == set(platform.nodes)]
    if not removable:
        return
    gone = data.draw(st.sampled_from(removable), label="removed link")
    smaller = platform.subplatform(lambda l: l != gone)
    assert throughput(smaller).throughput <= throughput(platform).throughput


@SMALL
@given(small_platforms(), st.data())
def test_graph_beats_dag_beats_tree(platform, data):
    """002 §3.1 (trees < DAGs < graphs): TP(G) >= TP(DAG sub-platform) >= TP(T) for a
    spanning tree T of that DAG, since each solution is a solution of the larger problem
    (Theorem 2: SSBPDAG = SSB on a DAG)."""
    dag = data.draw(dag_subplatforms(platform), label="dag")
    assert dag.is_dag()
    tree = data.draw(spanning_trees(dag), label="tree")
    tp_graph = throughput(platform).throughput
    tp_dag = dag_throughput(dag).throughput
    tp_tree = tree_throughput(platform, tree).throughput
    assert tp_graph >= tp_dag >= tp_tree
    assert tree_throughput(dag, tree).throughput == tp_tree == tree_formula(platform, tree)


@SMALL
@given(small_platforms(dag=True))
def test_dag_lp_equals_graph_lp_on_a_dag(platform):
    """002 Theorem 2: on a DAG the optimum of SSBPDAG(G) is the optimal throughput,
    i.e. equals the optimum of SSB(G)."""
    assert platform.is_dag()
    assert dag_throughput(platform).throughput == throughput(platform).throughput


@SMALL
@given(small_platforms())
def test_flow_cuts_and_trees_agree(platform):
    """002 §5.2-§5.3: the per-destination flow LP SSB(G), its min-cut form (max-flow
    min-cut, Lemma 2) and the weighted-tree form (Edmonds' branching, Theorem 5) have
    the same optimum."""
    values = {m: throughput(platform, m).throughput for m in METHODS}
    assert values["trees"] == values["cuts"] == values["flow"], values


@pytest.mark.slow
@SMALL
@given(small_platforms(), st.data())
def test_relabelling_nodes_changes_nothing(platform, data):
    """002 §2: TP is a property of the graph (V, E, c, P_s), not of the node names."""
    mapping = data.draw(relabelings(platform), label="relabeling")
    renamed = platform.relabel(mapping)
    assert throughput(renamed).throughput == throughput(platform).throughput
    assert throughput(renamed, "trees").throughput == throughput(platform, "trees").throughput


@SMALL
@given(small_platforms())
def test_port_bounds(platform):
    """One-port bounds (002 §2 and eqs. (12)-(16)).  A destination d receives TP per time
    unit over its in-links (eq. (8)), each message costing at least the cheapest in-link,
    so TP · min_{(j,d)} c_{j,d} <= t_d^in <= 1.  The source must push TP per time unit
    across the cut {P_s} (eq. (7)), each message costing at least its cheapest out-link,
    so TP · min_{(s,k)} c_{s,k} <= t_s^out <= 1."""
    tp = throughput(platform).throughput
    for d in platform.destinations:
        assert tp <= 1 / min(l.cost for l in platform.in_links(d))
    assert tp <= 1 / min(l.cost for l in platform.out_links(platform.source))


@SMALL
@given(small_platforms(), st.sampled_from(METHODS))
def test_results_are_certified_and_consistent(platform, method):
    """Weak LP duality (proofs/certificate.md): every result carries rates n and port
    prices that an independent check accepts; period = 1/TP (002 §5.2 T* = 1/TP); n
    lives on links only and loads no port beyond one time unit (eqs. (12)-(16))."""
    result = throughput(platform, method)
    _assert_consistent(platform, result)


@SMALL
@given(small_platforms(dag=True))
def test_dag_results_are_certified_and_consistent(platform):
    """Same as above for SSBPDAG (002 §4.1, eqs. (2)-(6)), plus eq. (6): on a DAG every
    destination receives exactly TP."""
    result = dag_throughput(platform)
    _assert_consistent(platform, result)
    for d in platform.destinations:
        assert sum(result.n[l.arc] for l in platform.in_links(d)) == result.throughput


@SMALL
@given(small_platforms(), st.data())
def test_tree_results_are_certified_and_match_eq1(platform, data):
    """002 §3.1.2 eq. (1): TP(T) = 1 / max_u sum_{children k of u} c_{u,k}; the tree LP
    agrees, puts TP on every tree edge and nothing elsewhere."""
    tree = data.draw(spanning_trees(platform), label="tree")
    result = tree_throughput(platform, tree)
    loads = {}
    for child, par in tree.items():
        loads[par] = loads.get(par, 0) + platform.cost(par, child)
    assert result.throughput == 1 / max(loads.values())
    tree_arcs = {(p, c) for c, p in tree.items()}
    assert {a for a, x in result.n.items() if x} <= tree_arcs
    # eq. (6) on the tree: every node receives exactly TP from its parent.
    assert all(result.n[a] == result.throughput for a in tree_arcs)
    _assert_consistent(platform, result)


def _assert_consistent(platform, result):
    tp = result.throughput
    assert isinstance(tp, Fraction) and tp > 0
    assert result.period == 1 / tp
    assert all(platform.has_link(*arc) for arc in result.n)
    assert all(isinstance(x, Fraction) and x >= 0 for x in result.n.values())
    out_load, in_load = port_loads(platform, result.n)
    assert all(t <= 1 for t in out_load.values())
    assert all(t <= 1 for t in in_load.values())
    cert = result.certificate
    assert sum(cert.out_prices.values()) + sum(cert.in_prices.values()) == tp
    assert cert.min_tree_cost >= 1
    report = check(platform, result)
    assert report.ok, report.problems


@SMALL
@given(small_platforms(max_nodes=7), st.data())
def test_peeled_seed_trees_are_spanning_and_use_only_positive_rates(platform, data):
    """The master's seed trees (a search heuristic): spanning arborescences rooted at
    the source on arcs of positive rate, one per round until the rates stop spanning,
    and, peeling a share of a positive bottleneck, at least one while they span."""
    from steady.exact.arborescence import peeled_trees

    rates = {a: data.draw(st.sampled_from([0.0, 0.5, 1.0, 2.5]), label=str(a))
             for a in platform.arcs}
    prices = ([1.0] * len(platform.nodes), [0.5] * len(platform.nodes))
    trees = peeled_trees(platform, rates, prices, 5)
    assert len(trees) <= 5
    spanning = reachable_from_source(platform.source, [a for a, r in rates.items() if r])
    assert bool(trees) == (spanning == set(platform.nodes))
    for parent in trees:
        platform.check_arborescence(parent)
        assert all(rates[(u, v)] > 0 for v, u in parent.items())


@SMALL
@given(small_platforms(max_nodes=6))
def test_trees_of_the_tree_method_rebuild_the_result(platform):
    """002 §5.3 (weighted Edmonds, Theorem 5): the tree method returns spanning
    arborescences whose rates add up to TP and whose per-link sums are n."""
    result = throughput(platform, "trees")
    assert result.trees
    total = Fraction(0)
    n = {a: Fraction(0) for a in platform.arcs}
    for parent, rate in result.trees:
        platform.check_arborescence(parent)
        assert rate > 0
        total += rate
        for child, par in parent.items():
            n[(par, child)] += rate
    assert total == result.throughput
    assert n == {a: result.n.get(a, 0) for a in platform.arcs}
    assert len(result.trees) <= 2 * len(platform.nodes)   # a basis of <= 2|V| port rows


# -- minimum spanning arborescence (Chu-Liu/Edmonds) ----------------------------------------

@st.composite
def weighted_digraphs(draw, max_nodes=7):
    n = draw(st.integers(1, max_nodes))
    pairs = [(u, v) for u in range(n) for v in range(n) if u != v]
    arcs = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=len(pairs))
                if pairs else st.just([]))
    weights = draw(st.lists(st.integers(-5, 20), min_size=len(arcs), max_size=len(arcs)))
    return n, [(u, v, w) for (u, v), w in zip(arcs, weights)]


def _nx_minimum(n, arcs, root=0):
    """networkx's cheapest spanning arborescence rooted at ``root``.

    ``nx.minimum_spanning_arborescence`` (3.6) maps w to 2·max - min + 1 - w and takes a
    maximum branching, which need not be spanning when max - min >= 1/(n - 3): it then
    raises although an arborescence exists (e.g. 0->1 3, 1->2 3, 2->1 1, 2->3 2,
    3->2 1).  In that case we ask networkx's maximum branching with a shift large enough
    to force a spanning answer, K = (n-1)·max - (n-2)·min + 1 (the same cure as
    steady.certificate)."""
    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    for u, v, w in arcs:
        if v != root:
            g.add_edge(u, v, weight=w)
    try:
        t = nx.minimum_spanning_arborescence(g, attr="weight")
        return sum(g[u][v]["weight"] for u, v in t.edges)
    except nx.NetworkXException:
        pass
    ws = [d["weight"] for _, _, d in g.edges(data=True)]
    big = (n - 1) * max(ws) - (n - 2) * min(ws) + 1
    h = nx.DiGraph()
    h.add_nodes_from(range(n))
    h.add_weighted_edges_from((u, v, big - d["weight"]) for u, v, d in g.edges(data=True))
    b = nx.maximum_branching(h, attr="weight")
    if b.number_of_edges() != n - 1:
        return None
    return sum(g[u][v]["weight"] for u, v in b.edges)


def test_networkx_minimum_spanning_arborescence_is_the_flawed_oracle():
    """Documents why ``_nx_minimum`` needs its fallback (and steady.certificate its own
    transform): networkx 3.6 raises on a graph that has an arborescence of cost 8.  If
    a future networkx fixes this, the fallback is dead code and this test says so."""
    g = nx.DiGraph()
    g.add_weighted_edges_from([(0, 1, 3), (1, 2, 3), (2, 1, 1), (2, 3, 2), (3, 2, 1)])
    try:
        nx.minimum_spanning_arborescence(g)
        fixed = True
    except nx.NetworkXException:
        fixed = False
    if fixed:
        pytest.skip("networkx's minimum_spanning_arborescence no longer fails here")
    assert _nx_minimum(4, [(0, 1, 3), (1, 2, 3), (2, 1, 1), (2, 3, 2), (3, 2, 1)]) == 8
    assert minimum_arborescence(4, 0, [(0, 1, 3), (1, 2, 3), (2, 1, 1), (2, 3, 2),
                                       (3, 2, 1)])[0] == 8


def _assert_arborescence(n, root, arcs, chosen):
    heads = [arcs[i][1] for i in chosen]
    assert sorted(heads) == [v for v in range(n) if v != root]
    parent = {arcs[i][1]: arcs[i][0] for i in chosen}
    for v in range(n):
        seen = set()
        while v != root:
            assert v not in seen
            seen.add(v)
            v = parent[v]


@settings(max_examples=examples(300), deadline=None)
@given(weighted_digraphs())
def test_minimum_arborescence_matches_networkx(graph):
    """Edmonds' minimum branching (used by the certificate, 002 §5.3): same optimum as
    networkx's independent implementation; the arcs chosen form a spanning arborescence
    of that cost; None exactly when some node is unreachable from the root."""
    n, arcs = graph
    found = minimum_arborescence(n, 0, arcs)
    reachable = reachable_from_source(0, [(u, v) for u, v, _ in arcs])
    if reachable != set(range(n)):
        assert found is None
        return
    assert found is not None
    cost, chosen = found
    _assert_arborescence(n, 0, arcs, chosen)
    assert cost == sum(arcs[i][2] for i in chosen)
    if n > 1:
        assert cost == _nx_minimum(n, arcs)
    else:
        assert cost == 0 and chosen == []


def _brute_force_minimum(n, root, arcs):
    """Enumerate one in-arc per non-root node (parallel arcs allowed)."""
    into = {v: [i for i, (u, w, _) in enumerate(arcs) if w == v and u != v]
            for v in range(n) if v != root}
    best = None
    for choice in product(*into.values()):
        parent = {arcs[i][1]: arcs[i][0] for i in choice}
        ok = True
        for v in parent:
            seen = set()
            while v != root and ok:
                if v in seen:
                    ok = False
                seen.add(v)
                v = parent[v]
        if ok:
            cost = sum(arcs[i][2] for i in choice)
            best = cost if best is None else min(best, cost)
    return best


@settings(max_examples=examples(200), deadline=None)
@given(st.integers(2, 5).flatmap(lambda n: st.tuples(
    st.just(n), st.integers(0, n - 1),
    st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.integers(-3, 9)),
             max_size=9))))
def test_minimum_arborescence_with_parallel_arcs_any_root_matches_brute_force(case):
    """Edmonds' minimum branching with parallel arcs, self-loops and any root: equal to
    exhaustive enumeration of one in-arc per node."""
    n, root, arcs = case
    found = minimum_arborescence(n, root, arcs)
    best = _brute_force_minimum(n, root, arcs)
    if best is None:
        assert found is None
    else:
        cost, chosen = found
        _assert_arborescence(n, root, arcs, chosen)
        assert cost == best


def test_minimum_arborescence_exact_fractions():
    arcs = [(0, 1, F(1, 3)), (0, 2, F(5, 2)), (1, 2, F(1, 7)), (2, 1, F(1, 11))]
    cost, chosen = minimum_arborescence(3, 0, arcs)
    assert cost == F(1, 3) + F(1, 7) and sorted(chosen) == [0, 2]
    assert isinstance(cost, Fraction)


# -- the exact LP ------------------------------------------------------------------------

def _lp_fractional():
    """max x + y  s.t.  2x + y <= 4,  x + 3y <= 5: vertex (7/5, 6/5), value 13/5,
    duals (2/5, 1/5)."""
    lp = LinearProgram("hand-1")
    x = lp.add_variable("x", objective=1)
    y = lp.add_variable("y", objective=1)
    lp.add_row({x: 2, y: 1}, LE, 4, "a")
    lp.add_row({x: 1, y: 3}, LE, 5, "b")
    return lp


def _lp_eq_ge():
    """max 2x + 3y  s.t.  x + y == 5,  x >= 2,  x + 2y <= 100: on the line x + y = 5
    the objective is 15 - x, so x = 2, y = 3, value 13; duals: EQ 3, GE -1 (a >= row of a
    maximisation has a non-positive dual), the slack row 0; 5·3 + 2·(-1) = 13."""
    lp = LinearProgram("hand-2")
    x = lp.add_variable("x", objective=2)
    y = lp.add_variable("y", objective=3)
    lp.add_row({x: 1, y: 1}, EQ, 5, "eq")
    lp.add_row({x: 1}, GE, 2, "ge")
    lp.add_row({x: 1, y: 2}, LE, 100, "slack")
    return lp


@pytest.mark.parametrize("solve", [LinearProgram.solve_exact, _sympy_fallback],
                         ids=["glop+flint", "sympy"])
def test_exact_lp_fractional_vertex(solve):
    sol = solve(_lp_fractional())
    assert sol.value == F(13, 5)
    assert sol.x == [F(7, 5), F(6, 5)]
    assert sol.duals == [F(2, 5), F(1, 5)]
    assert all(isinstance(v, Fraction) for v in sol.x + sol.duals)


@pytest.mark.parametrize("solve", [LinearProgram.solve_exact, _sympy_fallback],
                         ids=["glop+flint", "sympy"])
def test_exact_lp_equality_and_ge_rows(solve):
    sol = solve(_lp_eq_ge())
    assert sol.value == 13
    assert sol.x == [2, 3]
    assert sol.duals == [3, -1, 0]


def test_exact_lp_degenerate_third_row_and_later_rows():
    """max 3x + 2y  s.t.  x + y <= 4,  x + 3y <= 7,  x <= 3: (3, 1), value 11, duals
    (2, 0, 1).  Then a cutting plane y <= 1/2 is added and the LP re-solved: (3, 1/2),
    value 10, duals (0, 0, 3, 2)."""
    lp = LinearProgram()
    x = lp.add_variable("x", objective=3)
    y = lp.add_variable("y", objective=2)
    lp.add_row({x: 1, y: 1}, LE, 4, "r1")
    lp.add_row({x: 1, y: 3}, LE, 7, "r2")
    lp.add_row({x: 1}, LE, 3, "r3")
    sol = lp.solve_exact()
    assert (sol.value, sol.x, sol.duals) == (11, [3, 1], [2, 0, 1])
    lp.add_row({y: 1}, LE, F(1, 2), "cut")
    sol = lp.solve_exact()
    assert (sol.value, sol.x, sol.duals) == (10, [3, F(1, 2)], [0, 0, 3, 2])
    # a new column (column generation): z with objective 5 using one unit of r1
    z = lp.add_variable("z", objective=5, column={0: 1})
    sol = lp.solve_exact()
    # r1: x + y + z <= 4 with x <= 3, y <= 1/2: z = 4 gives 20 > any use of x, y
    assert sol.value == 20 and sol.x[z] == 4 and sol.x[x] == 0 and sol.x[y] == 0


def test_exact_lp_unbounded_or_infeasible_raises():
    lp = LinearProgram()
    x = lp.add_variable("x", objective=1)
    lp.add_row({x: 1}, GE, 1, "x >= 1")
    with pytest.raises(CertificationError):
        lp.solve_exact()
    lp = LinearProgram()
    x = lp.add_variable("x", objective=1)
    lp.add_row({x: 1}, LE, -1, "x <= -1")
    with pytest.raises(CertificationError):
        lp.solve_exact()


def test_exact_lp_verify_rejects_a_wrong_vertex():
    lp = _lp_fractional()
    lp._verify([F(7, 5), F(6, 5)], [F(2, 5), F(1, 5)])        # the true optimum passes
    with pytest.raises(CertificationError):
        lp._verify([F(2), F(0)], [F(1, 2), F(0)])              # feasible, not optimal
    with pytest.raises(CertificationError):
        lp._verify([F(7, 5), F(7, 5)], [F(2, 5), F(1, 5)])     # infeasible
    with pytest.raises(CertificationError):
        lp._verify([F(7, 5), F(6, 5)], [F(1, 2), F(0)])        # dual infeasible (y: 1/2 < 1)


def _vertex_enumeration(c, rows, b):
    """max c·x, rows·x <= b, x >= 0 by exhaustive vertex enumeration in Fractions: every
    choice of k tight constraints among the rows and the bounds x_j = 0, solved exactly
    (Gauss-Jordan); the best feasible one is the optimum of a bounded LP."""
    k = len(c)
    cons = [(list(map(F, r)), F(bi)) for r, bi in zip(rows, b)]
    cons += [([F(int(i == j)) for i in range(k)], F(0)) for j in range(k)]
    best = None
    for chosen in combinations(range(len(cons)), k):
        m = [cons[i][0] + [cons[i][1]] for i in chosen]
        ok = True
        for col in range(k):
            piv = next((r for r in range(col, k) if m[r][col] != 0), None)
            if piv is None:
                ok = False
                break
            m[col], m[piv] = m[piv], m[col]
            m[col] = [a / m[col][col] for a in m[col]]
            for r in range(k):
                if r != col and m[r][col]:
                    m[r] = [a - m[r][col] * p for a, p in zip(m[r], m[col])]
        if not ok:
            continue
        x = [m[j][k] for j in range(k)]
        if all(v >= 0 for v in x) and all(
                sum(a * v for a, v in zip(r, x)) <= bi for r, bi in cons[:len(rows)]):
            value = sum(ci * v for ci, v in zip(c, x))
            best = value if best is None else max(best, value)
    return best


@settings(max_examples=examples(40), deadline=None)
@given(st.integers(1, 3).flatmap(lambda k: st.tuples(
    st.lists(st.integers(1, 9), min_size=k, max_size=k),
    st.lists(st.lists(st.integers(0, 6), min_size=k, max_size=k), min_size=1, max_size=3),
    st.lists(st.integers(1, 20), min_size=4, max_size=4))))
def test_exact_lp_matches_vertex_enumeration_on_random_packing_lps(case):
    """Fundamental theorem of LP: a bounded feasible LP attains its optimum at a vertex.
    GLOP's basis re-solved exactly gives that optimum on random packing LPs (max c·x,
    A x <= b, x >= 0, plus sum x <= b_0 to keep it bounded), and its x and duals pass
    the exact primal/dual check with equal values (strong duality).  sympy's exact
    simplex, the last resort, either agrees or raises CertificationError -- never a
    wrong or unverified answer (sympy 1.14's phase 1 sometimes fails here)."""
    c, rows, b = case
    k = len(c)
    rows = rows + [[1] * k]
    rhs = [b[i % 4] for i in range(len(rows))]
    lp = LinearProgram()
    for j in range(k):
        lp.add_variable(f"x{j}", objective=c[j])
    for i, row in enumerate(rows):
        lp.add_row({j: a for j, a in enumerate(row)}, LE, rhs[i], f"r{i}")
    optimum = _vertex_enumeration(c, rows, rhs)
    sol = lp.solve_exact()
    assert sol.value == optimum
    assert sum(y * bi for y, bi in zip(sol.duals, rhs)) == optimum
    lp._verify(sol.x, sol.duals)
    try:
        fallback = _sympy_fallback(lp)
    except CertificationError:
        return
    assert fallback.value == optimum


def test_sympy_fallback_raises_certification_error_not_sympy_errors():
    """Regression: sympy 1.14's linprog raises InfeasibleLPError ("Oscillating system")
    on the dual of max 2x + 3y + 3z, 2x + 3y <= 1, x + y + z <= 1 (optimum 3); the
    fallback must keep solve_exact's contract (verified optimum or CertificationError)."""
    lp = LinearProgram()
    for j, cj in enumerate((2, 3, 3)):
        lp.add_variable(f"x{j}", objective=cj)
    lp.add_row({0: 2, 1: 3}, LE, 1, "a")
    lp.add_row({0: 1, 1: 1, 2: 1}, LE, 1, "b")
    assert lp.solve_exact().value == 3
    try:
        assert _sympy_fallback(lp).value == 3
    except CertificationError:
        pass


def test_result_repr_is_a_readable_summary():
    """Like scipy's OptimizeResult: the value exact and decimal, the period, how it was
    found and proved, counts instead of the dicts."""
    text = repr(throughput(Platform.from_file(SAMPLES / "figure5-dag.json"), "trees"))
    lines = text.splitlines()
    assert lines[0] == "ThroughputResult(" and lines[-1] == ")"
    rows = dict(line.strip().split(": ", 1) for line in lines[1:-1])
    assert rows["throughput"] == "4/5 = 0.8" and rows["period"] == "5/4 = 1.25"
    assert rows["formulation"] == "trees (graph)" and rows["certified"] == "True"
    assert rows["rates"].endswith("trees") and "{" not in text
