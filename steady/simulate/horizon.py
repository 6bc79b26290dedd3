"""Broadcasting within a time bound K: steady(G, K), opt(G, K) <= K·TP, and the lengths of
initialization and clean-up (002 §5.5, Lemma 7, Theorem 7).

For a horizon K, the finite schedule of :mod:`steady.simulate.unroll` broadcasts B = r + W whole
batches of M messages (W warm-up periods, r steady periods of length T) and ends at
I + r·T + J, where I and J are the lengths of its warm-up and clean-up, constants of
the periodic schedule.  So

    steady(G, K) = M·(W + floor((K - I - J) / T))         for K >= I + J,

and for smaller K the largest number of whole batches whose as-soon-as-possible
unrolling ends by K.  Every counted message reaches every node by K (checked message by
message by :mod:`steady.simulate.engine`).  Since M = T·TP,

    steady(G, K) >= (K - I - J - T)·TP,

and Lemma 7 bounds every schedule by opt(G, K) <= K·TP: the ratio tends to 1
(Theorem 7), and is >= 1 - ε as soon as K >= (I + J + T)/ε.

The paper's own construction routes the initialization and clean-up messages one at a
time along their tree paths; :func:`sequential_lengths` gives its I and J for the same
trees, for comparison (proofs/finite-horizon.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..numbers import format_exact
from .engine import MAX_EVENTS, simulate, transfers_needed
from .unroll import PeriodicPattern, finite_schedule


@dataclass(frozen=True)
class Phases:
    """I and J of our construction, of the plain pipelined unrolling (W·T each) and of
    the paper's sequential routing; W warm-up periods of length T."""

    init: Fraction
    cleanup: Fraction
    warmup_periods: int
    period: Fraction
    messages_per_period: int
    pipelined: Fraction
    paper_init: Fraction
    paper_cleanup: Fraction


def phases(pattern: PeriodicPattern) -> Phases:
    """The phase lengths (the template schedule of W batches: no steady period)."""
    w = pattern.warmup
    if w:
        template = finite_schedule(pattern, w, blocks=False)
        init, cleanup = template.init_length, template.cleanup_length
    else:
        init = cleanup = Fraction(0)
    paper_init, paper_cleanup = sequential_lengths(pattern)
    return Phases(init, cleanup, w, pattern.schedule.period, pattern.messages,
                  w * pattern.schedule.period, paper_init, paper_cleanup)


def sequential_lengths(pattern: PeriodicPattern) -> tuple[Fraction, Fraction]:
    """I and J of 002 §5.5 for these trees: every in-flight message routed alone.

    At a period boundary of the steady state, in tree l of height H_l, batch p - d
    (1 <= d < H_l) is held by the nodes of depth <= d only.  Filling that state one
    message at a time sends each of the λ_l messages of such a batch over every tree
    edge (u, v) with depth(v) <= d: edge (u, v) is used H_l - depth(v) times.  Draining
    it sends them over the edges with depth(u) >= d: depth(u) times."""
    platform = pattern.schedule.platform
    init = cleanup = Fraction(0)
    for l, tree in enumerate(pattern.schedule.trees):
        depth = pattern.depth[l]
        h = max(depth.values())
        for u, v in tree.edges:
            c = platform.cost(u, v) * tree.weight
            init += (h - depth[v]) * c
            cleanup += depth[u] * c
    return init, cleanup


def steady_count(pattern: PeriodicPattern, horizon, lengths: Phases | None = None) -> int:
    """steady(G, K): messages that every node holds by time K (whole batches)."""
    k = Fraction(horizon)
    p = lengths or phases(pattern)
    if k >= p.init + p.cleanup:
        r = (k - p.init - p.cleanup) // p.period
        return (p.warmup_periods + int(r)) * p.messages_per_period
    return short_horizon_batches(pattern, k) * p.messages_per_period


def short_horizon_batches(pattern: PeriodicPattern, horizon: Fraction) -> int:
    """The most whole batches (fewer than W) whose unrolling ends by ``horizon``."""
    for batches in range(pattern.warmup - 1, 0, -1):
        if finite_schedule(pattern, batches, blocks=False).makespan <= horizon:
            return batches
    return 0


def batches_for(pattern: PeriodicPattern, horizon, lengths: Phases | None = None) -> int:
    return steady_count(pattern, horizon, lengths) // max(pattern.messages, 1)


def bound(throughput: Fraction, horizon) -> Fraction:
    """Lemma 7: opt(G, K) <= K·TP."""
    return Fraction(horizon) * throughput


@dataclass(frozen=True)
class HorizonReport:
    """What ``steady simulate`` prints: steady(G, K) against Lemma 7's K·TP."""

    horizon: Fraction
    delivered: int
    bound: Fraction
    ratio: Fraction | None
    batches: int
    phases: Phases
    simulated: bool            # the message-level check ran
    transfers: int             # message transfers of the unrolling
    violations: tuple
    largest_checkable: Fraction | None   # when not simulated: a horizon that fits

    def to_dict(self) -> dict:
        """The ``steady simulate --json`` document: exact numbers as ``p/q`` text."""
        p = self.phases
        return {"horizon": format_exact(self.horizon), "delivered": self.delivered,
                "bound": format_exact(self.bound),
                "ratio": None if self.ratio is None else format_exact(self.ratio),
                "batches": self.batches, "period": format_exact(p.period),
                "messages_per_period": p.messages_per_period,
                "warmup_periods": p.warmup_periods,
                "init": format_exact(p.init), "cleanup": format_exact(p.cleanup),
                "pipelined_phase": format_exact(p.pipelined),
                "paper_init": format_exact(p.paper_init),
                "paper_cleanup": format_exact(p.paper_cleanup),
                "simulated": self.simulated, "transfers": self.transfers,
                "largest_checkable_horizon": None if self.largest_checkable is None
                else format_exact(self.largest_checkable),
                "violations": list(self.violations)}


def horizon_report(schedule, horizon, max_events: int = MAX_EVENTS) -> HorizonReport:
    """steady(G, K), and the message-level simulation of its B batches when they fit in
    ``max_events`` transfers; the simulation must deliver every counted message by K."""
    k = Fraction(horizon)
    pattern = PeriodicPattern(schedule)
    lengths = phases(pattern)
    delivered = steady_count(pattern, k, lengths)
    batches = delivered // max(pattern.messages, 1)
    needed = transfers_needed(pattern, batches)
    bound_k = bound(schedule.throughput, k)
    ratio = Fraction(delivered) / bound_k if bound_k else None
    if needed > max_events:
        return HorizonReport(k, delivered, bound_k, ratio, batches, lengths, False,
                             needed, (), largest_checkable(pattern, lengths, max_events))
    sim = simulate(pattern, batches, max_events=max_events)
    violations = list(sim.violations)
    if sim.ok and sim.delivered_by(k) < delivered:
        violations.append(f"only {sim.delivered_by(k)} of the {delivered} counted messages "
                          f"reach every node by {k}")
    return HorizonReport(k, delivered, bound_k, ratio, batches, lengths, True,
                         sim.transfers, tuple(violations), None)


def largest_checkable(pattern: PeriodicPattern, lengths: Phases, max_events: int):
    """The largest horizon whose batches fit in ``max_events`` message transfers (None
    when not even one batch does)."""
    per_batch = transfers_needed(pattern, 1)
    most = max_events // per_batch if per_batch else 0
    if most >= lengths.warmup_periods and most:
        return lengths.init + lengths.cleanup + (most - lengths.warmup_periods) * lengths.period
    if most >= 1:
        return finite_schedule(pattern, most, blocks=False).makespan
    return None
