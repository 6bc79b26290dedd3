"""The finite-horizon figure of ``steady simulate --plot``: delivered / (K·TP*) against
the horizon K (002 Theorem 7: it tends to TP / TP*, 1 for an optimal schedule), under
Lemma 7's bound 1.  The curve counts whole batches (M·B*(K), a lower bound on what the
report's ``delivered`` counts), so that its 400 points stay cheap."""

from __future__ import annotations

from fractions import Fraction

from ..simulate.horizon import HorizonReport, steady_count
from ..simulate.unroll import PeriodicPattern
from .plots import ratio_plot

#: Horizons drawn: K·i/POINTS for i = 1 .. POINTS (a step curve needs many).
POINTS = 400


def ratio_points(schedule, report: HorizonReport) -> list[tuple[Fraction, Fraction]]:
    """(K', M·B*(K') / (K'·TP*)) for POINTS horizons K' up to the report's K, exact,
    under the report's forwarding rule and optimum TP*."""
    pattern = PeriodicPattern(schedule, report.forwarding)
    optimum = report.optimum or schedule.throughput
    points = []
    for i in range(1, POINTS + 1):
        k = report.horizon * i / POINTS
        delivered = Fraction(steady_count(pattern, k, report.phases))
        points.append((k, delivered / (k * optimum)))
    return points


def horizon_plot(schedule, report: HorizonReport, path) -> None:
    """Draw :func:`ratio_points` into ``path`` (.png or .svg; the ``plot`` extra)."""
    title = f"{schedule.platform.name or 'platform'}: Theorem 7"
    ratio_plot(ratio_points(schedule, report), path, title)
