"""The finite-horizon figure of ``steady simulate --plot``: delivered / (K·TP*) against
the horizon K (002 Theorem 7: it tends to TP / TP*, 1 for an optimal schedule), under
Lemma 7's bound 1.  The curve counts whole batches (M·B*(K), a lower bound on what the
report's ``delivered`` counts), so that its 400 points stay cheap; for a list run
(steady.simulate.listed) the broadcasts its simulation delivered by each K'."""

from __future__ import annotations

import bisect
from fractions import Fraction

from ..simulate.horizon import HorizonReport, steady_count
from ..simulate.unroll import PeriodicPattern
from .plots import ratio_plot

#: Horizons drawn: K·i/POINTS for i = 1 .. POINTS (a step curve needs many).
POINTS = 400


def ratio_points(schedule, report: HorizonReport) -> list[tuple[Fraction, Fraction]]:
    """(K', M·B*(K') / (K'·TP*)) for POINTS horizons K' up to the report's K, exact,
    under the report's forwarding rule and optimum TP*."""
    optimum = report.optimum or schedule.throughput
    horizons = [report.horizon * i / POINTS for i in range(1, POINTS + 1)]
    if report.listed is not None:   # a list run: its own completion times
        done = sorted(report.completion)
        return [(k, Fraction(bisect.bisect_right(done, k)) / (k * optimum))
                for k in horizons]
    pattern = PeriodicPattern(schedule, report.forwarding)
    return [(k, Fraction(steady_count(pattern, k, report.phases)) / (k * optimum))
            for k in horizons]


def horizon_plot(schedule, report: HorizonReport, path) -> None:
    """Draw :func:`ratio_points` into ``path`` (.png or .svg; the ``plot`` extra)."""
    title = (f"{schedule.platform.name or 'platform'}: delivered / (K x optimal "
             "throughput) against the horizon K")
    ratio_plot(ratio_points(schedule, report), path, title)
