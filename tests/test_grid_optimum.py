"""The exact optimum of the hierarchical broadcast (beyond seed 001 §6): branch and bound
against an independent brute force and against CP-SAT, its bounds, hand-made grids
(proofs/grid-optimum.md)."""

from fractions import Fraction
from itertools import permutations, product

import pytest
from hypothesis import given, settings

from helpers import examples
from hypothesis import strategies as st

from steady.grid.check import violations
from steady.grid.heuristics import HEURISTICS, VARIANTS, run
from steady.grid.model import Cluster, Grid
from steady.grid.optimum import SearchLimit, initial_bounds, optimal_schedule
from steady.grid.schedule import lower_bound
from steady.grid.strategies import grids
from steady.strategies import exact_costs


def brute_force(grid: Grid):
    """The minimum makespan over every tree rooted at the root's cluster and every order
    of every coordinator's sends, each timed as soon as possible; written from the model
    alone (no code of steady.grid but the Grid)."""
    n, root = grid.size, grid.root
    others = [k for k in range(n) if k != root]
    best = None
    for parents in product(range(n), repeat=len(others)):
        parent = dict(zip(others, parents))
        if any(parent[k] == k for k in others) or not _is_tree(parent, root):
            continue
        children = {k: [j for j in others if parent[j] == k] for k in range(n)}
        for orders in product(*(permutations(children[k]) for k in range(n))):
            value = _asap_makespan(grid, dict(zip(range(n), orders)))
            best = value if best is None else min(best, value)
    return best


def _is_tree(parent, root):
    for k in parent:
        seen = set()
        while k != root:
            if k in seen:
                return False
            seen.add(k)
            k = parent[k]
    return True


def _asap_makespan(grid, order):
    arrival, todo, finish = {grid.root: 0}, [grid.root], []
    while todo:
        i = todo.pop()
        t = arrival[i]
        for j in order[i]:
            t += grid.g[i][j]                      # i busy for g_ij
            arrival[j] = t + grid.L[i][j]
            todo.append(j)
        finish.append(t + grid.T[i])               # its own broadcast after its sends
    return max(finish)


ALL = list(HEURISTICS) + list(VARIANTS)


@settings(max_examples=examples(60), deadline=None)
@given(grids(max_clusters=5))
def test_optimum_equals_brute_force_and_beats_every_heuristic(grid):
    """proofs/grid-optimum.md: the canonical order enumerates every as-soon-as-possible
    schedule, the bounds never cut an optimum; exact optimum <= every heuristic, >= the
    shortest-arrival and counting bounds."""
    optimum = optimal_schedule(grid)
    assert optimum.makespan == brute_force(grid)
    assert violations(grid, optimum.schedule) == []
    assert all(optimum.makespan <= run(grid, k).makespan for k in ALL)
    path, counting = initial_bounds(grid)
    assert path == lower_bound(grid)
    assert path <= optimum.makespan and counting <= optimum.makespan


@settings(max_examples=examples(25), deadline=None)
@given(grids(max_clusters=5, latency=exact_costs(), gap=exact_costs(),
             broadcast_time=exact_costs()))
def test_optimum_with_rational_times(grid):
    optimum = optimal_schedule(grid)
    assert optimum.makespan == brute_force(grid)
    assert isinstance(optimum.makespan, (int, Fraction))


@settings(max_examples=examples(20), deadline=None)
@given(grids(min_clusters=3, max_clusters=6))
def test_optimum_equals_cp_sat(grid):
    """CP-SAT states the model as constraints, without the canonical order or the claim
    that idling never helps: the two exact methods must agree."""
    from steady.grid.cpsat import cp_sat_makespan

    assert optimal_schedule(grid).makespan == cp_sat_makespan(grid)


def grid_of(g, T, L=None):
    n = len(T)
    L = L or [[None if i == j else 0 for j in range(n)] for i in range(n)]
    g = [[None if i == j else g[i][j] for j in range(n)] for i in range(n)]
    return Grid([Cluster(f"C{k}", t) for k, t in enumerate(T)], L, g)


