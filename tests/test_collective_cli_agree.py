"""The collective commands agree on one schedule file (issue 43's new-user trial):
``steady schedule``, the file, ``steady verify`` and ``steady replay`` count an
allreduce's chunks per root alike (one in-tree chunk and one out-tree chunk are one
chunk of the root: proofs/collectives.md §6) and give the same rate per root x."""

import contextlib
import io
import json
from fractions import Fraction
from pathlib import Path

import pytest

from helpers import run
from steady.cli import main
from steady.numbers import format_exact
from steady.schedule_file import Schedule
from steady.simgrid import locate
from steady.simulate.plan import Plan

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
DATA_CENTER = SAMPLES / "collectives" / "simgrid-data_center-6.json"
XML = SAMPLES / "simgrid" / "data_center.xml"
needs_simgrid = pytest.mark.skipif(locate.find_simgrid() is None,
                                   reason="skipped: SimGrid not installed")


@pytest.fixture(scope="module")
def allreduce(tmp_path_factory):
    """(schedule --json, the file's path) of the data center's allreduce at M = 64."""
    path = tmp_path_factory.mktemp("ar") / "allreduce.json"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["schedule", str(DATA_CENTER), "--collective", "allreduce",
                     "--max-messages", "64", "--json", "-o", str(path)])
    assert code == 0
    return json.loads(out.getvalue()), path


def test_schedule_json_names_the_construction_that_won(allreduce):
    """``schedule --json``'s ``construction``: the data center's allreduce (its host
    links' rounds, routes of one cost) is the list schedule's family of constructions."""
    doc, _ = allreduce
    assert doc["construction"] == "integer rooted trees, route rounds and list schedule"


def test_schedule_and_the_file_count_an_allreduce_chunk_once_per_root(allreduce):
    doc, path = allreduce
    assert (doc["chunks_per_root"], doc["period"], doc["rate_per_root"]) == (64, "5120",
                                                                            "1/80")
    assert doc["optimum"] == "1/80"
    schedule = Schedule.from_file(path)
    # the file: 6 compute nodes, each an in root and an out root of 64 chunks
    assert schedule.messages_per_period == doc["messages_per_period"] == 2 * 6 * 64
    assert schedule.throughput == Fraction(768, 5120)
    per = {}
    for tree in schedule.trees:
        per[(tree.root, tree.direction)] = per.get((tree.root, tree.direction), 0) + tree.weight
    assert set(per.values()) == {64} and len(per) == 12


def test_verify_says_the_same_rate_per_root(capsys, allreduce):
    _, path = allreduce
    code, out, err = run(capsys, "verify", DATA_CENTER, path)
    assert code == 0, err
    assert "allreduce, rate per root 1/80, certified ratio 1.000000" in out


