"""The certificate's prices on majority rows (issue 43; steady.network.collective_bound
.majority_cap, proofs/collectives.md §15): a cap below x* where the routes through a
priced shared link each hold more than half of it."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from helpers import examples, run

from steady.network.collective_bound import majority_cap
from steady.platform import Platform
from steady.schedule.collective import collective_schedule, ratio_cap
from steady.schedule.effort import effort
from steady.strategies import switched_platforms
from steady.throughput import collective_throughput
from steady.verify import verify

F = Fraction


def limiter_triangle(slow: str | None = None, fast: str | None = None) -> Platform:
    """Three nodes, every arc of cost 6 over one shared link ``L`` of cost 5 (a SimGrid
    limiter under faster host links): each transfer holds 5/6 of L.  With ``slow``, the
    arc a -> ``slow`` costs 10 instead: it holds only 1/2 of L; with ``fast``, the arc
    a -> ``fast`` costs 5: it holds L whole."""
    nodes = ["a", "b", "c"]
    special = {("a", slow): "10", ("a", fast): "5"}
    links = [{"from": u, "to": v, "cost": special.get((u, v), "6")}
             for u in nodes for v in nodes if u != v]
    return Platform.from_dict({
        "format": "steady-platform", "version": 1, "source": "a", "links": links,
        "network": {"links": [{"id": "L", "cost": "5"}],
                    "routes": [{"from": u, "to": v, "links": ["L"]}
                               for u in nodes for v in nodes if u != v]}})


def test_the_limiter_triangle_is_capped_at_five_sixths():
    # x*: the 6 transfers of a period (3 roots, 2 tree edges each) load L 5 each: 1/30.
    # They run one at a time (5/6 + 5/6 > 1), 6 each: no timetable beats 1/36.
    p = limiter_triangle()
    result = collective_throughput(p, "allgather")
    assert result.rate == F(1, 30)
    found = majority_cap(p, result.roots, result.certificate.prices)
    assert found.bound == F(1, 36)
    assert set(found.prices) == {(("link", "L"), "more than half")}
    assert ratio_cap(p, result) == F(5, 6)


@pytest.mark.parametrize("kind, optimum", [("reduce-scatter", F(1, 30)),
                                           ("allreduce", F(1, 60))])
def test_the_reductions_are_capped_alike(kind, optimum):
    # the same 6 transfers per chunk (12 for an allreduce: in-trees, then out-trees)
    p = limiter_triangle()
    result = collective_throughput(p, kind)
    assert result.rate == optimum
    assert majority_cap(p, result.roots, result.certificate.prices).bound == optimum * F(5, 6)


def test_the_chooser_stops_at_the_cap_and_says_so():
    p = limiter_triangle()
    result = collective_throughput(p, "allgather")
    schedule, stats = collective_schedule(p, result, 4)
    assert stats["cap"] == F(5, 6)
    assert stats["ratio"] == F(5, 6)          # the transfers back to back: the cap
    report = verify(p, schedule)
    assert report.ok and report.ratio == F(5, 6)


def test_schedule_reports_the_cap(capsys, tmp_path):
    path = tmp_path / "triangle.json"
    path.write_text(json.dumps(limiter_triangle().to_dict()))
    code, out, _ = run(capsys, "schedule", path, "--collective", "allgather",
                       "--max-messages", "4", "--json", "--quiet")
    doc = json.loads(out)
    assert code == 0 and doc["ratio"] == "5/6" and doc["ratio_cap"] == "5/6"
    code, out, _ = run(capsys, "schedule", path, "--collective", "allgather",
                       "--max-messages", "4")
    assert code == 0 and "no timetable beats 0.833333 (exactly 5/6)" in out


def test_whole_holders_beside_majority_holders():
    # a -> b (cost 5) holds L whole, the other arcs 5/6 of it: still one transfer at a
    # time on L. x* = 1/30 (6 transfers per chunk, load 5 each); one at a time, at best
    # two of them over a -> b (a's chunk and c's, c -> a -> b): 2·5 + 4·6 = 34, so the
    # cap is 1/34 = (15/17)·x*, and the chooser's timetable reaches it
    p = limiter_triangle(fast="b")
    result = collective_throughput(p, "allgather")
    assert result.rate == F(1, 30)
    found = majority_cap(p, result.roots, result.certificate.prices)
    assert found.bound == F(1, 34)
    assert set(found.prices) == {(("link", "L"), "more than half")}
    schedule, stats = collective_schedule(p, result, 4)
    assert stats["cap"] == F(15, 17) == stats["ratio"]
    assert verify(p, schedule).ratio == F(15, 17)


def test_a_link_held_by_half_keeps_its_load_row():
    # a -> b holds exactly 1/2 of L: two such could share it, so L is not
    # majority-held and its price stays on its load row: no cap
    p = limiter_triangle(slow="b")
    result = collective_throughput(p, "allgather")
    assert majority_cap(p, result.roots, result.certificate.prices) is None
    assert ratio_cap(p, result) is None


def test_ports_alone_prove_no_cap():
    # one-port, no network section: the certificate prices ports only (held whole)
    p = Platform.from_dict({
        "format": "steady-platform", "version": 1, "source": "a",
        "links": [{"from": u, "to": v, "cost": "1"} for u in "abc" for v in "abc" if u != v]})
    result = collective_throughput(p, "allgather")
    assert majority_cap(p, result.roots, result.certificate.prices) is None


@st.composite
def limited_platforms(draw) -> Platform:
    """One-port platforms of 2 to 4 nodes, every arc over a drawn set of 1 to 3 shared
    links (SimGrid's limiters and backbones), each link no slower than the arcs over it:
    links held by more than half by some routes, by half or less by others."""
    n = draw(st.integers(2, 4))
    nodes = [f"n{i}" for i in range(n)]
    shared = [draw(st.sampled_from([4, 5, 6])) for _ in range(draw(st.integers(1, 3)))]
    links, routes = [], []
    for u in nodes:
        for v in nodes:
            if u == v:
                continue
            cost = draw(st.sampled_from([6, 7, 10]))
            links.append({"from": u, "to": v, "cost": str(cost)})
            crossed = [f"L{i}" for i, c in enumerate(shared) if c <= cost and draw(st.booleans())]
            if crossed:
                routes.append({"from": u, "to": v, "links": crossed})
    return Platform.from_dict({
        "format": "steady-platform", "version": 1, "source": nodes[0], "links": links,
        "network": {"links": [{"id": f"L{i}", "cost": str(c)} for i, c in enumerate(shared)],
                    "routes": routes}})


@settings(max_examples=examples(25), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(limited_platforms(), switched_platforms(max_compute=4, max_switches=2)))
def test_no_timetable_beats_the_majority_cap(platform):
    result = collective_throughput(platform, "allgather")
    found = majority_cap(platform, result.roots, result.certificate.prices)
    if found is None:
        return
    assert 0 < found.bound <= result.rate
    assert ratio_cap(platform, result) in (None, found.bound / result.rate)
    schedule, stats = collective_schedule(platform, result, 4, effort("fast"))
    report = verify(platform, schedule)
    assert report.ok and report.ratio * result.rate <= found.bound
    assert stats["cap"] is None or stats["ratio"] <= stats["cap"]
