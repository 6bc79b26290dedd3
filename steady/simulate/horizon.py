"""Broadcasting within a time bound K: steady(G, K), opt(G, K) <= K·TP*, and the lengths of
warm-up and clean-up (002 §5.5, Lemma 7, Theorem 7).

For a horizon K, the finite schedule of :mod:`steady.simulate.unroll` with B >= W whole
batches of M messages (W warm-up periods, r = B - W steady periods of length T) ends at
I + r·T + J, where I and J are the lengths of its warm-up and clean-up, constants of the
periodic schedule and of its forwarding rule.  So the most whole batches that every node
holds by K is

    B*(K) = W + floor((K - I - J) / T)          for K >= I + J,

and for smaller K whole batches whose as-soon-as-possible unrolling ends by K (found by
bisection, checked).
One batch more, B* + 1, may already deliver part of its messages by K; ``delivered``
takes the better of the two (every message counted reaches every node by K, checked
message by message by :func:`steady.simulate.plan.check_plan`).  Since M = T·TP,

    delivered(K) >= M·B*(K) >= (K - I - J - T)·TP,

and Lemma 7 bounds every schedule by opt(G, K) <= K·TP*, TP* the *optimum* (not the
schedule's own throughput: a short-period schedule has TP <= TP*).  The ratio
delivered / (K·TP*) is at most 1 (a runtime postcondition) and tends to TP / TP* as K
grows (Theorem 7 when TP = TP*).  TP* comes from the schedule's certificate (port prices:
sum(y) / c bounds every schedule, proofs/timed-schedule.md (b)) or, without one, from an
exact solve of the platform.

The paper's own construction routes the initialization and clean-up messages one at a
time along their tree paths; :func:`sequential_lengths` gives its I and J for the same
trees, for comparison (proofs/finite-horizon.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..numbers import format_exact
from .plan import Plan
from .unroll import PeriodicPattern, finite_schedule, unrolled

#: Message transfers a simulated plan may hold at most, by default (``--max-events``).
MAX_EVENTS = 1_000_000


#: delivered() looks at single messages of the last W + 1 batches only up to this work.
PARTIAL_WORK = 3_000_000


@dataclass(frozen=True)
class Phases:
    """I and J of our construction, of the plain unrolling (W·T each) and of the
    paper's sequential routing; W warm-up periods of length T."""

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
        template = finite_schedule(pattern, w, placed=False)
        init, cleanup = template.init_length, template.cleanup_length
    else:
        init = cleanup = Fraction(0)
    paper_init, paper_cleanup = sequential_lengths(pattern)
    return Phases(init, cleanup, w, pattern.period_time, pattern.messages,
                  w * pattern.period_time, paper_init, paper_cleanup)


def sequential_lengths(pattern: PeriodicPattern) -> tuple[Fraction, Fraction]:
    """I and J of 002 §5.5 for these trees: every in-flight message routed alone.

    At a period boundary of the steady state, in tree l of height H_l, batch p - d
    (1 <= d < H_l) is held by the nodes of depth <= d only.  Filling that state one
    message at a time sends each of the λ_l messages of such a batch over every tree
    edge (u, v) with depth(v) <= d: edge (u, v) is used H_l - depth(v) times.  Draining
    it sends them over the edges with depth(u) >= d: depth(u) times."""
    platform = pattern.platform
    init = cleanup = Fraction(0)
    for l, tree in enumerate(pattern.table.trees):
        depth = pattern.depth[l]
        h = max(depth.values())
        for v, u in tree.parent.items():
            c = platform.cost(u, v) * tree.weight
            init += (h - depth[v]) * c
            cleanup += depth[u] * c
    return init, cleanup


