"""Phased allgather timetables on Clos fabrics: fat trees and leaf-spine networks
(issue 43; steady.schedule.clos_phases, proofs/collectives.md §9)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from helpers import examples

from steady.platform import Link, Platform
from steady.platform import MULTI_PORT
from steady.schedule.clos_phases import chunk_count, clos_shape, phased_timetable, skeletons
from steady.throughput import collective_throughput
from steady.topologies import fat_tree_platform
from steady.verify import verify

K4_O2 = fat_tree_platform(4, oversubscription=2)
K4_O2_RESULT = collective_throughput(K4_O2, "allgather")


def leaf_spine(leaves: int, hosts: int, spines: int, host_bw, up_bw,
               names: str = "l{l}.h{h}") -> Platform:
    """A two-level leaf-spine network: ``hosts`` per leaf at ``host_bw``, every leaf
    linked to every spine at ``up_bw`` (both ways)."""
    links, nodes = [], []
    for l in range(leaves):
        for h in range(hosts):
            v = names.format(l=l, h=h)
            nodes.append(v)
            links += [Link(v, f"leaf{l}", 1 / Fraction(host_bw)),
                      Link(f"leaf{l}", v, 1 / Fraction(host_bw))]
        for s in range(spines):
            links += [Link(f"leaf{l}", f"spine{s}", 1 / Fraction(up_bw)),
                      Link(f"spine{s}", f"leaf{l}", 1 / Fraction(up_bw))]
    switches = [f"leaf{l}" for l in range(leaves)] + [f"spine{s}" for s in range(spines)]
    return Platform(nodes[0], links, nodes + switches, "leaf-spine", ports=MULTI_PORT,
                    switches=switches)


def test_the_shape_is_read_from_the_links(tmp_path):
    """A fat tree (P = k, E = H = A = k/2, its cores by plane), also read back from its
    file; a leaf-spine under other names; not a fractional o, not one switch link
    changed, not a host with two links, not one-port."""
    clos = clos_shape(K4_O2)
    assert clos.dims == (4, 2, 2, 2) and clos.over == 2 and clos.bandwidth == Fraction(25, 2)
    assert clos.hosts[1][0] == ("p1.e0.h0", "p1.e0.h1") and clos.edges[3][1] == "p3.edge1"
    assert clos.aggs[2] == ("p2.agg0", "p2.agg1") and clos.cores == (("core0", "core1"),
                                                                     ("core2", "core3"))
    path = tmp_path / "ft.json"
    K4_O2.write(path)
    assert clos_shape(Platform.from_file(path)) == clos
    assert clos_shape(fat_tree_platform(6, 50, 3)).dims == (6, 3, 3, 3)
    assert clos_shape(fat_tree_platform(4)).over == 1
    ls = clos_shape(leaf_spine(3, 4, 2, 50, 25, names="rack{l}-node{h}"))
    assert ls.dims == (1, 3, 4, 2) and ls.over == 2 and ls.cores == ()
    assert clos_shape(fat_tree_platform(4, oversubscription=Fraction(3, 2))) is None
    changed = K4_O2.replace_links([Link(l.tail, l.head, l.cost * 2)
                                   if l.arc == ("core0", "p1.agg0") else l
                                   for l in K4_O2.links])
    assert clos_shape(changed) is None
    two = K4_O2.replace_links(list(K4_O2.links) + [Link("p0.e0.h0", "p0.edge1", 1)])
    assert clos_shape(two) is None
    one_port = Platform(K4_O2.source, K4_O2.links, K4_O2.nodes, "one-port",
                        switches=K4_O2.switches)
    assert clos_shape(one_port) is None


@pytest.mark.parametrize("k", [4, 6, 8])
def test_the_skeletons_step_the_host_index_and_span(k):
    """Both skeletons are arborescences rooted at (0, 0, 0) over every host, every edge
    from host index i to i + 1 mod h; type B has one slow edge more than type A's
    k^2/2 - 1 (one per other edge switch)."""
    h = k // 2
    hosts = {(p, e, j) for p in range(k) for e in range(h) for j in range(h)}
    slow = []
    for parent in skeletons(clos_shape(fat_tree_platform(k, oversubscription=2))):
        assert set(parent) == hosts - {(0, 0, 0)}
        for child, par in parent.items():
            assert child[2] == (par[2] + 1) % h
            seen, v = set(), child
            while v != (0, 0, 0):   # every host reaches the root
                assert v not in seen
                seen.add(v)
                v = parent[v]
        slow.append(sum(1 for c, p in parent.items() if c[:2] != p[:2]))
    assert slow == [k * k // 2 - 1, k * k // 2]


def test_a_hand_made_phase_count():
    """k = 4, o = 2: S = 15m/2 slots in 2 phases and m/2 trees of type A: m a multiple
    of 4; k = 6, o = 3: S = 53m/3 in 3 phases and m/3 of type A: a multiple of 9;
    o > A: S = H(PE - 1)m/A in H phases, all of type A: k = 4, 7m even; k = 6, 17m a
    multiple of 3; a leaf-spine of 3 leaves of 4 hosts and 2 spines at o = 2: S = 11m/2
    in 4 phases, m/4 of type A: a multiple of 8."""
    def count(k, o, m):
        return chunk_count(clos_shape(fat_tree_platform(k, oversubscription=o)), m)
    assert [count(4, 2, m) for m in (3, 4, 7, 64, 66)] == [None, 4, 4, 64, 64]
    assert [count(6, 3, m) for m in (8, 9, 64)] == [None, 9, 63]
    assert count(6, 2, 64) == 60
    assert [count(4, 3, m) for m in (1, 2, 63)] == [None, 2, 62]
    assert [count(6, 5, m) for m in (2, 3, 64)] == [None, 3, 63]
    ls = clos_shape(leaf_spine(3, 4, 2, 50, 25))
    assert [chunk_count(ls, m) for m in (7, 8, 64)] == [None, 8, 64]


@given(st.integers(1, 96))
@settings(max_examples=examples(10), deadline=None)
def test_phases_reach_the_optimum_at_every_count(most):
    """At every M: the largest chunk count of the phases (none below 4), a valid
    timetable (Timetable.check ran) whose period is the host links' load, so the
    ratio is exactly 1, and steady verify's independent check says the same."""
    found = phased_timetable(K4_O2, K4_O2_RESULT, most)
    if most < 4:
        assert found is None
        return
    table, m = found
    assert m == chunk_count(clos_shape(K4_O2), most) and m <= most and m % 4 == 0
    assert table.rate(K4_O2_RESULT.roots) == K4_O2_RESULT.rate
    report = verify(K4_O2, table.schedule(K4_O2_RESULT))
    assert report.ok and report.ratio == 1


