"""A horizon run list scheduled on a timed schedule's trees (ours; the third way
``steady simulate PLATFORM`` runs a short timed schedule, beside the two forwarding
rules of :mod:`.unroll`).

The unrolled periods lose, at both ends of a run, about the latency of a message through
its tree, and a message waits at each hop for its tree's next slot: on deep trees that
is several periods (samples/mesh-65.json: trees 19 to 25 hops deep, 1.4 % of a horizon of
100000).  :func:`steady.schedule.list_run.list_run` routes the broadcasts over the same
trees without periods, each port waiting only for data.  Here it runs the most
broadcasts any schedule could deliver by K (Lemma 7: floor(K·TP*)), every single
transfer is checked by :func:`steady.simulate.engine.check_events` (one-port,
causality, shared links, every node gets every broadcast once), and delivered(K)
counts the broadcasts every node holds by K, exactly.  Nothing guarantees the list run
more than the periods: ``steady simulate`` keeps whichever delivers more.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from ..schedule.list_run import list_run
from .engine import Simulation, TooLarge, check_events
from .horizon import HorizonReport, bound

#: The name of this way of running, beside the forwarding rules of :mod:`.unroll`.
LISTED = "listed"


@dataclass(frozen=True)
class ListedRun:
    """The list run of ``messages`` broadcasts on ``schedule``'s trees, checked:
    ``delivered`` of them held by every node by the horizon; ``first`` and ``last``:
    when the first and the last of the delivered ones reach every node."""

    schedule: object
    messages: int
    delivered: int
    first: Fraction
    last: Fraction
    simulation: Simulation


def listed_horizon(schedule, horizon, optimum: Fraction, max_events: int) -> ListedRun:
    """The list run for horizon K on ``schedule``'s trees; :class:`TooLarge` when its
    floor(K·TP*)·(|V| - 1) single transfers exceed ``max_events``."""
    platform = schedule.platform
    k = Fraction(horizon)
    messages = math.floor(k * optimum)
    if messages * (len(platform.nodes) - 1) > max_events:
        raise TooLarge(f"floor(K·TP*) = {messages} broadcasts to {len(platform.nodes) - 1} "
                       f"nodes are more single transfers than the budget of {max_events}")
    run = list_run(platform, [(t.parent, t.weight) for t in schedule.trees], messages)
    events = [(u, v, x, start, start + run.cost[(u, v)]) for u, v, x, start in run.sends]
    sim = check_events(platform, events, messages, run.unit)
    if not sim.ok:   # the list run is valid by construction: a bug, not a verdict
        raise AssertionError(f"postcondition: list run: {sim.violations[0]}")
    done = sorted(t for t in sim.completion if t <= k)
    return ListedRun(schedule, messages, len(done), done[0] if done else Fraction(0),
                     done[-1] if done else Fraction(0), sim)


def listed_report(run: ListedRun, horizon, optimum: Fraction, choice: dict | None = None,
                  source: str = "exact optimum"):
    """The :class:`~steady.simulate.horizon.HorizonReport` of a list run: no phases (no
    periods), ``listed`` = its figures; Lemma 7 asserted."""
    k = Fraction(horizon)
    bound_k = bound(optimum, k)
    if run.delivered > bound_k:
        raise AssertionError(f"postcondition (Lemma 7): {run.delivered} broadcasts by {k} "
                             f"> K·TP* = {bound_k}")
    schedule = run.schedule
    figures = {"broadcasts": run.messages, "first": run.first, "last": run.last,
               "period": schedule.period,
               "messages_per_period": schedule.messages_per_period}
    return HorizonReport(k, run.delivered, bound_k,
                         Fraction(run.delivered) / bound_k if bound_k else None, 0, None,
                         True, run.simulation.transfers, (), None, optimum, source,
                         "listed", schedule.throughput, choice, figures,
                         tuple(run.simulation.completion))
