"""Exact numbers from user input.

Every cost that enters `steady` becomes a :class:`fractions.Fraction` taken from the
number's *text*: ``"0.1"`` and a JSON ``0.1`` both mean 1/10, never the binary double
0.1000000000000000055...  Accepted: ints, ``"p/q"`` strings, decimal strings (with an
optional exponent), :class:`decimal.Decimal` (what the JSON reader yields for floats),
Fractions, and Python floats (read through their shortest ``repr``).

Text is read by one strict grammar (ASCII digits, no spaces, no ``+``), and every
number is bounded (:data:`MAX_DIGITS`, :data:`MAX_EXPONENT`): docs/formats.md and
docs/limits.md.
"""

from __future__ import annotations

import math
import re
import sys
from contextlib import contextmanager
from decimal import Decimal
from fractions import Fraction

import flint

from .errors import InputError, echo, shorten

# The grammar of an exact number's text (docs/formats.md, "Exact numbers"): ASCII digits
# only -- Python's int() and Decimal() also take full-width and Arabic-Indic digits, a
# "+" and surrounding spaces, none of which a steady document writes -- an optional
# leading "-", a denominator without a sign.  re.ASCII: \d would match any Unicode digit.
_INTEGER = re.compile(r"-?[0-9]+", re.ASCII)
_RATIONAL = re.compile(r"(-?[0-9]+)/([0-9]+)", re.ASCII)
_DECIMAL = re.compile(r"-?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?", re.ASCII)
#: The largest decimal exponent read ("1e4300" is fine, "1e4301" is not): like Python's
#: 4300-digit limit on int(str), it keeps "1e-1000000000" from building a
#: billion-digit power of ten (a hang, not an answer).  docs/limits.md.
MAX_EXPONENT = 4300
#: The most digits of one number steady reads, in a document or an option (numerator
#: and denominator each; a decimal's digits).  Above it the reader refuses the number
#: in one line naming it, before any arithmetic (docs/limits.md): a schedule's exact
#: counts have thousands of digits, not hundreds of thousands.
MAX_DIGITS = 100_000
#: Python's int <-> str digit limit inside steady (``many_digits`` and the command
#: line): exact LP vertices and periods may be larger than any input number; beyond
#: this, CPython's quadratic conversion would take minutes (docs/limits.md).
MAX_TEXT_DIGITS = 1_000_000


@contextmanager
def many_digits():
    """Allow int <-> str conversions of up to MAX_TEXT_DIGITS digits inside the block."""
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0 if old == 0 else max(old, MAX_TEXT_DIGITS))
    try:
        yield
    finally:
        sys.set_int_max_str_digits(old)


def parse_exact(value) -> Fraction:
    """Return ``value`` as an exact Fraction, or raise ``ValueError`` saying why.

    Text follows the grammar of docs/formats.md: ``"3"``, ``"-3"``, ``"7/2"``,
    ``"0.1"``, ``"2.5e-3"``, ASCII digits only, no spaces, no ``+``; at most
    :data:`MAX_DIGITS` digits and a decimal exponent within +-:data:`MAX_EXPONENT`."""
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a number")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, Fraction):
        return value
    if isinstance(value, Decimal):
        return _from_decimal(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value!r} is not a finite number")
        return Fraction(repr(value))
    if isinstance(value, str):
        return _from_text(value)
    raise ValueError(f"{echo(value)} is not a number")


def parse_integer(value) -> int:
    """An integer of a document (a count, a weight, an index): a JSON integer or the
    text of one (``"-?[0-9]+"``, ASCII, at most MAX_DIGITS digits); never a bool, a
    ``2.0`` or ``" +1 "``.  Raises ``ValueError`` saying why."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and _INTEGER.fullmatch(value):
        return _int(value.lstrip("-"), value) * (-1 if value.startswith("-") else 1)
    raise ValueError(f"must be an integer (a JSON integer or its decimal text), got "
                     f"{echo(value)}")


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
        raise InputError(origin, element, f"must be > 0, got {echo_exact(x)}")
    if not positive and x < 0:
        raise InputError(origin, element, f"must be >= 0, got {echo_exact(x)}")
    return x


def echo_exact(x: Fraction) -> str:
    """An exact number as an error message shows it: its text, shortened
    (:func:`steady.errors.echo`), never a million digits on one line."""
    x = Fraction(x)
    if max(x.numerator.bit_length(), x.denominator.bit_length()) > 4000:
        return echo(x.numerator) + ("" if x.denominator == 1 else "/" + echo(x.denominator))
    return shorten(format_exact(x))


def _from_text(text: str) -> Fraction:
    match = _RATIONAL.fullmatch(text)
    if match:
        num, den = match.groups()
        numerator = _int(num.lstrip("-"), text) * (-1 if num.startswith("-") else 1)
        denominator = _int(den, text)
        if denominator == 0:
            raise ValueError(f"{echo(text)} has a zero denominator")
        return Fraction(numerator, denominator)
    if _DECIMAL.fullmatch(text):
        mantissa = text.lower().partition("e")[0]
        if len(mantissa) - ("." in mantissa) - mantissa.startswith("-") > MAX_DIGITS:
            raise ValueError(_too_long(text))
        return _from_decimal(Decimal(text), text)
    raise ValueError(f"{echo(text)} is not a number (expected an integer, 'p/q' or a "
                     "decimal, in ASCII digits without spaces or '+')")


def _int(digits: str, text: str) -> int:
    """int() of a string of ASCII digits, refused beyond MAX_DIGITS; FLINT converts
    long ones (CPython 3.11's int(str) is quadratic: 15 s for a million digits)."""
    if len(digits) > MAX_DIGITS:
        raise ValueError(_too_long(text))
    if len(digits) > 2000:
        return int(flint.fmpz(digits))
    return int(digits)


def _too_long(text: str) -> str:
    return (f"{echo(text)} has more than {MAX_DIGITS} digits, the most steady reads in "
            "one number (docs/limits.md)")


def _from_decimal(value: Decimal, text: str | None = None) -> Fraction:
    if not value.is_finite():
        raise ValueError(f"{value} is not a finite number")
    sign, digits, exponent = value.as_tuple()
    if len(digits) > MAX_DIGITS:
        raise ValueError(_too_long(str(value)))
    if abs(exponent) > MAX_EXPONENT:
        raise ValueError(f"{echo(text or str(value))} has an exponent beyond "
                         f"+-{MAX_EXPONENT}, the most steady reads (docs/limits.md)")
    if len(digits) > 2000:   # Fraction(Decimal) converts quadratically: 1.3 s at 10^5
        n = int(flint.fmpz("".join(map(str, digits))))
        n = -n if sign else n
        return Fraction(n * 10 ** exponent) if exponent >= 0 else Fraction(n, 10 ** -exponent)
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


def floor_decimal(x: Fraction, places: int) -> str:
    """x >= 0 rounded down to ``places`` decimals, every place written (a certified
    ratio is never shown above its value)."""
    scaled = math.floor(Fraction(x) * 10 ** places)
    return f"{scaled // 10 ** places}.{scaled % 10 ** places:0{places}d}"


def ratio_text(ratio: Fraction) -> str:
    """A certified ratio for a terminal: its decimal rounded down, and the exact value
    when it is short (the file and --json have it whole)."""
    text = format_exact(ratio)
    return floor_decimal(ratio, 6) + (f" (exactly {text})" if len(text) <= 24 else "")


def lcm_of_denominators(values) -> int:
    """Smallest positive integer N such that N*v is an integer for every v."""
    n = 1
    for v in values:
        n = math.lcm(n, Fraction(v).denominator)
    return n
