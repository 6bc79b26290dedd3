"""Longer periods on counts chosen over the cuts, searched, when the best candidate ends
short of CLOSE_BELOW of K·TP* (steady.simulate.choose.closing_candidates);
proofs/finite-horizon.md item 11."""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction
from unittest.mock import patch

import pytest
from hypothesis import assume, given, settings, strategies as st

from helpers import examples, ladder, ratio_of

from steady.generators import mesh_platform
from steady.schedule.effort import DEFAULT
from steady.schedule.timed import CUT_MESSAGES
import steady.simulate.choose as choose
from steady.simulate.choose import (CLOSE_BELOW, CLOSE_FACTORS, PIPELINED, Candidate,
                                    closing_candidates)
from steady.simulate.horizon import bound

HORIZON = Fraction(2000)


def _top(platform, m, delivered):
    """(optimum, cap, a counted candidate of the ladder's timetable of M delivering
    ``delivered``: what the chooser ranks)."""
    result, built = ladder(platform, [m])
    _, table, ratio = built[0]
    cap = bound(result.throughput, HORIZON)
    return result, cap, Candidate(m, table, ratio, PIPELINED, "", False, delivered)


@pytest.mark.slow
@settings(max_examples=examples(8), deadline=None)
@given(nodes=st.integers(8, 12), seed=st.integers(1, 40), m=st.sampled_from([2, 3, 4, 6]))
def test_closing_candidates_are_valid_longer_periods_counted_exactly(nodes, seed, m):
    """A best candidate just below CLOSE_BELOW of K·TP* fires the layer: every
    candidate it gives is pipelined on regrown trees, of an M among the best's times
    CLOSE_FACTORS, its timetable valid, its ratio exact and at most 1, its count at most
    K·TP*; the improvers say one line per M tried."""
    platform = mesh_platform(nodes, seed=seed)
    result, cap, top = _top(platform, m, 0)
    top = replace(top, delivered=math.ceil(CLOSE_BELOW * cap) - 1)
    said = []
    with patch.object(choose, "CLOSE_LNS", 0.5):   # the property, not the search's reach
        out = closing_candidates(platform, result, [top], HORIZON, cap, DEFAULT, said)
    ms = {int(m * f) for f in CLOSE_FACTORS if 2 <= int(m * f) <= CUT_MESSAGES}
    assert {s["max_messages"] for s in said if s["improver"] == "close"} <= ms
    assume(out)
    for c in out:
        c.table.check()
        assert c.max_messages in ms and c.table.messages <= c.max_messages
        assert c.forwarding == PIPELINED and c.regrown
        assert c.ratio == ratio_of(c.table, result.throughput) <= 1
        assert 0 < c.delivered <= cap


def test_no_closing_where_the_best_is_close_or_the_effort_does_not_search():
    """The trigger: a best candidate at CLOSE_BELOW of K·TP* or above, an effort
    without recounts or order searches, or no candidate: nothing built, nothing said."""
    platform = mesh_platform(10, seed=3)
    result, cap, top = _top(platform, 4, 0)
    close = Candidate(top.max_messages, top.table, top.ratio, PIPELINED, "", False,
                      int(CLOSE_BELOW * cap) + 1)
    for tried, effort in (([close], DEFAULT), ([top], DEFAULT.but(recounted=0)),
                          ([top], DEFAULT.but(order_lns=0.0)), ([], DEFAULT)):
        said = []
        assert closing_candidates(platform, result, tried, HORIZON, cap, effort,
                                  said) == []
        assert said == []
