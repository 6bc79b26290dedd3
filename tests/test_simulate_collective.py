"""A collective's schedule over a finite horizon (steady.simulate.collective), steady
simulate and steady replay on collective schedules, and the collective_schedules
strategy (issue 43)."""

import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from helpers import examples
from hypothesis import strategies as st

from steady.simgrid import locate
from steady.simulate.collective import collective_horizon, edge_lags
from steady.strategies import collective_schedules, switched_platforms
from steady.verify import verify
from helpers import assert_one_line_error, run

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
HAVE_SIMGRID = locate.find_simgrid() is not None
needs_simgrid = pytest.mark.skipif(not HAVE_SIMGRID, reason="skipped: SimGrid not installed")
FEW = settings(max_examples=examples(20), deadline=None,
               suppress_health_check=[HealthCheck.too_slow])


def _tiny():
    from test_collective_schedules import _tiny as tiny
    return tiny()


# -- the count ----------------------------------------------------------------------------

def test_edge_lags_follow_the_longest_chain_to_the_sender():
    # out-tree a -> b -> c, a -> d: the sender's depth
    assert edge_lags([("a", "b"), ("b", "c"), ("a", "d")]) == {
        ("a", "b"): 0, ("b", "c"): 1, ("a", "d"): 0}
    # in-tree (data towards r): c -> b -> r, d -> r, e -> c: the sender's height
    assert edge_lags([("c", "b"), ("b", "r"), ("d", "r"), ("e", "c")]) == {
        ("c", "b"): 1, ("b", "r"): 2, ("d", "r"): 0, ("e", "c"): 0}


@pytest.mark.parametrize("k, delivered", [(1, 0), (2, 1), (3, 1), (4, 2), (100, 50)])
def test_the_hand_made_allgather_counts_by_hand(k, delivered):
    """Period 2, each root's star sends its one message at 0 and 1 (one time unit each):
    batch b is everywhere at 2b + 2; x* = 1/2."""
    platform, result, schedule = _tiny()
    found = collective_horizon(schedule, k, result.rate)
    assert found.delivered == {"g0": delivered, "g1": delivered, "g2": delivered}
    assert found.ratio == Fraction(delivered) / (Fraction(k) / 2)
    assert found.warmup == {"g0": 0, "g1": 0, "g2": 0}


@given(collective_schedules(switched_platforms(max_compute=4, max_switches=2),
                            kinds=("allgather", "reduce-scatter", "allreduce"),
                            max_chunks=4),
       st.integers(1, 40), st.integers(1, 5))
@FEW
def test_the_horizon_count_is_monotone_bounded_and_periodic(schedule, tenths, step):
    """Never above K·x* (the certificate), never fewer by a later K, and once every
    root's first batch is in, each period adds exactly its chunks per period."""
    report = verify(schedule.platform, schedule)
    assert report.ok, [str(v) for v in report.violations]
    k = Fraction(tenths, 10) * schedule.period
    early = collective_horizon(schedule, k, report.bound)
    later = collective_horizon(schedule, k + Fraction(step, 3), report.bound)
    assert early.ratio <= 1 and later.ratio <= 1
    assert all(later.delivered[r] >= early.delivered[r] for r in early.delivered)
    warm = (max(early.warmup.values()) + 1) * schedule.period
    a = collective_horizon(schedule, warm + k, report.bound)
    b = collective_horizon(schedule, warm + k + schedule.period, report.bound)
    assert {r: b.delivered[r] - a.delivered[r] for r in a.delivered} == a.per_period


# -- the commands -------------------------------------------------------------------------

def test_simulate_a_collective_schedule_file(tmp_path, capsys):
    out = tmp_path / "ag.json"
    code, _, err = run(capsys, "schedule", SAMPLES / "collectives" / "a100-1.json",
                       "--collective", "allgather", "--max-messages", "8", "--effort",
                       "fast", "-o", out, "--quiet")
    assert code == 0, err
    code, text, err = run(capsys, "simulate", "--schedule", out, "--horizon", "1", "--json")
    assert code == 0, err
    doc = json.loads(text)
    assert doc["collective"] == "allgather" and doc["optimum_source"] == "certificate"
    assert len(doc["roots"]) == 8
    # one tree per root, ratio 1: period 8 / (300/7) = 14/75, a star (lag 0); by K = 1
    # five whole periods (70/75) and the first messages of the sixth
    assert doc["period"] == "14/75"
    assert Fraction(doc["ratio"]) <= 1
    assert all(40 <= r["delivered"] <= 48 for r in doc["roots"].values())


