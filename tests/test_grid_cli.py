"""`steady grid schedule` and `steady experiment grid` (seed 001): outputs, exit codes,
one-line errors."""

import csv
import json
from fractions import Fraction

import pytest
from helpers import assert_one_line_error, run

SAMPLE = "samples/grid5000-6-clusters.json"


def write_grid(path, clusters, root="C0", gap="10", latency="1", **extra):
    doc = {"format": "steady-grid", "version": 1, "root": root,
           "clusters": [{"name": f"C{k}", "broadcast_time": t} for k, t in enumerate(clusters)],
           "latency": latency, "gap": gap, **extra}
    path.write_text(json.dumps(doc))
    return path


def test_schedule_all_heuristics_json(capsys):
    code, out, err = run(capsys, "grid", "schedule", SAMPLE, "--json")
    assert code == 0 and err == ""
    doc = json.loads(out)
    assert doc["root"] == "C0" and doc["clusters"] == 6 and doc["unit"] == "us"
    names = [s["name"] for s in doc["schedules"]]
    assert names == ["Flat Tree", "FEF", "ECEF", "ECEF-LA", "ECEF-LAt", "ECEF-LAT",
                     "BottomUp", "Binomial (MPI_Bcast)"]
    flat = doc["schedules"][0]
    # by hand (tests/test_grid_heuristics.py): 1548852.512 us = 193606564/125
    assert Fraction(flat["makespan"]) == Fraction("1548852.512")
    assert [(s["from"], s["to"]) for s in flat["sends"]] == [
        ("C0", "C1"), ("C0", "C2"), ("C0", "C3"), ("C0", "C4"), ("C0", "C5")]
    assert all(len(s["sends"]) == 5 and len(s["clusters"]) == 6 for s in doc["schedules"])
    bound = Fraction(doc["lower_bound"])
    assert all(Fraction(s["makespan"]) >= bound for s in doc["schedules"])


def test_schedule_one_heuristic_text(capsys):
    code, out, _ = run(capsys, "grid", "schedule", SAMPLE, "--heuristic", "Flat Tree")
    assert code == 0
    assert "Flat Tree" in out and "1548852.512" in out and "ECEF" not in out
    assert "C0 -> C5  start 1040187.392  end 1375731.712  arrival 1380942.702" in out


def test_schedule_optimum_agrees_with_cp_sat(capsys):
    from steady.grid.cpsat import cp_sat_makespan
    from steady.grid.model import Grid

    code, out, _ = run(capsys, "grid", "schedule", SAMPLE, "--optimum", "--json")
    assert code == 0
    doc = json.loads(out)
    optimum = Fraction(doc["optimum"]["makespan"])
    assert optimum == cp_sat_makespan(Grid.from_file(SAMPLE))
    assert all(optimum <= Fraction(s["makespan"]) for s in doc["schedules"])


