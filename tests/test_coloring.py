"""steady.schedule.matchings: weighted bipartite edge colouring, seed 002 §4.2 Lemma 1 and §5.4.1
Theorem 6 (proofs/edge-coloring.md).

Every property of Theorem 6 is recomputed here from the input weights and the returned
matchings (``assert_theorem6``), independently of ``steady.schedule.matchings.check_coloring``;
``check_coloring`` itself is tested on corrupted colourings.
"""

import random
from dataclasses import FrozenInstanceError

import pytest
from hypothesis import given, settings

from helpers import examples
from hypothesis import strategies as st

from steady.schedule.matchings import Matching, check_coloring, weighted_edge_coloring

SMALL = settings(max_examples=examples(120), deadline=None)

NAMES = ["Ps", "P1", "P2", "P3", "P4", "P5", "P6", "P7"]
HUGE = 2**400

# 002 Figure 5 / §4.4 (Figure 1 without P2->P1): q = 5 messages per period, times
# count x cost: Ps->P1 4x1, Ps->P2 1x1, P1->P2 3x1, P1->P3 4x1/2, P2->P4 4x1/2.
FIGURE5_TIMES = {("Ps", "P1"): 4, ("Ps", "P2"): 1, ("P1", "P2"): 3,
                 ("P1", "P3"): 2, ("P2", "P4"): 2}
# 002 Figure 1 at throughput 1 (Figure 2's schedule), times doubled to integers: every
# link carries half a message per time unit; P1 and P2 exchange in both directions.
FIGURE1_TIMES = {("Ps", "P1"): 1, ("Ps", "P2"): 1, ("P1", "P2"): 1,
                 ("P2", "P1"): 1, ("P1", "P3"): 1, ("P2", "P4"): 1}


def assert_theorem6(weights, matchings):
    """002 Theorem 6, recomputed from scratch."""
    assert isinstance(matchings, list)
    for m in matchings:
        assert isinstance(m, Matching)
        assert type(m.weight) is int and m.weight > 0
        senders = [j for j, _ in m.edges]
        receivers = [k for _, k in m.edges]
        assert len(set(senders)) == len(senders), m
        assert len(set(receivers)) == len(receivers), m
        assert m.edges, "empty matching"
    for edge, w in weights.items():
        assert sum(m.weight for m in matchings if edge in m.edges) == w, edge
    assert all(e in weights for m in matchings for e in m.edges)
    out_deg, in_deg = {}, {}
    for (j, k), w in weights.items():
        out_deg[j] = out_deg.get(j, 0) + w
        in_deg[k] = in_deg.get(k, 0) + w
    delta = max([0, *out_deg.values(), *in_deg.values()])
    assert sum(m.weight for m in matchings) == delta
    assert len(matchings) <= len(weights)
    # merged: no two matchings with the same edge set
    assert len({frozenset(m.edges) for m in matchings}) == len(matchings)


# --- strategies -------------------------------------------------------------------

def edge_weights():
    return st.one_of(st.integers(1, 6), st.integers(1, HUGE))


@st.composite
def bipartite_graphs(draw, names=NAMES):
    """Random weighted bipartite graphs: senders and receivers drawn from one name
    pool, so (j, k) and (k, j), and j_out -> j_in, all occur."""
    pairs = draw(st.sets(st.tuples(st.sampled_from(names), st.sampled_from(names)),
                         min_size=1, max_size=30))
    return {p: draw(edge_weights()) for p in sorted(pairs)}


@st.composite
def stars(draw):
    centre = draw(st.sampled_from(NAMES))
    leaves = draw(st.sets(st.sampled_from(NAMES), min_size=1))
    outward = draw(st.booleans())
    return {((centre, x) if outward else (x, centre)): draw(edge_weights())
            for x in sorted(leaves)}


@st.composite
def complete_bipartite(draw):
    senders = draw(st.sets(st.sampled_from(NAMES), min_size=1, max_size=6))
    receivers = draw(st.sets(st.sampled_from(NAMES), min_size=1, max_size=6))
    return {(j, k): draw(edge_weights()) for j in sorted(senders) for k in sorted(receivers)}


@st.composite
def regular_graphs(draw):
    """Sums of weighted perfect matchings on n x n: already Delta-regular."""
    n = draw(st.integers(1, 6))
    weights = {}
    for _ in range(draw(st.integers(1, 6))):
        perm = draw(st.permutations(range(n)))
        w = draw(edge_weights())
        for i, p in enumerate(perm):
            e = (f"s{i}", f"r{p}")
            weights[e] = weights.get(e, 0) + w
    return weights