def whole_batches(pattern: PeriodicPattern, horizon, lengths: Phases | None = None,
                  most: int | None = None) -> int:
    """B*(K): whole batches that every node holds by time K (the most for K >= I + J;
    below, :func:`short_horizon_batches`).  ``most`` (a bound such as Lemma 7's
    K·TP*/M) shortens the search below I + J."""
    k = Fraction(horizon)
    p = lengths or phases(pattern)
    if k >= p.init + p.cleanup:
        return p.warmup_periods + int((k - p.init - p.cleanup) // p.period)
    return short_horizon_batches(pattern, k, most)


def steady_count(pattern: PeriodicPattern, horizon, lengths: Phases | None = None) -> int:
    """steady(G, K) in whole batches: M·B*(K) messages every node holds by time K."""
    return whole_batches(pattern, horizon, lengths) * pattern.messages


def short_horizon_batches(pattern: PeriodicPattern, horizon: Fraction,
                          most: int | None = None) -> int:
    """Whole batches (fewer than W) whose as-soon-as-possible unrolling ends by
    ``horizon``: the largest found by bisection over 1 .. min(W - 1, most).  The
    makespan grows with the batches in every case we met, but list scheduling does
    not promise it, so the answer is only claimed to fit (it is checked), not to be the
    most; each probe unrolls B + W periods."""
    lo, hi = 0, pattern.warmup - 1 if most is None else min(pattern.warmup - 1, most)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if finite_schedule(pattern, mid, placed=False).makespan <= horizon:
            lo = mid
        else:
            hi = mid - 1
    return lo


def completion_times(pattern: PeriodicPattern, batches: int, first_batch: int) -> list:
    """The ticks (units 1/U) at which the messages of batches first_batch..batches-1
    of the B-batch finite schedule have reached every node, in message order.  Only the
    steady periods where those messages travel are placed (a message of batch b is
    received in periods b .. b + W)."""
    first_batch = max(first_batch, 0)
    placed = unrolled(pattern, batches, None, first_batch)[0]
    others = len(pattern.platform.nodes) - 1
    seen: dict[int, list] = {}
    for _, run, b, first, count, start, _ in placed:
        if b < first_batch:
            continue
        for k in range(count):
            g = pattern.message_id(b, run.tree, first + k)
            entry = seen.setdefault(g, [0, 0])
            entry[0] += 1
            entry[1] = max(entry[1], start + (k + 1) * run.cost)
    out = []
    for g in range(first_batch * pattern.messages, batches * pattern.messages):
        got, at = seen.get(g, (0, 0))
        if got != others:   # pragma: no cover - the unrolling delivers every message
            raise AssertionError(f"postcondition: message {g} reaches {got} of {others} "
                                 "nodes in the finite schedule")
        out.append(at)
    return out


def delivered(pattern: PeriodicPattern, horizon, lengths: Phases | None = None,
              most: int | None = None) -> tuple[int, int]:
    """(messages every node holds by K, batches of the finite schedule that delivers
    them): the better of B*(K) whole batches and the part of B*(K) + 1 batches already
    delivered by K."""
    k = Fraction(horizon)
    p = lengths or phases(pattern)
    best = whole_batches(pattern, k, p, most)
    count, used = best * pattern.messages, best
    more = best + 1
    w = pattern.warmup
    work = (w + 2) * pattern.messages * len(pattern.platform.nodes)
    if (most is None or best <= most) and work <= PARTIAL_WORK:
        # batches below more - W - 1 travel in the same periods as with `best` batches
        # (steady ones), so they are delivered by K as they were
        first = max(more - w - 1, 0)
        ticks = pattern.ticks(k)
        late = sum(1 for t in completion_times(pattern, more, first) if t <= ticks)
        if first * pattern.messages + late > count:
            count, used = first * pattern.messages + late, more
    return count, used


def transfers_needed(pattern: PeriodicPattern, batches: int) -> int:
    """Message transfers of B batches: each non-source node receives each message once."""
    return batches * pattern.messages * (len(pattern.platform.nodes) - 1)


def bound(optimum: Fraction, horizon) -> Fraction:
    """Lemma 7: opt(G, K) <= K·TP*, TP* the optimal throughput (or any upper bound on
    it, such as a certificate's sum(y) / c)."""
    return Fraction(horizon) * optimum


def certified_optimum(schedule) -> tuple[Fraction, str]:
    """An upper bound on the platform's optimal throughput, and where it comes from:
    the certificate's sum(y) / c when the schedule carries port prices (checked by the
    independent verifier, which recomputes c), else the exact optimum of the platform."""
    from ..schedule_file import timed
    from ..verify import verify

    if schedule.certificate is not None:
        report = verify(None, timed(schedule), optimality=False)
        if report.bound is not None:
            return report.bound, "certificate"
    from ..throughput import throughput

    return throughput(schedule.platform).throughput, "exact optimum"


@dataclass(frozen=True)
class HorizonReport:
    """What ``steady simulate`` prints: delivered(K) against Lemma 7's K·TP*."""

    horizon: Fraction
    delivered: int
    bound: Fraction
    ratio: Fraction | None
    batches: int
    phases: Phases | None      # None for a list run (steady.simulate.listed): no periods
    simulated: bool            # the message-level check ran
    transfers: int             # message transfers of the unrolling
    violations: tuple
    largest_checkable: Fraction | None   # when not simulated: a horizon that fits
    optimum: Fraction = Fraction(0)      # TP* (or the certificate's bound on it)
    optimum_source: str = ""
    forwarding: str = "period"
    throughput: Fraction = Fraction(0)   # the periodic schedule's own TP
    choice: dict | None = None           # steady.simulate.choose: how it was picked
    listed: dict | None = None           # the list run's figures, when it was picked
    completion: tuple = ()               # list run: when each broadcast is everywhere
    fixed_speed: Fraction | None = None  # shared links: no fixed-speed schedule beats it

    @property
    def fixed_speed_total(self) -> Fraction | None:
        """K times the fixed-speed bound: no schedule whose transfers keep their speed
        delivers more by K (None when it was not computed or does not bind)."""
        return None if self.fixed_speed is None else self.horizon * self.fixed_speed

    def to_dict(self) -> dict:
        """The ``steady simulate --json`` document: exact numbers as ``p/q`` text; a
        list run has no periods, hence null phases."""
        p = self.phases
        shape = self.listed if p is None else {"period": p.period,
                                               "messages_per_period": p.messages_per_period}
        doc = {"horizon": format_exact(self.horizon), "delivered": self.delivered,
               "bound": format_exact(self.bound),
               "ratio": None if self.ratio is None else format_exact(self.ratio),
               "optimum": format_exact(self.optimum), "optimum_from": self.optimum_source,
               "throughput": format_exact(self.throughput),
               "forwarding": self.forwarding,
               "batches": self.batches, "period": format_exact(shape["period"]),
               "messages_per_period": shape["messages_per_period"],
               "warmup_periods": None if p is None else p.warmup_periods}
        for key, field_ in (("init", "init"), ("cleanup", "cleanup"),
                            ("pipelined_phase", "pipelined"), ("paper_init", "paper_init"),
                            ("paper_cleanup", "paper_cleanup")):
            doc[key] = None if p is None else format_exact(getattr(p, field_))
        doc.update({"simulated": self.simulated, "transfers": self.transfers,
                    "largest_checkable_horizon": None if self.largest_checkable is None
                    else format_exact(self.largest_checkable),
                    "violations": list(self.violations)})
        if self.fixed_speed is not None:
            doc["fixed_speed_bound"] = format_exact(self.fixed_speed_total)
            doc["fixed_speed_ratio"] = format_exact(self.delivered / self.fixed_speed_total)
        if self.choice is not None:
            doc["choice"] = self.choice
        if self.listed is not None:
            doc["listed"] = {k: v if isinstance(v, int) else format_exact(v)
                             for k, v in self.listed.items()}
        return doc


def plan_report(plan: Plan, horizon, optimum: Fraction, counted: int,
                optimum_source: str = "given", **fields) -> HorizonReport:
    """The report of a materialised ``plan`` (checked when it was built:
    :func:`steady.simulate.plan.check_plan`) for horizon K: the broadcasts it delivers by
    K, which must be the ``counted`` ones, and Lemma 7 asserted.  ``fields``: the other
    :class:`HorizonReport` fields."""
    k = Fraction(horizon)
    delivered = plan.delivered_by(k)
    violations = (() if delivered == counted else
                  (f"{delivered} messages reach every node by {k}, {counted} counted",))
    return counted_report(k, optimum, counted, sum(t.count for t in plan.transfers), None,
                          optimum_source, simulated=True, violations=violations, **fields)


def counted_report(horizon, optimum: Fraction, counted: int, transfers: int,
                   largest: Fraction | None, optimum_source: str = "given",
                   simulated: bool = False, violations: tuple = (),
                   **fields) -> HorizonReport:
    """The report of a plan too large to materialise: its exact count, the transfers it
    would need, and the largest horizon that fits the budget (Lemma 7 asserted)."""
    k = Fraction(horizon)
    bound_k = bound(optimum, k)
    if counted > bound_k:
        raise AssertionError(f"postcondition (Lemma 7): {counted} messages delivered by "
                             f"{k} > K·TP* = {bound_k}")
    return HorizonReport(k, counted, bound_k, Fraction(counted) / bound_k if bound_k
                         else None, simulated=simulated, transfers=transfers,
                         violations=violations, largest_checkable=largest,
                         optimum=optimum, optimum_source=optimum_source, **fields)


def with_fixed_speed(report: HorizonReport, platform) -> HorizonReport:
    """``report`` with the fixed-speed bound (:mod:`steady.network.fixed_speed`) when the
    platform's shared links make it bind below TP*: no schedule whose transfers keep
    their speed delivers more than K times it (asserted)."""
    from dataclasses import replace

    from ..network.fixed_speed import fixed_speed_bound

    speed = fixed_speed_bound(platform)
    if speed is None or speed.bound >= report.optimum:
        return report
    if report.delivered > report.horizon * speed.bound:
        raise AssertionError(f"postcondition (fixed-speed bound): {report.delivered} "
                             f"messages delivered by {report.horizon} > K x {speed.bound}")
    return replace(report, fixed_speed=speed.bound)


def _most(bound_k: Fraction, pattern: PeriodicPattern) -> int:
    """Lemma 7 caps the whole batches any schedule delivers by K: K·TP*/M."""
    return int(bound_k // max(pattern.messages, 1))


def largest_checkable(pattern: PeriodicPattern, lengths: Phases, max_events: int):
    """The largest horizon whose batches fit in ``max_events`` message transfers (None
    when not even one batch does)."""
    per_batch = transfers_needed(pattern, 1)
    most = max_events // per_batch if per_batch else 0
    if most >= lengths.warmup_periods and most:
        return lengths.init + lengths.cleanup + (most - lengths.warmup_periods) * lengths.period
    if most >= 1:
        return finite_schedule(pattern, most, placed=False).makespan
    return None
