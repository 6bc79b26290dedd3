"""PIPE, the pipelined broadcast of one message of size L (002 §6, Theorem 8).

Hand-computed makespans on a link and a chain, the Lemma 7 bound L·T* and the per-node
start-up bound on random platforms with start-ups, the message-level simulation of every
finite schedule, the optimiser against the paper's slicing, k = 1 and brute force, the
convergence of Theorem 8 on Figure 1 with start-ups, and the ``steady pipe`` command.
"""

import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings

from helpers import examples
from hypothesis import strategies as st

from steady.simulate.pipe import (PipePlanner, best_slices, finite_makespan, paper_slices,
                         pipe_makespan, pipe_paper, slice_lower_bound, slice_platform,
                         startup_free, stretch, tree_pattern)
from steady.platform import Link, Platform
from steady.simulate.plan import check_plan
from steady.strategies import platforms
from steady.simulate.unroll import PeriodicPattern, finite_schedule, periodic_plan
from steady.throughput import throughput
from steady.verify import verify
from helpers import run, assert_one_line_error

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
FIGURE1_STARTUP = SAMPLES / "figure1-startup.json"
F = Fraction


def link_platform():
    """Ps -> P1, β = 1, c = 1."""
    return Platform("Ps", [Link("Ps", "P1", F(1), F(1))])


def chain_platform():
    """Ps -> P1 -> P2, β = 1, c = 1 on both links."""
    return Platform("Ps", [Link("Ps", "P1", F(1), F(1)), Link("P1", "P2", F(1), F(1))])


def check_by_simulation(result):
    """The finite schedule of the result, message by message (the plan of
    steady.simulate.unroll.periodic_plan, checked independently of how it was built by
    steady.simulate.plan.check_plan: one-port, causality, every slice everywhere once):
    valid, and its makespan is the one reported."""
    pattern = PeriodicPattern(result.schedule, result.forwarding)
    plan = periodic_plan(pattern, result.batches, result.share)
    assert check_plan(plan) == []
    assert plan.broadcasts == result.slices
    assert None not in plan.completion()
    assert plan.makespan_time == result.makespan
    return plan


# -- hand-computed cases ----------------------------------------------------------------

@pytest.mark.parametrize("k", range(1, 7))
def test_single_link_is_sequential(k):
    # One link: k slices of size 4/k, one after the other: k·(1 + 4/k) = k + 4.
    r = pipe_makespan(link_platform(), 4, k)
    assert r.makespan == k + 4
    assert r.lower_bound == 4 and r.ratio == F(k + 4, 4)
    assert r.slice_size == F(4, k)
    check_by_simulation(r)


def test_single_link_best_is_one_slice_and_paper_pads():
    assert best_slices(link_platform(), 4).makespan == 5          # k = 1
    assert best_slices(link_platform(), 4).slices == 1
    paper = pipe_paper(link_platform(), 4)                         # ν = 2 slices of size 2
    assert (paper.slices, paper.slice_size, paper.makespan) == (2, 2, 6)
    paper = pipe_paper(link_platform(), 5)                         # ν = 3 slices of size 3
    assert (paper.slices, paper.slice_size, paper.makespan, paper.padded) == (3, 3, 12, True)


@pytest.mark.parametrize("k", range(1, 9))
def test_chain_pipelines(k):
    # Two links: slice i crosses Ps->P1 in period i and P1->P2 in period i + 1 while the
    # next one crosses Ps->P1: (k + 1) periods of β + (L/k)·c = (k + 1)(1 + 16/k).
    r = pipe_makespan(chain_platform(), 16, k)
    assert r.makespan == (k + 1) * (1 + F(16, k))
    assert r.lower_bound == 16
    check_by_simulation(r)


