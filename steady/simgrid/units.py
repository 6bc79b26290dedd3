"""SimGrid's units, exactly (ours; the tables of SimGrid's xbt_parse_units.cpp).

SimGrid reads ``"125MBps"`` as strtod("125") x 10^6 in doubles.  Here the same text
gives both the exact value (a Fraction: the decimal times the exact unit) and the very
double SimGrid computes (same strtod, same unit multiplied up in doubles), so a float
that SimGrid's API returns can be matched back to the exact decimal it came from.
"""

from __future__ import annotations

import re
from fractions import Fraction

from ..errors import echo
from ..numbers import parse_exact

# A number of a platform file as SimGrid reads it (strtod, then the unit): spaces
# around, a sign; ASCII digits only (strtod takes no others).  The exponent is bounded
# like every number steady reads (steady.numbers.MAX_EXPONENT).
_NUMBER = re.compile(r"^\s*([+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?)\s*(\S*)\s*$",
                     re.ASCII)
# A size on the command line: the grammar of steady's numbers (ASCII digits, no spaces,
# no "+"), the unit glued on.
_SIZE = re.compile(r"((?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE]-?[0-9]+)?)([A-Za-z]*)",
                   re.ASCII)


def _prefixed(unit: str, value: Fraction, base: int) -> dict[str, tuple[Fraction, float]]:
    """``unit`` and its prefixed forms (SimGrid's abbreviated prefixes), each with its
    exact factor and the double SimGrid computes by repeated multiplication."""
    if base == 2:
        prefixes, mult = ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "Zi", "Yi"), 1024
    else:
        prefixes, mult = ("k", "M", "G", "T", "P", "E", "Z", "Y"), 1000
    table = {unit: (value, float(value))}
    exact, double = value, float(value)
    for prefix in prefixes:
        exact *= mult
        double *= float(mult)
        table[prefix + unit] = (exact, double)
    return table


def _scale(*parts) -> dict[str, tuple[Fraction, float]]:
    table: dict[str, tuple[Fraction, float]] = {}
    for unit, value, base in parts:
        for key, pair in _prefixed(unit, Fraction(value), base).items():
            table.setdefault(key, pair)   # SimGrid's emplace keeps the first
    return table


BANDWIDTH = _scale(("bps", Fraction(1, 8), 2), ("bps", Fraction(1, 8), 10),
                   ("Bps", 1, 2), ("Bps", 1, 10))
SIZE = _scale(("b", Fraction(1, 8), 2), ("b", Fraction(1, 8), 10), ("B", 1, 2), ("B", 1, 10))
TIME = {"w": (Fraction(604800), 604800.0), "d": (Fraction(86400), 86400.0),
        "h": (Fraction(3600), 3600.0), "m": (Fraction(60), 60.0), "s": (Fraction(1), 1.0),
        "ms": (Fraction(1, 10 ** 3), 1e-3), "us": (Fraction(1, 10 ** 6), 1e-6),
        "ns": (Fraction(1, 10 ** 9), 1e-9), "ps": (Fraction(1, 10 ** 12), 1e-12)}
DEFAULT_UNIT = {id(BANDWIDTH): "Bps", id(SIZE): "B", id(TIME): "s"}


def parse(text: str, table: dict) -> tuple[Fraction, float]:
    """(exact value, SimGrid's double) of a quantity such as ``"2.25GBps"`` or
    ``"50us"``; a bare number takes the table's default unit.  ValueError otherwise."""
    match = _NUMBER.match(text) if isinstance(text, str) else None
    if not match:
        raise ValueError(f"not a number with a unit: {echo(text)}")
    number, unit = match.group(1), match.group(5) or DEFAULT_UNIT[id(table)]
    if unit not in table:
        raise ValueError(f"unknown unit {echo(unit)} in {echo(text)}")
    exact, double = table[unit]
    value = parse_exact(number.lstrip("+"))   # bounded digits and exponent (ValueError)
    return value * exact, float(number) * double


def parse_size(text: str) -> Fraction:
    """A message size on the command line such as ``1MB`` (10^6 bytes), ``1MiB`` (2^20)
    or ``8kb`` (bits), in bytes, exactly; > 0.  Steady's grammar of numbers (ASCII
    digits, no spaces, no ``+``, exponents within +-4300), the unit glued on."""
    match = _SIZE.fullmatch(text) if isinstance(text, str) else None
    if not match:
        raise ValueError(f"not a size with a unit: {echo(text)}")
    unit = match.group(2) or "B"
    if unit not in SIZE:
        raise ValueError(f"unknown unit {echo(unit)} in {echo(text)}")
    value = parse_exact(match.group(1)) * SIZE[unit][0]
    if value <= 0:
        raise ValueError(f"a size is > 0, not {echo(text)}")
    return value
