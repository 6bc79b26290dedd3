"""The finite-horizon plan carries a collective (issue 43): ``steady simulate
--collective X --plan FILE`` writes the plan of exactly the chunks it counted, the plan's
checker holds it to the collective's rules, ``steady replay XML PLAN`` follows it in
SimGrid and ``steady run PLAN`` executes it under MPI with exact data; delivered
counts and makespans agree between the four."""

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, event, given, settings

from helpers import examples
from hypothesis import strategies as st

from helpers import assert_one_line_error, run
from steady.simgrid import locate
from steady.simulate.collective import collective_horizon, collective_plan
from steady.simulate.plan import Plan, check_plan
from steady.strategies import collective_schedules, switched_platforms
from steady.verify import verify

F = Fraction
ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
DATA_CENTER = SAMPLES / "collectives" / "simgrid-data_center-6.json"
HAVE_SIMGRID = locate.find_simgrid() is not None
needs_simgrid = pytest.mark.skipif(not HAVE_SIMGRID, reason="skipped: SimGrid not installed")


def simulated(capsys, tmp_path, platform, kind, horizon, most="4", *extra):
    """(the report, the plan it wrote) of ``steady simulate P --collective kind --plan``."""
    path = tmp_path / f"{kind}.json"
    code, out, err = run(capsys, "simulate", platform, "--collective", kind,
                         "--max-messages", most, "--effort", "fast", "--horizon", horizon,
                         "--plan", path, "--json", "--quiet", *extra)
    assert code == 0, err
    return json.loads(out), Plan.from_file(path), path


def delivered(doc) -> dict:
    return {r: each["delivered"] for r, each in doc["roots"].items()}


def _schedule(name, kind, most=4):
    from steady.commands.collective import optimum
    from steady.platform import Platform
    from steady.schedule.collective import collective_schedule

    platform = Platform.from_file(SAMPLES / "collectives" / f"{name}.json")
    result = optimum(platform, name, kind, None, None)
    return collective_schedule(platform, result, most, "fast")[0]


# -- the plan is what simulate counted ---------------------------------------------------

@pytest.mark.parametrize("name, kind, horizon", [
    ("hetero-cluster", "reduce-scatter", "40"), ("a100-1", "allgather", "1/2"),
    ("fat-tree-4", "allreduce", "100")])
def test_the_plan_file_is_the_plan_that_was_counted(capsys, tmp_path, name, kind, horizon):
    """Switched multi-port samples: the plan delivers by K exactly the chunks per root
    the report counts, ends by K, passes the checker and reads back (version 2)."""
    doc, plan, path = simulated(capsys, tmp_path, SAMPLES / "collectives" / f"{name}.json",
                                kind, horizon)
    assert plan.delivered_per_root(F(horizon)) == delivered(doc)
    assert plan.broadcasts == sum(delivered(doc).values()) > 0
    assert plan.makespan_time <= F(horizon)
    assert doc["planned_makespan"] == str(plan.makespan_time)
    assert check_plan(plan) == [] and plan.collective.kind == kind
    raw = json.loads(path.read_text())
    assert raw["version"] == 2 and set(raw["collective"]) == {"kind", "chunks", "streams"}
    again = Plan.from_dict(json.loads(plan.to_json()))
    assert (again.transfers, again.collective) == (plan.transfers, plan.collective)


def test_one_root_on_a_one_port_platform_is_a_broadcast_plan(capsys, tmp_path):
    """A broadcast from one source of a one-port platform without switches: the plan is
    a steady-plan version 1 from that source (no ``collective``), today's format and
    rules, and its broadcasts are the count's."""
    doc, plan, path = simulated(capsys, tmp_path, SAMPLES / "random-10.json", "broadcast",
                                "3000", "4", "--sources", "P3")
    raw = json.loads(path.read_text())
    assert raw["version"] == 1 and "collective" not in raw and plan.collective is None
    assert list(delivered(doc)) == [plan.nodes[plan.source]]
    assert plan.delivered_by(3000) == plan.broadcasts == delivered(doc)[raw["source"]] > 0
    assert check_plan(plan) == []


