"""How commands print: key/value sheets, exact numbers with their decimals, JSON.

- :func:`print_sheet`: rows ``(key, value)`` as two aligned columns;
- :func:`number`: an exact number with its decimal when that adds something
  (``1``, ``4/5 = 0.8``, ``869/6 (~144.833333)``), abbreviated when it is long;
- :func:`per_time_unit`: a rate in words with the plural right; :func:`percent`;
- :func:`print_json`: a ``--json`` document, integers of any size in full;
- :func:`platform_text`: the one-line description of a platform;
- :func:`written_line`: where a command wrote its files.

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
    if len(text) <= SHORT:
        return text
    whole = int_text(abs(x.numerator) // x.denominator)
    if len(whole) < 16:
        return f"~{decimal_text(x)} ({where})"
    sign = "-" if x < 0 else ""
    return f"{sign}{whole[0]}.{whole[1:7]}e+{len(whole) - 1} ({len(whole)} digits; {where})"


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
    return f"{text} (~{decimal})"


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
