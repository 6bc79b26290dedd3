"""steady.schedule.resize_runs: a greedy run's messages moved between the runs of each
link and retimed in each port's order give a valid period (every message once, one
transfer at a time per port) that ends strictly earlier, or nothing."""

from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import examples
from steady.schedule.list_schedule import PRIORITIES, greedy_runs
from steady.schedule.resize_runs import resized_runs

NODES = "abcdefg"


def port_ends(runs, cost):
    """{port: end of its last transfer}, after checking no port overlaps itself."""
    busy: dict = {}
    for arc, rs in runs.items():
        for start, count in rs:
            assert count > 0 and start >= 0
            for port in (("out", arc[0]), ("in", arc[1])):
                busy.setdefault(port, []).append((start, start + count * cost[arc]))
    for spans in busy.values():
        spans.sort()
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
    return {port: spans[-1][1] for port, spans in busy.items()}


@st.composite
def greedy_cases(draw):
    arcs = draw(st.lists(st.sampled_from([(u, v) for u in NODES for v in NODES if u != v]),
                         min_size=2, max_size=18, unique=True))
    used = {a: draw(st.integers(1, 30)) for a in arcs}
    cost = {a: draw(st.sampled_from([3, 5, 7, 11, 10**30 + 1])) for a in arcs}
    key, stick = draw(st.sampled_from(PRIORITIES))
    return used, cost, key, stick


@settings(max_examples=examples(60), deadline=None)
@given(greedy_cases())
def test_resized_runs_are_a_valid_shorter_period(case):
    used, cost, key, stick = case
    runs = greedy_runs(used, cost, key, {}, stick, 1)
    makespan = max(port_ends(runs, cost).values())
    loads: dict = {}
    for (u, v), k in used.items():
        loads[("out", u)] = loads.get(("out", u), 0) + k * cost[(u, v)]
        loads[("in", v)] = loads.get(("in", v), 0) + k * cost[(u, v)]
    lower = max(loads.values())
    found = resized_runs(runs, cost, lower, makespan)
    if found is None:
        return
    end, new = found
    assert set(new) == set(runs)
    assert all(sum(k for _, k in new[arc]) == used[arc] for arc in used)
    assert max(port_ends(new, cost).values()) == end
    assert lower <= end < makespan


def test_an_idle_wait_in_the_middle_is_closed():
    """Ports a and b each send to x and y in the order x, y, x (a) and y, x, y (b); with
    every port idle from 9 to 12 the period ends at 18, and the runs retimed in the same
    orders end at the load bound 15; already there, nothing is returned."""
    cost = {("a", "x"): 3, ("a", "y"): 3, ("b", "x"): 3, ("b", "y"): 3}
    tight = {("a", "x"): [[0, 2], [9, 2]], ("a", "y"): [[6, 1]],
             ("b", "y"): [[0, 2], [9, 2]], ("b", "x"): [[6, 1]]}
    assert max(port_ends(tight, cost).values()) == 15
    assert resized_runs(tight, cost, 15, 15) is None
    slack = {("a", "x"): [[0, 2], [12, 2]], ("a", "y"): [[6, 1]],
             ("b", "y"): [[0, 2], [12, 2]], ("b", "x"): [[6, 1]]}
    assert max(port_ends(slack, cost).values()) == 18
    end, new = resized_runs(slack, cost, 15, 18)
    assert end == 15 == max(port_ends(new, cost).values())
