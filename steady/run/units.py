"""Sizes and durations on the ``steady run`` / ``steady calibrate`` command lines, read
exactly: ``64KB`` (binary multiples: 1 KB = 1024 bytes, as MPI users count buffers),
``1ms``, ``500us``, ``0.5s`` (durations become whole nanoseconds)."""

from __future__ import annotations

import re
from fractions import Fraction

from ..errors import InputError
from ..numbers import parse_exact

_SIZE = re.compile(r"^\s*([0-9.]+)\s*(B|KB|KIB|K|MB|MIB|M|GB|GIB|G)?\s*$", re.I)
_SIZE_FACTOR = {"": 1, "B": 1, "K": 2 ** 10, "KB": 2 ** 10, "KIB": 2 ** 10,
                "M": 2 ** 20, "MB": 2 ** 20, "MIB": 2 ** 20,
                "G": 2 ** 30, "GB": 2 ** 30, "GIB": 2 ** 30}
_TIME = re.compile(r"^\s*([0-9.]+(?:[eE][+-]?[0-9]+)?)\s*(ns|us|µs|ms|s)\s*$")
_TIME_FACTOR = {"ns": 1, "us": 10 ** 3, "µs": 10 ** 3, "ms": 10 ** 6, "s": 10 ** 9}


def size_bytes(text: str, option: str = "--size", least: int = 1) -> int:
    """``64KB`` -> 65536; an error names the option unless a whole number >= least."""
    match = _SIZE.match(str(text))
    if not match:
        raise InputError("<command line>", option, f"expected a size such as 64KB, 1MB "
                         f"or 4096 (bytes), not {text!r}")
    value = _exact(match.group(1), option) * _SIZE_FACTOR[(match.group(2) or "").upper()]
    if value.denominator != 1 or value < least:
        raise InputError("<command line>", option, f"must be a whole number of bytes "
                         f">= {least}, not {text!r}")
    return int(value)


def duration_ns(text: str, option: str) -> int:
    """``1ms`` -> 1000000; an error names the option unless a whole number of
    nanoseconds > 0 with its unit (ns, us, ms or s)."""
    match = _TIME.match(str(text))
    if not match:
        raise InputError("<command line>", option, f"expected a duration with its unit "
                         f"(ns, us, ms, s) such as 1ms, not {text!r}")
    value = _exact(match.group(1), option) * _TIME_FACTOR[match.group(2)]
    if value.denominator != 1 or value <= 0:
        raise InputError("<command line>", option, f"must be a whole number of "
                         f"nanoseconds > 0, not {text!r}")
    return int(value)


def seconds(text: str, option: str) -> Fraction:
    """A positive number of seconds (``--timeout 30``)."""
    value = _exact(text, option)
    if value <= 0:
        raise InputError("<command line>", option, f"must be > 0 seconds, not {text!r}")
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
