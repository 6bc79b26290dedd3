"""steady run without MPI: the finite-horizon plan of a schedule (002 §5.5 with causal
lags), its independent check, the baselines' plans, payloads, units, calibration and
report arithmetic, and the one-line errors (mpi4py absent, bad options)."""

import json
import math
import sys
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings

from helpers import examples
from hypothesis import strategies as st

from helpers import assert_one_line_error, run
from steady import default_platform
from steady.errors import InputError
from steady.platform import Link, Platform
from steady.run import payload
from steady.run.baselines import Unavailable, binomial_children, binomial_plan, chain_plan
from steady.run.calibrate import median, platform_of, read_pairs
from steady.run.engine import Outcome
from steady.run.job import node_ranks
from steady.simulate.choose import broadcast_plan
from steady.simulate.plan import Plan, PlanError, Transfer, check_plan, execute
from steady.simulate.unroll import PeriodicPattern
from steady.run.report import Measured, _union
from steady.run.units import duration_ns, ns_text, size_bytes
from steady.schedule.periodic import optimal_schedule
from steady.schedule_file import timed
from steady.strategies import platforms, schedules
from steady.throughput import throughput

F = Fraction
SMALL = settings(max_examples=examples(25))


def figure1_schedule():
    platform = default_platform()
    return optimal_schedule(platform, throughput(platform, "trees"))[0]


# -- the plan ----------------------------------------------------------------------------

def test_figure1_pipelined_lags_by_hand():
    """Figure 1's optimal schedule, timed: step 0 = Ps->P1 A, P1->P2 A, P2->P4 A then B
    (1/2 each); step 1 = P1->P3 A then B, P2->P1 B, Ps->P2 B; period 2.  Tree A: P1 has
    its message at 1, so P1->P2 (start 0) lags 1, P2 has it at 3, P2->P4 A (start 0)
    lags 2; P1->P3 A (start 1) lags 0.  Tree B: P2 has it at 2: P2->P4 B (start 1/2)
    lags 1, P2->P1 B (start 1) lags 1 (P1 has it at 4), P1->P3 B (start 3/2) lags 2.
    002 §5.4.2's rule would lag every node by its depth less one (P1->P3 A by 1)."""
    schedule = figure1_schedule()
    lags = PeriodicPattern(schedule, "pipelined").lag
    a, b = (0, 1) if schedule.trees[0].parent["P1"] == "Ps" else (1, 0)
    assert lags[a] == {"P1": 0, "P2": 1, "P4": 2, "P3": 0}
    assert lags[b] == {"P2": 0, "P4": 1, "P1": 1, "P3": 2}
    assert PeriodicPattern(schedule, "period").lag[a]["P3"] == 1


def test_figure1_plan_between_lemma_7_and_the_synchronous_unrolling():
    """K = 200: no schedule beats K / TP* = 200 (Lemma 7); the periods as written, with
    the largest lag W = 2, end by (K/M + W)·T = 204; ours lies in between."""
    plan = broadcast_plan(figure1_schedule(), 200)
    assert check_plan(plan) == []
    assert plan.about["warmup_periods"] == 2
    assert 200 <= plan.makespan_time <= 204
    assert plan.throughput == F(200) / plan.makespan_time


@SMALL
@given(schedules(platforms(max_nodes=5)), st.integers(1, 30))
def test_every_plan_is_one_port_causal_and_delivers_once(schedule, broadcasts):
    """The runtime postcondition, checked again from outside, and Lemma 7: no plan
    broadcasts K messages in less than K / TP* (002 §5.5)."""
    plan = broadcast_plan(schedule, broadcasts)
    assert check_plan(plan) == []
    optimum = throughput(schedule.platform).throughput
    assert plan.makespan_time >= broadcasts / optimum
    # the ideal execution of the plan starts every transfer at its planned start
    times = execute(plan.transfers, len(plan.nodes), plan.source)
    assert [b for b, _ in times] == [t.release for t in plan.transfers]