def test_a_one_port_allgather_keeps_the_port_rule(capsys, tmp_path):
    doc, plan, _ = simulated(capsys, tmp_path, SAMPLES / "random-10.json", "allgather",
                             "20000")
    assert plan.platform.ports == "one-port" and check_plan(plan) == []
    assert plan.delivered_per_root(20000) == delivered(doc) and plan.broadcasts > 0
    t = plan.transfers[0]
    other = next(u for u in plan.transfers if u.tail == t.tail and u.id != t.id)
    moved = tuple(u._replace(release=t.release) if u.id == other.id else u
                  for u in plan.transfers)
    assert any("while another" in p or "out-port" in p
               for p in check_plan(_replaced(plan, moved)))


def test_simulate_refuses_a_plan_of_nothing(capsys, tmp_path):
    code, out, err = run(capsys, "simulate", DATA_CENTER, "--collective", "allgather",
                         "--max-messages", "4", "--effort", "fast", "--horizon", "1",
                         "--plan", tmp_path / "p.json")
    assert code == 2 and out == ""
    assert_one_line_error(err, "--plan")


# -- the checker holds a plan to the collective's rules ------------------------------------

def _replaced(plan, transfers):
    from dataclasses import replace

    return replace(plan, transfers=tuple(transfers))


def _early_and_dropped(plan):
    """The plan with its first transfer whose sender got the same chunk of the same
    root by a transfer (a copy, or a partial) moved to start one tick before that one
    ends, and the plan without it: (that transfer, problems of the first, problems of
    the second)."""
    streams = plan.collective.streams
    into = {(streams[t.tree].root, t.first, t.head): t.end for t in plan.transfers}
    t = next(t for t in plan.transfers if (streams[t.tree].root, t.first, t.tail) in into)
    early = into[(streams[t.tree].root, t.first, t.tail)] - 1
    moved = check_plan(_replaced(plan, [u._replace(release=early) if u.id == t.id
                                        else u for u in plan.transfers]))
    dropped = check_plan(_replaced(plan, [u for u in plan.transfers if u.id != t.id]))
    return t, moved, dropped


def test_the_checker_refuses_a_partial_sent_before_its_children_arrive():
    schedule = _schedule("hetero-cluster", "reduce-scatter")
    plan = collective_plan(schedule, 20 * schedule.period)
    _, problems, dropped = _early_and_dropped(plan)
    assert any("before every partial sent to it has arrived" in p for p in problems)
    assert any("sends its partial" in p and "0 times" in p for p in dropped)


def test_the_checker_refuses_a_copy_forwarded_early_or_missing_and_a_full_link():
    schedule = _schedule("a100-2", "allgather")
    plan = collective_plan(schedule, 12 * schedule.period)
    t, problems, dropped = _early_and_dropped(plan)
    assert any("forwards" in p and "before it has received it" in p for p in problems)
    assert any("0 times, not once" in p for p in dropped)
    # the same transfer twice at once over its route: its links would carry twice
    # their capacity (the optimum's timetable fills the NIC links)
    twice = list(plan.transfers) + [t._replace(id=len(plan.transfers))]
    problems = check_plan(_replaced(plan, twice))
    assert any("over capacity" in p for p in problems)


def test_the_checker_refuses_an_allreduce_sent_out_before_its_reduction():
    schedule = _schedule("mi250-1", "allreduce")
    plan = collective_plan(schedule, 30 * schedule.period)
    streams = plan.collective.streams
    reduced = {}
    for t in plan.transfers:
        s = streams[t.tree]
        if s.direction == "in" and t.head == s.root:
            reduced[(s.root, t.first)] = max(reduced.get((s.root, t.first), 0), t.end)
    t = next(t for t in plan.transfers if streams[t.tree].direction == "out"
             and t.tail == streams[t.tree].root)
    problems = check_plan(_replaced(plan, [
        u._replace(release=reduced[(u.tail, u.first)] - 1) if u.id == t.id else u
        for u in plan.transfers]))
    assert any("before its reduction has arrived" in p for p in problems)


