"""The seed 000 §5 campaign: tasks, per-platform evaluation, exact summaries, the command."""

import csv
import sys
from fractions import Fraction

import pytest
from hypothesis import given, settings

from helpers import examples
from helpers import assert_one_line_error, run

from steady.experiments import stp
from steady.experiments.runner import parallel_map
from steady.experiments.stp_report import PAPER_TABLE3, report_text
from steady.heuristics.registry import HEURISTICS, PAPER_LABELS
from steady.platform import Link, Platform
from steady.strategies import platforms
from steady.throughput import throughput


def test_tasks_are_ordered_and_seeded_per_configuration():
    todo = stp.tasks("random", [10, 20], [0.04, 0.2], 3, seed=2)
    assert len(todo) == 2 * 2 * 3
    assert [(t.nodes, t.density) for t in todo[:4]] == [(10, 0.04)] * 3 + [(10, 0.2)]
    # platform r of every configuration has seed 1000·seed + r: configurations differ by
    # size or density, not by seed, so the same seed gives different platforms
    assert [t.seed for t in todo[:3]] == [2000, 2001, 2002]


def test_single_port_bound_by_hand():
    # S -> A (cost 2), S -> B (cost 3), A -> B (cost 5): the source's out-port alone
    # allows 1/2 (its cheapest link costs 2), A's in-port 1/2, B's in-port 1/3: bound 1/3.
    p = Platform("S", [Link("S", "A", Fraction(2)), Link("S", "B", Fraction(3)),
                       Link("A", "B", Fraction(5))])
    assert stp.single_port_bound(p) == Fraction(1, 3)


def test_single_port_bound_counts_forced_out_ports():
    # H is the only way into L1 (cost 4) and L2 (cost 5): whatever the trees, H sends
    # each message over both, 9 per message, below the in-port and source bounds.
    p = Platform("S", [Link("S", "H", Fraction(1)), Link("S", "X", Fraction(1)),
                       Link("X", "H", Fraction(1)), Link("H", "L1", Fraction(4)),
                       Link("H", "L2", Fraction(5))])
    assert stp.single_port_bound(p) == Fraction(1, 9)
    assert throughput(p).throughput == Fraction(1, 9)     # and it is the optimum


@settings(max_examples=examples(30), deadline=None)
@given(platforms(min_nodes=2, max_nodes=7, density=0.3))
def test_single_port_bound_is_above_the_optimum(p):
    """proofs/heuristics.md, claim 6: no schedule beats the single-port bound."""
    assert throughput(p).throughput <= stp.single_port_bound(p)


def small_rows(kind="random", nodes=(8,), densities=(0.3,), repeats=2, multiport=True):
    todo = stp.tasks(kind, nodes, densities, repeats, seed=1, multiport=multiport)
    return parallel_map(stp.evaluate, todo, quiet=True)


def test_evaluate_keeps_every_ratio_at_most_one_in_the_one_port_model():
    rows = small_rows(nodes=(6, 9), densities=(0.2, 0.5))
    for row in rows:
        assert row["optimum"] <= stp.single_port_bound(stp.platform_of(
            stp.PlatformTask("random", row["nodes"], row["density_target"], row["seed"])))
        for name in stp.heuristic_columns(rows, "one-port"):
            assert 0 < row[f"one-port:{name}"] <= row["optimum"], name
        for name in stp.heuristic_columns(rows, "multi-port"):
            # a multi-port tree is one multi-port schedule: at most the multi-port bound
            assert 0 < row[f"multi-port:{name}"] <= row["multi-port:bound"], name


def test_evaluate_is_deterministic():
    task = stp.PlatformTask("tiers", 12, None, 7)
    first, second = stp.evaluate(task), stp.evaluate(task)
    assert {k: v for k, v in first.items() if not k.startswith("seconds")} == \
        {k: v for k, v in second.items() if not k.startswith("seconds")}


def test_summary_means_are_exact():
    rows = [{"nodes": 10, "trivial": True, "optimum": Fraction(1, 2),
             "one-port:a": Fraction(1, 4), "seconds_heuristics:one-port": 0.0},
            {"nodes": 10, "trivial": False, "optimum": Fraction(1, 3),
             "one-port:a": Fraction(1, 3), "seconds_heuristics:one-port": 0.0}]
    (row,) = stp.summary_rows(rows, "nodes")
    # ratios 1/2 and 1: exact mean 3/4, deviation 1/4, half the platforms trivial
    assert row[:5] == [10, "one-port", "a", "optimum", Fraction(3, 4)]
    assert row[6] == "0.2500" and row[7:] == [2, Fraction(1, 2)]


