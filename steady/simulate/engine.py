"""Message-level simulation of a finite broadcast schedule, with its own checks.

Unrolls the blocks of a :class:`steady.simulate.unroll.FiniteSchedule` (built from a
steady-schedule file alone, version 1 or 2, under a forwarding rule) into single message transfers: every message number, on
every link, with its start and end time, and checks what 002 §2 demands of any schedule,
independently of how the blocks were built:

* one-port: no node sends two messages at once, no node receives two at once;
* causality: a node forwards a message only after it has received it (the source holds
  every message from time 0);
* shared network links (issue 19): at every instant the transfers in progress through
  a shared link use at most its capacity (sum of c_l / c_arc <= 1);
* every node other than the source receives every message exactly once.

It records when each node holds each message, hence when each message has reached every
node.  The work is proportional to the number of message transfers, B·M·(|V| - 1) for
B batches of M messages; above ``max_events`` it refuses (:class:`TooLarge`) instead of
running for ages, and names the largest horizon that fits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

from .unroll import PeriodicPattern, finite_schedule

MAX_EVENTS = 1_000_000


class TooLarge(ValueError):
    """The unrolling would exceed the event budget."""


@dataclass
class Simulation:
    """The outcome: per message, when it has reached every node; the violations found."""

    messages: int
    transfers: int
    completion: list = field(default_factory=list)   # message -> time (Fraction)
    makespan: Fraction = Fraction(0)
    violations: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.violations

    def delivered_by(self, time) -> int:
        """Messages that every node holds at ``time``."""
        t = Fraction(time)
        return sum(1 for c in self.completion if c <= t)


def transfers_needed(pattern: PeriodicPattern, batches: int) -> int:
    """Message transfers of B batches: each non-source node receives each message once."""
    return batches * pattern.messages * (len(pattern.schedule.platform.nodes) - 1)


def simulate(pattern: PeriodicPattern, batches: int, share=None,
             max_events: int = MAX_EVENTS) -> Simulation:
    """Simulate ``batches`` batches (the last one clipped to ``share`` if given)."""
    needed = transfers_needed(pattern, batches)
    if needed > max_events:
        raise TooLarge(f"{batches} batches of {pattern.messages} messages mean {needed} "
                       f"message transfers, more than the budget of {max_events}")
    finite = finite_schedule(pattern, batches, share)
    return check_blocks(pattern, finite.blocks, finite.messages)


def check_blocks(pattern: PeriodicPattern, blocks, messages: int) -> Simulation:
    """Expand ``blocks`` into single transfers and check them (see the module docstring).

    Message numbers are b·M + offset_l + k (batch b, tree l, k-th message of the tree's
    share); ``messages`` are expected to be numbers 0..messages-1 (only the last batch
    may be partial)."""
    events, unit = block_events(pattern, blocks)
    return check_events(pattern.schedule.platform, events, messages, unit)


def block_events(pattern: PeriodicPattern, blocks, unit: int = 1) -> tuple[list, int]:
    """(events, unit): ``blocks`` as single message transfers (tail, head, message,
    start, end), times in ticks of 1/unit (``unit`` times what the blocks need)."""
    cost = {l.arc: l.cost for l in pattern.schedule.platform.links}
    unit = math.lcm(*(t.denominator for b in blocks for t in (b.start, cost[(b.tail, b.head)])),
                    unit)
    events = []
    for b in blocks:
        c = int(cost[(b.tail, b.head)] * unit)
        s0 = int(b.start * unit)
        for k in range(b.count):
            g = pattern.message_id(b.batch, b.tree, b.first + k)
            events.append((b.tail, b.head, g, s0 + k * c, s0 + (k + 1) * c))
    return events, unit


def check_events(platform, events, messages: int, unit: int) -> Simulation:
    """Check single message transfers (tail, head, message, start, end), times in ticks
    of 1/``unit``, against the rules of the module docstring; messages 0..messages-1."""
    sim = Simulation(messages, len(events))
    hold = _receptions(events, sim)
    _causality(events, hold, platform.source, sim)
    _one_port(events, sim, unit)
    _shared_links(platform, events, sim, unit)
    _completion(platform, hold, messages, unit, sim)
    return sim


def _receptions(events, sim) -> dict:
    hold = {}
    for tail, head, g, _, end in events:
        if (head, g) in hold:
            sim.violations.append(f"{head} receives message {g} twice")
        hold[(head, g)] = min(end, hold.get((head, g), end))
    return hold


def _causality(events, hold, source, sim) -> None:
    for tail, head, g, start, _ in events:
        if tail == source:
            continue
        got = hold.get((tail, g))
        if got is None:
            sim.violations.append(f"{tail} forwards message {g} to {head} "
                                  f"but never receives it")
        elif got > start:
            sim.violations.append(f"{tail} forwards message {g} to {head} before "
                                  f"it has received it")


def _one_port(events, sim, unit) -> None:
    for side, name in ((0, "sends"), (1, "receives")):
        busy: dict[str, list] = {}
        for e in events:
            busy.setdefault(e[side], []).append((e[3], e[4], e[2]))
        for node, spans in busy.items():
            spans.sort()
            for (s1, e1, g1), (s2, _, g2) in zip(spans, spans[1:]):
                if s2 < e1:
                    sim.violations.append(
                        f"{node} {name} messages {g1} and {g2} at once "
                        f"(at time {Fraction(s2, unit)})")


def _shared_links(platform, events, sim, unit) -> None:
    """Issue 19's rule, message by message: at every instant the transfers in progress
    through a shared network link use at most its capacity (sum of c_l / c_arc)."""
    network = getattr(platform, "network", None)
    if network is None:
        return
    for link in network.shared_links():
        arcs = set(network.crossing(link.id))
        changes = []
        for tail, head, g, start, end in events:
            if (tail, head) in arcs:
                share = link.cost / platform.cost(tail, head)
                changes += [(end, -share), (start, share)]
        use = Fraction(0)
        for at, change in sorted(changes):
            use += change
            if use > 1:
                sim.violations.append(f"shared link {link.id} over capacity at time "
                                      f"{Fraction(at, unit)}")
                break


def _completion(platform, hold, messages, unit, sim) -> None:
    others = [v for v in platform.nodes if v != platform.source]
    completion = []
    for g in range(messages):
        times = [hold.get((v, g)) for v in others]
        missing = [v for v, t in zip(others, times) if t is None]
        if missing:
            sim.violations.append(f"message {g} never reaches {', '.join(missing[:5])}")
            continue
        completion.append(Fraction(max(times, default=0), unit))
    extra = {g for (_, g) in hold if not 0 <= g < messages}
    if extra:
        sim.violations.append(f"{len(extra)} messages beyond the {messages} broadcast")
    sim.completion = completion
    sim.makespan = max(completion, default=Fraction(0))