@given(collective_schedules(switched_platforms(max_compute=4, max_switches=2),
                            max_chunks=3),
       st.integers(1, 150))
@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_plan_of_any_collective_timetable_passes_the_checker(schedule, thirds):
    """Proofs/finite-plan.md, "Collectives": the period rule's unrolling of a valid
    collective timetable keeps every resource within capacity and every chunk causal,
    and holds exactly the chunks collective_horizon counts by K."""
    report = verify(schedule.platform, schedule)
    assert report.ok
    k = F(thirds, 3) * schedule.period
    plan = collective_plan(schedule, k)
    assume(plan.broadcasts > 0)     # a horizon within the warm-up plans nothing
    event(f"collective: {plan.collective.kind if plan.collective else 'one root'}, "
          f"{schedule.platform.ports}")
    assert check_plan(plan) == []
    counted = collective_horizon(schedule, k, report.bound).delivered
    if plan.collective is None:   # one out-root on a classic platform: a broadcast plan
        assert {plan.nodes[plan.source]: plan.delivered_by(k)} == counted
    else:
        assert plan.delivered_per_root(k) == counted
    assert plan.makespan_time <= k


# -- SimGrid and MPI follow it -----------------------------------------------------------

@needs_simgrid
@pytest.mark.parametrize("kind", ["allgather", "allreduce"])
def test_the_simgrid_replay_follows_a_collective_plan(capsys, tmp_path, kind):
    """samples/simgrid/data_center (shared links, multi-port): SimGrid, starting every
    transfer at its planned start, ends the plan at its planned makespan (to its
    doubles' precision), with every root's chunks complete by K as counted."""
    from steady.simgrid.replay import replay_plan

    doc, plan, path = simulated(capsys, tmp_path, DATA_CENTER, kind, "1500", most="2")
    xml = SAMPLES / "simgrid" / "data_center.xml"
    report = replay_plan(xml, plan, F(10 ** 9))
    assert report.planned_makespan == plan.makespan_time
    assert abs(report.simulated_makespan - float(plan.makespan_time)) < 1e-9
    assert report.worst["late"] < 1e-9
    assert {r: p for r, (p, s) in report.delivered_per_root(1500).items()} == delivered(doc)
    assert {r: s for r, (p, s) in report.delivered_per_root(1500).items()} == delivered(doc)
    assert sum(delivered(doc).values()) > 0
    code, out, err = run(capsys, "replay", xml, path, "--size", "1GB", "--json",
                         "--min-ratio", "0.999999")
    assert code == 0, err
    assert json.loads(out)["chunks_per_root"] == delivered(doc)


@needs_simgrid
def test_a_replay_at_another_size_is_refused_in_one_line(capsys, tmp_path):
    doc, plan, path = simulated(capsys, tmp_path, DATA_CENTER, "allgather", "2000")
    code, out, err = run(capsys, "replay", SAMPLES / "simgrid" / "data_center.xml", path,
                         "--size", "2GB")
    assert code == 2 and out == ""
    assert_one_line_error(err, "route")


def _mpirun(plan_path, ranks, *extra):
    from steady.run.launch import mpiexec_path

    command = [mpiexec_path(), "-n", str(ranks), sys.executable, "-m", "steady", "run",
               str(plan_path), "--json", *extra]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=ROOT)


@pytest.mark.slow
@pytest.mark.parametrize("name, kind, horizon, ranks", [
    ("simgrid-data_center-6", "allreduce", "3000", 6),
    ("a100-1", "allgather", "1/2", 8),
    ("hetero-cluster", "reduce-scatter", "30", 11)])
