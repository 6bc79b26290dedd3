"""One finite-horizon plan (issue 41): ``steady simulate --plan`` writes the plan it
counted, ``steady run PLAN`` executes those transfers at those planned times, and
``steady replay XML PLAN`` has SimGrid follow them; delivered counts, planned makespans
and traces agree between the three."""

import json
import os
import subprocess
import sys
from fractions import Fraction

import pytest

from helpers import run, sample
from steady.simgrid import locate
from steady.simulate.plan import Plan, check_plan

F = Fraction
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HAVE_SIMGRID = locate.find_simgrid() is not None


def simulated(capsys, tmp_path, *argv):
    """(the report, the plan it wrote) of ``steady simulate argv --plan``."""
    path = tmp_path / "plan.json"
    code, out, err = run(capsys, "simulate", *argv, "--plan", path, "--json", "--quiet")
    assert code == 0, err
    return json.loads(out), Plan.from_file(path)


def test_the_plan_file_is_the_plan_that_was_counted(capsys, tmp_path):
    """Figure 1, K = 60: the plan written delivers by K exactly the messages the report
    counts, passes the independent check, and reads back equal (a steady-plan file)."""
    doc, plan = simulated(capsys, tmp_path, "--horizon", "60")
    assert plan.delivered_by(60) == doc["delivered"] == 58
    assert check_plan(plan) == [] and plan.platform is not None
    assert Plan.from_dict(json.loads(plan.to_json())) == plan
    assert doc["transfers"] == sum(t.count for t in plan.transfers)


def test_a_broken_plan_file_is_refused_in_one_line(capsys, tmp_path):
    doc, plan = simulated(capsys, tmp_path, "--horizon", "20")
    bad = json.loads(plan.to_json())
    bad["transfers"] = bad["transfers"][1:]   # one message never reaches its node
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    code, out, err = run(capsys, "run", tmp_path / "bad.json")
    assert code == 2 and out == ""
    assert "not a valid plan" in err and len(err.strip().splitlines()) == 1
    bad = json.loads(plan.to_json())
    bad["transfers"][0] = [0, 0, 0, 1, 0, 1, 0]
    (tmp_path / "self.json").write_text(json.dumps(bad))
    code, out, err = run(capsys, "run", tmp_path / "self.json")
    assert code == 2 and "transfers[0]" in err and "itself" in err


@pytest.mark.slow
def test_steady_run_executes_the_plan_simulate_counted(capsys, tmp_path):
    """An MPI job (5 ranks, emulated time) runs the plan file: the trace lists exactly
    the plan's transfers with its planned starts and makespan, and every rank gets
    every broadcast of the plan exactly once."""
    pytest.importorskip("mpi4py")
    from steady.run.launch import mpiexec_path

    doc, plan = simulated(capsys, tmp_path, "--horizon", "60")
    trace = tmp_path / "trace.json"
    command = [mpiexec_path(), "-n", "5", sys.executable, "-m", "steady", "run",
               str(tmp_path / "plan.json"), "--time-unit", "2ms", "--size", "1KB",
               "--trace", str(trace), "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    ran = json.loads(done.stdout)
    assert ran["delivered_ok"] and ran["broadcasts"] == plan.broadcasts
    assert all(r["delivered"] == plan.broadcasts for r in ran["ranks_detail"])
    rows = json.loads(trace.read_text())
    assert F(rows["planned_makespan"]) == plan.makespan_time == F(ran["planned_makespan"])
    names = plan.nodes
    planned = sorted((names[t.tail], names[t.head], t.first, t.count,
                      F(t.release, plan.unit)) for t in plan.transfers)
    traced = sorted((r["from"], r["to"], r["first"], r["count"], F(r["planned_start"]))
                    for r in rows["transfers"])
    assert traced == planned
    assert all("begin_ns" in r for r in rows["transfers"] if r["from"] == "Ps")


@pytest.mark.skipif(not HAVE_SIMGRID, reason="skipped: SimGrid not installed")
def test_the_simgrid_replay_follows_the_plan(capsys, tmp_path):
    """samples/simgrid/small_platform (shared links), K = 30: SimGrid, started at each
    planned start, ends every transfer at its planned end (to its doubles' precision),
    so the same broadcasts are everywhere by K and the makespans agree."""
    from steady.simgrid.replay import replay_plan

    xml = sample("simgrid/small_platform.xml")
    doc, plan = simulated(capsys, tmp_path, sample("simgrid/small_platform.json"),
                          "--horizon", "30")
    report = replay_plan(xml, plan, F(10 ** 6))
    assert report.planned_makespan == plan.makespan_time
    assert abs(report.simulated_makespan - float(plan.makespan_time)) < 1e-9
    assert report.worst["late"] < 1e-9
    assert report.delivered_by(30) == (doc["delivered"], doc["delivered"])
    code, out, err = run(capsys, "replay", xml, tmp_path / "plan.json", "--size", "1MB",
                         "--json", "--min-ratio", "0.999999")
    assert code == 0, err
    assert F(json.loads(out)["planned_makespan"]) == plan.makespan_time


@pytest.mark.timing
def test_the_emulated_run_keeps_to_the_planned_makespan(capsys, tmp_path):
    """Wall clock: the emulated run of Figure 1's plan ends within its planned makespan
    plus a margin that survives a loaded machine, judged against the same machine's
    own start-up and pacing (the best of three runs at 20 ms per time unit: at 5 ms,
    five ranks on two cores scheduled late swung from 0.49 to 0.9999 on a quiet
    machine, with the code of the previous stop too; at 20 ms 0.9999, also beside
    two busy processes)."""
    pytest.importorskip("mpi4py")
    from steady.run.launch import mpiexec_path

    doc, plan = simulated(capsys, tmp_path, "--horizon", "100")
    best = None
    for _ in range(3):
        command = [mpiexec_path(), "-n", "5", sys.executable, "-m", "steady", "run",
                   str(tmp_path / "plan.json"), "--time-unit", "20ms", "--size", "1KB",
                   "--json"]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120,
                              cwd=ROOT)
        assert done.returncode == 0, done.stderr
        ratio = F(json.loads(done.stdout)["ratio_to_predicted"])
        best = ratio if best is None else max(best, ratio)
        if best >= F(9, 10):
            break
    assert best >= F(8, 10), best