def test_slow_cluster_must_not_relay():
    """L = 0; g01 = 2, every other gap 1 (symmetric); T = (0, 0, 0, 2).
    Makespan 3 needs C3 (T = 2) reached at 1 and silent afterwards, so 0->3 [0,1) first;
    C1 and C2 must then arrive by 3 from C0 and C2 alone: 0->2 [1,2) at 2 and 2->1 [2,3)
    at 3 is the only way (0->1 takes 2, so 0->1 [1,3) leaves C2 to a send starting at 3).
    Nothing beats 3: C3 cannot finish before g03 + T3 = 1 + 2.  No heuristic finds it: ECEF sends 0->2, 2->1, 0->3 (C3 at 2, ends
    at 4); ECEF-LAT starts with 0->3 but lets C3 relay 3->1 [1,2), so C3 ends at 4."""
    grid = grid_of([[0, 2, 1, 1], [2, 0, 1, 1], [1, 1, 0, 1], [1, 1, 1, 0]], [0, 0, 0, 2])
    optimum = optimal_schedule(grid)
    assert optimum.makespan == 3
    assert [(s.sender, s.receiver, s.start) for s in optimum.schedule.chronological()] \
        == [(0, 3, 0), (0, 2, 1), (2, 1, 2)]
    assert run(grid, "ecef").makespan == 4 and run(grid, "ecef-lat-max").makespan == 4
    assert all(run(grid, k).makespan > 3 for k in ALL)


def test_counting_bound_proves_the_optimum():
    """L = 0, T = 0; g = 1 except g13 = g23 = 2 (symmetric).  Three clusters to inform:
    by time 1 one arrival at most (one sender), by time 2 two more (two senders), so the
    counting bound is 2 and 0->1 [0,1), 0->3 [1,2), 1->2 [1,2) reaches it.  The
    heuristics' ties pick 0->2 second and end at 3; the shortest-arrival bound is 1."""
    grid = grid_of([[0, 1, 1, 1], [1, 0, 1, 2], [1, 1, 0, 2], [1, 2, 2, 0]], [0, 0, 0, 0])
    assert initial_bounds(grid) == (1, 2)
    assert optimal_schedule(grid).makespan == 2
    assert run(grid, "ecef").makespan == 3


def test_homogeneous_ten_clusters():
    """g = 10, L = 1, T = 0, 10 clusters: the free process of the counting bound is the
    real optimum.  Send starts 0, 10, 11, 20, 21, 21, 22, 30, 31 (every informed
    coordinator sends every 10, a message arrives 11 after its start) give the nine
    arrivals 11, 21, 22, 31, 32, 32, 33, 41, 42: optimum 42, found at once."""
    n = 10
    grid = grid_of([[10] * n for _ in range(n)], [0] * n,
                   [[None if i == j else 1 for j in range(n)] for i in range(n)])
    optimum = optimal_schedule(grid)
    assert optimum.makespan == 42 and initial_bounds(grid)[1] == 42
    assert optimum.nodes < 1000


def test_a_coordinator_free_at_the_same_start_is_closed_by_index():
    """A regression case found by mutation: in the canonical order, a coordinator k free
    exactly when sender i starts, with k < i, will never send again (its send would come
    first in the order), so its broadcast is fixed (proofs/grid-optimum.md).  Dropping
    the tie rule gives 9 here; brute force says 8."""
    L = [[0, 0, 2, 2, 1], [2, 0, 0, 1, 2], [2, 0, 0, 2, 1], [1, 0, 0, 0, 2], [0, 1, 1, 2, 0]]
    g = [[0, 2, 3, 3, 2], [1, 0, 2, 2, 2], [1, 2, 0, 3, 1], [2, 3, 1, 0, 3], [3, 2, 1, 2, 0]]
    T = [0, 5, 3, 0, 1]
    grid = Grid([Cluster(f"C{k}", t) for k, t in enumerate(T)], L, g, root=4)
    assert brute_force(grid) == 8
    assert optimal_schedule(grid).makespan == 8


def test_limits():
    grid = grid_of([[0, 2, 1, 1], [2, 0, 1, 1], [1, 1, 0, 1], [1, 1, 1, 0]], [0, 0, 0, 2])
    with pytest.raises(ValueError, match="limited to 3"):
        optimal_schedule(grid, max_clusters=3)
    with pytest.raises(SearchLimit):
        optimal_schedule(grid, upper=100, node_limit=2)
    with pytest.raises(ValueError, match="no schedule"):
        optimal_schedule(grid, upper=2)          # below the optimum 3
    assert optimal_schedule(grid, upper=3).makespan == 3


@settings(max_examples=examples(15), deadline=None)
@given(st.integers(2, 7), st.integers(0, 10**6), st.sampled_from(["per-pair", "per-grid"]))
def test_table2_grids_optimum_equals_cp_sat(n, iteration, links):
    """On the campaign's own grids (001 Table 2, up to 7 clusters, where brute force is
    too slow) the branch and bound, seeded with the best heuristic as its upper bound,
    agrees with CP-SAT."""
    from steady.grid.cpsat import cp_sat_makespan
    from steady.grid.draws import table2_grid

    grid = table2_grid(n, seed=1, iteration=iteration, links=links)
    makespans = [run(grid, k).makespan for k in HEURISTICS]
    optimum = optimal_schedule(grid, upper=min(makespans))
    assert optimum.makespan == cp_sat_makespan(grid)