def components(weights):
    parent = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    for j, k in weights:
        parent[find(("out", j))] = find(("in", k))
    return len({find(x) for x in list(parent)})


# --- Theorem 6 properties ---------------------------------------------------------

@SMALL
@given(bipartite_graphs())
def test_theorem6_random_graphs(weights):
    assert_theorem6(weights, weighted_edge_coloring(weights))


@SMALL
@given(stars())
def test_theorem6_stars(weights):
    matchings = weighted_edge_coloring(weights)
    assert_theorem6(weights, matchings)
    # a star is its own conflict: one edge per matching, one matching per edge
    assert sorted(m.edges for m in matchings) == sorted((e,) for e in weights)
    assert all(m.weight == weights[m.edges[0]] for m in matchings)


@SMALL
@given(complete_bipartite())
def test_theorem6_complete_bipartite(weights):
    assert_theorem6(weights, weighted_edge_coloring(weights))


@SMALL
@given(regular_graphs())
def test_theorem6_regular_graphs_dimension_bound(weights):
    """Already regular: no dummy edges, and the peeling bound of the proof note is the
    Birkhoff-von Neumann dimension |E| - |V'| + c + 1."""
    matchings = weighted_edge_coloring(weights)
    assert_theorem6(weights, matchings)
    vertices = len({j for j, _ in weights}) + len({k for _, k in weights})
    assert len(matchings) <= len(weights) - vertices + components(weights) + 1
    # every matching is perfect in a regular graph
    n = vertices // 2
    assert all(len(m.edges) == n for m in matchings)


@SMALL
@given(st.sampled_from(NAMES), st.sampled_from(NAMES), edge_weights())
def test_theorem6_single_edge(j, k, w):
    assert weighted_edge_coloring({(j, k): w}) == [Matching(((j, k),), w)]


@SMALL
@given(bipartite_graphs(), st.randoms(use_true_random=False))
def test_deterministic_in_input_order(weights, rnd):
    items = list(weights.items())
    rnd.shuffle(items)
    assert weighted_edge_coloring(dict(items)) == weighted_edge_coloring(weights)


def test_empty_graph():
    assert weighted_edge_coloring({}) == []
    check_coloring({}, [])


# --- exact examples ---------------------------------------------------------------

def test_figure5_one_period_times():
    """002 §4.4: the DAG optimum 4/5 with q = 5; the colouring fills the period 5."""
    matchings = weighted_edge_coloring(FIGURE5_TIMES)
    assert_theorem6(FIGURE5_TIMES, matchings)
    assert matchings == [
        Matching((("P1", "P2"), ("P2", "P4"), ("Ps", "P1")), 2),
        Matching((("P1", "P2"), ("Ps", "P1")), 1),
        Matching((("P1", "P3"), ("Ps", "P1")), 1),
        Matching((("P1", "P3"), ("Ps", "P2")), 1),
    ]


def test_figure1_throughput_one():
    """002 Figure 2: throughput 1 on Figure 1; two steps of length 1 (period 2 at the
    doubled time scale), P1->P2 and P2->P1 in different steps' sender slots."""
    matchings = weighted_edge_coloring(FIGURE1_TIMES)
    assert_theorem6(FIGURE1_TIMES, matchings)
    assert matchings == [
        Matching((("P1", "P2"), ("P2", "P4"), ("Ps", "P1")), 1),
        Matching((("P1", "P3"), ("P2", "P1"), ("Ps", "P2")), 1),
    ]


def test_same_name_both_sides_are_different_vertices():
    weights = {("A", "A"): 3, ("A", "B"): 2, ("B", "A"): 5}
    matchings = weighted_edge_coloring(weights)
    assert_theorem6(weights, matchings)
    assert sum(m.weight for m in matchings) == 8  # A_in receives 3 + 5
    # (A,B) and (B,A) share no endpoint (A_out, B_in vs B_out, A_in): one step holds both
    assert any(set(m.edges) == {("A", "B"), ("B", "A")} for m in matchings)


def test_huge_weights_exact():
    big = 3**300
    weights = {("a", "x"): big, ("a", "y"): big + 1, ("b", "x"): 2 * big + 1, ("b", "y"): 7}
    matchings = weighted_edge_coloring(weights)
    assert_theorem6(weights, matchings)
    assert sum(m.weight for m in matchings) == 2 * big + 1 + big


