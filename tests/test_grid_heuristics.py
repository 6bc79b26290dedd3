"""The heuristics of seed 001 §4-§5 on hand-made grids, the schedule checker, and the
properties every schedule must have (proofs/grid-model.md)."""

from dataclasses import replace

import pytest
from hypothesis import given, settings

from helpers import examples
from hypothesis import strategies as st

from steady.grid.check import violations
from steady.grid.heuristics import HEURISTICS, VARIANTS, resolve, run
from steady.grid.model import Cluster, Grid
from steady.grid.schedule import lower_bound, replay, shortest_arrivals
from steady.grid.strategies import grids
from steady.strategies import exact_costs

ALL = list(HEURISTICS) + list(VARIANTS)


def grid3(T):
    """Three clusters, root 0.  Sends (g, L): 0->1 (2, 1), 0->2 (4, 0), 1->2 (1, 3),
    2->1 (5, 0); sends towards the root are never used (g = 1, L = 0)."""
    g = [[None, 2, 4], [1, None, 1], [1, 5, None]]
    L = [[None, 1, 0], [0, None, 3], [0, 0, None]]
    return Grid([Cluster(f"C{k}", t) for k, t in enumerate(T)], L, g)


# Slow cluster 2 (T = [0, 0, 100]); c = g + L: c01 = 3, c02 = 4, c12 = 4, c21 = 5.
#  flat:    0->1 [0,2) at 3, 0->2 [2,6) at 6; finishes 6, 3, 106               -> 106
#  FEF (L): L02 = 0 < L01 = 1: 0->2 [0,4) at 4; then L21 = 0 < L01: 2->1 [4,9) at 9;
#           finishes 4, 9, 9 + 100                                              -> 109
#  ECEF:    0->1 (0+3 < 0+4); then 0->2 (2+4 = 6 < 3+4 = 7) [2,6) at 6          -> 106
#  ECEF-LA: F1 = c12 = 4, F2 = c21 = 5: 0->1 (7 < 9), then as ECEF              -> 106
#  ECEF-LAt = ECEF-LAT with 3 clusters (B \ {j} has one cluster): F1 = c12 + T2 = 104,
#           F2 = c21 + T1 = 5: 0->2 (9 < 107) [0,4) at 4; then 0->1 (4+3 < 4+5)
#           [4,6) at 7; finishes 6, 7, 104                                      -> 104
#  BottomUp: j = 2 maximises min_i c_i2 + T_2 = 104 (j = 1: 3): 0->2; then 0->1 (c01 = 3
#           < c21 = 5, ready times ignored) [4,6) at 7                          -> 104
#  binomial: ranks 0, 1, 2; the root sends to rank 2 first, then 1             -> 104
#  FEF (g+L): c01 = 3 < c02: 0->1; then c02 = c12 = 4, tie -> sender 0: 0->2 at 6 -> 106
#  BottomUp (RT): 0->2 (104 > 3), then 0->1: 4 + 3 = 7 < 4 + 5                 -> 104
SLOW_CLUSTER = {"flat": 106, "fef": 109, "ecef": 106, "ecef-la": 106, "ecef-lat-min": 104,
                "ecef-lat-max": 104, "bottomup": 104, "binomial": 104, "fef-transfer": 106,
                "bottomup-ready": 104}


@pytest.mark.parametrize("key", ALL)
def test_formulas_on_a_grid_with_a_slow_cluster(key):
    grid = grid3([0, 0, 100])
    assert run(grid, key).makespan == SLOW_CLUSTER[key]
    assert lower_bound(grid) == 104    # shortest arrival at C2 is 4, plus T2 = 100


def test_a_coordinator_broadcasts_after_its_last_gap_not_its_latency():
    """proofs/grid-model.md, the start rule: root C0 (T0 = 10) sends to C1 then C2,
    g = 2 and L = 5 on both (T1 = T2 = 1).  Flat Tree: 0->1 [0,2) arrives at 7, 0->2
    [2,4) arrives at 9; C0 is free at 4 and broadcasts until 14 (waiting for the latency
    of its last message would give 19); C1 ends at 8, C2 at 10: makespan 14."""
    n = 3
    g = [[None if i == j else 2 for j in range(n)] for i in range(n)]
    L = [[None if i == j else 5 for j in range(n)] for i in range(n)]
    grid = Grid([Cluster("C0", 10), Cluster("C1", 1), Cluster("C2", 1)], L, g)
    flat = run(grid, "flat")
    assert [(s.sender, s.receiver, s.start) for s in flat.sends] == [(0, 1, 0), (0, 2, 2)]
    assert flat.makespan == 14


