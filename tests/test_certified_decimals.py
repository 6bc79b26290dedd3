"""A certified ratio is never shown above its value: every decimal rendering of it
(``ratio_decimal`` of ``schedule --json``, broadcast and collective; the terminal's
ratio) is rounded down, as ``steady verify`` prints it."""

import json
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from steady.numbers import floor_decimal
from helpers import run, sample


@given(st.fractions(min_value=0, max_value=10), st.integers(0, 9))
def test_floor_decimal_is_never_above_and_within_one_place(x, places):
    shown = Fraction(floor_decimal(x, places))
    assert shown <= x < shown + Fraction(1, 10 ** places)


def _schedule_json(capsys, tmp_path, *argv) -> dict:
    code, out, err = run(capsys, "schedule", *argv, "--json", "-o", tmp_path / "s.json")
    assert code == 0, err
    return json.loads(out)


def test_a_collective_ratio_decimal_is_rounded_down(capsys, tmp_path):
    # a100-2, allgather, M = 2: 90/91 = 0.98901098..., rounded to nearest 0.989011
    doc = _schedule_json(capsys, tmp_path, sample("collectives/a100-2.json"),
                         "--collective", "allgather", "--max-messages", "2")
    assert doc["ratio"] == "90/91"
    assert doc["ratio_decimal"] == "0.989010"


def test_a_broadcast_ratio_decimal_is_rounded_down(capsys, tmp_path):
    # random-30, M = 2: 0.89919795708..., rounded to nearest 0.899198
    doc = _schedule_json(capsys, tmp_path, sample("random-30.json"), "--max-messages", "2")
    assert doc["ratio"] == "10171076887443/11311276685345"
    assert doc["ratio_decimal"] == "0.899197"