@pytest.mark.slow
@SMALL
@given(schedules(platforms(max_nodes=5)), st.integers(1, 4))
def test_plan_never_ends_after_the_periods_as_written(schedule, batches):
    """proofs/finite-horizon.md: each transfer as soon as possible in its port's order
    is never later than the synchronous unrolling, whose last batch ends by (B + W)·T
    (W = the pipelined warm-up)."""
    m = schedule.messages_per_period
    plan = broadcast_plan(schedule, batches * m)
    w = PeriodicPattern(schedule, "pipelined").warmup
    assert plan.makespan_time <= (batches + w) * schedule.period


def test_check_plan_finds_what_is_broken():
    plan = broadcast_plan(figure1_schedule(), 10)
    t = list(plan.transfers)
    late = next(i for i, x in enumerate(t) if x.tail != plan.source)
    early = t[:late] + [t[late]._replace(release=0)] + t[late + 1:]
    twice = t + [t[0]._replace(id=len(t))]
    short = [x for x in t if x.id != late]
    for transfers, says in ((early, "before it has received"), (twice, "twice"),
                            (short, "expected")):
        found = check_plan(Plan("x", plan.nodes, plan.source, 10, plan.unit,
                                tuple(transfers), plan.makespan))
        assert any(says in f for f in found), found


def test_execute_refuses_a_cycle():
    """Two transfers each waiting for the other's message cannot run."""
    a = Transfer(0, 1, 2, 0, 1, 0, 1)
    b = Transfer(1, 2, 1, 1, 1, 0, 1)
    feed = [Transfer(2, 0, 2, 0, 1, 5, 1), Transfer(3, 0, 1, 1, 1, 5, 1)]
    with pytest.raises(PlanError):
        execute([a, b] + feed, 3, 0)


# -- baselines --------------------------------------------------------------------------

@given(st.integers(1, 70), st.data())
def test_binomial_tree_is_mpich_s(size, data):
    """Every rank but the root has one parent, r - 2^k for 2^k the lowest set bit of
    its relative rank; the root sends ceil(log2 size) times (the rounds of the
    binomial algorithm); children largest first."""
    root = data.draw(st.integers(0, size - 1))
    parent = {}
    for r in range(size):
        kids = binomial_children(r, size, root)
        rel = [(c - root) % size for c in kids]
        assert rel == sorted(rel, reverse=True)
        for c in kids:
            assert c not in parent
            parent[c] = r
    assert set(parent) == set(range(size)) - {root}
    for c, p in parent.items():
        rel = (c - root) % size
        assert (p - root) % size == rel - (rel & -rel)
    rounds = len(binomial_children(root, size, root))
    assert rounds == (math.ceil(math.log2(size)) if size > 1 else 0)


def test_binomial_on_figure1_is_bounded_by_the_root_port():
    """Ranks Ps, P1..P4: the root sends each message to P4 (no link: cheapest path
    Ps->P2->P4, 3/2), P2 (1) and P1 (1): 7/2 per message on its out-port."""
    plan = binomial_plan(default_platform(), 40)
    assert check_plan(plan) == []
    assert plan.about["routed"] == ["Ps->P4", "P2->P3"]
    assert plan.makespan_time >= 40 * F(7, 2)
    assert plan.makespan_time <= 40 * F(7, 2) + 3    # + the last message's path


def test_chain_follows_links_depth_first():
    """Figure 1: from Ps the cheapest is P1 (tie with P2: file order); from P1, P3 (1/2)
    is a dead end, then P2, then P4.  A depth-first tree with P1 sending each message
    twice: throughput 2/3, the best single tree of Figure 4."""
    plan = chain_plan(default_platform(), 60)
    assert plan.about["tree"] == {"P1": "Ps", "P3": "P1", "P2": "P1", "P4": "P2"}
    assert plan.about["routed"] == []
    assert 60 * F(3, 2) <= plan.makespan_time <= 60 * F(3, 2) + 3


def test_a_sink_in_the_binomial_tree_makes_it_unavailable():
    """Ranks Ps, A, C, B: in MPICH's tree rank 2 (C) sends to rank 3 (B), but C has no
    out-link at all."""
    p = Platform("Ps", [Link("Ps", "A", F(1)), Link("Ps", "B", F(1)), Link("B", "C", F(1))],
                 ["Ps", "A", "C", "B"])
    with pytest.raises(Unavailable, match="no path from C to B"):
        binomial_plan(p, 3)


# -- payloads, units ----------------------------------------------------------------------

