"""steady.schedule.periodic: the compact optimal periodic schedule of 002 §5.4.2, end to end.

LP optimum -> weighted trees (Thm 5) -> matchings (Thm 6) -> period -> the independent
verifier.  Besides ``steady.verify``, the counting facts of the paper's correctness
proof are recomputed here: the steps add up to the period, every destination receives
messages_per_period messages per period (002 §5.4.2, "total number of messages received
by P_k"), every tree edge carries exactly the tree's weight, and the size of the schedule
does not grow with the period (002 §4.3 note, Lemma 5).
"""

from collections import Counter
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings

from helpers import examples
from hypothesis import strategies as st

from steady import Platform, default_platform
from steady.schedule.periodic import optimal_schedule, periodic_schedule
from steady.schedule_file import Schedule
from steady.strategies import platforms, platforms_with_tree
from steady.throughput import dag_throughput, throughput, tree_formula
from steady.verify import verify

F = Fraction
SAMPLES = Path(__file__).resolve().parent.parent / "samples"
SMALL = settings(max_examples=examples(50), deadline=None)
METHODS = ["trees", "cuts"]


def build(platform, method="trees"):
    result = throughput(platform, method)
    schedule, stats = optimal_schedule(platform, result)
    return result, schedule, stats


def assert_counting_facts(platform, schedule):
    """The counting half of the proof of 002 §5.4.2, recomputed from the steps."""
    assert sum((s.duration for s in schedule.steps), F(0)) == schedule.period
    assert all(s.duration > 0 for s in schedule.steps)
    received = Counter()
    by_tree_edge = Counter()
    for step in schedule.steps:
        for t in step.transfers:
            received[t.head] += t.messages
            by_tree_edge[(t.tree, t.tail, t.head)] += t.messages
    assert received[platform.source] == 0
    for v in platform.destinations:
        assert received[v] == schedule.messages_per_period, v
    expected = Counter()
    for l, tree in enumerate(schedule.trees):
        for tail, head in tree.edges:
            expected[(l, tail, head)] = tree.weight
    assert by_tree_edge == expected
    assert sum(t.weight for t in schedule.trees) == schedule.messages_per_period
    assert schedule.throughput == F(schedule.messages_per_period) / schedule.period


# -- optimal schedules on random platforms ---------------------------------------------

@SMALL
@given(platforms(max_nodes=7), st.sampled_from(METHODS))
def test_optimal_schedule_verifies_and_reaches_the_optimum(platform, method):
    """002 §5.4.2: the schedule built from an exact optimum is valid and optimal."""
    result, schedule, stats = build(platform, method)
    report = verify(platform, schedule)
    assert report.ok, report.violations
    assert report.optimality
    assert schedule.throughput == result.throughput
    # The optimum, computed by the other formulation (a different LP).
    other = "cuts" if method == "trees" else "trees"
    assert schedule.throughput == throughput(platform, other).throughput
    assert_counting_facts(platform, schedule)
    # Sizes: a basic solution (<= 2|V| - 1 trees) and Thm 6's k_M <= |E| matchings.
    assert len(schedule.trees) <= 2 * len(platform.nodes) - 1
    assert len(schedule.steps) <= len(platform.links)
    assert stats["trees"] == len(schedule.trees)
    assert stats["matchings"] == len(schedule.steps)


@SMALL
@given(platforms(max_nodes=7, dag=True))
def test_dag_throughput_result_schedules_too(platform):
    """An SSBPDAG optimum (002 §4.1) has no trees: Thm 5 builds them from N·n."""
    result = dag_throughput(platform)
    schedule, _ = optimal_schedule(platform, result)
    assert verify(platform, schedule).ok
    assert schedule.throughput == result.throughput == throughput(platform).throughput
    assert_counting_facts(platform, schedule)


