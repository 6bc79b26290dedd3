"""Exact numbers from user input.

Every cost that enters `steady` becomes a :class:`fractions.Fraction` taken from the
number's *text*: ``"0.1"`` and a JSON ``0.1`` both mean 1/10, never the binary double
0.1000000000000000055...  Accepted: ints, ``"p/q"`` strings, decimal strings (with an
optional exponent), :class:`decimal.Decimal` (what the JSON reader yields for floats),
Fractions, and Python floats (read through their shortest ``repr``).
"""

from __future__ import annotations

import math
import re
import sys
from contextlib import contextmanager
from decimal import Decimal
from fractions import Fraction

import flint

from .errors import InputError

_RATIONAL = re.compile(r"^\s*[+-]?\d+\s*/\s*[+-]?\d+\s*$")
_DECIMAL = re.compile(r"^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$")
# Like Python's 4300-digit limit on int(str): "1e-1000000000" would otherwise make
# Fraction build a billion-digit power of ten (a hang, not an answer).
MAX_EXPONENT = 4300


# Exact LP vertices and schedule periods legitimately have thousands of digits; Python's
# default 4300-digit guard on int <-> str is lifted to this bound inside our own number
# reading and writing (still bounded: conversion cost grows quadratically).
MAX_DIGITS = 1_000_000


@contextmanager
def many_digits():
    """Allow int <-> str conversions of up to MAX_DIGITS digits inside the block."""
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0 if old == 0 else max(old, MAX_DIGITS))
    try:
        yield
    finally:
        sys.set_int_max_str_digits(old)


def parse_exact(value) -> Fraction:
    """Return ``value`` as an exact Fraction, or raise ``ValueError`` saying why."""
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a number")
    if isinstance(value, (int, Fraction)):
        return Fraction(value)
    if isinstance(value, Decimal):
        return _from_decimal(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value!r} is not a finite number")
        return Fraction(repr(value))
    if isinstance(value, str):
        if _RATIONAL.match(value):
            num, den = value.split("/")
            with many_digits():
                num, den = int(num), int(den)
            if den == 0:
                raise ValueError(f"{value!r} has a zero denominator")
            return Fraction(num, den)
        if _DECIMAL.match(value):
            return _from_decimal(Decimal(value.strip()))
        raise ValueError(f"{value!r} is not a number (expected an integer, 'p/q' or a decimal)")
    raise ValueError(f"{value!r} is not a number")


def document_number(value, origin: str, element: str, positive: bool = True) -> Fraction:
    """A number of a steady document, exact, > 0 (``positive``) or >= 0; otherwise an
    :class:`~steady.errors.InputError` naming the file and the element (docs/formats.md)."""
    if value is None:
        raise InputError(origin, element, "missing number (null)")
    try:
        x = parse_exact(value)
    except ValueError as exc:
        raise InputError(origin, element, str(exc)) from None
    if positive and x <= 0:
        raise InputError(origin, element, f"must be > 0, got {format_exact(x)}")
    if not positive and x < 0:
        raise InputError(origin, element, f"must be >= 0, got {format_exact(x)}")
    return x


def _from_decimal(value: Decimal) -> Fraction:
    if not value.is_finite():
        raise ValueError(f"{value} is not a finite number")
    if abs(value.as_tuple().exponent) > MAX_EXPONENT:
        raise ValueError(f"{value} has an exponent beyond +-{MAX_EXPONENT}")
    return Fraction(value)


#: Above this many bits FLINT's subquadratic conversion beats CPython's quadratic one
#: (measured: equal near 1500 bits, twice as fast at 3400 bits, the size of the
#: counts in a 65-node schedule with decimal bandwidths).
_FLINT_BITS = 2000


def int_text(n: int) -> str:
    """Decimal text of an integer of any size (no int-str digit limit)."""
    if n.bit_length() > _FLINT_BITS:
        return str(flint.fmpz(n))
    with many_digits():
        return str(n)


def format_exact(x: Fraction) -> str:
    """The canonical text of an exact number: ``"3"`` or ``"7/2"``."""
    x = Fraction(x)
    if x.denominator == 1:
        return int_text(x.numerator)
    return f"{int_text(x.numerator)}/{int_text(x.denominator)}"


def decimal_text(x: Fraction, digits: int = 6) -> str:
    """A rounded decimal rendering for humans (never used in a computation)."""
    x = Fraction(x)
    scaled = round(x * 10**digits)
    sign = "-" if scaled < 0 else ""
    whole, frac = divmod(abs(scaled), 10**digits)
    return f"{sign}{whole}.{frac:0{digits}d}".rstrip("0").rstrip(".")


def lcm_of_denominators(values) -> int:
    """Smallest positive integer N such that N*v is an integer for every v."""
    n = 1
    for v in values:
        n = math.lcm(n, Fraction(v).denominator)
    return n