@given(st.integers(0, 2 ** 40), st.integers(16, 300), st.data())
def test_a_message_carries_its_number_and_a_checksum_that_sees_damage(seq, size, data):
    m = payload.message(seq, size)
    assert len(m) == size and payload.read_message(m) == (seq, True)
    if size > payload.HEADER:
        k = data.draw(st.integers(payload.HEADER, size - 1))
        bad = m.copy()
        bad[k] ^= 1 << data.draw(st.integers(0, 7))
        assert payload.read_message(bad) == (seq, False)
    if size >= payload.HEADER + 16:          # two body words swapped
        bad = m.copy()
        a, b = slice(16, 24), slice(24, 32)
        bad[a], bad[b] = m[b].copy(), m[a].copy()
        assert payload.read_message(bad)[1] is (bytes(m[a]) == bytes(m[b]))


def test_a_transfer_packs_and_unpacks():
    msgs = [payload.message(s, 40) for s in (7, 8, 9)]
    buf = payload.pack_transfer(5, 100, 250, msgs, 40)
    tid, begin, end, views = payload.unpack_transfer(buf, 40)
    assert (tid, begin, end) == (5, 100, 250)
    assert [payload.read_message(v) for v in views] == [(7, True), (8, True), (9, True)]


@pytest.mark.parametrize("text, value", [("64KB", 65536), ("1MB", 2 ** 20), ("4096", 4096),
                                         ("0.5KB", 512), ("2KiB", 2048)])
def test_sizes(text, value):
    assert size_bytes(text) == value


@pytest.mark.parametrize("text, value", [("1ms", 10 ** 6), ("500us", 500_000),
                                         ("0.5s", 5 * 10 ** 8), ("1e-3s", 10 ** 6)])
def test_durations(text, value):
    assert duration_ns(text, "--time-unit") == value
    assert F(ns_text(value)) == F(value, 10 ** 9)


@pytest.mark.parametrize("bad", ["", "1x", "0.3", "10", " 1KB", "2 KiB", "+1KB", "1_0KB",
                                 "١KB", "1e400s", "99999999999GB"])
def test_bad_size_or_duration_is_one_line(bad):
    with pytest.raises(InputError):
        size_bytes(bad, least=16)
    with pytest.raises(InputError):
        duration_ns(bad, "--time-unit")


def test_map_files(tmp_path):
    nodes = ("Ps", "P1", "P2")
    (tmp_path / "l.json").write_text(json.dumps(["P2", "Ps", "P1"]))
    (tmp_path / "d.json").write_text(json.dumps({"Ps": 2, "P1": 0, "P2": 1}))
    assert node_ranks(str(tmp_path / "l.json"), nodes) == [1, 2, 0]
    assert node_ranks(str(tmp_path / "d.json"), nodes) == [2, 0, 1]
    (tmp_path / "bad.json").write_text(json.dumps({"Ps": 0, "P1": 0, "P2": 1}))
    with pytest.raises(InputError, match="each rank once"):
        node_ranks(str(tmp_path / "bad.json"), nodes)
    (tmp_path / "odd.json").write_text(json.dumps(["Ps", "P9", "P1"]))
    with pytest.raises(InputError, match="'P9' is not a node"):
        node_ranks(str(tmp_path / "odd.json"), nodes)


# -- calibration and reports ------------------------------------------------------------

def test_calibrated_platform_from_medians():
    """Round trips (ns): empty 2000, full 10000 -> startup 1 µs, cost 9 µs, exact in
    seconds; a full round trip below the latency gives a cost raised to 1 ns."""
    samples = {(0, 1): (F(2000), F(10000)), (1, 0): (F(3000), F(1000)),
               (0, 2): (F(2001), F(5000))}
    cal = platform_of(samples, ["h", "h", "g"], 1024)
    p = cal.platform
    assert p.nodes == ("h:0", "h:1", "g:2") and p.source == "h:0"
    assert p.cost("h:0", "h:1") == F(9, 10 ** 6)
    assert [l.startup for l in p.links if l.arc == ("h:0", "h:1")] == [F(1, 10 ** 6)]
    assert p.cost("h:1", "h:0") == F(1, 10 ** 9) and cal.raised == [(1, 0)]
    assert p.cost("h:0", "g:2") == F(5000 - F(2001, 2), 10 ** 9)
    assert median([4, 1, 3, 2]) == F(5, 2) and median([3, 1, 2]) == 2


