"""The list run as a plan (steady.simulate.list_run): the K broadcasts list scheduled
over a timetable's trees, no periods; and the plan of K broadcasts of a schedule
(steady.simulate.choose.broadcast_plan), the fewest ticks among its unrollings."""

from fractions import Fraction

from hypothesis import given, settings

from helpers import examples
from hypothesis import strategies as st

from steady.platform import Link, Platform
from steady.schedule.timed import timed_timetable
from steady.simulate.choose import broadcast_plan
from steady.simulate.list_run import list_plan, tree_of_messages
from steady.simulate.plan import check_plan, execute
from steady.simulate.unroll import PeriodicPattern, finite_schedule, share_for
from steady.strategies import platforms, schedules
from steady.throughput import throughput

SMALL = settings(max_examples=examples(25))


@given(st.lists(st.integers(1, 7), min_size=1, max_size=6))
def test_every_window_of_m_broadcasts_gives_each_tree_its_weight(weights):
    """Smooth weighted round robin: any M = sum(weights) consecutive broadcasts hold
    exactly λ_l of tree l (the period's split, spread out)."""
    m = sum(weights)
    trees = tree_of_messages(weights, 3 * m)
    for start in range(2 * m + 1):
        window = trees[start:start + m]
        assert [window.count(l) for l in range(len(weights))] == weights


def _chain(n: int) -> Platform:
    nodes = [f"P{i}" for i in range(n)]
    return Platform("P0", [Link(a, b, Fraction(1)) for a, b in zip(nodes, nodes[1:])],
                    nodes)


def test_a_chain_pipelines_one_message_per_time_unit():
    """On a chain of 3 unit links, the list plan sends message x over the first link at
    x and over the second at x + 1: K messages end at K + 1, Lemma 7's K / TP* plus the
    one hop of latency; the plan of 5 broadcasts of its timetable ends there too."""
    platform = _chain(3)
    table, _ = timed_timetable(platform, throughput(platform, "trees"), 1)
    plan = list_plan(platform, table.trees, 5)
    assert plan.unit == 1
    assert sorted((t.tail, t.head, t.first, t.count, t.release) for t in plan.transfers) == \
        [(0, 1, x, 1, x) for x in range(5)] + [(1, 2, x, 1, x + 1) for x in range(5)]
    assert broadcast_plan(table, 5).makespan_time == 6


@SMALL
@given(schedules(platforms(max_nodes=6)), st.integers(1, 40))
def test_the_list_plan_is_one_port_causal_and_runs_at_its_times(schedule, k):
    """Postcondition re-checked from outside: the list plan passes check_plan (one-port,
    causality, each tree in order on each link, every node gets every broadcast once),
    its ideal execution starts every transfer at its planned start, and Lemma 7 holds."""
    platform = schedule.platform
    plan = list_plan(platform, [(t.parent, t.weight) for t in schedule.trees], k)
    assert check_plan(plan) == []
    assert [b for b, _ in execute(plan.transfers, len(plan.nodes), plan.source)] == \
        [t.release for t in plan.transfers]
    assert sum(t.count for t in plan.transfers) == k * (len(platform.nodes) - 1)
    assert plan.makespan_time >= Fraction(k) / throughput(platform).throughput


@SMALL
@given(schedules(platforms(max_nodes=6), version=2), st.integers(1, 40))
def test_the_broadcast_plan_is_the_quickest_unrolling(schedule, k):
    """The plan of K broadcasts of a schedule is checked, carries broadcasts 0..K-1,
    runs at its planned times, and ends no later than its own unrolling under the
    period rule (one of the candidates it chose among)."""
    plan = broadcast_plan(schedule, k)
    assert check_plan(plan) == [] and plan.broadcasts == k
    assert [b for b, _ in execute(plan.transfers, len(plan.nodes), plan.source)] == \
        [t.release for t in plan.transfers]
    pattern = PeriodicPattern(schedule, "period")
    batches, share = share_for(pattern, k)
    assert plan.makespan_time <= finite_schedule(pattern, batches, share,
                                                 placed=False).makespan
