"""``steady simulate`` on timed (version 2) schedules and the short timed schedule it
picks for a platform (exact values; exit codes and one-line errors as DESIGN.md says)."""

import json
from fractions import Fraction
from pathlib import Path

import pytest

from helpers import assert_one_line_error, run, sample
from steady.schedule_file import Schedule
from steady.verify import verify
from test_simulate_timed import chain3


@pytest.fixture
def chain_file(tmp_path):
    target = tmp_path / "chain.json"
    chain3().write(target)
    return target


def test_timed_file_pipelined_exact(capsys, chain_file):
    """tests/test_simulate_timed.py::test_chain_staggered_timetable_by_hand: 10 messages
    by K = 30; Lemma 7's bound is K·TP* = 30 with the certificate's TP* = 1, not the
    schedule's own K·TP = 10 (a valid non-optimal schedule never shows a ratio > 1)."""
    code, out, err = run(capsys, "simulate", "--schedule", chain_file, "--horizon", "30",
                         "--forwarding", "pipelined", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert (doc["delivered"], doc["bound"], doc["ratio"]) == (10, "30", "1/3")
    assert (doc["optimum"], doc["optimum_from"], doc["throughput"]) == ("1", "certificate",
                                                                         "1/3")
    assert (doc["forwarding"], doc["warmup_periods"], doc["simulated"]) == ("pipelined", 0,
                                                                            True)
    assert "choice" not in doc and doc["violations"] == []


def test_timed_file_follows_its_own_rule_by_default(capsys, chain_file):
    """The file's rule (002 §5.5): W = 2, I = J = 2 (worked by hand in
    test_chain_staggered_timetable_by_hand), still 10 messages by 30."""
    code, out, _ = run(capsys, "simulate", "--schedule", chain_file, "--horizon", "30",
                       "--json")
    doc = json.loads(out)
    assert code == 0 and doc["forwarding"] == "period"
    assert (doc["warmup_periods"], doc["init"], doc["cleanup"], doc["delivered"]) == \
        (2, "2", "2", 10)


def test_without_certificate_the_optimum_is_solved(capsys, tmp_path):
    from dataclasses import replace

    target = tmp_path / "bare.json"
    replace(chain3(), certificate=None).write(target)
    code, out, _ = run(capsys, "simulate", "--schedule", target, "--horizon", "30",
                       "--json")
    doc = json.loads(out)
    assert code == 0 and (doc["optimum"], doc["optimum_from"], doc["bound"]) == \
        ("1", "exact optimum", "30")


def test_platform_picks_and_says_which(capsys):
    """Figure 1: the exact optimum fits in 2 messages per period (ratio 1); 98 messages
    by K = 100 with the clean-up routed afresh, 96 over the trees."""
    code, out, err = run(capsys, "simulate", "--horizon", "100", "--json", "--quiet")
    assert code == 0, err
    doc = json.loads(out)
    choice = doc["choice"]
    assert (choice["messages_per_period"], choice["ratio"], doc["delivered"]) == (2, "1", 98)
    assert doc["optimum_from"] == "exact optimum" and doc["bound"] == "100"
    assert max(c["delivered"] for c in choice["candidates"]) == 98
    assert max(c["delivered"] for c in choice["candidates"] if not c["routed_cleanup"]) == 96
    code, out, _ = run(capsys, "simulate", "--horizon", "100", "--quiet")
    assert "picked for K" in out and "K x the optimal throughput 1 (solved exactly)" in out


def test_max_messages_one_is_the_best_single_tree(capsys):
    """At most one message per period on Figure 1: the best single tree, TP = 2/3 of the
    optimum 1 (002 Figure 4)."""
    code, out, _ = run(capsys, "simulate", "--horizon", "100", "--max-messages", "1",
                       "--json", "--quiet")
    doc = json.loads(out)
    assert code == 0 and doc["choice"]["messages_per_period"] == 1
    assert doc["choice"]["ratio"] == "2/3" and doc["throughput"] == "2/3"
    assert doc["delivered"] <= 67


def test_output_writes_the_chosen_schedule(capsys, tmp_path):
    """-o writes the chosen timed schedule: it verifies, and simulating the file with
    the same rule delivers the same."""
    target = tmp_path / "plan.json"
    code, out, _ = run(capsys, "simulate", sample("random-10.json"), "--horizon", "20000",
                       "--json", "--quiet", "-o", target)
    assert code == 0
    doc = json.loads(out)
    schedule = Schedule.from_file(target)
    assert schedule.version == 2 and verify(None, schedule).ok
    assert schedule.messages_per_period == doc["choice"]["messages_per_period"]
    code, out, _ = run(capsys, "simulate", "--schedule", target, "--horizon", "20000",
                       "--forwarding", doc["forwarding"], "--json")
    again = json.loads(out)
    assert code == 0 and (again["delivered"], again["bound"]) == (doc["delivered"],
                                                                  doc["bound"])


@pytest.mark.parametrize("argv, element", [
    (["--max-messages", "0"], "--max-messages"),
    (["--max-messages", "many"], "--max-messages"),
])
def test_bad_max_messages(capsys, argv, element):
    code, out, err = run(capsys, "simulate", "--horizon", "10", *argv)
    assert code == 2 and out == ""
    assert_one_line_error(err, element)


def test_platform_options_refused_with_a_schedule(capsys, chain_file, tmp_path):
    code, out, err = run(capsys, "simulate", "--schedule", chain_file, "--horizon", "10",
                         "--max-messages", "5")
    assert code == 2 and out == ""
    assert_one_line_error(err, "--max-messages")
    code, out, err = run(capsys, "simulate", "--schedule", chain_file, "--horizon", "10",
                         "-o", tmp_path / "x.json")
    assert code == 2
    assert_one_line_error(err, "--output")


def test_listed_run_of_a_file_pipelines_past_its_period(capsys, chain_file):
    """--forwarding listed keeps the file's tree and drops its period: broadcast x
    crosses the three unit links at x, x + 1 and x + 2 and is everywhere at x + 3, so by
    K = 30 the floor(K·TP*) = 30 placed broadcasts 0..27 are delivered (the periods of
    the file, throughput 1/3, deliver 10)."""
    code, out, err = run(capsys, "simulate", "--schedule", chain_file, "--horizon", "30",
                         "--forwarding", "listed", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert (doc["forwarding"], doc["delivered"], doc["ratio"]) == ("listed", 28, "14/15")
    assert doc["listed"] == {"broadcasts": 30, "first": "3", "last": "30", "period": "3",
                             "messages_per_period": 1}
    assert (doc["simulated"], doc["transfers"], doc["violations"]) == (True, 90, [])
    assert doc["init"] is None and doc["warmup_periods"] is None


def test_listed_run_refuses_beyond_max_events(capsys, chain_file):
    code, out, err = run(capsys, "simulate", "--schedule", chain_file, "--horizon", "30",
                         "--forwarding", "listed", "--max-events", "89")
    assert code == 2 and out == ""
    assert_one_line_error(err, "--forwarding listed")


@pytest.mark.slow
def test_platform_picks_the_best_candidate_and_writes_its_trees(capsys, tmp_path):
    """samples/random-20-multiport.json at K = 20000: the choice lists every candidate
    of the default effort (timetables under pipelined forwarding, regrown, with routed
    clean-ups; the list run only at thorough), keeps the one that delivers the most,
    never more than Lemma 7's K·TP*, and the written schedule is the one whose trees
    ran."""
    target = tmp_path / "picked.json"
    code, out, err = run(capsys, "simulate", sample("random-20-multiport.json"), "--horizon",
                         "20000", "--json", "--quiet", "-o", target)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["violations"] == []
    kinds = {c["forwarding"] for c in doc["choice"]["candidates"]}
    assert kinds == {"pipelined"}
    assert doc["delivered"] == max(c["delivered"] for c in doc["choice"]["candidates"])
    assert doc["delivered"] <= Fraction(doc["bound"])
    written = Schedule.from_file(target)
    assert written.messages_per_period == doc["choice"]["messages_per_period"]
    assert verify(written.platform, written).ok


def test_platform_listed_alone_refuses_beyond_max_events(capsys):
    """With a platform and --forwarding listed, no periodic fallback: when the list
    run's floor(K·TP*)·(|V| - 1) transfers exceed --max-events, one line, exit 2."""
    code, out, err = run(capsys, "simulate", "--horizon", "100", "--forwarding", "listed",
                         "--max-events", "10", "--quiet")
    assert code == 2 and out == ""
    assert_one_line_error(err, "--forwarding listed")


def test_pipelined_lags_of_a_huge_period_refused_in_one_line(capsys, tmp_path):
    """The exact schedule of samples/random-10.json holds ~10^30 messages per period:
    pipelined lags would read every slot, so --forwarding pipelined says so in one line
    (exit 2, no traceback) and names the rules that work; listed runs it."""
    target = tmp_path / "exact.json"
    code, _, err = run(capsys, "schedule", sample("random-10.json"), "-o", target,
                       "--quiet")
    assert code == 0, err
    code, out, err = run(capsys, "simulate", "--schedule", target, "--horizon", "10000",
                         "--forwarding", "pipelined")
    assert code == 2 and out == ""
    assert_one_line_error(err, "--forwarding pipelined")
    assert "about 10^30 here (at most 2000000): use --forwarding period or listed" in err
    code, out, _ = run(capsys, "simulate", "--schedule", target, "--horizon", "10000",
                       "--forwarding", "listed", "--json")
    assert code == 0 and json.loads(out)["delivered"] == 335


def test_platform_listed_alone_is_chosen_where_a_periodic_run_delivers_more(capsys):
    """With a platform and --forwarding listed, the list run is the answer even where
    the periodic candidates (built for its trees) deliver more: on Figure 1 at K = 100
    they do, and the rule asked for was once overruled (an AssertionError traceback)."""
    code, out, err = run(capsys, "simulate", sample("figure1.json"), "--horizon", "100",
                         "--forwarding", "listed", "--json", "--quiet")
    assert code == 0 and err == ""
    doc = json.loads(out)
    listed = [c["delivered"] for c in doc["choice"]["candidates"] if c["forwarding"] == "listed"]
    others = [c["delivered"] for c in doc["choice"]["candidates"] if c["forwarding"] != "listed"]
    assert doc["forwarding"] == doc["choice"]["forwarding"] == "listed"
    assert doc["delivered"] == max(listed) and doc["violations"] == []
    assert max(others) > doc["delivered"]   # the case the rule must hold in