@SMALL
@given(platforms_with_tree(max_nodes=7))
def test_single_tree_schedule_has_the_tree_throughput(pair):
    """A non-optimal family -- one spanning tree of weight 1 at scale 1 -- still gives a
    valid periodic schedule, of throughput TP(T) (002 §3.1.2 eq. (1)); it carries no
    certificate, so only the optimality check can fail."""
    platform, tree = pair
    schedule = periodic_schedule(platform, [(tree, 1)], 1)
    report = verify(platform, schedule, optimality=False)
    assert report.ok, report.violations
    assert not report.optimality
    assert schedule.throughput == tree_formula(platform, tree)
    assert len(schedule.trees) == 1 and schedule.trees[0].parent == tree
    assert_counting_facts(platform, schedule)
    assert verify(platform, schedule).kinds() == {"optimality"}


@SMALL
@given(platforms(max_nodes=7), st.data())
def test_several_non_optimal_trees(platform, data):
    """Any family of trees and integer weights is scheduled with throughput
    sum λ / (max port load of m·c) -- the value of Thm 6's colouring."""
    from steady.strategies import spanning_trees

    trees = [(data.draw(spanning_trees(platform)), data.draw(st.integers(1, 4)))
             for _ in range(data.draw(st.integers(1, 3)))]
    schedule = periodic_schedule(platform, trees, 1)
    assert verify(platform, schedule, optimality=False).ok
    out, inn = Counter(), Counter()
    for parent, w in trees:
        for child, par in parent.items():
            out[par] += w * platform.cost(par, child)
            inn[child] += w * platform.cost(par, child)
    load = max(max(out.values()), max(inn.values()))
    assert schedule.throughput == F(sum(w for _, w in trees)) / load
    assert_counting_facts(platform, schedule)


# -- the seed's examples -----------------------------------------------------------------

@pytest.mark.parametrize("method", METHODS)
def test_figure_1_throughput_1(method):
    """002 Figure 1: optimal throughput 1 (§3.1, with the cycle P1 <-> P2)."""
    p = default_platform()
    _, schedule, _ = build(p, method)
    assert schedule.throughput == 1
    assert verify(p, schedule).ok
    assert_counting_facts(p, schedule)


@pytest.mark.parametrize("method", METHODS)
def test_section_4_4_dag_four_fifths(method):
    """002 §4.4 (Figure 5, the DAG): TP = 4/5 and, per 4 messages, the link counts
    Ps->P1 4, Ps->P2 1, P1->P2 3, P1->P3 4, P2->P4 4 (forced: P1, P3 and P4 have one
    in-link each, and the out-ports of Ps and P1 then leave exactly 1 and 3 for P2)."""
    p = Platform.from_file(SAMPLES / "figure5-dag.json")
    _, schedule, _ = build(p, method)
    assert schedule.throughput == F(4, 5)
    assert verify(p, schedule).ok
    assert_counting_facts(p, schedule)
    expected = {("Ps", "P1"): 4, ("Ps", "P2"): 1, ("P1", "P2"): 3, ("P1", "P3"): 4,
                ("P2", "P4"): 4}
    sent = schedule.messages_per_link()
    assert {a: 4 * c for a, c in sent.items()} == {
        a: schedule.messages_per_period * c for a, c in expected.items()}
    assert schedule.period == F(5, 4) * schedule.messages_per_period


def test_figure_4_tree_two_thirds():
    """002 Figure 4: the best single tree of Figure 1 has TP 2/3."""
    p = default_platform()
    tree = {"P1": "Ps", "P2": "P1", "P3": "P1", "P4": "P2"}
    schedule = periodic_schedule(p, [(tree, 1)], 1)
    assert schedule.throughput == F(2, 3)
    assert verify(p, schedule, optimality=False).ok


# -- compactness -------------------------------------------------------------------------

def _numbers(doc) -> int:
    """How many scalars (numbers and numeric strings) a JSON document holds."""
    if isinstance(doc, dict):
        return sum(_numbers(v) for v in doc.values())
    if isinstance(doc, list):
        return sum(_numbers(v) for v in doc)
    return 1


