"""How commands print: key/value sheets, exact numbers with their decimals, JSON.

- :func:`print_sheet`: rows ``(key, value)`` as two aligned columns;
- :func:`number`: an exact number with its decimal when that adds something
  (``1``, ``4/5 = 0.8``, ``869/6 (~144.833333)``), abbreviated when it is long;
- :func:`per_time_unit`: a rate in words with the plural right; :func:`percent`;
- :func:`print_json`: a ``--json`` document, integers of any size in full;
- :func:`platform_text`: the one-line description of a platform;
- :func:`written_line`: where a command wrote its files;
- :func:`bottleneck_words`: the LP's binding rows in plain words;
- :func:`readable`: a number in at most a dozen characters, for tables and titles.

Every number shown is computed exactly; a decimal is only ever a rendering of it.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

from ..numbers import decimal_text, format_exact, int_text, many_digits

#: Exact numbers longer than this (in characters) are abbreviated on a terminal: periods
#: can have hundreds of digits, and the file or the --json document has them in full.
SHORT = 40

#: Integers longer than this (in digits) are abbreviated too: 31 digits are exact but
#: unreadable, ``8.401962e+30 (31 digits)`` says the size at a glance.
LONG_INTEGER = 15

#: Where the full value of an abbreviated number is, for the commands that write a file.
IN_THE_FILE = "exact value in the file"
IN_JSON = "exact value with --json"


def print_sheet(rows) -> None:
    """Print ``(key, value)`` rows as two columns, the keys padded to the longest."""
    width = max(len(key) for key, _ in rows)
    for key, value in rows:
        print(f"{key:<{width}}  {value}")


def print_json(doc) -> None:
    """A ``--json`` document on stdout, indented; integers beyond Python's default
    4300-digit guard are written in full (exact LP vertices can be that long)."""
    with many_digits():
        print(json.dumps(doc, indent=1))


def exact(x, where: str = IN_THE_FILE) -> str:
    """An exact number for a terminal: in full when short, else its leading digits and
    size, saying ``where`` the exact value is."""
    x = Fraction(x)
    text = format_exact(x)
    if len(text) <= SHORT and not (x.denominator == 1 and len(text) > LONG_INTEGER):
        return text
    whole = int_text(abs(x.numerator) // x.denominator)
    if len(whole) < 16:
        decimal = decimal_text(x)
        if Fraction(decimal) == 0 and x != 0:  # "~0" would hide the magnitude
            mantissa, shift = _scientific(x)
            decimal = f"{mantissa}e-{shift}"
        return f"~{decimal} ({where})"
    sign = "-" if x < 0 else ""
    return f"{sign}{whole[0]}.{whole[1:7]}e+{len(whole) - 1} ({len(whole)} digits; {where})"


def column_exact(x, width: int) -> str:
    """An exact number for a table's column of ``width`` characters: its exact text
    when it fits (``5/3``), else ``~`` and its decimal rounded to nearest in what is
    left, 6 places at most (``~1.666667``): never a truncated decimal that reads as
    exact."""
    x = Fraction(x)
    text = format_exact(x)
    if len(text) <= width:
        return text
    whole = len(int_text(abs(x.numerator) // x.denominator)) + (x < 0)
    return f"~{decimal_text(x, min(max(width - whole - 2, 1), 6))}"


def number(x, where: str = IN_THE_FILE) -> str:
    """An exact number with its decimal when the decimal adds something: ``1`` (not
    ``1 = 1``), ``4/5 = 0.8`` (the decimal is exact), ``869/6 (~144.833333)`` (rounded);
    long numbers abbreviated as :func:`exact` does."""
    x = Fraction(x)
    text = exact(x, where)
    if x.denominator == 1 or text != format_exact(x):
        return text
    decimal = decimal_text(x)
    if Fraction(decimal) == x:
        return f"{text} = {decimal}"
    if Fraction(decimal) == 0:  # |x| <= 5e-7: "(~0)" would hide its magnitude
        mantissa, shift = _scientific(x)
        decimal = f"{mantissa}e-{shift}"
        if Fraction(mantissa) / 10 ** shift == x:
            return f"{text} = {decimal}"
    return f"{text} (~{decimal})"


def _scientific(x: Fraction) -> tuple[str, int]:
    """(mantissa, k): a small non-zero number as mantissa·10^-k, the mantissa's
    rounded decimal with 7 significant digits at most (``3.333333``, 7 for 1/3000000),
    computed exactly."""
    shift = 0
    while abs(x) * 10 ** shift < 1:
        shift += 1
    return decimal_text(x * 10 ** shift), shift


def percent(ratio) -> str:
    """A ratio as a percentage with one decimal (``66.7%``, ``50.0%``), rounded exactly."""
    tenths = round(Fraction(ratio) * 1000)
    whole, tenth = divmod(abs(tenths), 10)
    return f"{'-' if tenths < 0 else ''}{whole}.{tenth}%"


def plural(count, noun: str) -> str:
    """``noun`` as the number ``count`` wants it: one broadcast, 0.8 broadcasts."""
    if count == 1:
        return noun
    return noun + ("es" if noun.endswith(("s", "sh", "ch", "x")) else "s")


def per_time_unit(x, noun: str = "broadcast", where: str = IN_THE_FILE) -> str:
    """A rate: ``1 broadcast per time unit``, ``4/5 = 0.8 broadcasts per time unit``."""
    return f"{number(x, where)} {plural(x, noun)} per time unit"


def platform_text(platform, origin: str) -> str:
    """``figure-1 (5 nodes, 6 links, source Ps)``: which platform a result is about."""
    return (f"{platform.name or origin} ({len(platform.nodes)} nodes, "
            f"{len(platform.links)} links, source {platform.source})")


def written_line(paths) -> str:
    """``written to /abs/folder: a.csv, b.md``: where a command wrote its files, the
    folder made absolute (a relative default such as ./stp-campaign lands wherever the
    command was run, which the user should not have to guess)."""
    paths = [Path(p) for p in paths]
    folders = {p.parent for p in paths}
    if len(folders) == 1:
        return f"written to {folders.pop().resolve()}: " + ", ".join(p.name for p in paths)
    return "written: " + ", ".join(str(p.resolve()) for p in paths)


def bottleneck_words(row: str) -> str:
    """A binding constraint of the throughput LP as people read it: the solvers name
    cuts the min-cut way (``cut rest | {P1}``, ``cut {Ps,P1} | rest``) and the DAG LP's
    equalities the paper's way (``P1 receives TP``); ports and links already read well
    (``out-port of Ps``).  ``--json`` keeps the solvers' names."""
    if row.startswith("cut rest | "):
        return f"links into {row[len('cut rest | '):]}"
    if row.startswith("cut ") and row.endswith(" | rest"):
        return f"links out of {row[len('cut '):-len(' | rest')]}"
    if row.endswith(" receives TP"):
        return f"what {row[:-len(' receives TP')]} receives"
    return row


#: :func:`readable` shows exactly the numbers whose text is at most this long.
READABLE = 12


def readable(x) -> str:
    """A number short enough for a table cell or a chart title: exact when its text
    has at most :data:`READABLE` characters (``7/2``, ``96``), else a rounded decimal
    (``~5975.5712``) or, from 10^12 on, leading digits and exponent (``~2.96e+47``).
    Says nothing of where the exact value is: the caller says it once."""
    x = Fraction(x)
    text = format_exact(x)
    if len(text) <= READABLE:
        return text
    sign = "-" if x < 0 else ""
    magnitude = abs(x)
    whole = magnitude.numerator // magnitude.denominator
    if whole < 10 ** 12:
        return f"~{sign}{decimal_text(magnitude, 4)}"
    digits = len(int_text(whole))
    lead = round(Fraction(whole, 10 ** (digits - 3)))
    if lead == 1000:
        lead, digits = 100, digits + 1
    return f"~{sign}{lead // 100}.{lead % 100:02d}e+{digits - 1}"
