"""Sizes and durations on the ``steady run`` / ``steady calibrate`` command lines, read
exactly: ``64KB`` (binary multiples: 1 KB = 1024 bytes, as MPI users count buffers),
``1ms``, ``500us``, ``0.5s`` (durations become whole nanoseconds)."""

from __future__ import annotations

import re
from fractions import Fraction

from ..errors import InputError, echo
from ..numbers import parse_exact

# The grammar of the files' numbers (docs/formats.md): ASCII digits, no spaces, no "+"
# or "_" (Python's int() and float() take all four), then the unit, glued on.
_SIZE = re.compile(r"([0-9]+(?:\.[0-9]+)?)(B|KB|KIB|K|MB|MIB|M|GB|GIB|G)?", re.I | re.ASCII)
_SIZE_FACTOR = {"": 1, "B": 1, "K": 2 ** 10, "KB": 2 ** 10, "KIB": 2 ** 10,
                "M": 2 ** 20, "MB": 2 ** 20, "MIB": 2 ** 20,
                "G": 2 ** 30, "GB": 2 ** 30, "GIB": 2 ** 30}
_TIME = re.compile(r"([0-9]+(?:\.[0-9]+)?(?:[eE]-?[0-9]+)?)(ns|us|µs|ms|s)", re.ASCII)
_TIME_FACTOR = {"ns": 1, "us": 10 ** 3, "µs": 10 ** 3, "ms": 10 ** 6, "s": 10 ** 9}
#: The largest message (``--size``): 1 GiB, a buffer MPI sends in one call.
MAX_SIZE = 2 ** 30
#: The longest time unit (``--time-unit``): one hour of real time per unit of cost.
MAX_TIME_UNIT_NS = 3600 * 10 ** 9
#: Time limits (``--timeout``): from 1 ms to one day.
MIN_SECONDS, MAX_SECONDS = Fraction(1, 1000), 86_400


def size_bytes(text: str, option: str = "--size", least: int = 1) -> int:
    """``64KB`` -> 65536; an error names the option unless a whole number of bytes from
    ``least`` to :data:`MAX_SIZE`."""
    match = _SIZE.fullmatch(str(text))
    if not match:
        raise InputError("<command line>", option, f"expected a size such as 64KB, 1MB "
                         f"or 4096 (bytes, ASCII digits, no spaces), not {echo(text)}")
    value = _exact(match.group(1), option) * _SIZE_FACTOR[(match.group(2) or "").upper()]
    if value.denominator != 1 or not least <= value <= MAX_SIZE:
        raise InputError("<command line>", option, f"must be a whole number of bytes "
                         f"from {least} to {MAX_SIZE} (1GB), not {echo(text)} "
                         "(docs/limits.md)")
    return int(value)


def duration_ns(text: str, option: str) -> int:
    """``1ms`` -> 1000000; an error names the option unless a whole number of
    nanoseconds > 0 with its unit (ns, us, ms or s), at most one hour."""
    match = _TIME.fullmatch(str(text))
    if not match:
        raise InputError("<command line>", option, f"expected a duration with its unit "
                         f"(ns, us, ms, s) such as 1ms, not {echo(text)}")
    value = _exact(match.group(1), option) * _TIME_FACTOR[match.group(2)]
    if value.denominator != 1 or not 0 < value <= MAX_TIME_UNIT_NS:
        raise InputError("<command line>", option, f"must be a whole number of "
                         f"nanoseconds from 1ns to 3600s, not {echo(text)} "
                         "(docs/limits.md)")
    return int(value)


def seconds(text: str, option: str) -> Fraction:
    """A number of seconds from :data:`MIN_SECONDS` to :data:`MAX_SECONDS`
    (``--timeout 30``), exact."""
    value = _exact(text, option)
    if not MIN_SECONDS <= value <= MAX_SECONDS:
        raise InputError("<command line>", option, f"must be from 0.001 to {MAX_SECONDS} "
                         f"seconds, not {echo(text)} (docs/limits.md)")
    return value


def ns_text(ns: int) -> str:
    """Nanoseconds as exact decimal seconds: 1234567 -> ``0.001234567``."""
    sign = "-" if ns < 0 else ""
    whole, frac = divmod(abs(ns), 10 ** 9)
    return f"{sign}{whole}.{frac:09d}".rstrip("0").rstrip(".")


def _exact(text: str, option: str) -> Fraction:
    try:
        return parse_exact(text)
    except ValueError as exc:
        raise InputError("<command line>", option, str(exc)) from None