def test_lookahead_tells_ecef_la_from_ecef():
    """All T = 0; (g, L): 0->1 (2, 1), 0->2 (3, 1), 1->2 (9, 1), 2->1 (1, 0).
    ECEF: 0->1 (3 < 4) [0,2) at 3, then 0->2 (2+4 = 6 < 3+10) [2,5) at 6 -> makespan 6.
    ECEF-LA: F1 = c12 = 10, F2 = c21 = 1: 0->2 (0+4+1 = 5 < 0+3+10) [0,3) at 4, then
    2->1 (4+1 = 5 < 3+3 = 6) [4,5) at 5 -> makespan 5."""
    g = [[None, 2, 3], [1, None, 9], [1, 1, None]]
    L = [[None, 1, 1], [0, None, 1], [0, 0, None]]
    grid = Grid([Cluster(f"C{k}", 0) for k in range(3)], L, g)
    ecef, la = run(grid, "ecef"), run(grid, "ecef-la")
    assert ecef.makespan == 6 and [(s.sender, s.receiver) for s in ecef.sends] == [(0, 1), (0, 2)]
    assert la.makespan == 5 and [(s.sender, s.receiver) for s in la.sends] == [(0, 2), (2, 1)]


def test_min_and_max_lookahead_differ_on_four_clusters():
    """L = 0, T = 0; g01 = g02 = g03 = 10, g12 = 1, g13 = 20, g21 = g23 = 5,
    g31 = g32 = 30.
    ECEF-LAt: F1 = min(1, 20) = 1, F2 = 5, F3 = 30: 0->1 (11) [0,10); then F2 = c23 = 5,
    F3 = c32 = 30: 1->2 (10+1+5 = 16) [10,11); then 2->3 (11+5 = 16) [11,16) -> 16.
    ECEF-LAT: F1 = max(1, 20) = 20, F2 = 5, F3 = 30: 0->2 (15) [0,10); then F1 = c13 = 20,
    F3 = c31 = 30: 2->1 (10+5+20 = 35) [10,15); then 0->3 and 2->3 both arrive at 20, the
    tie goes to sender 0: 0->3 [10,20) -> 20."""
    g = [[None, 10, 10, 10], [10, None, 1, 20], [10, 5, None, 5], [10, 30, 30, None]]
    L = [[None if i == j else 0 for j in range(4)] for i in range(4)]
    grid = Grid([Cluster(f"C{k}", 0) for k in range(4)], L, g)
    low, high = run(grid, "ecef-lat-min"), run(grid, "ecef-lat-max")
    assert [(s.sender, s.receiver, s.start) for s in low.sends] == [(0, 1, 0), (1, 2, 10),
                                                                   (2, 3, 11)]
    assert low.makespan == 16
    assert [(s.sender, s.receiver, s.start) for s in high.sends] == [(0, 2, 0), (2, 1, 10),
                                                                    (0, 3, 10)]
    assert high.makespan == 20


def test_bottomup_with_and_without_ready_times():
    """Our documented choice (proofs/grid-model.md): BottomUp's formula has no RT_i.
    g = 1, L = 0 everywhere, T = (0, 5, 0, 0).  Both first send 0->1 [0,1) (C1 maximises
    1 + T1 = 6), then 0->2 [1,2) (tie between C2 and C3 at 1, resp. 2: smallest j and i).
    For C3, the formula compares c_i3 = 1 for every sender and keeps C0: 0->3 [2,3), C1
    starts its broadcast at 1 and ends at 6.  With ready times C1 (RT 1, 1 + 1 = 2) beats
    C0 and C2 (2 + 1 = 3): 1->3 [1,2), so C1 broadcasts from 2 to 7."""
    n = 4
    g = [[None if i == j else 1 for j in range(n)] for i in range(n)]
    L = [[None if i == j else 0 for j in range(n)] for i in range(n)]
    grid = Grid([Cluster(f"C{k}", t) for k, t in enumerate([0, 5, 0, 0])], L, g)
    plain, ready = run(grid, "bottomup"), run(grid, "bottomup-ready")
    assert [(s.sender, s.receiver, s.start) for s in plain.sends] == [(0, 1, 0), (0, 2, 1),
                                                                     (0, 3, 2)]
    assert [(s.sender, s.receiver, s.start) for s in ready.sends] == [(0, 1, 0), (0, 2, 1),
                                                                     (1, 3, 1)]
    assert plain.makespan == 6 == lower_bound(grid) and ready.makespan == 7


