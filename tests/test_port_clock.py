"""steady.schedule.port_clock: the event clock shared by the list schedule, the list run
and the clean-up routed afresh.  A greedy driven by the clock never overlaps two transfers on one port,
never puts more on a shared link than its capacity, and hands every transfer back once,
at its end, as (tail, head, payload)."""

from hypothesis import given, settings

from helpers import examples
from hypothesis import strategies as st

from steady.schedule.port_clock import PortClock

NODES = "abcd"
ARCS = [(u, v) for u in NODES for v in NODES if u != v]


@st.composite
def workloads(draw):
    """Transfers wanted (arc, cost in ticks), in the order a greedy tries them, and
    shared links: each a capacity and the arcs crossing it with their integer parts."""
    wanted = draw(st.lists(st.tuples(st.sampled_from(ARCS), st.integers(1, 5)),
                           min_size=1, max_size=25))
    parts, capacity = {}, {}
    for i in range(draw(st.integers(0, 2))):
        lid = f"L{i}"
        capacity[lid] = draw(st.integers(1, 4))
        for arc in draw(st.lists(st.sampled_from(ARCS), max_size=5, unique=True)):
            parts.setdefault(arc, []).append((lid, draw(st.integers(1, capacity[lid]))))
    return wanted, parts, capacity


def greedy(wanted, parts, capacity):
    """Start each wanted transfer at the first event where its ports are free and its
    links have room; returns [(arc, start, end, payload)] and what the clock handed
    back: [(tick, (tail, head), payload)]."""
    clock, placed, back = PortClock(parts, capacity), [], []
    todo = list(enumerate(wanted))
    while clock:
        t, arrived = clock.advance()
        back += [(t, (tail, head), x) for tail, head, x in arrived]
        for item in list(todo):
            x, (arc, cost) = item
            if clock.free(*arc) and not clock.full(arc):
                clock.start(arc, t + cost, x)
                placed.append((arc, t, t + cost, x))
                todo.remove(item)
    assert not todo
    return placed, back


@settings(max_examples=examples(60), deadline=None)
@given(workloads())
def test_one_port_and_link_capacity_hold(load):
    wanted, parts, capacity = load
    placed, back = greedy(wanted, parts, capacity)
    for i, (arc, s, e, _) in enumerate(placed):
        for arc2, s2, e2, _ in placed[i + 1:]:
            if s < e2 and s2 < e:   # overlapping in time: no port in common
                assert arc[0] != arc2[0] and arc[1] != arc2[1]
    for lid, cap in capacity.items():
        for _, s, _, _ in placed:   # the load on a link only rises at a start
            used = sum(x for arc, s2, e2, _ in placed if s2 <= s < e2
                       for l, x in parts.get(arc, ()) if l == lid)
            assert used <= cap
    assert sorted(back) == sorted((e, arc, x) for arc, _, e, x in placed)


def test_link_full_waits_for_the_end():
    """Two transfers whose parts exceed the link's capacity go one after the other,
    although their ports differ."""
    parts = {("a", "b"): [("L", 2)], ("c", "d"): [("L", 2)]}
    placed, _ = greedy([(("a", "b"), 3), (("c", "d"), 2)], parts, {"L": 3})
    assert [(arc, s, e) for arc, s, e, _ in placed] == [(("a", "b"), 0, 3),
                                                        (("c", "d"), 3, 5)]
