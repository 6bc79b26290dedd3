"""A clean-up routed afresh (ours; 002 §5.5 remarks that the phases could be shortened
"using parallel routing": here the clean-up also leaves the trees).

When the last steady period of a finite schedule (:mod:`.unroll`, B >= W batches) ends,
every port is free and node v holds, in tree l, the messages below B·λ_l - lag_l(v): the
others are *in flight*.  The periodic clean-up brings each of them to v over the link
of its tree, so a node that forwards much in the steady state (its out-port saturated)
is the bottleneck again when the pipelines drain.  Here any node that already holds a
message may send it to any neighbour lacking it: at each event, the free in-ports in
decreasing order of the work they have left (messages lacked times their cheapest
link; ties: name) each take the oldest message
(lowest number) that a neighbour with a free out-port holds, from the cheapest such
link; with shared network links (issue 19) only over links with room.  Every port
waits only for data; the messages are complete oldest first, which is what counts for
a horizon.

A greedy is not always shorter than the trees (figures: benchmarks/figures-41.md), so
:mod:`.choose` keeps whichever delivers more.

Counting: for B >= W the state at the clean-up's start is the same up to a shift of
(B - W)·M messages and (B - W)·T time, and the greedy only compares message numbers and
times, so one clean-up (at B = W) gives every B: delivered(K) = B·M - F + #(clean-up
completions within K - E_B), F the messages in flight, E_B = I + (B - W)·T
(proofs/finite-horizon.md, "A clean-up routed afresh").  The B chosen is then built and
every single transfer of its warm-up, steady periods and clean-up is checked by
:func:`steady.simulate.plan.check_plan` (:func:`steady.simulate.unroll.periodic_plan`).  Work: one placement per message in flight
and node lacking it, at most :data:`REROUTE_WORK`.

The clean-up's grid (ours): the clean-up may use any link, and the least unit in which
every link's cost is whole (the lcm of their denominators) can have hundreds of digits
more than the period's own unit U_T: every tick of the plan, its file and the greedy's
clock then carry them.  :func:`grid_unit` keeps the exact unit only when it is at most
s·U_T, s the least integer with s·U_T·c_min >= :data:`GRID_SLACK` (c_min the cheapest
link); else the clean-up runs on the grid of s·U_T ticks: each transfer holds its ports
for its link's cost rounded *up* to a whole tick (less than c_min / GRID_SLACK more),
and the greedy's clock runs on those rounded durations, so every event, start and end is
a whole tick.  A transfer that holds its ports longer than its data needs is as valid as
the exact one (the data is there no later, the ports and links are busy no shorter), the
periods' ticks are whole in s·U_T, and the shift argument above is unchanged
(proofs/finite-horizon.md, "The clean-up's grid").
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from fractions import Fraction

from ..network.rows import integer_shares, link_shares
from ..numbers import lcm_of_denominators
from ..schedule.port_clock import PortClock
from .horizon import Phases
from .unroll import PeriodicPattern

#: In-flight (message, node) pairs the clean-up routes at most; beyond it is not tried.
REROUTE_WORK = 200_000
#: On the clean-up's grid (:func:`grid_unit`) a transfer holds its ports less than the
#: cheapest link's cost over this beyond its own link's cost.
GRID_SLACK = 10**6


@dataclass(frozen=True)
class Cleanup:
    """The clean-up routed afresh after B batches: ``events`` (tail, head, message,
    start, end) in ticks of 1/``unit`` counted from its start (end - start: the link's
    cost rounded up to a whole tick, :func:`grid_unit`), ``completion`` {message: when
    every node holds it} in the same ticks, ``in_flight`` the messages some node lacked
    at its start."""

    batches: int
    unit: int
    events: tuple
    completion: dict

    @property
    def in_flight(self) -> int:
        return len(self.completion)

    @property
    def length(self) -> Fraction:
        return Fraction(max(self.completion.values(), default=0), self.unit)


def in_flight(pattern: PeriodicPattern, batches: int) -> dict[int, set]:
    """{message: the nodes lacking it} when the steady periods of ``batches`` >= W whole
    batches end (node v holds tree l's messages below B·λ_l - lag_l(v))."""
    lacking: dict[int, set] = {}
    for l, lags in enumerate(pattern.lag):
        w, top = pattern.weights[l], batches * pattern.weights[l]
        for v, lag in lags.items():
            for n in range(top - lag, top):
                lacking.setdefault(pattern.message_id(n // w, l, n % w), set()).add(v)
    return lacking


def grid_unit(pattern: PeriodicPattern, slack: int = GRID_SLACK) -> int:
    """Ticks per time unit of the clean-up of ``pattern`` (module docstring, ours): the
    exact unit lcm(U_T, every arc's cost denominator) when it is at most s·U_T, else
    s·U_T, s = max(1, ceil(slack / (U_T·c_min))); a multiple of U_T either way (the
    periods' ticks stay whole)."""
    platform = pattern.platform
    exact = math.lcm(pattern.unit,
                     lcm_of_denominators(platform.cost(*a) for a in platform.arcs))
    cheapest = min(platform.cost(*a) for a in platform.arcs)
    scale = max(1, math.ceil(Fraction(slack) / (pattern.unit * cheapest)))
    return exact if exact <= scale * pattern.unit else scale * pattern.unit


def routed_cleanup(pattern: PeriodicPattern, batches: int, unit: int | None = None,
                   shifted: bool = True) -> Cleanup:
    """The clean-up of ``batches`` >= W whole batches routed afresh (module docstring)
    in ``unit`` ticks per time unit (a multiple of the period's; default
    :func:`grid_unit`), routed once per pattern and unit: the count routes B = W, and
    the clean-up of B > W is that one shifted by (B - W)·M messages (module docstring,
    "Counting"; :func:`shifted_cleanup`); with ``shifted`` False routed afresh and not
    remembered (the tests compare the two).  The plan built on it is checked message by message
    (:func:`steady.simulate.plan.check_plan`) either way."""
    if unit is None:   # read once per pattern: an lcm over every arc
        if "_grid_unit" not in pattern.__dict__:
            pattern.__dict__["_grid_unit"] = grid_unit(pattern)
        unit = pattern.__dict__["_grid_unit"]
    if unit % pattern.unit:
        raise ValueError(f"{unit} ticks per time unit do not hold the period's {pattern.unit}")
    if not shifted:    # routed afresh, not remembered (the tests compare the two)
        return _routed(pattern, batches, unit)
    done = pattern.__dict__.setdefault("_routed", {})
    if (batches, unit) not in done:
        w = pattern.warmup
        if w and batches > w:
            done[(batches, unit)] = shifted_cleanup(routed_cleanup(pattern, w, unit),
                                                    batches, pattern.messages)
        else:
            done[(batches, unit)] = _routed(pattern, batches, unit)
    return done[(batches, unit)]


def shifted_cleanup(template: Cleanup, batches: int, messages: int) -> Cleanup:
    """The clean-up after ``batches`` whole batches from the one after ``template``'s
    (fewer, at least W): every message number d·M higher, d the batches between, the
    same times from the clean-up's start (the greedy compares only message numbers and
    times, and the state it starts from is the same up to that shift: module
    docstring, "Counting").  Ours."""
    d = (batches - template.batches) * messages
    return Cleanup(batches, template.unit,
                   tuple((u, v, g + d, s, e) for u, v, g, s, e in template.events),
                   {g + d: t for g, t in template.completion.items()})


def _routed(pattern: PeriodicPattern, batches: int, unit: int) -> Cleanup:
    platform = pattern.platform
    lacking = in_flight(pattern, batches)
    # each link's cost rounded up to a whole tick (exact when the unit holds it)
    cost = {a: math.ceil(platform.cost(*a) * unit) for a in platform.arcs}
    into: dict[str, list] = {}
    for (u, v), c in sorted(cost.items(), key=lambda item: (item[1], item[0])):
        into.setdefault(v, []).append((u, c))
    clock = PortClock(*integer_shares(link_shares(platform, cost)))
    held = {g: set(platform.nodes) - lack for g, lack in lacking.items()}
    wants = {v: set() for v in platform.nodes}
    for g, lack in lacking.items():
        for v in lack:
            wants[v].add(g)
    oldest = {v: sorted(w) for v, w in wants.items()}   # what each lacks, oldest first
    left = {g: len(lack) for g, lack in lacking.items()}
    last = dict.fromkeys(lacking, 0)
    events, completion = [], {}
    busy_out, busy_in = clock.busy_out, clock.busy_in   # the clock's own sets
    full = clock.full if clock.parts else None          # no shared link: never full
    while clock:
        t, arrived = clock.advance()
        for _, v, g in arrived:
            held[g].add(v)
        # the in-ports with the most work left first (messages lacked x cheapest link)
        for v in sorted((v for v in wants if wants[v] and v not in busy_in),
                        key=lambda v: (-len(wants[v]) * into[v][0][1], v)):
            # the neighbours with a free out-port (and room on the shared links between)
            free = [u for u, _ in into.get(v, ()) if u not in busy_out
                    and (full is None or not full((u, v)))]
            if not free:
                continue
            pick = _oldest_offer(oldest[v], wants[v], free, held)
            if pick is None:
                continue
            g, u = pick
            end = t + cost[(u, v)]
            wants[v].discard(g)
            clock.start((u, v), end, g)
            events.append((u, v, g, t, end))
            left[g] -= 1
            last[g] = max(last[g], end)
            if not left[g]:
                completion[g] = last[g]
    if any(wants.values()):  # pragma: no cover - a holder always reaches a lacking node
        raise AssertionError("postcondition: the routed clean-up stalled")
    return Cleanup(batches, unit, tuple(events), completion)


def _oldest_offer(oldest, wants, free, held):
    """(message, sender): the oldest message a node lacks that one of ``free`` (its
    neighbours with a free out-port and room on the shared links between, cheapest
    link first) holds, from the first such.  ``oldest``: the node's lacked messages in
    increasing order, those received since dropped from the front as they are met
    (``wants``: the ones still lacked)."""
    while oldest and oldest[0] not in wants:
        oldest.pop(0)
    for g in oldest:
        if g not in wants:
            continue
        for u in free:
            if u in held[g]:
                return g, u
    return None


def _most_batches(pattern: PeriodicPattern, lengths: Phases, k: Fraction) -> int:
    """The most batches B whose steady periods end by K (E_B <= K)."""
    return pattern.warmup + int((k - lengths.init) // pattern.period_time)


def routed_bound(pattern: PeriodicPattern, lengths: Phases, horizon) -> int:
    """What :func:`routed_count` can give at most, without routing: every message of
    the batches whose steady periods end by K (cheap: the routing is the costly part)."""
    return _most_batches(pattern, lengths, Fraction(horizon)) * pattern.messages


def routed_count(pattern: PeriodicPattern, lengths: Phases, horizon,
                 unit: int | None = None) -> tuple[int, int] | None:
    """(messages every node holds by K, batches B) of the best B >= W with the clean-up
    routed afresh (module docstring) in ``unit`` ticks (default :func:`grid_unit`), or
    None when it does not apply (no warm-up, a horizon shorter than I, or more than
    :data:`REROUTE_WORK` pairs in flight)."""
    w, m = pattern.warmup, pattern.messages
    k = Fraction(horizon)
    if not w or lengths.init > k:
        return None
    if sum(sum(lags.values()) for lags in pattern.lag) > REROUTE_WORK:
        return None
    template = routed_cleanup(pattern, w, unit)
    done = sorted(Fraction(t, template.unit) for t in template.completion.values())
    period = pattern.period_time
    top = _most_batches(pattern, lengths, k)
    full = w + max(int((k - lengths.init - template.length) // period), 0)
    best = None
    for b in range(max(full, w), top + 1):
        end_steady = lengths.init + (b - w) * period
        count = b * m - template.in_flight + bisect.bisect_right(done, k - end_steady)
        if best is None or count > best[0]:
            best = (count, b)
    return best