def test_flat_tree_follows_the_cluster_list_and_binomial_the_ranks():
    """Seven clusters, root C2, g = L = 1, T = 0.  Flat sends to C0, C1, C3, ..., C6 in
    that order.  Binomial (MPICH) over ranks r = (k - 2) mod 7: the root sends to ranks
    4, 2, 1 (C6, C4, C3) at [0,1), [1,2), [2,3); rank 4 (C6, at 2) to ranks 6, 5 (C1, C0)
    at [2,3), [3,4); rank 2 (C4, at 3) to rank 3 (C5) at [3,4); the last arrivals are at
    4 + 1 = 5."""
    n = 7
    g = [[None if i == j else 1 for j in range(n)] for i in range(n)]
    grid = Grid([Cluster(f"C{k}", 0) for k in range(n)], g, g, root=2)
    flat = run(grid, "flat")
    assert [s.receiver for s in flat.sends] == [0, 1, 3, 4, 5, 6]
    assert flat.makespan == 7          # last send [5, 6) arrives at 6 + 1
    binomial = run(grid, "binomial")
    assert binomial.children(2) == [6, 4, 3]
    assert binomial.children(6) == [1, 0] and binomial.children(4) == [5]
    assert binomial.children(3) == [] and binomial.makespan == 5


def test_sample_flat_tree_by_hand():
    """samples/grid5000-6-clusters.json: the root C0 sends to C1 (g = 33554.432) then to
    C2..C5 (g = 335544.32 each); the send to C5 starts at 33554.432 + 3 x 335544.32 =
    1040187.392, arrives at 1375731.712 + 5210.99 = 1380942.702, and C5 finishes
    167909.81 later: 1548852.512 us."""
    from fractions import Fraction

    grid = Grid.from_file("samples/grid5000-6-clusters.json")
    assert run(grid, "flat").makespan == Fraction("1548852.512")


def test_resolve_names():
    assert resolve("ECEF-LAT") == "ecef-lat-max" and resolve("ECEF-LAt") == "ecef-lat-min"
    assert resolve("bottomup") == "bottomup" and resolve("flat tree") == "flat"
    with pytest.raises(ValueError, match="ambiguous"):
        resolve("ecef-lat")
    with pytest.raises(ValueError, match="unknown"):
        resolve("dijkstra")


# -- properties -------------------------------------------------------------------------

@settings(max_examples=examples(60), deadline=None)
@given(grids(max_clusters=6), st.sampled_from(ALL))
def test_every_schedule_is_valid_and_above_the_bound(grid, key):
    """proofs/grid-model.md: each cluster receives once from a cluster that has the
    message, no coordinator sends two messages at once, times consistent; the makespan is
    at least max_k (shortest arrival + T_k)."""
    schedule = run(grid, key)
    assert violations(grid, schedule) == []
    assert len(schedule.sends) == grid.size - 1
    assert schedule.makespan >= lower_bound(grid)
    arrivals = shortest_arrivals(grid)
    for s in schedule.sends:
        assert s.arrival >= arrivals[s.receiver]


@settings(max_examples=examples(30), deadline=None)
@given(grids(max_clusters=5, latency=exact_costs(), gap=exact_costs(),
             broadcast_time=exact_costs()), st.sampled_from(ALL))
def test_rational_times_stay_exact(grid, key):
    schedule = run(grid, key)
    assert violations(grid, schedule) == []
    assert schedule.makespan == max(schedule.finish)


