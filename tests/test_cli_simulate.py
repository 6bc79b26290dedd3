"""``steady simulate``: the finite horizon from the command line (exit codes and one-line
errors as DESIGN.md says)."""

import json
from fractions import Fraction
from pathlib import Path

import pytest

from helpers import run

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_json_on_the_default_platform(capsys):
    """Figure 1 under the period rule: I = 4, J = 5/2, T = 2, M = 2: steady(G, 100) =
    2·(2 + 46) = 96."""
    code, out, err = run(capsys, "simulate", "--horizon", "100", "--json", "--quiet",
                         "--forwarding", "period")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["horizon"] == "100" and doc["delivered"] == 96
    assert doc["bound"] == "100" and doc["ratio"] == "24/25"
    assert (doc["init"], doc["cleanup"], doc["paper_init"], doc["paper_cleanup"]) == \
        ("4", "5/2", "7", "5")
    assert doc["simulated"] is True and doc["transfers"] == 48 * 2 * 4
    assert doc["violations"] == []


def test_default_platform_routes_its_cleanup_afresh(capsys):
    """Figure 1, best of every rule: the same I = 4, T = 2, M = 2, W = 2, and a clean-up
    routed afresh shorter than the trees' 5/2, so that B = W + floor((K - I - J)/T)
    whole batches fit: J = 2 gives 49 (E = 98, done at 100), 98 messages; every
    transfer checked."""
    code, out, err = run(capsys, "simulate", "--horizon", "100", "--json", "--quiet")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["choice"]["routed_cleanup"] is True and doc["forwarding"] == "pipelined"
    init, cleanup = Fraction(doc["init"]), Fraction(doc["cleanup"])
    assert (init, doc["warmup_periods"]) == (4, 2) and cleanup < Fraction(5, 2)
    assert doc["batches"] == 2 + (100 - init - cleanup) // 2
    assert doc["delivered"] == 2 * doc["batches"] == 98
    assert doc["simulated"] is True and doc["violations"] == []
    assert "clean-up routed afresh" in run(capsys, "simulate", "--horizon", "100")[1]


def test_text_output_names_the_phases(capsys):
    code, out, _ = run(capsys, "simulate", SAMPLES / "figure1.json", "--horizon", "13/2")
    assert code == 0
    assert "delivered" in out and "4 messages" in out and "Lemma 7" in out
    assert "the paper's construction, one message at a time: 7; its I" in out


def test_from_a_schedule_file(tmp_path, capsys):
    target = tmp_path / "s.json"
    assert run(capsys, "schedule", "-o", target, "--quiet")[0] == 0
    code, out, _ = run(capsys, "simulate", "--schedule", target, "--horizon", "20", "--json")
    assert code == 0 and json.loads(out)["delivered"] == 16


def test_an_invalid_schedule_file_is_rejected(tmp_path, capsys):
    """002 Figure 2 as printed breaks one-port reception: exit 1, the verifier's
    violations on stderr, nothing simulated."""
    from test_simulate import figure2_as_printed

    target = tmp_path / "figure2.json"
    figure2_as_printed().write(target)
    code, out, err = run(capsys, "simulate", "--schedule", target, "--horizon", "10")
    assert code == 1 and out == ""
    assert "rejected by the verifier" in err and "Traceback" not in err


@pytest.mark.parametrize("horizon", ["0", "-3", "abc", "1/0"])
def test_bad_horizons(capsys, horizon):
    code, out, err = run(capsys, "simulate", "--horizon", horizon)
    assert code == 2 and out == ""
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "--horizon" in err


def test_missing_schedule_file(capsys, tmp_path):
    code, _, err = run(capsys, "simulate", "--schedule", tmp_path / "nope.json",
                       "--horizon", "5")
    assert code == 2 and "nope.json" in err and len(err.strip().splitlines()) == 1


def test_budget_too_small_says_so_and_offers_a_horizon(capsys):
    code, out, _ = run(capsys, "simulate", "--horizon", "1000", "--max-events", "100",
                       "--json", "--quiet", "--forwarding", "period")
    doc = json.loads(out)
    assert code == 0 and doc["simulated"] is False
    # 100 transfers = 12 batches of 8: horizon I + J + (12 - 2)·T = 4 + 5/2 + 20
    assert doc["largest_checkable_horizon"] == "53/2"
    assert doc["delivered"] == 2 * (2 + (1000 * 2 - 13) // 4)


def test_budget_too_small_with_a_routed_cleanup(capsys):
    """The same budget with the clean-up routed afresh (J = 2): 12 batches fit, horizon
    I + J + (12 - 2)·T = 4 + 2 + 20."""
    code, out, _ = run(capsys, "simulate", "--horizon", "1000", "--max-events", "100",
                       "--json", "--quiet")
    doc = json.loads(out)
    assert code == 0 and doc["simulated"] is False and doc["choice"]["routed_cleanup"]
    assert doc["cleanup"] == "2" and doc["largest_checkable_horizon"] == "26"


def test_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    target = tmp_path / "ratio.png"
    code, _, err = run(capsys, "simulate", "--horizon", "60", "--plot", target, "--quiet")
    assert code == 0, err
    assert target.read_bytes().startswith(PNG_MAGIC)
