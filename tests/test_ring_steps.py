"""Ring steps: every root's chunks round one cycle of the compute nodes in lock-step
(issue 43; steady.schedule.ring_steps, proofs/collectives.md §14)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from helpers import examples

from steady.network.resources import transfer_model
from steady.platform import MULTI_PORT, ONE_PORT, Link, Platform
from steady.schedule.collective import collective_timetable
from steady.schedule.ring_steps import hop_routes, ring_search, ring_timetable
from steady.strategies import switched_platforms
from steady.throughput import collective_throughput
from steady.verify import verify


def both(links, a, b, cost=Fraction(1)):
    links += [Link(a, b, Fraction(cost)), Link(b, a, Fraction(cost))]


def dragonfly(ports=MULTI_PORT, hosts_per_router=2) -> Platform:
    """Two groups of two routers of two hosts (``hosts_per_router``), routers of a
    group linked, one global link between routers g0.r1 and g1.r0; every link of cost
    1 each way."""
    links, hosts, routers = [], [], []
    for g in range(2):
        for r in range(2):
            router = f"g{g}.r{r}"
            routers.append(router)
            for h in range(hosts_per_router):
                host = f"g{g}.r{r}.h{h}"
                hosts.append(host)
                both(links, host, router)
        both(links, f"g{g}.r0", f"g{g}.r1")
    both(links, "g0.r1", "g1.r0")
    return Platform(hosts[0], links, hosts + routers, f"dragonfly-{len(hosts)}",
                    ports=ports, switches=routers)


def star(n=4, ports=MULTI_PORT, cost=Fraction(1)) -> Platform:
    links = []
    nodes = [f"c{i}" for i in range(n)]
    for v in nodes:
        both(links, v, "sw", cost)
    return Platform(nodes[0], links, nodes + ["sw"], "star", ports=ports, switches=["sw"])


def _verified(platform, result, table) -> Fraction:
    report = verify(platform, table.schedule(result))
    assert report.ok, report
    return report.ratio


def test_a_dragonfly_s_ring_reaches_its_optimum():
    """8 hosts, x* = 1/7 (each host's one link in carries 7 roots); the ring crosses
    the global link once each way: rate 1/7, one chunk per root, period 7, certified
    ratio 1."""
    platform = dragonfly()
    result = collective_throughput(platform, "allgather")
    assert result.rate == Fraction(1, 7)
    table, m = ring_timetable(platform, result, 64)
    assert m == 1 and table.period == 7 * table.unit
    assert table.rate(result.roots) == Fraction(1, 7)
    assert _verified(platform, result, table) == 1


@pytest.mark.slow
def test_the_chooser_keeps_the_ring_where_it_wins():
    """The dragonfly through the chooser: the list schedule (and the blocks) stay below
    1, the ring is kept: ratio 1, one chunk per root."""
    platform = dragonfly()
    result = collective_throughput(platform, "allgather")
    _, stats = collective_timetable(platform, result, 64)
    assert stats["ratio"] == 1 and stats["construction"].startswith("ring steps")
    assert stats["chunks_per_root"] == 1


def test_a_large_fabric_takes_a_ring_at_the_optimum_before_the_list_schedule(monkeypatch):
    """16 hosts (RING_FIRST_COMPUTE), no construction by hand: the ring reaches x* =
    1/15, so the chooser keeps it without building the list schedule (which would fail
    here), and the independent verifier certifies ratio 1."""
    from steady.schedule import collective

    platform = dragonfly(hosts_per_router=4)
    assert len(platform.compute_nodes) == collective.RING_FIRST_COMPUTE
    result = collective_throughput(platform, "allgather")
    assert result.rate == Fraction(1, 15)

    def not_built(*args, **kwargs):
        raise AssertionError("the list schedule was built")

    monkeypatch.setattr(collective, "route_list_schedule", not_built)
    table, stats = collective_timetable(platform, result, 64)
    assert stats["ratio"] == 1 and stats["construction"].startswith("ring steps")
    assert _verified(platform, result, table) == 1


def test_the_ring_is_lock_step():
    """Step s: every host sends the chunk of the root s hops behind it, which it got at
    step s - 1 (in the same period under pipelined forwarding)."""
    platform = dragonfly()
    result = collective_throughput(platform, "allgather")
    table, _ = ring_timetable(platform, result, 3)
    step = table.period // 7
    for (l, arc), runs in table.runs.items():
        root = table.trees[l].root
        (start, count), = runs
        assert count == 1 and start % step == 0
        hops, v = 0, arc[0]
        while v != root:
            v = table.trees[l].parent[v]
            hops += 1
        assert start == hops * step


def test_reduce_scatter_and_allreduce_by_ring():
    """On the star (one-port and multi-port), reduce-scatter at x* = 1/3 and allreduce
    at x* = 1/6 by the ring: ratio 1, verified; the in-trees' data flow round the same
    cycle."""
    for ports in (MULTI_PORT, ONE_PORT):
        platform = star(ports=ports)
        for kind, rate in (("reduce-scatter", Fraction(1, 3)), ("allreduce", Fraction(1, 6))):
            result = collective_throughput(platform, kind)
            assert result.rate == rate
            table, _ = ring_timetable(platform, result, 8)
            assert table.rate(result.roots) == rate
            assert _verified(platform, result, table) == 1


def test_no_ring_below_what_it_must_beat():
    """``beat``: a ring whose rate would not exceed it is not searched for; a broadcast
    from one source has no ring."""
    platform = star()
    result = collective_throughput(platform, "allgather")
    assert ring_timetable(platform, result, 64, beat=Fraction(1, 3)) is None
    assert ring_timetable(platform, result, 64, beat=Fraction(1, 4)) is not None
    assert ring_timetable(platform, collective_throughput(platform, "broadcast"), 64) is None
    assert ring_timetable(platform, result, 0) is None


def test_two_stars_cross_their_link_once_each_way():
    """Two stars of two hosts joined by one link: the ring found crosses it once each
    way (the link holds one hop a way); with a budget of one route check, no ring
    (bounded work, no clock)."""
    links = []
    for side in ("a", "b"):
        for i in range(2):
            both(links, f"{side}{i}", f"S{side}")
    both(links, "Sa", "Sb")
    nodes = ["a0", "a1", "b0", "b1"]
    platform = Platform("a0", links, nodes + ["Sa", "Sb"], "two-stars", ports=MULTI_PORT,
                        switches=["Sa", "Sb"])
    routes = hop_routes(platform)
    assert routes[("a0", "b0")] == ("a0", "Sa", "Sb", "b0")
    order, top = ring_search(platform, routes)
    assert top == 1 and order[0] == "a0" and sorted(order) == nodes
    crossing = [(a, b) for a, b in zip(order, order[1:] + order[:1]) if a[0] != b[0]]
    assert len(crossing) == 2 and {a[0] for a, _ in crossing} == {"a", "b"}
    assert ring_search(platform, routes, steps=1) is None


@given(switched_platforms(min_compute=2, max_compute=5, max_switches=3,
                          cost=st.sampled_from([Fraction(1), Fraction(1, 2), Fraction(1, 3)])),
       st.sampled_from(["allgather", "reduce-scatter", "allreduce"]))
@settings(max_examples=examples(40), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
def test_ring_steps_are_valid_and_certified(platform, kind):
    """Whatever fabric: either no ring, or a timetable that Timetable.check and the
    independent checker accept, of rate exactly 1 / (D·(N-1)·C) for its largest route
    cost C (D directions), certified at most x*; its routes fit together; the same
    ring again."""
    result = collective_throughput(platform, kind)
    built = ring_timetable(platform, result, 8)
    if built is None:
        return
    table, m = built
    table.check()
    assert m == 1 and set(table.root_messages().values()) == {1}
    model = transfer_model(platform)
    d = 2 if kind == "allreduce" else 1
    n = len(platform.compute_nodes)
    routes = {table.trees[l].route(arc) for (l, arc) in table.runs}
    assert len(routes) == n   # one route per hop of the cycle
    top = max(model.cost(r) for r in routes)
    used: dict = {}
    for r in routes:
        for res, part in model.holds(r)[1]:
            used[res] = used.get(res, 0) + part
    assert max(used.values()) <= 1
    rate = table.rate(result.roots)
    assert rate == Fraction(1, d * (n - 1)) / top <= result.rate
    assert _verified(platform, result, table) == rate / result.rate
    again = ring_timetable(platform, result, 8)[0]
    assert again.runs == table.runs and again.trees == table.trees


def test_two_sources_on_a_fat_tree_by_paths():
    """fat-tree-4 at oversubscription 2, a broadcast from the two hosts of one edge
    switch: x* = 25/4 (every other edge's two links down carry both sources); a path
    per source, period 4/25 for one chunk each, certified ratio 1 (the optimum's trees,
    rounded and list scheduled, reached 56/79)."""
    from steady.schedule.ring_steps import path_timetable
    from steady.topologies import fat_tree_platform

    platform = fat_tree_platform(4, oversubscription=2)
    sources = ["p0.e0.h0", "p0.e0.h1"]
    result = collective_throughput(platform, "broadcast", sources=sources)
    assert result.rate == Fraction(25, 4)
    table, m = path_timetable(platform, result, 64)
    assert m == 1 and table.period == Fraction(4, 25) * table.unit
    assert sorted(t.root for t in table.trees) == sources
    assert all(len(t.parent) == 15 and len(set(t.parent.values())) == 15 for t in table.trees)
    assert _verified(platform, result, table) == 1
    assert path_timetable(platform, collective_throughput(platform, "allgather"), 64) is None


@pytest.mark.slow
def test_the_chooser_keeps_source_paths_where_they_win():
    """The same broadcast through the chooser: the list schedule first (56/79 at 56
    chunks, about 80 CPU s), then source paths, kept: ratio 1."""
    from steady.topologies import fat_tree_platform

    platform = fat_tree_platform(4, oversubscription=2)
    result = collective_throughput(platform, "broadcast", sources=["p0.e0.h0", "p0.e0.h1"])
    _, stats = collective_timetable(platform, result, 64)
    assert stats["ratio"] == 1 and stats["construction"].startswith("source paths")


@given(switched_platforms(min_compute=3, max_compute=5, max_switches=3,
                          cost=st.sampled_from([Fraction(1), Fraction(1, 2), Fraction(1, 3)])),
       st.integers(1, 2))
@settings(max_examples=examples(40), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
def test_source_paths_are_valid_and_certified(platform, count):
    """Whatever fabric and 1-2 sources: either no paths, or a timetable that the
    checkers accept, one Hamiltonian path per source (each node once), of rate 1 / C
    for the period C, at most x*, certified exactly."""
    from steady.schedule.ring_steps import path_timetable

    sources = list(platform.compute_nodes[:count])
    result = collective_throughput(platform, "broadcast", sources=sources)
    built = path_timetable(platform, result, 8)
    if built is None:
        return
    table, m = built
    table.check()
    nodes = set(platform.compute_nodes)
    for tree in table.trees:
        assert set(tree.parent) == nodes - {tree.root}
        assert len(set(tree.parent.values())) == len(tree.parent)   # a path: one child each
    rate = table.rate(result.roots)
    assert m == 1 and rate == table.unit / Fraction(table.period) <= result.rate
    assert _verified(platform, result, table) == rate / result.rate


@pytest.mark.slow
def test_no_ring_search_at_zero_checks():
    """``Effort.collective_ring_checks`` = 0 (the ``fast`` level): the chooser keeps
    its list schedule on the dragonfly, below 1 (streamed transfers, which reach 1
    there, left out too)."""
    from steady.schedule.effort import DEFAULT, FAST

    platform = dragonfly()
    result = collective_throughput(platform, "allgather")
    assert FAST.collective_ring_checks == 0
    _, stats = collective_timetable(platform, result, 64, DEFAULT.but(collective_ring_checks=0,
                                                                  collective_streamed=0))
    assert stats["ratio"] < 1 and not stats["construction"].startswith("ring steps")


def test_paths_read_the_sources_relative_rate():
    """The fat tree's two sources at relative rates 2 and 2: x* is per unit of
    relative rate (25/8), and so is the paths' rate, 1 / (2·C): certified ratio 1
    either way."""
    from steady.schedule.ring_steps import path_timetable
    from steady.topologies import fat_tree_platform

    platform = fat_tree_platform(4, oversubscription=2)
    for rates in ([1, 1], [2, 2]):
        result = collective_throughput(platform, "broadcast",
                                       sources=["p0.e0.h0", "p0.e0.h1"], rates=rates)
        assert result.rate == Fraction(25, 4 * rates[0])
        table, _ = path_timetable(platform, result, 8)
        assert table.rate(result.roots) == Fraction(1, rates[0]) / (table.period / table.unit)
        assert _verified(platform, result, table) == table.rate(result.roots) / result.rate
