"""Trees and blocks of concurrent transfers chosen together (issue 43;
steady.schedule.config_blocks, proofs/collectives.md §11)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from helpers import examples

from steady.network.resources import integer_parts, transfer_model
from steady.platform import Link, Platform
from steady.schedule import config_blocks
from steady.schedule.collective import collective_timetable, root_shares
from steady.schedule.effort import DEFAULT
from steady.schedule.effort import effort
from steady.schedule.timetable import Timetable
from steady.strategies import switched_platforms
from steady.throughput import collective_throughput
from steady.topologies import switched_cluster
from steady.verify import verify

TESTS = Path(__file__).resolve().parent


def _verified_ratio(platform, result, table) -> Fraction:
    report = verify(platform, table.schedule(result))
    assert report.ok, report
    return report.ratio


def test_the_generator_draws_the_trial_s_clusters():
    """Seeds 1 and 7 made one-port are the clusters of the two tests that drew them."""
    import sys

    sys.path.insert(0, str(TESTS))
    from test_collective_bound import seed_one_cluster
    from test_collective_placement import _one_port_cluster

    def key(p):
        return sorted((l.tail, l.head, l.cost) for l in p.links)

    assert key(switched_cluster(1, "one-port")) == key(seed_one_cluster())
    assert key(switched_cluster(7, "one-port")) == key(_one_port_cluster())
    assert switched_cluster(1).ports == "multi-port"


@pytest.mark.slow   # 5.7 s on a quiet machine: CI runs it
def test_seed_two_reaches_the_optimum():
    """Multi-port seed 2: the list schedule's 320/351 = 0.912 on the search's trees;
    with trees and blocks chosen together, x* itself at 64 chunks per root, and the
    independent checker certifies the same ratio.  (Ring steps and streamed
    transfers, tried before the blocks, reach x* here too: they are left out, so
    that the blocks are what is tested.)"""
    platform = switched_cluster(2)
    result = collective_throughput(platform, "allgather")
    assert result.rate == Fraction(3, 5)
    table, stats = collective_timetable(platform, result, 64,
                                        DEFAULT.but(collective_ring_checks=0,
                                                    collective_streamed=0))
    assert stats["ratio"] == 1 and stats["chunks_per_root"] <= 64
    assert stats["construction"].startswith("trees and blocks")
    assert _verified_ratio(platform, result, table) == 1


@pytest.mark.slow
def test_seed_one_multi_port_gains():
    """Multi-port seed 1 (x* = 12/5; its whole-hold bound is x*, nothing caps it):
    800/947 = 0.845 by the list schedule, 1600/1639 = 0.976 by the blocks in the
    model's order, 80/81 = 0.988 with their order searched (still below the 0.99
    target: docs/limits.md); the same timetable twice (CP-SAT's deterministic mode:
    SCIP's blocks varied from run to run; the order search counts its orders).
    Streamed transfers (tried before the blocks) reach x* here: left out."""
    platform = switched_cluster(1)
    result = collective_throughput(platform, "allgather")
    level = DEFAULT.but(collective_streamed=0)
    table, stats = collective_timetable(platform, result, 64, level)
    assert stats["ratio"] == Fraction(80, 81)
    assert _verified_ratio(platform, result, table) == Fraction(80, 81)
    again, _ = collective_timetable(platform, result, 64, level)
    assert again.runs == table.runs and again.trees == table.trees


@pytest.mark.slow   # 22 CPU s, loaded: CI runs it
def test_seed_43_reaches_the_target_by_the_blocks_order():
    """Multi-port seed 43 (sweep43's unseen cluster, x* = 8/5; n0's in-link the only
    priced row, fed by routes at 8, 5 and 3): 4800/4927 = 0.974 by the blocks in the
    model's order; moving blocks (ordered_blocks) lets the justification pack the
    short lanes of one block against the next, until the target: 100/101 = 0.9901
    at 64 chunks (4848 ticks against the optimum's 4800), certified by the
    independent checker.  (Streamed transfers, tried before the blocks, reach x*:
    left out.)"""
    platform = switched_cluster(43)
    result = collective_throughput(platform, "allgather")
    assert result.rate == Fraction(8, 5)
    table, stats = collective_timetable(platform, result, 64,
                                        DEFAULT.but(collective_streamed=0))
    assert stats["construction"].startswith("trees and blocks")
    assert stats["ratio"] == Fraction(100, 101) and stats["chunks_per_root"] == 64
    assert _verified_ratio(platform, result, table) == Fraction(100, 101)


def test_the_blocks_order_searched_reaches_the_optimum():
    """One-port seed 3 at 4 chunks per root, the blocks model with 0.2 units of
    CP-SAT's deterministic time: 32/33 in the model's order; with up to 200 orders
    scored, x* itself (the same trees and blocks, moved), both certified."""
    platform = switched_cluster(3, "one-port")
    result = collective_throughput(platform, "allgather")
    shares = root_shares(result.roots)
    ratios = []
    for orders in (0, 200):
        table, k = config_blocks.block_timetable(platform, result, 4, 0.2, shares, orders)
        ratios.append(_verified_ratio(platform, result, table))
        assert ratios[-1] == table.rate(result.roots) / result.rate and k == 4
    assert ratios == [Fraction(32, 33), 1]


@given(switched_platforms(min_compute=3, max_compute=4, max_switches=2,
                          cost=st.sampled_from([Fraction(1, 3), Fraction(1, 4), Fraction(1, 6),
                                                Fraction(1, 12)])),
       st.sampled_from(["allgather", "reduce-scatter"]), st.integers(1, 6),
       st.integers(1, 40))
@settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_moving_blocks_never_ends_later(platform, kind, most, evaluations):
    """proofs/collectives.md §11, Claim 3: any order of the blocks, justified, is a
    timetable (Timetable.check and the independent checker accept it, its rate
    certified), and the order search ends no later than the model's order."""
    result = collective_throughput(platform, kind)
    shares = root_shares(result.roots)
    routes = config_blocks.applies(platform, result)
    assume(routes)
    lp = config_blocks.configuration_lp(platform, result, routes, shares)
    assume(lp is not None)
    found = config_blocks._blocks(lp, most, 0.2)
    assume(found is not None)
    weights, blocks, unit, cost = found
    model = transfer_model(platform)
    parts, capacity = integer_parts({P: model.holds(P)[1] for lanes in blocks
                                     for P in lanes})
    given_order = config_blocks._justified(config_blocks._items(blocks, cost)[0], parts,
                                           capacity, cost)
    items, period = config_blocks.ordered_blocks(blocks, parts, capacity, cost,
                                                 evaluations)
    assert period == config_blocks._end(items, cost)
    assert period <= config_blocks._end(given_order, cost)
    assert sorted((P, n) for _, P, n in items) == sorted((P, n) for _, P, n in given_order)
    runs: dict = {}
    for start, P, n in items:
        runs.setdefault(P, []).append([start, n])
    trees = [config_blocks._as_tree(lp.trees[i][0], lp.trees[i][1], w)
             for i, w in weights.items()]
    table = Timetable.from_route_runs(platform, trees, runs, period, unit)
    table.check()
    assert _verified_ratio(platform, result, table) == table.rate(result.roots) / result.rate


def test_a_reduce_scatter_gets_in_trees():
    """The reduce-scatter of multi-port seed 2: in-trees (edges child -> parent), a
    timetable the checker accepts at the LP's ratio."""
    platform = switched_cluster(2)
    result = collective_throughput(platform, "reduce-scatter")
    built = config_blocks.block_timetable(platform, result, 16, 0.1,
                                           root_shares(result.roots))
    assert built is not None
    table, k = built
    assert k == 16 and all(t.direction == "in" for t in table.trees)
    ratio = table.rate(result.roots) / result.rate
    assert ratio == _verified_ratio(platform, result, table) and ratio == 1


def test_left_justification_moves_nothing_later():
    """Two routes sharing one link: b -> s -> d holds 1/2 of s -> d, a -> s -> d
    holds it whole.  Placed 0, 10 and 30 (a gap), the third moves to 20, right after
    the second, never earlier than the link allows."""
    links = [Link("a", "s", Fraction(1, 2)), Link("b", "s", 1), Link("s", "d", Fraction(1, 2)),
             Link("d", "s", 1), Link("s", "a", 1), Link("s", "b", 1)]
    platform = Platform("a", links, ["a", "b", "d", "s"], "one-link", ports="multi-port",
                        switches=["s"])
    model = transfer_model(platform)
    slow, fast = ("b", "s", "d"), ("a", "s", "d")
    parts, capacity = integer_parts({r: model.holds(r)[1] for r in (slow, fast)})
    cost = {slow: 10, fast: 5}
    items = [(0, slow, 1), (10, fast, 2), (30, slow, 1)]
    found = config_blocks._left_justified(items, parts, capacity, cost)
    assert found == [(0, slow, 1), (10, fast, 2), (20, slow, 1)]
    assert all(new[0] <= old[0] for new, old in zip(found, items))


@given(switched_platforms(min_compute=3, max_compute=4, max_switches=2,
                          cost=st.sampled_from([Fraction(1, 3), Fraction(1, 4), Fraction(1, 6),
                                                Fraction(1, 12)])),
       st.sampled_from(["allgather", "reduce-scatter", "allreduce"]), st.integers(1, 8))
@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_blocks_are_valid_and_certified(platform, kind, most):
    """On small switched platforms (one-port and multi-port, speeds 3, 4, 6, 12), an
    allgather, a reduce-scatter or an allreduce: the timetable passes Timetable.check
    and the independent checker, has ``most`` chunks per root, and the checker
    certifies exactly its rate over x* (at most 1); built again, the same timetable
    (CP-SAT's deterministic mode)."""
    result = collective_throughput(platform, kind)
    built = config_blocks.block_timetable(platform, result, most, 0.5,
                                           root_shares(result.roots))
    assume(built is not None)
    table, k = built
    table.check()
    assert k == most and set(table.root_messages().values()) == {most}
    ratio = table.rate(result.roots) / result.rate
    assert 0 < ratio <= 1
    assert _verified_ratio(platform, result, table) == ratio
    again = config_blocks.block_timetable(platform, result, most, 0.5,
                                          root_shares(result.roots))
    assert again[0].runs == table.runs and again[0].trees == table.trees


def test_not_tried_beyond_its_size():
    """More than MAX_COMPUTE compute nodes: the chooser's cheap test says no."""
    from steady.topologies import a100_platform

    platform = a100_platform(2)
    result = collective_throughput(platform, "allgather")
    assert len(result.compute) > config_blocks.MAX_COMPUTE
    assert config_blocks.applies(platform, result) is None
    assert config_blocks.block_timetable(platform, result, 8, 0.5,
                                         root_shares(result.roots)) is None


def test_fast_effort_does_not_try():
    """`fast` has no blocks: seed 2 stays at the list schedule's ratio."""
    platform = switched_cluster(2)
    result = collective_throughput(platform, "allgather")
    _, stats = collective_timetable(platform, result, 16, effort("fast"))
    assert not stats["construction"].startswith("trees and blocks")
