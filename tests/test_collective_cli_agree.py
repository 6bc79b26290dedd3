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
from steady.schedule_file import Schedule
from steady.simgrid import locate

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
