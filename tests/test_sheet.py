"""steady.present.sheet: how commands print sheets, exact numbers and JSON."""

import json
from fractions import Fraction as F

from steady.numbers import many_digits
from steady.present.sheet import (IN_JSON, exact, number, per_time_unit, percent, plural,
                                  print_json, print_sheet, written_line)


def test_a_decimal_is_shown_only_when_it_adds_something():
    assert number(1) == "1"                              # not "1 = 1"
    assert number(F(4, 5)) == "4/5 = 0.8"                # the decimal is exact
    assert number(F(869, 6)) == "869/6 (~144.833333)"    # rounded: said so
    assert number(F(-7, 2)) == "-7/2 = -3.5"


def test_long_numbers_are_abbreviated_and_say_where_the_exact_value_is():
    small = F(10**45 + 1, 10**45)                        # 91 characters, about 1
    assert exact(small) == "~1 (exact value in the file)"
    assert number(small, IN_JSON) == "~1 (exact value with --json)"
    big = F(3 * 10**50 + 1, 7)
    assert exact(big) == "4.285714e+49 (50 digits; exact value in the file)"
    assert exact(F(22, 7)) == "22/7"


def test_rates_and_plurals():
    assert per_time_unit(1) == "1 broadcast per time unit"
    assert per_time_unit(F(4, 5)) == "4/5 = 0.8 broadcasts per time unit"
    assert per_time_unit(2, "slice") == "2 slices per time unit"
    assert (plural(1, "batch"), plural(0, "batch"), plural(3, "message")) == \
        ("batch", "batches", "messages")


def test_percentages_are_rounded_exactly_with_one_decimal():
    assert (percent(F(2, 3)), percent(F(1, 2)), percent(1), percent(F(1, 2000))) == \
        ("66.7%", "50.0%", "100.0%", "0.0%")


def test_sheet_aligns_the_keys(capsys):
    print_sheet([("period", "2"), ("messages/period", "4")])
    assert capsys.readouterr().out == "period           2\nmessages/period  4\n"


def test_json_writes_integers_beyond_the_default_digit_limit(capsys):
    n = 10**5000                      # no int -> str conversion yet
    print_json({"n": n})             # would raise ValueError without print_json's guard
    with many_digits():              # reading it back needs the same allowance
        assert json.loads(capsys.readouterr().out)["n"] == n


def test_written_line_names_the_folder_absolutely(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    line = written_line(["out/table3.csv", "out/table3.md"])
    assert line == f"written to {tmp_path.resolve() / 'out'}: table3.csv, table3.md"