@needs_simgrid
def test_replay_says_the_same_chunks_and_rate_per_root(capsys, allreduce):
    _, path = allreduce
    code, out, err = run(capsys, "replay", XML, path, "--size", "1GB", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert set(doc["chunks_per_root"].values()) == {64}
    assert len(doc["chunks_per_root"]) == 6
    assert doc["predicted_rate_per_root"] == "1/80"
    code, out, err = run(capsys, "replay", XML, path, "--size", "1GB")
    assert code == 0, err
    assert "allreduce, 6 roots, 64 chunks per period" in out
    assert "predicted 1/80 = 0.0125" in out


@pytest.fixture(scope="module")
def allgather_plan(tmp_path_factory):
    """An allgather plan of the data center (steady simulate --plan)."""
    path = tmp_path_factory.mktemp("plan") / "allgather.plan.json"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = main(["simulate", str(DATA_CENTER), "--collective", "allgather",
                     "--max-messages", "4", "--effort", "fast", "--horizon", "2000",
                     "--plan", str(path), "--quiet"])
    assert code == 0
    return path


@pytest.mark.parametrize("wrong", ["reduce-scatter", "allreduce", "broadcast"])
def test_replay_refuses_a_plan_of_another_collective_in_one_line(capsys, allgather_plan,
                                                                  wrong):
    code, out, err = run(capsys, "replay", XML, allgather_plan, "--size", "1GB",
                         "--collective", wrong)
    assert (code, out) == (2, "")
    assert err == (f"steady: {allgather_plan}: collective: the file's plan serves the "
                   f"allgather, not the {wrong}\n")


@needs_simgrid
def test_replay_accepts_a_plan_of_its_collective(capsys, allgather_plan):
    code, out, err = run(capsys, "replay", XML, allgather_plan, "--size", "1GB",
                         "--collective", "allgather", "--json")
    assert code == 0, err
    assert json.loads(out)["planned_makespan"]


# -- steady verify --collective, and steady verify PLATFORM PLAN ------------------------

@pytest.mark.parametrize("wrong", ["allgather", "reduce-scatter", "broadcast"])
def test_verify_refuses_a_schedule_of_another_collective_in_one_line(capsys, allreduce,
                                                                      wrong):
    _, path = allreduce
    code, out, err = run(capsys, "verify", DATA_CENTER, path, "--collective", wrong)
    assert (code, out) == (2, "")
    assert err == (f"steady: {path}: collective: the file's schedule serves the "
                   f"allreduce, not the {wrong}\n")


def test_verify_accepts_the_file_s_collective(capsys, allreduce):
    _, path = allreduce
    code, out, err = run(capsys, "verify", DATA_CENTER, path, "--collective", "allreduce")
    assert code == 0, err
    assert out.startswith("valid: timed, ")


def test_verify_checks_a_plan_with_the_plan_s_checker(capsys, allgather_plan):
    plan = Plan.from_file(allgather_plan)
    code, out, err = run(capsys, "verify", DATA_CENTER, allgather_plan,
                         "--collective", "allgather")
    assert (code, err) == (0, "")
    assert out == (f"valid: a plan of the allgather, 6 roots, {len(plan.transfers)} "
                   f"transfers, makespan {plan.makespan_time} (steady-plan: ports or links "
                   "within capacity, causality, every chunk delivered once)\n")
    code, out, err = run(capsys, "verify", DATA_CENTER, allgather_plan, "--json")
    assert code == 0
    assert json.loads(out) == {"valid": True, "format": "steady-plan",
                               "collective": "allgather", "transfers": len(plan.transfers),
                               "makespan": format_exact(plan.makespan_time),
                               "violations": []}


def test_verify_refuses_a_plan_of_another_collective_in_one_line(capsys, allgather_plan):
    code, out, err = run(capsys, "verify", DATA_CENTER, allgather_plan,
                         "--collective", "reduce-scatter")
    assert (code, out) == (2, "")
    assert err == (f"steady: {allgather_plan}: collective: the file's plan serves the "
                   "allgather, not the reduce-scatter\n")


def test_verify_lists_the_violations_of_a_broken_plan(capsys, allgather_plan, tmp_path):
    doc = json.loads(allgather_plan.read_text())
    plan = Plan.from_file(allgather_plan)
    streams = plan.collective.streams
    # the last transfer a node forwards (it is not its stream's root), moved to time 0
    i = max(k for k, t in enumerate(doc["transfers"]) if streams[t[6]].root != t[0])
    tail, _, first, _, _, _, tree = doc["transfers"][i]
    doc["transfers"][i][4] = 0
    del doc["makespan"]
    broken = tmp_path / "broken.plan.json"
    broken.write_text(json.dumps(doc))
    code, out, err = run(capsys, "verify", DATA_CENTER, broken)
    assert (code, err) == (1, "")
    assert out.splitlines()[0] == "invalid: 1 violation(s)"
    assert out.splitlines()[1] == (f"  {plan.nodes[tail]} forwards chunk {first} of "
                                   f"{plan.nodes[streams[tree].root]} (out) before it has "
                                   "received it")
    code, out, err = run(capsys, "verify", DATA_CENTER, broken, "--json")
    assert code == 1 and json.loads(out)["valid"] is False


def test_verify_refuses_a_plan_of_another_platform(capsys, allgather_plan):
    code, out, err = run(capsys, "verify", SAMPLES / "collectives" / "a100-1.json",
                         allgather_plan)
    assert code == 1
    assert out == ("invalid: 1 violation(s)\n  the plan was built for another platform "
                   "(data_center, not a100-1)\n")


# -- a certificate's "cut": null is no cut (docs/formats.md) ---------------------------

def test_a_null_cut_reads_as_no_cut(capsys, tmp_path):
    path = tmp_path / "a100-1.json"
    code, _, err = run(capsys, "schedule", SAMPLES / "collectives" / "a100-1.json",
                       "--collective", "allgather", "--max-messages", "4", "-o", path)
    assert code == 0, err
    doc = json.loads(path.read_text())
    assert doc["certificate"]["cut"]["direction"] == "out"   # the sample's cut binds
    with_cut = Schedule.from_dict(doc)
    doc["certificate"]["cut"] = None
    without = Schedule.from_dict(doc)
    assert without.certificate.cut is None
    del doc["certificate"]["cut"]
    assert Schedule.from_dict(doc).certificate == without.certificate
    assert without.certificate.prices == with_cut.certificate.prices
    doc["certificate"]["cut"] = None
    path.write_text(json.dumps(doc))
    code, out, err = run(capsys, "verify", SAMPLES / "collectives" / "a100-1.json", path)
    assert (code, err) == (0, "")
    assert out.startswith("valid: timed, ") and "certified ratio 1.000000" in out


def test_a_plan_without_its_platform_is_checked_on_the_given_one(capsys, allgather_plan,
                                                                 tmp_path):
    doc = json.loads(allgather_plan.read_text())
    del doc["platform"]
    bare = tmp_path / "bare.plan.json"
    bare.write_text(json.dumps(doc))
    code, out, _ = run(capsys, "verify", DATA_CENTER, bare)
    assert code == 0 and out.startswith("valid: a plan of the allgather, 6 roots, ")
    code, out, _ = run(capsys, "verify", SAMPLES / "collectives" / "a100-1.json", bare)
    assert (code, out) == (1, "invalid: 1 violation(s)\n  the plan's nodes are not the "
                              "platform's nodes in its order\n")
