"""Assertions for users' test suites, with steady's verifier and exact optimum as
oracles (issue 21; docs/testing.md is a worked example).

    from steady.testing import assert_valid_schedule, assert_optimal, assert_throughput

    assert_valid_schedule(platform, my_schedule)    # every rule of docs/formats.md
    assert_optimal(platform, my_schedule)           # valid, and throughput = optimum
    assert_throughput(platform, my_value)           # my_value = the exact optimum

``platform`` is a Platform, a steady-platform dict or a networkx DiGraph
(:mod:`steady.inputs`), or None for the schedule's own platform.  A failure raises
``AssertionError`` whose message names each violated rule (the kinds of
:mod:`steady.verify`), where it is (the step or transfer, the node, the link or the
tree edge), the expected and found numbers, exactly.

``NAMESPACE`` holds the names that the reprs of platforms and schedules use, so that a
falsifying example printed by hypothesis can be evaluated back::

    schedule = eval(text, dict(steady.testing.NAMESPACE))
"""

from __future__ import annotations

from fractions import Fraction

from .inputs import as_platform
from .network.model import Network, NetworkLink
from .numbers import decimal_text, format_exact, parse_exact
from .platform import Link, Platform
from .schedule_file import (TIMED, PriceCertificate, Schedule, Step, TimedTransfer, Transfer,
                            TreeEntry)

__all__ = ["assert_valid_schedule", "assert_optimal", "assert_throughput", "NAMESPACE"]

#: What ``eval(repr(x))`` needs for a Platform, a Link or a Schedule.
NAMESPACE = {cls.__name__: cls for cls in (Platform, Link, Schedule, Step, Transfer,
                                           TimedTransfer, TreeEntry, PriceCertificate,
                                           Network, NetworkLink, Fraction)}
#: Violations listed in a failure message, at most (the count of the others follows).
SHOWN = 10


def assert_valid_schedule(platform, schedule: Schedule, min_ratio=None) -> None:
    """Every rule of the steady-schedule format holds for ``schedule`` on ``platform``
    (one-port steps or timetable, capacities, trees, deliveries, totals).  Optimality is
    checked only when the schedule carries a certificate; ``min_ratio`` also requires
    a timed schedule's certified ratio to the optimum to be at least that."""
    from .verify import verify

    platform = None if platform is None else as_platform(platform)
    report = verify(platform, schedule, optimality=_certified(schedule),
                    min_ratio=None if min_ratio is None else parse_exact(min_ratio))
    if not report.ok:
        raise AssertionError(_violations("is not a valid schedule", report))


def assert_optimal(platform, schedule: Schedule) -> None:
    """``schedule`` is valid and its throughput is the platform's optimum, computed
    exactly by :func:`steady.throughput.throughput` (the schedule needs no
    certificate; when it has one, it is checked too)."""
    from .throughput import throughput

    assert_valid_schedule(platform, schedule)
    p = schedule.platform if platform is None else as_platform(platform)
    optimum = throughput(p).throughput
    if schedule.throughput != optimum:
        ratio = Fraction(schedule.throughput) / optimum
        raise AssertionError(
            f"[optimality] throughput: the schedule's throughput {_number(schedule.throughput)}"
            f" is not the optimum {_number(optimum)} (ratio {_number(ratio)}), with "
            f"{schedule.messages_per_period} messages per period of "
            f"{format_exact(schedule.period)}")


def assert_throughput(platform, value, tolerance=0) -> None:
    """``value`` (an exact number, a float by its decimal text, or any object with a
    ``throughput`` attribute such as a schedule or a result) is the platform's optimal
    throughput; with ``tolerance`` (relative, exact), within it."""
    from .throughput import throughput

    claimed = getattr(value, "throughput", value)
    try:
        claimed = parse_exact(claimed)
    except ValueError as exc:
        raise AssertionError(f"[throughput] the value is not a number: {exc}") from None
    tolerance = parse_exact(tolerance)
    optimum = throughput(as_platform(platform)).throughput
    error = abs(claimed - optimum)
    if error > tolerance * optimum:
        within = f" (tolerance {_number(tolerance)})" if tolerance else ""
        raise AssertionError(
            f"[throughput] {_number(claimed)} is not the optimal throughput "
            f"{_number(optimum)}{within}: off by {_number(error)}, "
            f"{'above' if claimed > optimum else 'below'} it")


def _certified(schedule) -> bool:
    return getattr(schedule, "certificate", None) is not None


def _violations(what: str, report) -> str:
    version = " (version 2, timed)" if report.version == TIMED else ""
    lines = [f"the schedule{version} {what}: {len(report.violations)} violation"
             + ("s" if len(report.violations) != 1 else "")]
    for v in report.violations[:SHOWN]:
        lines.append(f"  [{v.kind}] {v.where}: {v.message} (expected {_text(v.expected)}, "
                     f"found {_text(v.found)})")
    if len(report.violations) > SHOWN:
        lines.append(f"  ... and {len(report.violations) - SHOWN} more")
    return "\n".join(lines)


def _text(x) -> str:
    if isinstance(x, (int, Fraction)) and not isinstance(x, bool):
        return format_exact(x)
    return str(x)


def _number(x) -> str:
    """Exact, with a decimal reading when it is not an integer: ``2/3 (~0.666667)``."""
    x = Fraction(x)
    text = format_exact(x)
    return text if x.denominator == 1 else f"{text} (~{decimal_text(x)})"