def test_steady_run_executes_a_collective_plan_exactly(capsys, tmp_path, name, kind,
                                                       horizon, ranks):
    """MPI (native), the compute nodes as ranks: every rank ends with exactly what the
    collective promises it (integer data checked word for word), for every chunk of the
    plan -- the count simulate reported."""
    pytest.importorskip("mpi4py")
    doc, plan, path = simulated(capsys, tmp_path, SAMPLES / "collectives" / f"{name}.json",
                                kind, horizon, most="2")
    done = _mpirun(path, ranks, "--native", "--size", "1KB")
    assert done.returncode == 0, done.stderr
    ran = json.loads(done.stdout)
    assert ran["delivered_ok"] and ran["problems"] == []
    assert ran["delivered"] == ran["chunks"] == delivered(doc)
    assert F(ran["planned_makespan"]) == plan.makespan_time
    assert sum(r["received"] for r in ran["ranks_detail"]) == len(plan.transfers)


@pytest.mark.slow
def test_steady_run_refuses_a_wrong_number_of_ranks(tmp_path, capsys):
    pytest.importorskip("mpi4py")
    doc, plan, path = simulated(capsys, tmp_path, DATA_CENTER, "allgather", "2000")
    done = _mpirun(path, 4, "--native")
    assert done.returncode == 2
    assert "6 compute nodes but 4 MPI ranks" in done.stderr


def test_a_broken_collective_plan_is_refused_in_one_line(capsys, tmp_path, monkeypatch):
    doc, plan, path = simulated(capsys, tmp_path, DATA_CENTER, "allgather", "2000")
    bad = json.loads(path.read_text())
    bad["transfers"] = bad["transfers"][1:]     # one chunk never reaches one node
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    code, out, err = run(capsys, "run", tmp_path / "bad.json")
    assert code == 2 and out == ""
    assert "not a valid plan" in err and len(err.strip().splitlines()) == 1
    # --launch: refused by the launcher itself, before any rank starts (qa43)
    import steady.run.launch

    def no_ranks(*args, **kwargs):
        raise AssertionError("ranks started for an invalid plan")

    monkeypatch.setattr(steady.run.launch, "launch", no_ranks)
    code, out, err = run(capsys, "run", tmp_path / "bad.json", "--launch", "--native")
    assert code == 2 and out == ""
    assert "not a valid plan" in err and len(err.strip().splitlines()) == 1
    bad = json.loads(path.read_text())
    bad["collective"]["streams"][0]["direction"] = "sideways"
    (tmp_path / "dir.json").write_text(json.dumps(bad))
    code, out, err = run(capsys, "run", tmp_path / "dir.json")
    assert code == 2
    assert_one_line_error(err, "collective.streams[0].direction")
    bad = json.loads(path.read_text())
    bad["version"] = 1      # a broadcast plan has no collective
    (tmp_path / "v1.json").write_text(json.dumps(bad))
    code, out, err = run(capsys, "run", tmp_path / "v1.json")
    assert code == 2
    assert_one_line_error(err, "collective")


@pytest.mark.slow
def test_simulate_plan_replay_and_run_agree(capsys, tmp_path):
    """samples/collectives/simgrid-data_center-6 (SimGrid's data_center: shared links,
    multi-port), allgather, K = 2000: simulate's count per root = the plan's = the
    replay's = the MPI run's, and the planned makespan is SimGrid's."""
    pytest.importorskip("mpi4py")
    if not HAVE_SIMGRID:
        pytest.skip("SimGrid not installed")
    from steady.simgrid.replay import replay_plan

    doc, plan, path = simulated(capsys, tmp_path, DATA_CENTER, "allgather", "2000")
    counted = delivered(doc)
    assert plan.delivered_per_root(2000) == counted
    report = replay_plan(SAMPLES / "simgrid" / "data_center.xml", plan, F(10 ** 9))
    assert {r: s for r, (_, s) in report.delivered_per_root(2000).items()} == counted
    assert abs(report.simulated_makespan - float(plan.makespan_time)) < 1e-9
    done = _mpirun(path, 6, "--native", "--size", "256B")
    assert done.returncode == 0, done.stderr
    ran = json.loads(done.stdout)
    assert ran["delivered"] == counted and F(ran["planned_makespan"]) == plan.makespan_time


