"""The list plan of steady run (steady.run.list_plan): the K broadcasts list scheduled
over a schedule's trees, merged where that delays nothing."""

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from steady.platform import Link, Platform
from steady.run.list_plan import list_plan
from steady.schedule.list_run import tree_of_messages
from steady.run.plan import at_times, check_plan, execute, steady_plan
from steady.schedule.timed import timed_schedule
from steady.strategies import platforms, schedules
from steady.throughput import throughput

SMALL = settings(max_examples=25, deadline=None)


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
    one hop of latency.  Nothing merges: P1 forwards each message before the next
    arrives, and gets message x + 1 only when it starts sending x."""
    platform = _chain(3)
    schedule, _ = timed_schedule(platform, throughput(platform, "trees"), 1)
    unit, transfers = list_plan(schedule, 5)
    assert unit == 1
    assert sorted((t.tail, t.head, t.first, t.count, t.release) for t in transfers) == \
        [(0, 1, x, 1, x) for x in range(5)] + [(1, 2, x, 1, x + 1) for x in range(5)]
    assert steady_plan(schedule, 5).makespan_time == 6


def test_messages_to_a_leaf_merge_into_one_transfer():
    """P0 -> P1 with P1 a leaf: the K messages go back to back, the source holds them
    all and the leaf forwards none: the K transfers become one."""
    star = Platform("P0", [Link("P0", "P1", Fraction(1, 2))])
    schedule, _ = timed_schedule(star, throughput(star, "trees"), 1)
    unit, transfers = list_plan(schedule, 7)
    assert [(t.first, t.count, t.release, t.duration) for t in transfers] == \
        [(0, 7, 0, 7 * unit // 2)]


@SMALL
@given(schedules(platforms(max_nodes=6)), st.integers(1, 40))
def test_the_list_plan_is_one_port_causal_and_keeps_its_times_when_merged(schedule, k):
    """Postcondition re-checked from outside: the merged list plan passes check_plan
    (one-port, causality, each tree in order on each link, every node gets every
    broadcast once), merging delays no transfer (the ideal execution starts each at its
    list-schedule start and ends when the unmerged plan ends), and Lemma 7 holds."""
    unit, transfers = list_plan(schedule, k)
    platform = schedule.platform
    nodes = list(platform.nodes)
    source = nodes.index(platform.source)
    plan = at_times("list", nodes, source, k, unit, transfers)
    assert check_plan(plan) == []
    assert [b for b, _ in execute(transfers, len(nodes), source)] == \
        [t.release for t in transfers]
    single = [t._replace(count=1, duration=t.duration // t.count, first=t.first + i,
                         release=t.release + i * (t.duration // t.count))
              for t in transfers for i in range(t.count)]
    assert sum(t.count for t in transfers) == k * (len(nodes) - 1)
    assert max(t.end for t in single) == plan.makespan
    assert plan.makespan_time >= Fraction(k) / throughput(platform).throughput