@settings(max_examples=examples(40), deadline=None)
@given(grids(max_clusters=5), st.sampled_from(ALL), st.data())
def test_idling_never_helps(grid, key, data):
    """proofs/grid-model.md: delaying sends (same tree, same order per sender) gives a
    valid schedule whose makespan is never smaller than the as-soon-as-possible one."""
    asap = run(grid, key)
    delays = data.draw(st.lists(st.integers(0, 5), min_size=len(asap.sends),
                                max_size=len(asap.sends)))
    ready = {grid.root: 0}
    sends = []
    for s, delay in zip(asap.sends, delays):
        start = ready[s.sender] + delay
        end = start + grid.g[s.sender][s.receiver]
        ready[s.sender], ready[s.receiver] = end, end + grid.L[s.sender][s.receiver]
        sends.append(replace(s, start=start, end=end, arrival=ready[s.receiver]))
    starts = tuple(ready[k] for k in range(grid.size))
    finish = tuple(t + grid.T[k] for k, t in enumerate(starts))
    late = replace(asap, sends=tuple(sends), broadcast_start=starts, finish=finish,
                   makespan=max(finish))
    assert violations(grid, late) == []
    assert late.makespan >= asap.makespan


@settings(max_examples=examples(30), deadline=None)
@given(grids(min_clusters=3, max_clusters=5), st.sampled_from(ALL))
def test_replay_gives_the_same_schedule(grid, key):
    schedule = run(grid, key)
    again = replay(grid, [(s.sender, s.receiver) for s in schedule.chronological()], key)
    assert again.finish == schedule.finish and again.makespan == schedule.makespan


# -- the checker can fail -------------------------------------------------------------------

def _valid():
    grid = grid3([0, 0, 100])
    return grid, run(grid, "ecef")      # 0->1 [0,2) at 3, 0->2 [2,6) at 6


def test_checker_accepts_the_hand_schedule():
    grid, schedule = _valid()
    assert violations(grid, schedule) == []


@pytest.mark.parametrize("mutate, words", [
    (lambda s: (replace(s[0], arrival=s[0].arrival + 1), s[1]), "arrives at 4"),
    (lambda s: (replace(s[0], end=s[0].end - 1), s[1]), "ends at 1"),
    (lambda s: (s[0], replace(s[1], start=1, end=5, arrival=5)), "two messages at once"),
    (lambda s: (s[0], replace(s[1], sender=1, start=2, end=3, arrival=6)), "before C1 has"),
    (lambda s: (s[0], replace(s[1], receiver=1)), "receives the message twice"),
    (lambda s: (s[0], replace(s[1], sender=1, receiver=0)), "the root's cluster"),
    (lambda s: (s[0],), "never receive the message: C2"),
])
def test_checker_rejects_broken_sends(mutate, words):
    grid, schedule = _valid()
    broken = replace(schedule, sends=tuple(mutate(schedule.sends)))
    found = violations(grid, broken)
    assert any(words in v for v in found), found


def test_checker_rejects_early_broadcasts_and_wrong_makespans():
    grid, schedule = _valid()
    early = replace(schedule, broadcast_start=(5, 3, 6), finish=(5, 3, 106))
    assert any("broadcasts inside its cluster at 5, before 6" in v
               for v in violations(grid, early))
    wrong = replace(schedule, makespan=105)
    assert any("not the latest finish" in v for v in violations(grid, wrong))
    short = replace(schedule, finish=(6, 3, 105))
    assert any("C2 finishes at 105" in v for v in violations(grid, short))


@settings(max_examples=examples(30), deadline=None)
@given(st.integers(2, 12), st.integers(0, 10**6))
def test_fef_is_the_flat_tree_when_every_latency_is_equal(n, iteration):
    """The report's note on --links per-grid: with one L for every pair, FEF's smallest
    edge always ties, the sender listed first (the root) wins and the receivers come in
    list order: the Flat Tree's schedule, send for send."""
    from steady.grid.draws import table2_grid

    grid = table2_grid(n, seed=2, iteration=iteration, links="per-grid")
    fef, flat = run(grid, "fef"), run(grid, "flat")
    assert [(s.sender, s.receiver, s.start) for s in fef.sends] == \
        [(s.sender, s.receiver, s.start) for s in flat.sends]