def test_every_paper_label_names_a_one_port_heuristic():
    assert set(PAPER_LABELS) == set(PAPER_TABLE3)
    for ours in PAPER_LABELS.values():
        assert ours in HEURISTICS


def test_tiers_report_puts_table3_beside_ours():
    rows = small_rows("tiers", nodes=(30,), densities=(None,), repeats=2, multiport=False)
    text = report_text(rows, "tiers", PAPER_LABELS)
    assert "Table 3" in text and "46% (±0.12%)" in text
    ours = stp.ratio_cell(rows, f"one-port:{PAPER_LABELS['Binomial Tree']}", "optimum")
    assert ours.text() in text
    assert "65 nodes: paper" in text


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_command_writes_csv_and_report(tmp_path, capsys):
    out = tmp_path / "campaign"
    code, stdout, _ = run(capsys, "experiment", "stp", "--nodes", "6,8", "--density", "0.5",
                          "--repeats", "2", "--out", out, "--no-plots", "--quiet",
                          "--jobs", "2")
    assert code == 0
    platforms = read_csv(out / "platforms.csv")
    assert len(platforms) == 4
    assert {r["nodes"] for r in platforms} == {"6", "8"}
    for r in platforms:
        assert Fraction(r["one-port:binomial"]) <= Fraction(r["optimum"])
    summary = read_csv(out / "summary-by-nodes.csv")
    assert {r["model"] for r in summary} == {"one-port", "multi-port"}
    assert all(Fraction(r["mean_ratio"]) <= 1 for r in summary
               if r["model"] == "one-port" and r["reference"] == "optimum")
    assert (out / "summary-by-density.csv").exists()
    assert "trivial bottleneck" in stdout and "report.md" in stdout


def test_command_with_best_tree_compares_to_it(tmp_path, capsys):
    out = tmp_path / "c"
    code, _, _ = run(capsys, "experiment", "stp", "--nodes", "5", "--density", "0.6",
                     "--repeats", "1", "--best-tree", "5", "--one-port-only", "--out", out,
                     "--no-plots", "--quiet")
    assert code == 0
    (row,) = read_csv(out / "platforms.csv")
    best = Fraction(row["one-port:best-tree"])
    assert row["one-port:best-tree-optimal"] == "True"
    assert best <= Fraction(row["optimum"])
    for name in stp.heuristic_columns([{k: v for k, v in row.items()}], "one-port"):
        if name != "best-tree":
            assert Fraction(row[f"one-port:{name}"]) <= best
    assert "multi-port:bound" not in row
    report = (out / "report.md").read_text()
    assert "proven optimal on 1 of 1 platforms." in report
    assert "ratio to the exact best tree, by density" in report


def test_command_draws_the_figures(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "c"
    code, _, _ = run(capsys, "experiment", "stp", "--nodes", "6", "--density", "0.4",
                     "--repeats", "1", "--out", out, "--quiet")
    assert code == 0
    for name in ("figure4a.png", "figure4b.png", "figure5.png", "figure5-bound.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("argv, element", [
    (["--repeats", "0"], "--repeats"),
    (["--nodes", "ten"], "--nodes"),
    (["--density", "1.5"], "--density"),
    (["--best-tree", "-1"], "--best-tree"),
    (["--platforms", "tiers", "--nodes", "5"], "--nodes"),
    (["--jobs", "0"], "--jobs"),
    (["--lan-redundancy", "2"], "--lan-redundancy"),                  # random platforms
    (["--platforms", "tiers", "--lan-redundancy", "0"], "--lan-redundancy"),
])
def test_bad_options_exit_2_with_one_line(tmp_path, capsys, argv, element):
    code, _, err = run(capsys, "experiment", "stp", *argv, "--out", tmp_path / "x",
                       "--quiet", "--no-plots")
    assert code == 2
    assert_one_line_error(err, element)
    assert not (tmp_path / "x").exists()


def test_dask_backend_without_dask_is_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "dask.distributed", None)
    code, _, err = run(capsys, "experiment", "stp", "--nodes", "5", "--repeats", "1",
                       "--backend", "dask", "--out", tmp_path / "x", "--quiet")
    assert code == 2
    assert_one_line_error(err, "--backend dask")


@pytest.mark.slow
def test_dask_backend_gives_the_loky_results():
    pytest.importorskip("dask.distributed")
    todo = stp.tasks("random", [6], [0.5], 2, seed=3, multiport=False)
    strip = [{k: v for k, v in r.items() if not k.startswith("seconds")}
             for r in parallel_map(stp.evaluate, todo, quiet=True)]
    dask = parallel_map(stp.evaluate, todo, jobs=2, backend="dask", quiet=True)
    assert [{k: v for k, v in r.items() if not k.startswith("seconds")}
            for r in dask] == strip