def test_no_phases_for_other_collectives():
    """A broadcast, a reduce-scatter: not this construction."""
    assert phased_timetable(K4_O2, collective_throughput(K4_O2, "broadcast"), 64) is None
    assert phased_timetable(K4_O2, collective_throughput(K4_O2, "reduce-scatter"),
                            64) is None


@pytest.mark.parametrize("leaves, hosts, spines, up", [(4, 4, 2, 25), (3, 4, 2, 25),
                                                         (3, 4, 2, 50), (4, 2, 1, 25)])
def test_leaf_spines_reach_the_optimum(leaves, hosts, spines, up):
    """Leaf-spine networks, hosts at 50 (or 25 with up = 25: o = 1), their own names:
    the host links bind (o <= A) or the leaves' downlinks (o > A, one spine at half
    speed); ratio 1, steady verify agrees."""
    host_bw = 25 if (leaves, up) == (4, 25) and spines == 2 else 50
    platform = leaf_spine(leaves, hosts, spines, host_bw, up, names="r{l}n{h}")
    result = collective_throughput(platform, "allgather")
    table, m = phased_timetable(platform, result, 64)
    assert m <= 64 and table.rate(result.roots) == result.rate
    assert verify(platform, table.schedule(result)).ratio == 1


@pytest.mark.parametrize("o", [3, 4])
def test_beyond_k_over_2_the_edge_switches_bind(o):
    """k = 4, o = 3 and 4: the edge switches' downlinks bind (x* = B/(7o)); the phases
    with q = 2 slow transfers per slot and only type A trees reach it."""
    platform = fat_tree_platform(4, oversubscription=o)
    result = collective_throughput(platform, "allgather")
    assert result.rate == Fraction(25, 2) / (7 * o)
    table, m = phased_timetable(platform, result, 64)
    assert m == 64 and table.rate(result.roots) == result.rate
    assert verify(platform, table.schedule(result)).ratio == 1


@pytest.mark.slow
@pytest.mark.parametrize("k, o, m", [(6, 2, 60), (6, 3, 63), (6, 5, 63), (8, 2, 64),
                                     (8, 4, 64)])
def test_larger_oversubscribed_fat_trees_reach_the_optimum(k, o, m):
    """54 and 128 hosts, oversubscription 2 to k/2 and beyond: ratio 1 at M <= 64
    (7 to 26 s, load ~8)."""
    platform = fat_tree_platform(k, oversubscription=o)
    result = collective_throughput(platform, "allgather")
    table, found = phased_timetable(platform, result, 64)
    assert found == m and table.rate(result.roots) == result.rate
    binding = k ** 3 // 4 - 1 if o <= k // 2 else o * (k * k // 2 - 1)
    assert result.rate == Fraction(25, 2) / binding   # the host links' or edge's cut
    assert verify(platform, table.schedule(result)).ratio == 1
