"""The chosen candidate's trees regrown once more with a larger exchange budget
(steady.simulate.choose.regrown_again); proofs/finite-horizon.md item 10."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from hypothesis import assume, given, settings, strategies as st

from helpers import examples, ladder

from steady.generators import random_platform
from steady.schedule.effort import DEFAULT
from steady.schedule.regrow import regrowable, regrown
from steady.simulate.choose import PIPELINED, _counted, regrown_again
from steady.simulate.horizon import bound

HORIZON = Fraction(2000)


def _regrown_candidates(seed: int, m: int):
    """(optimum, the candidates of the ladder's timetable of M on random-8 seed
    ``seed`` with its trees regrown through idle slots, as the chooser counts them);
    None when that timetable cannot be regrown."""
    platform = random_platform(8, 0.3, seed=seed)
    result, built = ladder(platform, [m])
    _, table, ratio = built[0]
    if not table.runs or not regrowable(table):
        return None
    once = regrown(table, DEFAULT.swap_moves, True)
    if isinstance(once, str):
        return None
    cap = bound(result.throughput, HORIZON)
    return cap, _counted(m, once, ratio, "through idle slots", (PIPELINED,), HORIZON, cap)


@settings(max_examples=examples(20), deadline=None)
@given(st.integers(0, 400), st.sampled_from([2, 4, 8]))
def test_the_chosen_trees_regrown_again_keep_period_ratio_and_slots(seed, m):
    """The candidates of the chosen trees regrown once more: the same timetable but for
    its trees (M, period, ratio, one tree per message), pipelined and regrown, counted
    in whole batches of M; the improver says the warm-up before and after."""
    found = _regrown_candidates(seed, m)
    assume(found is not None and found[1])
    cap, tried = found
    top = tried[0]
    said = []
    out = regrown_again(tried, DEFAULT, HORIZON, cap, said)
    assert len(said) == 1 and said[0]["improver"] == "regrow"
    assert said[0]["result"].startswith(f"warm-up {top.pattern.warmup} -> ")
    assert len(out) == 1
    again = out[0]
    assert again.table is not top.table
    assert again.table.period_time == top.table.period_time
    assert again.table.messages == top.table.messages
    assert again.ratio == top.ratio and again.max_messages == top.max_messages
    assert all(t.weight == 1 for t in again.table.trees)
    assert again.forwarding == PIPELINED and again.regrown == top.regrown
    assert again.delivered % again.table.messages == 0
    assert said[0]["result"].endswith(f"{again.pattern.warmup} periods")


def test_regrown_again_only_for_regrown_pipelined_candidates_with_a_budget():
    """No budget, or a chosen candidate whose trees were never regrown: nothing."""
    cap, tried = _regrown_candidates(3, 4)
    assert tried
    assert regrown_again(tried, DEFAULT.but(again_swaps=0), HORIZON, cap, []) == []
    as_built = [replace(c, regrown="") for c in tried]
    assert regrown_again(as_built, DEFAULT, HORIZON, cap, []) == []
    assert regrown_again([], DEFAULT, HORIZON, cap, []) == []