def test_chain_optimum_is_four_slices():
    # (k + 1)(1 + 16/k) = k + 17 + 16/k is smallest at k = 4: 25 (k=3: 76/3, k=5: 126/5).
    best = best_slices(chain_platform(), 16)
    assert (best.slices, best.makespan) == (4, 25)
    assert best.makespan < pipe_makespan(chain_platform(), 16, 3).makespan == F(76, 3)
    assert best.makespan < pipe_makespan(chain_platform(), 16, 5).makespan == F(126, 5)
    # the paper: ν = 4 slices of size 4, the same here (L is a square)
    assert pipe_paper(chain_platform(), 16).makespan == 25


def test_chain_with_fractional_size():
    # L = 7/2, k = 2: 3 periods of 1 + 7/4.
    assert pipe_makespan(chain_platform(), "7/2", 2).makespan == F(33, 4)


@pytest.mark.parametrize("size, nu", [(1, 1), (2, 2), (4, 2), (5, 3), (F(9, 4), 2),
                                      (F(1, 2), 1), (F(401, 100), 3), (10 ** 6, 1000),
                                      (10 ** 6 + 1, 1001), (F(10 ** 6 + 1, 10 ** 6), 2)])
def test_paper_slices(size, nu):
    assert paper_slices(size) == nu


@given(st.fractions(min_value=F(1, 1000), max_value=10 ** 12))
def test_paper_slices_is_smallest_square_above(size):
    nu = paper_slices(size)
    assert nu >= 1 and nu * nu >= size and (nu - 1) ** 2 < size


def test_slice_platform_costs():
    p = Platform("Ps", [Link("Ps", "P1", F(1, 2), F(3)), Link("P1", "P2", F(2))])
    s = slice_platform(p, F(4, 3))
    assert [(l.cost, l.startup) for l in s.links] == [(F(3) + F(2, 3), 0), (F(8, 3), 0)]
    assert [l.startup for l in startup_free(p).links] == [0, 0]


def test_bad_arguments():
    with pytest.raises(ValueError):
        pipe_makespan(link_platform(), 0, 1)
    with pytest.raises(ValueError):
        pipe_makespan(link_platform(), 4, 0)
    with pytest.raises(ValueError):
        paper_slices(-1)
    with pytest.raises(ValueError):
        PipePlanner(link_platform(), patterns=("nonsense",))


# -- random platforms with start-ups ------------------------------------------------------

@st.composite
def startup_platforms(draw, max_nodes=5):
    platform = draw(platforms(max_nodes=max_nodes))
    startups = st.builds(F, st.integers(0, 3), st.integers(1, 2))
    return platform.replace_links(Link(l.tail, l.head, l.cost, draw(startups))
                                  for l in platform.links)


sizes = st.builds(F, st.integers(1, 60), st.integers(1, 3))


@pytest.mark.slow
@settings(max_examples=examples(30), deadline=None)
@given(startup_platforms(), sizes, st.integers(1, 9))
def test_lemma7_bound_and_simulation(platform, size, k):
    """Theorem 8 / Lemma 7: T_pipe(L) >= L·T* for every k; the chosen finite schedule is
    valid message by message and ends exactly at the reported makespan; every candidate
    pattern is a valid periodic schedule of the slice platform."""
    r = pipe_makespan(platform, size, k)
    assert r.makespan >= r.lower_bound == size / PipePlanner(platform).throughput
    assert r.makespan >= slice_lower_bound(platform, size, k)
    assert r.makespan == min(r.candidates.values())
    check_by_simulation(r)
    sliced = slice_platform(platform, r.slice_size)
    assert verify(sliced, r.schedule, optimality=False).ok


@pytest.mark.slow
@settings(max_examples=examples(30), deadline=None)
@given(startup_platforms(), sizes, st.integers(1, 12))
def test_candidate_patterns_are_valid_schedules(platform, size, k):
    planner = PipePlanner(platform)
    sliced = slice_platform(platform, size / k)
    for name, schedule, _, _ in planner.candidates(size / k):
        assert verify(sliced, schedule, optimality=False).ok, name
    for parent in planner.trees:
        assert verify(sliced, tree_pattern(sliced, parent), optimality=False).ok
    # stretching to larger costs never shortens a step (monotone in the costs)
    larger = slice_platform(platform, size / k + 1)
    short, long_ = (stretch(planner.unit_schedule, sliced),
                    stretch(planner.unit_schedule, larger))
    assert all(a.duration <= b.duration for a, b in zip(short.steps, long_.steps))