def test_pairs_file(tmp_path):
    (tmp_path / "p.json").write_text("[[0, 1], [1, 0], [0, 1]]")
    assert read_pairs(str(tmp_path / "p.json"), 2) == [(0, 1), (1, 0)]
    (tmp_path / "q.json").write_text("[[0, 0]]")
    with pytest.raises(InputError, match=r"\[0\]"):
        read_pairs(str(tmp_path / "q.json"), 2)


@given(st.lists(st.tuples(st.integers(0, 50), st.integers(0, 20)), max_size=12))
def test_union_of_intervals(spans):
    spans = [(a, a + d) for a, d in spans]
    covered = set()
    for a, b in spans:
        covered |= set(range(a, b))
    assert _union(spans) == len(covered)


def test_measured_rates_are_exact_fractions():
    plan = broadcast_plan(figure1_schedule(), 4)
    outcomes = [Outcome(r, r, delivered=4, done_ns=3_000_000 + r) for r in range(5)]
    m = Measured("steady schedule", plan, outcomes, 4, 0, 10 ** 6, plan.throughput)
    assert m.makespan_ns == 3_000_004 and m.delivered_ok
    assert m.per_unit == F(4 * 10 ** 6, 3_000_004)
    assert m.per_second == F(4 * 10 ** 9, 3_000_004)
    assert m.ratio_to_predicted == m.per_unit / plan.throughput
    outcomes[2].duplicates = 1
    assert not m.delivered_ok and m.problems() == ["rank 2: 1 duplicated"]


# -- the command line without MPI ----------------------------------------------------------

def test_without_mpi4py_one_line_says_install_the_extra(capsys, monkeypatch, tmp_path):
    schedule = tmp_path / "s.json"
    figure1_schedule().write(schedule)
    monkeypatch.setitem(sys.modules, "mpi4py", None)   # import mpi4py raises ImportError
    code, out, err = run(capsys, "run", schedule, "--broadcasts", "10")
    assert code == 2
    assert_one_line_error(err, "install the mpi extra")
    code, out, err = run(capsys, "calibrate", "-o", tmp_path / "p.json")
    assert code == 2
    assert_one_line_error(err, "install the mpi extra")


@pytest.mark.parametrize("argv, element", [
    (["--broadcasts", "0"], "--broadcasts"),
    (["--broadcasts", "5", "--size", "8"], "--size"),
    (["--broadcasts", "5", "--time-unit", "1 fortnight"], "--time-unit"),
    (["--broadcasts", "5", "--timeout", "-1"], "--timeout")])
def test_bad_run_options_are_one_line(capsys, tmp_path, argv, element):
    schedule = tmp_path / "s.json"
    figure1_schedule().write(schedule)
    code, out, err = run(capsys, "run", schedule, *argv)
    assert code == 2
    assert_one_line_error(err, element)


def test_show_needs_a_schedule_or_a_trace(capsys):
    code, out, err = run(capsys, "show")
    assert code == 2
    assert_one_line_error(err, "schedule")


def test_show_rejects_a_file_that_is_no_trace(capsys, tmp_path):
    (tmp_path / "t.json").write_text('{"format": "steady-schedule"}')
    code, out, err = run(capsys, "show", "--trace", tmp_path / "t.json")
    assert code == 2
    assert_one_line_error(err, "steady-trace")


def test_only_steady_run_imports_mpi4py():
    """DESIGN.md: steady/run/mpi.py is the one door to mpi4py."""
    import pathlib

    root = pathlib.Path(__file__).resolve().parent.parent / "steady"
    importers = sorted(str(p.relative_to(root)) for p in root.rglob("*.py")
                       if "mpi4py" in p.read_text() and "import" in p.read_text())
    users = [p for p in importers
             if any(line.strip().startswith(("import mpi4py", "from mpi4py"))
                    for line in (root / p).read_text().splitlines())]
    assert users == ["run/mpi.py"]


def test_checksum_is_position_dependent():
    body = np.arange(64, dtype=np.uint8)
    swapped = body.copy()
    swapped[:8], swapped[8:16] = body[8:16], body[:8]
    assert payload.checksum(body) != payload.checksum(swapped)
