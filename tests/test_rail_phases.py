"""Rail fabrics (boxes x rails) and two-box DGX-like fabrics: rounds built by hand, and
the exact cap of the resource rule (issue 43; steady.schedule.rail_phases,
proofs/collectives.md §10)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from helpers import examples

from steady.network.collective_bound import proved_bound, route_rows, simple_routes
from steady.network.resources import MAJORITY, transfer_model
from steady.platform import MULTI_PORT, Link, Platform
from steady.schedule.collective import collective_schedule
from steady.schedule.nic_rounds import nic_cap, nic_shape, nic_timetable
from steady.schedule.rail_phases import rail_shape, rail_timetable
from steady.throughput import collective_throughput
from steady.verify import verify


def both(links, a, b, bw):
    links += [Link(a, b, 1 / Fraction(bw)), Link(b, a, 1 / Fraction(bw))]


def rail_platform(servers, gpus, box_bw, rail_bw, spines=0, spine_bw=50) -> Platform:
    """``servers`` boxes of ``gpus`` GPUs on a box switch at ``box_bw``, GPU g of every
    box on rail switch g at ``rail_bw``, every rail linked to ``spines`` spines; a
    bandwidth may be a list, one per box."""
    links, nodes = [], []
    for s in range(servers):
        for g in range(gpus):
            v = f"s{s}.g{g}"
            nodes.append(v)
            both(links, v, f"s{s}.nvs", box_bw[s] if isinstance(box_bw, list) else box_bw)
            both(links, v, f"rail{g}", rail_bw[s] if isinstance(rail_bw, list) else rail_bw)
    for g in range(gpus):
        for sp in range(spines):
            both(links, f"rail{g}", f"spine{sp}", spine_bw)
    switches = ([f"s{s}.nvs" for s in range(servers)] + [f"rail{g}" for g in range(gpus)]
                + [f"spine{sp}" for sp in range(spines)])
    return Platform(nodes[0], links, nodes + switches, "rail", ports=MULTI_PORT,
                    switches=switches)


def dgx_mixed_2(boxes=2, gpus=8, per_pcie=2, fast=450, slow=300, pcie=32,
                nic=50) -> Platform:
    """trial43's dgx-mixed-2 (benchmarks/trial43_topologies.py) by default: two boxes of
    8 GPUs on an NVSwitch (GPUs 0-3 at 450, 4-7 at 300), pairs of GPUs on a PCIe switch
    (32) with one NIC (50) to one leaf (50)."""
    links, nodes, switches = [], [], ["leaf"]
    for b in range(boxes):
        switches.append(f"b{b}.nvs")
        for g in range(gpus):
            nodes.append(f"b{b}.g{g}")
            both(links, f"b{b}.g{g}", f"b{b}.nvs", fast if g < gpus // 2 else slow)
        for p in range(gpus // per_pcie):
            switches += [f"b{b}.pcie{p}", f"b{b}.nic{p}"]
            for g in range(per_pcie * p, per_pcie * (p + 1)):
                both(links, f"b{b}.g{g}", f"b{b}.pcie{p}", pcie)
            both(links, f"b{b}.pcie{p}", f"b{b}.nic{p}", nic)
            both(links, f"b{b}.nic{p}", "leaf", nic)
    return Platform(nodes[0], links, nodes + switches, "dgx-mixed-2", ports=MULTI_PORT,
                    switches=switches)


RAIL_4X4 = rail_platform(4, 4, 200, 25, spines=2)


def test_the_shape_is_read_from_the_links():
    """trial43's rail-4x4: 4 boxes (NVSwitch 200) x 4 rails (25), spines ignored; the
    families chosen by the rate (box rounds at 200 carry S = 4 roots' chunks); not a
    rail fabric: one link changed, one-port, the DGX-like boxes (three links per GPU)."""
    rail = rail_shape(RAIL_4X4)
    assert rail.dims == (4, 4) and rail.boxes[2] == "s2.nvs" and rail.rails[1] == "rail1"
    assert rail.nodes[2][1] == "s2.g1"
    assert rail.box_costs[3] == (Fraction(1, 200),) * 4
    assert rail.rail_costs[0] == (Fraction(1, 25),) * 4
    assert rail.rate() == Fraction(25, 3)
    assert rail.transposed().rate() == Fraction(25, 12)   # the rails as boxes: slower
    changed = RAIL_4X4.replace_links([Link(l.tail, l.head, l.cost * 2)
                                      if l.arc == ("s1.g2", "rail2") else l
                                      for l in RAIL_4X4.links])
    assert rail_shape(changed) is None
    one_port = Platform(RAIL_4X4.source, RAIL_4X4.links, RAIL_4X4.nodes, "one",
                        switches=RAIL_4X4.switches)
    assert rail_shape(one_port) is None
    assert rail_shape(dgx_mixed_2()) is None


def test_rail_4x4_reaches_the_optimum_for_every_collective():
    """trial43's rail-4x4 (the list schedule: allgather 0.956, reduce-scatter 0.950,
    allreduce 0.960 at <= 64 chunks): ratio 1 with one chunk per root, verified."""
    for collective, rate in (("allgather", Fraction(25, 3)),
                             ("reduce-scatter", Fraction(25, 3)),
                             ("allreduce", Fraction(25, 6))):
        result = collective_throughput(RAIL_4X4, collective)
        assert result.rate == rate
        schedule, stats = collective_schedule(RAIL_4X4, result, 64)
        assert stats["ratio"] == 1 and stats["chunks_per_root"] == 1
        assert stats["construction"] == "rounds of rail and box transfers on a rail fabric"
        report = verify(RAIL_4X4, schedule)
        assert report.ok and report.ratio == 1


def test_a_broadcast_is_not_built_by_rounds():
    result = collective_throughput(RAIL_4X4, "broadcast")
    assert rail_timetable(RAIL_4X4, result, 64) is None


@settings(max_examples=examples(12), deadline=None)
@given(servers=st.integers(2, 4), gpus=st.integers(2, 4), data=st.data(),
       spines=st.integers(0, 1),
       collective=st.sampled_from(["allgather", "reduce-scatter", "allreduce"]))
def test_rounds_reach_the_rate_of_their_shape(servers, gpus, data, spines, collective):
    """Every rail fabric (one bandwidth per family, or one per box): the rounds'
    timetable is valid (verify), its rate is the shape's (halved for an allreduce),
    never above x*; and equal to x* with one bandwidth per family when the rail rounds
    bind and the box switches link only to their nodes (then x* <= B_rail/(S-1), the
    boxes' cut; with spines on the family taken as boxes it need not hold)."""
    each = data.draw(st.booleans())
    bws = st.lists(st.integers(1, 12), min_size=servers, max_size=servers) if each \
        else st.integers(1, 12)
    box_bw, rail_bw = data.draw(bws), data.draw(bws)
    platform = rail_platform(servers, gpus, box_bw, rail_bw, spines)
    rail = rail_shape(platform)
    assert rail is not None
    result = collective_throughput(platform, collective)
    table, m = rail_timetable(platform, result, 64)
    per = len({d for _, d in result.roots})
    assert m == 1 and table.rate(result.roots) == rail.rate() / per
    assert table.rate(result.roots) <= result.rate
    s_, g_ = rail.dims
    closed = all({l.head for l in platform.out_links(box)} == set(rail.nodes[s])
                 for s, box in enumerate(rail.boxes))   # no spine on the box switches
    uniform = len({c for row in rail.box_costs + rail.rail_costs for c in row}) <= 2 \
        and not each
    if uniform and closed and (s_ - 1) * rail.rail_costs[0][0] >= \
            (g_ - 1) * s_ * rail.box_costs[0][0]:
        assert table.rate(result.roots) == result.rate
    report = verify(platform, table.schedule(result))
    assert report.ok and report.ratio == table.rate(result.roots) / result.rate


def test_two_box_generations_and_nic_speeds():
    """trial43's rail-8x8-hetero in small (4 boxes of 4 GPUs, boxes at 450 and 300, rails
    at 50 for boxes 0-1 and 25 for 2-3, 2 spines): a slow box takes in 12 chunks per
    root's chunk over its four rails at 25, so x* <= 100/12 = 25/3 (the box cut), and
    the rail rounds at per-link speeds reach it with one chunk per root.  (The 8x8 fabric
    itself takes about 2 minutes for x* alone, without symmetry: benchmarks/
    trial43_topologies.py has it.)"""
    platform = rail_platform(4, 4, [300 if s % 2 else 450 for s in range(4)],
                             [50 if s < 2 else 25 for s in range(4)], spines=2,
                             spine_bw=100)
    result = collective_throughput(platform, "allgather")
    assert result.rate == Fraction(25, 3)
    schedule, stats = collective_schedule(platform, result, 64)
    assert stats["ratio"] == 1 and stats["chunks_per_root"] == 1
    assert verify(platform, schedule).ratio == 1


def test_dgx_mixed_2_is_capped_by_its_nics():
    """dgx-mixed-2: every route out of a box starts on a GPU's PCIe link (32) and crosses
    one of the box's four NIC-to-leaf links (50), holding 32/50 > 1/2 of it: those
    transfers run one at a time per NIC (the majority rows), 32 chunks per time unit
    each.  Prices 4 on the four majority rows of one box prove it exactly
    (proofs/collectives.md §10): allgather and reduce-scatter x <= 16 (x* = 332/15:
    ratio <= 60/83), allreduce x <= 8 (x* = 25/2: 16/25), broadcast x <= 128 (x* = 200:
    16/25)."""
    platform = dgx_mixed_2()
    routes = simple_routes(platform)
    coef = route_rows(transfer_model(platform), routes)
    compute = list(platform.compute_nodes)
    for collective, box, rate, cap in (("allgather", 1, Fraction(332, 15), 16),
                                       ("reduce-scatter", 0, Fraction(332, 15), 16),
                                       ("allreduce", 0, Fraction(25, 2), 8),
                                       ("broadcast", 0, Fraction(200), 128)):
        result = collective_throughput(platform, collective)
        assert result.rate == rate
        prices = {(("arc", (f"b{box}.nic{p}", "leaf")), MAJORITY): Fraction(4)
                  for p in range(4)}
        leaving = [r for r in routes if r[0].startswith(f"b{box}.")
                   and not r[-1].startswith(f"b{box}.")]
        assert leaving and all(any(coef[r].get(row) == Fraction(1, 32) for row in prices)
                               for r in leaving)
        bound = proved_bound(compute, result.roots, routes, coef, prices)
        assert bound.bound == cap
    assert Fraction(16) / Fraction(332, 15) == Fraction(60, 83)


@pytest.mark.slow   # the whole pipeline on a 2-box sample: CI runs it
def test_dgx_mixed_2_reaches_its_cap():
    """dgx-mixed-2 (the list schedule: 0.712, 0.723, 0.637): the NIC rounds reach the
    caps of test_dgx_mixed_2_is_capped_by_its_nics exactly, one chunk per root:
    allgather and reduce-scatter 60/83, allreduce 16/25; verified; nic_cap proves them
    for full-speed transfers.  Streamed at a share of their routes (proofs/collectives.md
    §16), the chooser's timetable goes past the cap to the target."""
    platform = dgx_mixed_2()
    fab = nic_shape(platform)
    assert fab.dims == (2, 8) and fab.slot == (0, 1) * 4 and fab.leaf == "leaf"
    assert fab.nic[1][5] == "b1.nic2" and fab.pcie[0][0] == "b0.pcie0"
    assert rail_shape(platform) is None and nic_shape(RAIL_4X4) is None
    one_way = platform.replace_links([Link(l.tail, l.head, l.cost * 2)
                                      if l.arc == ("b0.nic0", "leaf") else l
                                      for l in platform.links])
    assert nic_shape(one_way) is None   # a link with two costs
    one_port = Platform(platform.source, platform.links, platform.nodes, "one",
                        switches=platform.switches)
    assert nic_shape(one_port) is None
    for collective, ratio in (("allgather", Fraction(60, 83)),
                              ("reduce-scatter", Fraction(60, 83)),
                              ("allreduce", Fraction(16, 25))):
        result = collective_throughput(platform, collective)
        table, m = nic_timetable(platform, result, 64)
        assert m == 1 and table.rate(result.roots) / result.rate == ratio
        report = verify(platform, table.schedule(result))
        assert report.ok and report.ratio == ratio
        assert nic_cap(platform, result) == ratio * result.rate
    result = collective_throughput(platform, "allgather")
    schedule, stats = collective_schedule(platform, result, 64)
    assert stats["ratio"] >= Fraction(99, 100) > Fraction(60, 83)
    assert "streamed" in stats["construction"]
    assert verify(platform, schedule).ratio == stats["ratio"]


@settings(max_examples=examples(10), deadline=None)
@given(boxes=st.integers(2, 3), gpus=st.sampled_from([2, 4]), per_pcie=st.integers(1, 2),
       speeds=st.lists(st.integers(1, 20), min_size=4, max_size=4),
       collective=st.sampled_from(["allgather", "reduce-scatter", "allreduce"]))
def test_nic_rounds_are_valid(boxes, gpus, per_pcie, speeds, collective):
    """Every NIC fabric of the generator: the rounds' timetable passes verify, one chunk
    per root, never above x*; its period is the longer of the cross rounds (per slot,
    its slowest route) and the box rounds."""
    fast, slow, pcie, nic = speeds
    platform = dgx_mixed_2(boxes, gpus, per_pcie, fast, slow, pcie, nic)
    assert nic_shape(platform) is not None
    result = collective_throughput(platform, collective)
    table, m = nic_timetable(platform, result, 64)
    per = len({d for _, d in result.roots})
    cross = (boxes - 1) * per_pcie * max(Fraction(1, pcie), Fraction(1, nic))
    box = (gpus - 1) * boxes * Fraction(1, min(fast, slow))   # every GPU sends each round
    assert table.period == per * max(cross, box) * table.unit
    assert m == 1 and table.rate(result.roots) <= result.rate
    report = verify(platform, table.schedule(result))
    assert report.ok and report.ratio == table.rate(result.roots) / result.rate