@pytest.mark.slow
@settings(max_examples=examples(30), deadline=None)
@given(startup_platforms(max_nodes=4), sizes, st.integers(1, 5), st.integers(1, 12))
def test_finite_makespan_shortcut_matches_unrolling(platform, size, k, batches):
    """The makespan of B > W + 1 batches is that of W + 1 batches plus (B - W - 1)·T."""
    planner = PipePlanner(platform)
    for _, schedule, _, rule in planner.candidates(size / k):
        pattern = PeriodicPattern(schedule, rule)
        share = None if batches % 2 else [min(1, w) for w in pattern.weights]
        assert (finite_makespan(pattern, batches, share)
                == finite_schedule(pattern, batches, share).makespan)


@pytest.mark.slow
@settings(max_examples=examples(20), deadline=None)
@given(startup_platforms(max_nodes=4), sizes)
def test_best_slices_beats_paper_and_one_slice(platform, size):
    planner = PipePlanner(platform)
    best = best_slices(platform, size, max_slices=400, planner=planner)
    assert best.makespan <= pipe_paper(platform, size, planner=planner).makespan
    assert best.makespan <= pipe_makespan(platform, size, 1, planner=planner).makespan
    assert best.makespan >= best.lower_bound
    if best.slices * best.slice_size == size:
        check_by_simulation(best)


@settings(max_examples=examples(20), deadline=None)
@given(startup_platforms(max_nodes=4), sizes)
def test_paper_schedule_restretched_to_exact_slices(platform, size):
    """The paper's padded schedule (slices of size ν) run with the exact slice costs
    (size L/ν): still valid, never longer."""
    from steady.simulate.pipe import _checked, _restretch

    planner = PipePlanner(platform)
    nu = paper_slices(size)
    padded = planner.evaluate(size, nu, F(nu))
    exact = _checked(_restretch(planner, padded, size / nu))
    assert exact.makespan <= padded.makespan
    assert (exact.slices, exact.slice_size) == (nu, size / nu)
    check_by_simulation(exact)


@settings(max_examples=examples(20), deadline=None)
@given(platforms(max_nodes=5), st.builds(F, st.integers(1, 3), st.integers(1, 4)))
def test_stretch_timed_is_valid_and_monotone(platform, factor):
    """A timed schedule compacted onto larger costs (same port orders) stays valid, its
    period grows with the costs; with costs a·c it is the compacted one times a (what
    the start-up-free shortcut of PipePlanner relies on)."""
    from steady.schedule.timed import timed_schedule
    from steady.simulate.choose import with_trees
    from steady.simulate.pipe import rescaled, stretch_timed

    result = with_trees(platform, throughput(platform, "trees"))
    base = stretch_timed(timed_schedule(platform, result, 5)[0], platform)
    larger = platform.replace_links(Link(l.tail, l.head, l.cost * (1 + factor))
                                    for l in platform.links)
    grown = stretch_timed(base, larger)
    assert verify(larger, grown, optimality=False).ok
    assert grown.period >= base.period
    # the same timetable; transfers that start together may be listed in either order
    assert _in_order(grown) == _in_order(rescaled(base, larger, 1 + factor))


@pytest.mark.slow
@settings(max_examples=examples(15), deadline=None)
@given(platforms(max_nodes=5), sizes, st.integers(1, 12))
def test_startup_free_shortcut_equals_direct_evaluation(platform, size, k):
    """Without start-ups PipePlanner scales unit patterns; with the shortcut turned off
    every candidate is rebuilt on the slice platform: same makespans, except "optimal",
    whose LP on the scaled costs may pick another number of messages per period (the
    scaled unit optimum is optimal too)."""
    planner = PipePlanner(platform)
    direct = PipePlanner(platform)
    direct.scaling = False
    a, b = planner.evaluate(size, k), direct.evaluate(size, k)
    same = {n for n in a.candidates if n != "optimal"}
    assert {n: a.candidates[n] for n in same} == {n: b.candidates[n] for n in same}
    assert a.makespan <= b.makespan
    check_by_simulation(a)
    assert verify(slice_platform(platform, size / k), a.schedule, optimality=False).ok