def test_larger_random_instance():
    rng = random.Random(2024)
    names = [f"P{i}" for i in range(65)]
    weights = {}
    while len(weights) < 500:
        j, k = rng.sample(names, 2)
        weights[(j, k)] = rng.randrange(1, 2**300)
    assert_theorem6(weights, weighted_edge_coloring(weights))


def test_matching_is_frozen():
    m = Matching((("a", "b"),), 1)
    with pytest.raises(FrozenInstanceError):
        m.weight = 2


# --- bad input --------------------------------------------------------------------

@pytest.mark.parametrize("weights, error, message", [
    ({("a", "b"): 0}, ValueError, "not positive"),
    ({("a", "b"): -3}, ValueError, "not positive"),
    ({("a", "b"): 1.0}, TypeError, "not an int"),
    ({("a", "b"): True}, TypeError, "not an int"),
    ({("a", "b", "c"): 1}, TypeError, "pair"),
    ({("a", 1): 1}, TypeError, "pair"),
    ([(("a", "b"), 1)], TypeError, "mapping"),
])
def test_rejects_bad_input(weights, error, message):
    with pytest.raises(error, match=message):
        weighted_edge_coloring(weights)


# --- check_coloring rejects corrupted colourings ----------------------------------

def valid():
    return FIGURE5_TIMES, weighted_edge_coloring(FIGURE5_TIMES)


def test_check_accepts_valid():
    check_coloring(*valid())


def test_check_rejects_changed_weight():
    weights, ms = valid()
    ms[0] = Matching(ms[0].edges, ms[0].weight + 1)
    message = r"edge \('P1', 'P2'\): matchings cover 4, its weight is 3"
    with pytest.raises(AssertionError, match=message):
        check_coloring(weights, ms)


def test_check_rejects_dropped_edge():
    weights, ms = valid()
    ms[3] = Matching(ms[3].edges[:1], ms[3].weight)  # drops ('Ps', 'P2')
    with pytest.raises(AssertionError, match=r"\('Ps', 'P2'\): matchings cover 0"):
        check_coloring(weights, ms)


def test_check_rejects_shared_sender():
    weights, ms = valid()
    ms[2] = Matching(ms[2].edges + (("Ps", "P2"),), ms[2].weight)
    with pytest.raises(AssertionError, match=r"share sender 'Ps'"):
        check_coloring(weights, ms)


def test_check_rejects_shared_receiver():
    weights = {("a", "x"): 1, ("b", "x"): 1}
    with pytest.raises(AssertionError, match=r"share receiver 'x'"):
        check_coloring(weights, [Matching((("a", "x"), ("b", "x")), 1)])


def test_check_rejects_unknown_edge_and_bad_weight():
    weights, ms = valid()
    with pytest.raises(AssertionError, match="not in the graph"):
        check_coloring(weights, ms + [Matching((("P3", "P4"),), 1)])
    for bad in (0, -1, True, 1.0):
        with pytest.raises(AssertionError, match="not a positive int"):
            check_coloring(weights, [Matching(ms[0].edges, bad)] + ms[1:])


def test_check_rejects_wrong_total_and_too_many_matchings():
    # weights covered but total != Delta: a 2-edge matching split into two steps
    weights = {("a", "x"): 1, ("b", "y"): 1}
    message = r"sum of matching weights 2 != max weighted degree 1"
    with pytest.raises(AssertionError, match=message):
        check_coloring(weights, [Matching((("a", "x"),), 1), Matching((("b", "y"),), 1)])
    # right total and coverage, but more matchings than edges
    weights = {("a", "x"): 2}
    with pytest.raises(AssertionError, match=r"2 matchings > \|E\| = 1"):
        check_coloring(weights, [Matching((("a", "x"),), 1), Matching((("a", "x"),), 1)])


@SMALL
@given(bipartite_graphs(), st.integers(0, 10**6), st.sampled_from(["mu", "drop", "clash"]))
def test_check_rejects_random_corruption(weights, pick, how):
    ms = weighted_edge_coloring(weights)
    i = pick % len(ms)
    m = ms[i]
    if how == "mu":
        ms[i] = Matching(m.edges, m.weight + 1 + pick)
    elif how == "drop":
        ms[i] = Matching(m.edges[1:], m.weight)
    else:
        # an edge of the graph not in m, sharing m's first sender or receiver
        j, k = m.edges[0]
        extra = [e for e in sorted(weights) if e not in m.edges and (e[0] == j or e[1] == k)]
        if not extra:
            return
        ms[i] = Matching(m.edges + (extra[pick % len(extra)],), m.weight)
    with pytest.raises(AssertionError):
        check_coloring(weights, ms)