@settings(max_examples=examples(25), deadline=None)
@given(platforms(max_nodes=7), st.sampled_from(METHODS))
def test_costs_scaled_by_10_30_keep_the_file_small(platform, method):
    """002 §4.3 note / Lemma 5: the file lists counts, never messages, so multiplying
    every cost by 10^30 multiplies the period by 10^30 but adds only the digits: at most
    ~31 characters per number of the document, never 10^30 of anything."""
    _, small, _ = build(platform, method)
    big_platform = platform.scale_costs(10**30)
    result, big, _ = build(big_platform, method)
    assert big.throughput == small.throughput / 10**30 == result.throughput
    assert big.period >= 10**30 / small.throughput
    assert verify(big_platform, big).ok
    assert_counting_facts(big_platform, big)
    text_small, text_big = small.to_json(), big.to_json()
    numbers = _numbers(big.to_dict())
    assert len(text_big) <= len(text_small) + 40 * numbers
    assert len(big.steps) <= len(platform.links)
    assert len(big.trees) <= 2 * len(platform.nodes) - 1
    assert big.transfer_count <= len(platform.links) * (len(big.steps) + len(big.trees))
    # The file reads back to the same schedule, which still verifies.
    again = Schedule.from_dict(big.to_dict())
    assert again == big and verify(big_platform, again).ok


def test_figure_1_at_10_30_and_10_100():
    p = default_platform()
    lengths = []
    for e in (0, 30, 100):
        q = p.scale_costs(10**e)
        _, s, _ = build(q)
        assert s.throughput == F(1, 10**e) and verify(q, s).ok
        lengths.append(len(s.to_json()))
    # 70 more digits per number cost well under 10x the bytes.
    assert lengths[2] < 3 * lengths[0]


# -- mutations -----------------------------------------------------------------------------

@SMALL
@given(platforms(max_nodes=7), st.sampled_from(METHODS), st.data())
def test_one_corrupted_transfer_count_is_rejected(platform, method, data):
    """Any change of one transfer's message count breaks the per-period delivery of
    that tree edge (002 §5.4.2): verify must reject it."""
    _, schedule, _ = build(platform, method)
    i = data.draw(st.sampled_from([i for i, s in enumerate(schedule.steps) if s.transfers]),
                  label="step")
    step = schedule.steps[i]
    j = data.draw(st.integers(0, len(step.transfers) - 1), label="transfer")
    t = step.transfers[j]
    delta = data.draw(st.integers(-t.messages, 5).filter(bool), label="delta")
    transfers = list(step.transfers)
    transfers[j] = replace(t, messages=t.messages + delta)
    steps = list(schedule.steps)
    steps[i] = replace(step, transfers=tuple(transfers))
    corrupted = replace(schedule, steps=tuple(steps))
    report = verify(platform, corrupted)
    assert not report.ok
    assert "delivery" in report.kinds()
    # The same corruption through the file format.
    doc = schedule.to_dict()
    doc["steps"][i]["transfers"][j]["messages"] += delta
    assert not verify(platform, Schedule.from_dict(doc)).ok


@settings(max_examples=examples(30), deadline=None)
@given(platforms(max_nodes=7), st.sampled_from(["duration", "weight", "period", "tree"]))
def test_other_single_corruptions_are_rejected(platform, what):
    _, schedule, _ = build(platform)
    doc = schedule.to_dict()
    if what == "duration":
        doc["steps"][0]["duration"] = str(F(doc["steps"][0]["duration"]) / 2)
    elif what == "weight":
        doc["trees"][0]["weight"] += 1
    elif what == "period":
        doc["period"] = str(F(doc["period"]) + 1)
    elif what == "tree":
        doc["steps"][0]["transfers"][0]["tree"] = len(doc["trees"])
    assert not verify(platform, Schedule.from_dict(doc)).ok