def test_best_slices_is_the_brute_force_optimum_for_small_L():
    """For L = 100 on Figure 1 with start-ups the scan stops at a proven limit (every
    larger k has slice_lower_bound(k) >= the best); all k below it, one by one, agree."""
    platform = Platform.from_file(FIGURE1_STARTUP)
    planner = PipePlanner(platform)
    best = best_slices(platform, 100, planner=planner)
    assert best.scan_proof.startswith("bound")
    brute = min(range(1, best.scan_limit + 1),
                key=lambda k: (planner.evaluate(100, k).makespan, k))
    assert (best.slices, best.makespan) == (brute, planner.evaluate(100, brute).makespan)
    assert slice_lower_bound(platform, 100, best.scan_limit) >= best.makespan


# -- Theorem 8 on Figure 1 with start-ups ------------------------------------------------

STEP_PATTERNS = ("stretched", "optimal", "tree")


@pytest.mark.slow
def test_theorem8_ratio_tends_to_one_on_figure1_with_startups():
    """With the synchronous-step patterns only (measured, exact): best slicing 12, 112,
    1118 slices for L = 10^2, 10^4, 10^6 with makespans 869/6, 146261/14,
    561499924/559, ratios ~1.4483, ~1.0447, ~1.00447; the paper's ν = 10, 100, 1000
    slices give 145, 10450, 1004500 (ratios 1.45, 1.045, 1.0045 = 1 + 4.5/ν:
    L·T* + O(sqrt L))."""
    platform = Platform.from_file(FIGURE1_STARTUP)
    planner = PipePlanner(platform, patterns=STEP_PATTERNS)
    ratios, papers = [], []
    for size in (10 ** 2, 10 ** 4, 10 ** 6):
        best = best_slices(platform, size, planner=planner)
        paper = pipe_paper(platform, size, planner=planner)
        assert best.lower_bound == size                       # T* = 1 on Figure 1
        assert best.makespan <= paper.makespan
        ratios.append(best.ratio)
        papers.append(paper)
    assert ratios[0] > ratios[1] > ratios[2] and ratios[2] < F(1005, 1000)
    assert [p.makespan for p in papers] == [145, 10450, 1004500]
    assert [p.ratio - 1 for p in papers] == [F(9, 2) / nu for nu in (10, 100, 1000)]
    assert ratios == [F(869, 600), F(146261, 140000), F(561499924, 559 * 10 ** 6)]


@pytest.mark.slow
def test_timed_patterns_do_better_on_figure1_with_startups():
    """With the timed candidates (the default): never worse than the step patterns
    (they are still candidates), and measured (exact) the paper's slicing drops to
    L + 4ν + 2 (142, 10402, 1004002), the best slicing to 1823/13 (13 slices),
    1340155/129 (129) and 1296001958/1291 (1291 slices), all by a timed schedule of at
    most 5 messages per period with pipelined forwarding; each checked message by
    message."""
    platform = Platform.from_file(FIGURE1_STARTUP)
    planner = PipePlanner(platform)
    steps = PipePlanner(platform, patterns=STEP_PATTERNS)
    found = []
    for size in (10 ** 2, 10 ** 4, 10 ** 6):
        best = best_slices(platform, size, planner=planner)
        paper = pipe_paper(platform, size, planner=planner)
        assert paper.makespan <= pipe_paper(platform, size, planner=steps).makespan
        assert best.makespan <= best_slices(platform, size, planner=steps).makespan
        found.append((best.slices, best.makespan, paper.makespan))
        assert best.pattern == "timed M=5 pipelined" and best.forwarding == "pipelined"
        if size < 10 ** 6:
            check_by_simulation(best)
    nu = [10, 100, 1000]
    assert [f[2] for f in found] == [size + 4 * n + 2 for size, n in
                                     zip((10 ** 2, 10 ** 4, 10 ** 6), nu)]
    assert [(f[0], f[1]) for f in found] == [(13, F(1823, 13)), (129, F(1340155, 129)),
                                             (1291, F(1296001958, 1291))]