def test_schedule_other_root(capsys, tmp_path):
    """Root C2 of three clusters, g = 10, L = 1, T = (0, 0, 0): Flat Tree from C2 sends to
    C0 [0,10) at 11 and C1 [10,20) at 21; C2 finishes its sends at 20 -> makespan 21."""
    path = write_grid(tmp_path / "g.json", [0, 0, 0])
    code, out, _ = run(capsys, "grid", "schedule", path, "--root", "C2", "--heuristic",
                       "flat", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["root"] == "C2" and doc["schedules"][0]["makespan"] == "21"
    assert [(s["from"], s["to"]) for s in doc["schedules"][0]["sends"]] == [
        ("C2", "C0"), ("C2", "C1")]


@pytest.mark.parametrize("argv, element", [
    (["--heuristic", "dijkstra"], "--heuristic"),
    (["--heuristic", "ecef-lat"], "--heuristic"),     # ECEF-LAt or ECEF-LAT?
    (["--root", "Lyon"], "--root"),
])
def test_schedule_bad_options(capsys, argv, element):
    code, out, err = run(capsys, "grid", "schedule", SAMPLE, *argv)
    assert code == 2 and out == ""
    assert_one_line_error(err, element)


def test_schedule_bad_files(capsys, tmp_path):
    code, _, err = run(capsys, "grid", "schedule", tmp_path / "missing.json")
    assert code == 2
    assert_one_line_error(err, "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "steady-grid",\n  "root": }')
    code, _, err = run(capsys, "grid", "schedule", broken)
    assert code == 2
    assert_one_line_error(err, "line 2")
    bad = write_grid(tmp_path / "bad.json", [0, "-3"])
    code, _, err = run(capsys, "grid", "schedule", bad)
    assert code == 2
    assert_one_line_error(err, "clusters[1].broadcast_time")
    unknown = write_grid(tmp_path / "unknown.json", [0, 1], colour="red")
    code, _, err = run(capsys, "grid", "schedule", unknown)
    assert code == 2
    assert_one_line_error(err, "colour")


def test_optimum_refused_above_its_limit(capsys, tmp_path):
    path = write_grid(tmp_path / "big.json", [0] * 11)
    code, _, err = run(capsys, "grid", "schedule", path, "--optimum")
    assert code == 2
    assert_one_line_error(err, "--optimum")
    code, _, _ = run(capsys, "grid", "schedule", path, "--heuristic", "ecef")
    assert code == 0
    code, _, err = run(capsys, "grid", "schedule", SAMPLE, "--optimum", "--node-limit", "1")
    assert code == 2
    assert_one_line_error(err, "--node-limit")
    code, _, err = run(capsys, "grid", "schedule", SAMPLE, "--optimum", "--node-limit", "-5")
    assert code == 2
    assert_one_line_error(err, "--node-limit")
    assert "must be >= 1" in err


# -- the campaign --------------------------------------------------------------------------

def test_campaign_writes_tables_and_report(capsys, tmp_path):
    out_dir = tmp_path / "campaign"
    code, out, _ = run(capsys, "experiment", "grid", "--clusters", "2..4", "--iterations",
                       "12", "--jobs", "1", "--out", out_dir, "--no-plots", "--quiet",
                       "--json")
    assert code == 0
    summary = json.loads(out)
    assert [s["clusters"] for s in summary["sizes"]] == [2, 3, 4]
    two = summary["sizes"][0]
    # two clusters: one possible schedule, every heuristic hits both references
    assert all(h["hit_rate_global_min"] == "1" and h["hit_rate_optimum"] == "1"
               for h in two["heuristics"].values())
    with open(out_dir / "grid-completion.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 3 * 8 and rows[0]["clusters"] == "2"
    with open(out_dir / "grid-hit-rate.csv") as f:
        hits = list(csv.DictReader(f))
    for row in hits:     # hitting the optimum implies hitting the global minimum
        assert 0 <= Fraction(row["hit_rate_optimum"]) <= Fraction(row["hit_rate_global_min"]) \
            <= 1
    report = (out_dir / "grid-report.md").read_text()
    assert "## Comparison with the paper's findings" in report
    assert "Flat Tree has the worst average completion time" in report


def test_campaign_plots(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    code, out, _ = run(capsys, "experiment", "grid", "--clusters", "2,3", "--iterations",
                       "4", "--jobs", "1", "--out", tmp_path, "--quiet")
    assert code == 0 and "grid-report.md" in out
    for name in ("grid-completion.png", "grid-ecef.png", "grid-hit-rate.png",
                 "grid-optimality.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("argv, element", [
    (["--clusters", "5..3"], "--clusters"),
    (["--clusters", "1..4"], "--clusters"),
    (["--clusters", "two"], "--clusters"),
    (["--iterations", "0"], "--iterations"),
    (["--jobs", "0"], "--jobs"),
])
def test_campaign_bad_options(capsys, tmp_path, argv, element):
    code, _, err = run(capsys, "experiment", "grid", "--out", tmp_path / "x", "--no-plots",
                       "--quiet", "--iterations", "2", *argv)
    assert code == 2
    assert_one_line_error(err, element)


def test_campaign_out_is_a_file(capsys, tmp_path):
    target = tmp_path / "file"
    target.write_text("")
    code, _, err = run(capsys, "experiment", "grid", "--out", target, "--no-plots",
                       "--quiet", "--iterations", "2", "--clusters", "2")
    assert code == 2
    assert_one_line_error(err, "--out")