def test_simulate_a_platform_with_collective(capsys):
    code, text, err = run(capsys, "simulate", SAMPLES / "collectives" / "hetero-cluster.json",
                          "--collective", "allgather", "--max-messages", "16",
                          "--effort", "fast", "--horizon", "10000", "--json", "--quiet")
    assert code == 0, err
    doc = json.loads(text)
    assert doc["optimum_source"] == "exact optimum" and doc["optimum"] == "1"
    assert len(doc["roots"]) == 11 and Fraction(doc["ratio"]) <= 1


@pytest.mark.parametrize("extra, element", [
    (["--plot", "p.json"], "--plot"), (["--forwarding", "listed"], "--forwarding"),
    (["--collective", "allreduce"], "collective")])
def test_simulate_refusals_are_one_line(tmp_path, capsys, extra, element):
    platform, result, schedule = _tiny()
    path = tmp_path / "tiny.json"
    path.write_text(schedule.to_json())
    args = [a if a != "p.json" else tmp_path / a for a in extra]
    code, _, err = run(capsys, "simulate", "--schedule", path, "--horizon", "10", *args)
    assert code == 2
    assert_one_line_error(err, element)


@needs_simgrid
def test_replay_a_collective_on_its_simgrid_platform(tmp_path, capsys):
    out = tmp_path / "dc.json"
    code, _, err = run(capsys, "schedule", SAMPLES / "collectives" /
                       "simgrid-data_center-6.json", "--collective", "allgather",
                       "--max-messages", "8", "--effort", "fast", "-o", out, "--quiet")
    assert code == 0, err
    code, text, err = run(capsys, "replay", SAMPLES / "simgrid" / "data_center.xml", out,
                          "--size", "1GB", "--periods", "2", "--json")
    assert code == 0, err
    doc = json.loads(text)
    assert doc["collective"] == "allgather" and len(doc["chunks_per_root"]) == 6
    assert abs(float(doc["ratio"]) - 1) < 1e-9   # CM02, no latency: on time
    schedule = json.loads(out.read_text())
    rate = Fraction(min(doc["chunks_per_root"].values())) / Fraction(schedule["period"])
    assert Fraction(doc["predicted_rate_per_root"]) == rate
    code, _, err = run(capsys, "replay", SAMPLES / "simgrid" / "data_center.xml", out,
                       "--size", "1GB", "--collective", "reduce-scatter")
    assert code == 2
    assert_one_line_error(err, "collective")


def test_collective_schedules_arguments_are_checked():
    from hypothesis.errors import InvalidArgument

    from steady.topologies import a100_platform

    for build in (lambda: collective_schedules(a100_platform(1), max_chunks=0),
                  lambda: collective_schedules(a100_platform(1), kinds=("gather",))):
        with pytest.raises(InvalidArgument):
            build()


def test_without_max_messages_a_short_horizon_tries_fewer_chunks(capsys):
    """simulate --collective without --max-messages: 64 chunks per root first, then 16,
    4 and 1 while the warm-up loses more than 1 % of the timetable's ratio; the count
    that delivers the most by K is kept (hetero-cluster's allgather at K = 100: 0 at 64
    chunks, the whole horizon spent warming up)."""
    path = str(SAMPLES / "collectives" / "hetero-cluster.json")
    code, out, err = run(capsys, "simulate", path, "--collective", "allgather",
                         "--horizon", "100", "--json")
    assert code == 0, err
    doc = json.loads(out)
    tried = [(t["max_messages"], Fraction(t["ratio"])) for t in doc["counts_tried"]]
    assert [m for m, _ in tried] == [64, 16, 4, 1]
    assert tried[0][1] == 0 and Fraction(doc["ratio"]) == max(r for _, r in tried)
    code, out, err = run(capsys, "simulate", path, "--collective", "allgather",
                         "--horizon", "100000", "--json")
    assert code == 0 and "counts_tried" not in json.loads(out)   # 64 loses < 1 %
    code, out, err = run(capsys, "simulate", path, "--collective", "allgather",
                         "--horizon", "100", "--max-messages", "64", "--json")
    assert Fraction(json.loads(out)["ratio"]) == 0 and "counts_tried" not in out