def test_figure1_startup_sample():
    platform = Platform.from_file(FIGURE1_STARTUP)
    assert {l.startup for l in platform.links} == {1}
    figure1 = Platform.from_file(SAMPLES / "figure1.json")
    assert startup_free(platform) == figure1


# -- the command line ---------------------------------------------------------------------

def test_cli_json_auto(capsys):
    code, out, err = run(capsys, "pipe", FIGURE1_STARTUP, "--size", "16", "--json")
    assert code == 0 and err == ""
    doc = json.loads(out)
    for key in ("size", "slices", "makespan", "lower_bound", "ratio", "slice_size",
                "pattern", "scan_limit"):
        assert key in doc
    assert doc["size"] == "16" and doc["lower_bound"] == "16"
    assert isinstance(doc["slices"], int) and doc["choice"] == "auto"
    best = best_slices(Platform.from_file(FIGURE1_STARTUP), 16)
    assert (doc["slices"], doc["makespan"]) == (best.slices, str(best.makespan))


def test_cli_json_given_and_paper(capsys):
    code, out, _ = run(capsys, "pipe", FIGURE1_STARTUP, "--size", "10000", "--slices",
                       "paper", "--json")
    doc = json.loads(out)
    # L + 4ν + 2 (test_timed_patterns_do_better_on_figure1_with_startups)
    assert code == 0 and (doc["slices"], doc["makespan"], doc["ratio"]) == (100, "10402",
                                                                            "5201/5000")
    assert doc["pattern"] == "timed M=5 period" and doc["forwarding"] == "period"
    code, out, _ = run(capsys, "pipe", FIGURE1_STARTUP, "--size", "7/2", "--slices", "3",
                       "--json")
    doc = json.loads(out)
    assert code == 0 and doc["slices"] == 3 and doc["slice_size"] == "7/6"
    assert F(doc["makespan"]) == pipe_makespan(Platform.from_file(FIGURE1_STARTUP),
                                               F(7, 2), 3).makespan


def test_cli_human_output(capsys):
    code, out, err = run(capsys, "pipe", FIGURE1_STARTUP, "--size", "100", "--quiet")
    assert code == 0 and err == ""
    rows = dict(line.split("  ", 1) for line in out.splitlines())
    assert rows["slices"].strip().startswith("13 ")
    assert rows["makespan"].strip() == "1823/13 (~140.230769)"
    assert "timed" in rows["schedule"] and "pipelined" in rows["schedule"]
    assert rows["lower bound"].strip().startswith("100: ")


@pytest.mark.parametrize("argv, element", [
    (["--size", "0"], "--size"),
    (["--size", "-3"], "--size"),
    (["--size", "abc"], "--size"),
    (["--size", "10", "--slices", "0"], "--slices"),
    (["--size", "10", "--slices", "many"], "--slices"),
])
def test_cli_bad_numbers_exit_2(capsys, argv, element):
    code, out, err = run(capsys, "pipe", FIGURE1_STARTUP, *argv)
    assert code == 2 and out == ""
    assert_one_line_error(err, element)


def test_cli_bad_platform_exit_2(capsys, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "steady-platform", "source": "Ps", "links": [
        {"from": "Ps", "to": "P1", "cost": "1", "startup": "-1"}]}))
    code, out, err = run(capsys, "pipe", bad, "--size", "10")
    assert code == 2 and out == ""
    assert_one_line_error(err, bad)
    code, _, err = run(capsys, "pipe", tmp_path / "missing.json", "--size", "10")
    assert code == 2
    assert_one_line_error(err, "missing.json")


def _in_order(schedule):
    from dataclasses import replace

    return replace(schedule, transfers=tuple(sorted(
        schedule.transfers, key=lambda t: (t.start, t.tail, t.head, t.tree, t.messages))))
