"""`steady schedule PLATFORM --max-messages M --steps` (and --max-period, --ratio) and
`steady verify` of the version 1 short-period file it writes."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

from helpers import assert_one_line_error, run

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
R30 = str(SAMPLES / "random-30.json")


def _optimum(capsys, platform) -> Fraction:
    code, text, _ = run(capsys, "throughput", platform, "--json")
    assert code == 0
    return Fraction(json.loads(text)["throughput"])


def test_steps_file_is_version_1_and_its_ratio_is_certified(tmp_path, capsys):
    out = tmp_path / "r30.steps.json"
    code, text, _ = run(capsys, "schedule", R30, "--max-messages", "100", "--steps",
                        "-o", out, "--json", "--quiet")
    assert code == 0
    summary = json.loads(text)
    doc = json.loads(out.read_text())
    assert doc["version"] == 1 and "steps" in doc and "transfers" not in doc
    assert summary["version"] == 1 and summary["steps"] == len(doc["steps"])
    assert summary["transfers"] == sum(len(s["transfers"]) for s in doc["steps"])
    # the ratio, from the file's own numbers and `steady throughput`, here
    optimum = _optimum(capsys, R30)
    period = sum(Fraction(s["duration"]) for s in doc["steps"])
    assert period == Fraction(doc["period"])
    ratio = Fraction(doc["messages_per_period"]) / period / optimum
    assert Fraction(summary["ratio"]) == Fraction(doc["ratio"]) == ratio < 1
    assert Fraction(doc["optimum"]) == Fraction(summary["optimum"]) == optimum
    assert doc["messages_per_period"] <= 100
    code, text, _ = run(capsys, "verify", R30, out, "--json")
    report = json.loads(text)
    assert code == 0 and report["valid"] and report["version"] == 1
    assert Fraction(report["ratio"]) == ratio and report["steps"] == len(doc["steps"])
    code, text, _ = run(capsys, "verify", R30, out)
    assert code == 0 and text.startswith(f"valid: {len(doc['steps'])} steps, ")
    assert "certified ratio" in text
    assert run(capsys, "verify", R30, out, "--min-ratio", str(ratio))[0] == 0
    above = str(ratio + Fraction(1, 10**9))
    code, text, _ = run(capsys, "verify", R30, out, "--min-ratio", above)
    assert code == 1 and "[ratio]" in text


def test_human_output_names_the_version_and_steps(capsys):
    code, text, _ = run(capsys, "schedule", R30, "--max-messages", "50", "--steps", "--quiet")
    assert code == 0
    line = next(l for l in text.splitlines() if l.startswith("schedule"))
    assert "steady-schedule v1" in line and "synchronous steps" in line
    code, text, _ = run(capsys, "schedule", R30, "--max-messages", "50", "--quiet")
    line = next(l for l in text.splitlines() if l.startswith("schedule"))
    assert "steady-schedule v2" in line and "timetable" in line


def test_figure1_steps_exact_values(capsys):
    """Figure 1 (TP* = 1): one message per period is one tree, the best of which has
    TP 2/3 (002 §3); two messages hold the exact optimum (002 §5.4.2): ratio 1."""
    code, text, _ = run(capsys, "schedule", "--max-messages", "1", "--steps", "--json",
                        "--quiet")
    one = json.loads(text)
    assert code == 0 and one["version"] == 1
    assert (one["ratio"], one["period"], one["messages_per_period"]) == ("2/3", "3/2", 1)
    code, text, _ = run(capsys, "schedule", "--max-messages", "2", "--steps", "--json",
                        "--quiet")
    two = json.loads(text)
    assert (two["ratio"], two["period"], two["steps"], two["transfers"]) == ("1", "2", 2, 8)


def test_steps_with_ratio_and_max_period(capsys):
    code, text, _ = run(capsys, "schedule", "--ratio", "1", "--steps", "--json", "--quiet")
    assert code == 0 and json.loads(text)["messages_per_period"] == 2
    code, text, _ = run(capsys, "schedule", "--max-period", "3/2", "--steps", "--json",
                        "--quiet")
    doc = json.loads(text)
    assert code == 0 and doc["version"] == 1 and Fraction(doc["period"]) <= Fraction(3, 2)
    assert doc["ratio"] == "2/3"
    code, _, err = run(capsys, "schedule", R30, "--ratio", "1", "--max-messages", "3",
                       "--steps", "--quiet")
    assert code == 1 and "best found" in err


def test_steps_alone_is_the_exact_optimum(capsys):
    """--steps without a short-period option: the exact optimum is in steps already."""
    code, text, _ = run(capsys, "schedule", "--steps", "--json", "--quiet")
    assert code == 0 and json.loads(text)["period"] == "2"


def test_verify_exact_optimal_file_is_still_optimal(tmp_path, capsys):
    path = tmp_path / "fig1.json"
    assert run(capsys, "schedule", "-o", path, "--quiet")[0] == 0
    code, text, _ = run(capsys, "verify", SAMPLES / "figure1.json", path)
    assert code == 0 and text.strip().endswith("is optimal")
    code, text, _ = run(capsys, "verify", SAMPLES / "figure1.json", path, "--json")
    assert "ratio" not in json.loads(text)
    code, text, _ = run(capsys, "verify", SAMPLES / "figure1.json", path, "--min-ratio",
                        "1", "--json")
    assert code == 0 and json.loads(text)["ratio"] == "1"


def test_a_tampered_claim_is_rejected(tmp_path, capsys):
    out = tmp_path / "r30.steps.json"
    assert run(capsys, "schedule", R30, "--max-messages", "20", "--steps", "-o", out,
               "--quiet")[0] == 0
    doc = json.loads(out.read_text())
    doc["ratio"] = "1"
    out.write_text(json.dumps(doc))
    code, text, _ = run(capsys, "verify", R30, out)
    assert code == 1 and "[ratio] ratio:" in text


def test_bad_steps_usage_exits_2(capsys):
    code, _, err = run(capsys, "schedule", "--steps", "--max-messages", "0")
    assert code == 2
    assert_one_line_error(err, "--max-messages")
