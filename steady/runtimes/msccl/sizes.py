"""MSCCL files per message size (ours): which program to run for which buffer size,
under the platform's alpha-beta costs (a send of ``m`` chunks of ``s`` units on a link
takes ``startup + m x s x cost``: the start-up beta and the cost per unit size of
steady-platform v1, 002 §6).

The executor runs a buffer of ``B`` bytes through a program of ``M`` chunks per loop in
``L = ceil(B / (M x slice))`` loops (``slice``: :data:`.runtime.SLICE_BYTES` of the
protocol), each moving chunks of ``s = B / (M x L)`` bytes.  The predicted time is the
first loop's makespan (:func:`.loop.causal_order` with chunks of ``s``) plus ``L - 1``
times the busiest port of a loop (the loops overlap once the first is under way):
exact, a model, not a measurement.  Start-ups favour few messages per period for small
buffers (fewer, larger sends), the bandwidth of many trees favours many for large ones.

:func:`choose` picks, for each power-of-two size class of a range (``[2^k, 2^(k+1) -
1]``, judged at its lower end), the candidate with the least predicted time (the
smaller ``M`` on a tie), and joins neighbouring classes that chose the same candidate
into one range: the files' ``minBytes``/``maxBytes`` are disjoint and cover the range
(the executor takes the first file whose range holds the call's size, and RCCL reads a
folder in no particular order).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction

from ...errors import InputError, echo
from .loop import causal_order
from .runtime import SLICE_BYTES

UNITS = {"B": 1, "KB": 2 ** 10, "MB": 2 ** 20, "GB": 2 ** 30, "TB": 2 ** 40}
_SIZE = re.compile(r"(0|[1-9][0-9]*)(B|KB|MB|GB|TB)?", re.ASCII | re.IGNORECASE)
#: The largest size a range may reach (the executor's minBytes/maxBytes are int64).
MAX_BYTES = 2 ** 50


def parse_size(text: str, option: str = "--sizes") -> int:
    """``64KB`` -> 65536 (binary units, as NCCL's tests count them)."""
    match = _SIZE.fullmatch(text.strip())
    if match is None:
        raise InputError("<command line>", option, f"expected a size such as 1KB, 4MB or "
                         f"1048576, got {echo(text)}")
    value = int(match[1]) * UNITS[(match[2] or "B").upper()]
    if not 1 <= value <= MAX_BYTES:
        raise InputError("<command line>", option, f"{echo(text)}: sizes are 1 B .. 1 PB")
    return value


def parse_range(text: str, option: str = "--sizes") -> tuple[int, int]:
    """``1KB..1GB`` -> (1024, 2^30)."""
    low, sep, high = text.partition("..")
    if not sep:
        raise InputError("<command line>", option, f"expected LOW..HIGH (e.g. 1KB..1GB), "
                         f"got {echo(text)}")
    lo, hi = parse_size(low, option), parse_size(high, option)
    if lo > hi:
        raise InputError("<command line>", option, f"{echo(low)} is above {echo(high)}")
    return lo, hi


def size_text(n: int) -> str:
    for unit in ("TB", "GB", "MB", "KB"):
        if n % UNITS[unit] == 0:
            return f"{n // UNITS[unit]}{unit}"
    return f"{n}B"


def range_text(low: int, high: int) -> str:
    """``1KB..16MB-1``: a range of bytes, both ends included."""
    if low == high:
        return size_text(low)
    top, above = size_text(high), size_text(high + 1)
    if top[-2:] not in _NAMED and above[-2:] in _NAMED:
        top = f"{above}-1"
    return f"{size_text(low)}..{top}"


_NAMED = ("KB", "MB", "GB", "TB")


def classes(lo: int, hi: int) -> list[tuple[int, int]]:
    """The power-of-two classes ``[2^k, 2^(k+1) - 1]`` cut to [lo, hi]."""
    found, a = [], lo
    while a <= hi:
        b = min(hi, 2 ** a.bit_length() - 1)
        found.append((a, b))
        a = b + 1
    return found


@dataclass
class Prediction:
    """One candidate at one size: ``loops`` passes of chunks of ``chunk_bytes``."""

    bytes: int
    loops: int
    chunk_bytes: Fraction
    first_loop: Fraction
    per_loop: Fraction

    @property
    def time(self) -> Fraction:
        return self.first_loop + (self.loops - 1) * self.per_loop


def predict(moves, chunks: int, size: int, unit_bytes: int = 1,
            slice_bytes: int | None = None, proto: str = "Simple") -> Prediction:
    """The predicted time of a ``size``-byte broadcast by a program of ``chunks``
    chunks per loop whose loop is ``moves`` (module docstring)."""
    slice_bytes = slice_bytes or SLICE_BYTES[proto]
    loops = max(1, math.ceil(Fraction(size, chunks * slice_bytes)))
    chunk = Fraction(size, chunks * loops)
    timing = causal_order(moves, chunk / unit_bytes)
    return Prediction(size, loops, chunk, timing.makespan, timing.busiest_port)


@dataclass
class Choice:
    """Sizes ``low .. high`` bytes run with candidate ``key``; ``prediction`` at ``low``."""

    low: int
    high: int
    key: object
    prediction: Prediction


def choose(candidates: dict, lo: int, hi: int, unit_bytes: int = 1,
           slice_bytes: int | None = None, proto: str = "Simple") -> list[Choice]:
    """``candidates``: key -> (moves, chunks per loop), keys ordered by preference on a
    tie (smaller M first).  The ranges and their candidates (module docstring)."""
    chosen = []
    for a, b in classes(lo, hi):
        best = None
        for key, (moves, chunks) in candidates.items():
            p = predict(moves, chunks, a, unit_bytes, slice_bytes, proto)
            if best is None or p.time < best[1].time:
                best = (key, p)
        if chosen and chosen[-1].key == best[0]:
            chosen[-1].high = b
        else:
            chosen.append(Choice(a, b, best[0], best[1]))
    return chosen
