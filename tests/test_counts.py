"""Integer counts chosen over the cuts (steady.schedule.counts; proofs/timed-schedule.md,
"Counts chosen over the cuts")."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings, strategies as st

import steady.schedule.counts as counts_module
import steady.schedule.timed as timed
from steady.generators import mesh_platform, random_platform
from steady.schedule.branchings import root_connectivity, weighted_branchings
from steady.schedule.counts import CutPool, cut_counts, short_cuts
from steady.schedule.timed import link_rates, port_loads, rounded_counts, timed_schedule
from steady.strategies import platforms
from steady.throughput import throughput
from steady.verify import verify


@settings(max_examples=25, deadline=None)
@given(platforms(max_nodes=7), st.integers(2, 30), st.sampled_from(timed.CUT_SPREADS))
def test_counts_hold_n_arborescences(platform, n, spread):
    """Claim: what cut_counts returns has root-connectivity >= N (so N arborescences
    pack into it exactly), with integer counts in 1..N; and on these small platforms
    it does return counts, with a largest port load no higher than the rounded counts'."""
    result = throughput(platform, "trees")
    counts = cut_counts(platform, n, CutPool(), spread)
    assert counts is not None
    assert all(isinstance(k, int) and 1 <= k <= n for k in counts.values())
    assert root_connectivity(platform, counts) >= n
    trees = weighted_branchings(platform, counts, n)
    assert sum(w for _, w in trees) == n
    if spread == 0:
        rounded = rounded_counts(link_rates(result.trees), result.throughput, n)
        # the MILP minimises the largest load over a set that holds the rounded counts;
        # in floats, so equal loads may come out a hair apart
        assert (max(port_loads(platform, counts).values())
                <= max(port_loads(platform, rounded).values()) * (1 + 1e-9))


@settings(max_examples=15, deadline=None)
@given(platforms(max_nodes=6), st.integers(2, 20))
def test_timed_schedules_never_lose_to_the_rounded_counts(platform, m):
    """timed_schedule keeps the better of the rounded construction and the counts over
    the cuts: its certified ratio is at least the rounded construction's, its file
    verifies, and the ratio stays <= 1."""
    result = throughput(platform, "trees")
    schedule, stats = timed_schedule(platform, result, m)
    report = verify(platform, schedule)
    assert report.ok, report.violations[:3]
    old = timed.CUT_MESSAGES
    timed.CUT_MESSAGES = 0
    try:
        _, rounded = timed_schedule(platform, result, m)
    finally:
        timed.CUT_MESSAGES = old
    assert rounded["ratio"] <= stats["ratio"] == report.ratio <= 1


def test_a_30_node_platform_gains_at_19_messages(monkeypatch):
    """Random 30 nodes (d 0.1, seed 2) at M = 19: the rounded counts give 0.9952; the
    counts over the cuts bound the ratio by exactly 1; :data:`timed.CUT_ROUNDS` rounds
    of the list schedule reach it, the default :data:`timed.LIST_ROUNDS` without the
    search of the ports' orders (steady.schedule.order_search) do not (0.9963 on the
    counts of CUT_NODES alone, 0.9952 on those the deeper solve finds)."""
    platform = random_platform(30, 0.1, seed=2)
    result = throughput(platform, "trees")
    pool = CutPool()
    counts = cut_counts(platform, 19, pool)
    assert 19 == result.throughput * max(port_loads(platform, counts).values())
    schedule, stats = timed_schedule(platform, result, 19)
    assert stats["construction"].startswith("counts chosen over the cuts")
    assert verify(platform, schedule).ratio == stats["ratio"] == 1
    monkeypatch.setattr(timed, "CUT_ROUNDS", timed.LIST_ROUNDS)
    monkeypatch.setattr(timed, "searched_runs", lambda *args: None)
    fewer = timed_schedule(platform, result, 19)[1]["ratio"]
    assert Fraction(995, 1000) <= fewer < 1
    monkeypatch.setattr(timed, "CUT_MESSAGES", 0)
    assert timed_schedule(platform, result, 19)[1]["ratio"] < Fraction(996, 1000)


@given(st.integers(1, 10**7), st.none() | st.integers(1, 200))
def test_the_list_schedule_rounds_stay_within_their_budget(sends, most):
    """At most ``most`` (default LIST_ROUNDS) rounds per rule, at least one, and more
    than one only while their placements fit ROUND_PLACEMENTS."""
    rules, rounds, chunk = timed._runs_plan(*((sends,) if most is None else (sends, most)))
    assert 1 <= rounds <= (timed.LIST_ROUNDS if most is None else most)
    assert rounds == 1 or rounds * sends <= timed.ROUND_PLACEMENTS
    assert rules >= 1 and -(-sends // chunk) <= timed.RUN_PLACEMENTS


def test_short_cuts_name_the_cut_a_count_vector_misses():
    """Removing one message from a node's in-links leaves its in-cut short: short_cuts
    returns a source side whose leaving links carry fewer than N."""
    platform = random_platform(10, 0.3, seed=1)
    result = throughput(platform, "trees")
    counts = rounded_counts(link_rates(result.trees), result.throughput, 5)
    assert short_cuts(platform, counts, 5) == []
    v = platform.destinations[0]
    into = sorted(a for a in counts if a[1] == v and counts[a])
    while sum(counts[a] for a in into) >= 5:
        counts[into[0]] -= 1
        into = [a for a in into if counts[a]] or into
    short = short_cuts(platform, counts, 5)
    assert short
    for side in short:
        assert platform.source in side and len(side) < len(platform.nodes)
        assert sum(k for (u, w), k in counts.items() if u in side and w not in side) < 5


def test_the_pool_bounds_the_solves():
    """A pool's solve budget is the work bound: none left, no search (None); each solve
    spends one."""
    platform = random_platform(10, 0.3, seed=1)
    assert cut_counts(platform, 5, CutPool(solves=0)) is None
    pool = CutPool(solves=1)
    cut_counts(platform, 5, pool)
    assert pool.solves_left == 0


def test_the_deeper_solve_lowers_the_largest_port_load(monkeypatch):
    """A 20-node mesh (seed 2) at N = 20: once the counts pass every cut, the solve with
    POLISH_NODES finds counts of a lower largest port load than CUT_NODES alone (both
    pass the exact check)."""
    platform = mesh_platform(20, seed=2)
    deep = cut_counts(platform, 20)
    monkeypatch.setattr(counts_module, "POLISH_NODES", counts_module.CUT_NODES)
    shallow = cut_counts(platform, 20)
    assert short_cuts(platform, deep, 20) == short_cuts(platform, shallow, 20) == []
    assert (max(port_loads(platform, deep).values())
            < max(port_loads(platform, shallow).values()))