@pytest.mark.parametrize("launch", [True, False])
def test_run_refuses_a_collective_schedule_in_one_line(tmp_path, capsys, launch):
    """qa43: `steady run AG.json --broadcasts 400 --launch` (a collective's schedule,
    not its plan) was unrolled as a broadcast: rank 0 failed an internal postcondition
    ("forwards message 0 of tree 3 before it is received") and the launcher said a rank
    died, exit 1.  The launcher (before any rank) and rank 0 (under mpiexec) refuse it
    in one line that names the plan to make instead."""
    from steady.errors import InputError
    from steady.run.job import read_plan
    from steady.schedule.collective import collective_schedule
    from steady.throughput import collective_throughput
    from steady.topologies import a100_platform

    platform = a100_platform(1)
    schedule, _ = collective_schedule(platform, collective_throughput(platform, "allgather"),
                                      4, "fast")
    path = tmp_path / "ag.json"
    path.write_text(schedule.to_json())
    if launch:
        code, out, err = run(capsys, "run", path, "--broadcasts", "400", "--launch",
                             "--native")
        assert (code, out) == (2, "")
        assert_one_line_error(err, "collective")
        assert "steady simulate --schedule FILE --horizon K --plan PLAN.json" in err
    else:
        with pytest.raises(InputError) as info:
            read_plan(path, 400)
        assert info.value.element == "collective"


def test_run_still_plans_a_broadcast_from_the_source_alone(tmp_path):
    """`steady schedule random-10.json --sources P0` writes a collective's file of a
    broadcast from the source alone on a one-port platform: steady run plans it as
    before (broadcast_plan), where an allgather's file on the same platform is refused."""
    from steady.errors import InputError
    from steady.platform import Platform
    from steady.run.job import read_plan
    from steady.schedule.collective import collective_schedule
    from steady.throughput import collective_throughput

    platform = Platform.from_file(SAMPLES / "random-10.json")
    for kind, sources, accepted in (("broadcast", ["P0"], True), ("allgather", None, False)):
        result = collective_throughput(platform, kind, sources)
        schedule, _ = collective_schedule(platform, result, 4, "fast")
        path = tmp_path / f"{kind}.json"
        path.write_text(schedule.to_json())
        assert schedule.is_collective
        if accepted:
            assert read_plan(path, 200)[0].broadcasts == 200
        else:
            with pytest.raises(InputError, match="a collective's schedule"):
                read_plan(path, 200)


def test_a_plan_beyond_its_budget_is_refused_before_its_chunks_are_listed():
    """qa43: `simulate --schedule AG.json --horizon 100000 --plan P --max-events 10`
    listed the 34 million chunks complete by K before refusing (23 CPU s); the size is
    now counted per batch first.  The budget is exact: a plan of N transfers fits N and
    not N - 1; a horizon of 10^12 (10^13 chunks) is refused at once."""
    from steady.schedule.collective import collective_schedule
    from steady.simulate.plan import TooLarge
    from steady.throughput import collective_throughput
    from steady.topologies import a100_platform

    platform = a100_platform(1)
    for kind in ("allgather", "allreduce"):
        schedule, _ = collective_schedule(platform, collective_throughput(platform, kind),
                                          4, "fast")
        n = len(collective_plan(schedule, 3).transfers)
        assert n > 0
        assert len(collective_plan(schedule, 3, n).transfers) == n
        with pytest.raises(TooLarge, match=f"holds more than {n - 1} transfers"):
            collective_plan(schedule, 3, n - 1)
        with pytest.raises(TooLarge, match="holds more than 10 transfers"):
            collective_plan(schedule, 10 ** 12, 10)
