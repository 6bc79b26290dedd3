"""Rounds: a timetable of equal-cost transfers that also respects shared links (ours;
builds on 002 §5.4.1, Theorem 6).

When every link used by the period costs the same c, a timetable may as well be a
sequence of *rounds* of length c, each a matching of senders to receivers (one-port).
The period's counts n_e form a bipartite multigraph whose largest degree Δ is the largest
port load in rounds, and König's theorem (002 Thm 6,
:func:`~steady.schedule.matchings.weighted_edge_coloring`) splits it into Δ matchings:
on ports alone no timetable is shorter.  A shared network link adds a knapsack per round:
the parts its transfers hold (c_l / c, in integers: :func:`~steady.schedule.timed.integer_shares`)
sum to at most its capacity.  The greedy list schedule misses it by a few per cent on
clusters imported from SimGrid (samples/simgrid/g5k-nancy-21.json at 164 messages: 169
rounds where 164 suffice).

:func:`link_rounds` starts from the König matchings, padded with empty rounds up to the
links' own bound, and removes the overload by *Kempe swaps*: the edges of two rounds a and b
that form the alternating path (or cycle) through one edge of an overloaded link are
exchanged between a and b, which keeps both rounds matchings and every count (each edge
changes round, not link).  A swap is made when it lowers the total overload (or keeps it,
now and then, to leave a plateau); the search is seeded, so deterministic, and bounded by
:data:`KEMPE_STEPS`.  Either every round fits, and the timetable reaches the largest
port and link load (nothing shorter exists), or the caller keeps its list schedule.
proofs/timed-schedule.md, "Rounds on shared links".
"""

from __future__ import annotations

import math
import random

from ..platform import Arc
from .matchings import max_weighted_degree, weighted_edge_coloring


#: Swaps tried at most (each looks at :data:`PARTNERS` other rounds): the work bound.
KEMPE_STEPS = 2_000
#: The search also stops after this many steps in a row without a lower overload.
STALL_STEPS = 300
#: Rounds a swap considers exchanging with, drawn at random.
PARTNERS = 40
#: Probability of a swap that keeps the overload (a plateau move).
SIDEWAYS = 0.3
#: Rounds beyond which :func:`link_rounds` does not try (the search is per round).
MAX_ROUNDS = 5_000


def link_rounds(used: dict[Arc, int], parts: dict, capacity: dict, rounds: int,
                seed: int = 0) -> list[set[Arc]] | None:
    """``rounds`` matchings (sets of arcs, one transfer each) that together hold every
    arc ``used[arc]`` times and in which every shared link's parts (``parts``: {arc:
    [(link id, part)]}, ``capacity``: {link id: capacity}) fit; None when the bounded
    search does not find them or ``rounds`` is below the largest degree."""
    if rounds > MAX_ROUNDS or max_weighted_degree(used) > rounds:
        return None   # checked first: the colouring below has one set per round
    colouring = [set(m.edges) for m in weighted_edge_coloring(used)
                 for _ in range(m.weight)]
    state = _Rounds(colouring + [set() for _ in range(rounds - len(colouring))],
                    parts, capacity)
    if not kempe_search(state, seed):
        return None
    check_rounds(used, parts, capacity, state.rounds)
    return state.rounds


def kempe_search(state: "KempeRounds", seed: int) -> bool:
    """Kempe swaps on ``state`` until no round is overloaded (True), or the work bound
    :data:`KEMPE_STEPS` is spent or :data:`STALL_STEPS` steps in a row found no lower
    overload (False).  Seeded: the same rounds, the same result."""
    rng = random.Random(seed)
    lowest, stalled = state.total, 0
    for _ in range(KEMPE_STEPS):
        if not state.total or stalled >= STALL_STEPS:
            break
        state.step(rng)
        stalled = 0 if state.total < lowest else stalled + 1
        lowest = min(lowest, state.total)
    return not state.total


class KempeRounds:
    """Rounds that are matchings, each with its use of the resources a matching does
    not see (``use``), its overload (``over``) and the total: the local search shared
    by shared links (:class:`_Rounds`) and a collective's routes
    (:mod:`.route_rounds`).  A case says what an edge is: :meth:`_overloaded_edge`,
    :meth:`_kempe`, :meth:`_moved`, :meth:`_over`, :meth:`_swap`."""

    rounds: list
    use: list
    over: list
    total: int

    def step(self, rng: random.Random) -> None:
        """One Kempe swap out of a random overloaded round, if one helps."""
        a = rng.choice([i for i, over in enumerate(self.over) if over])
        edge = self._overloaded_edge(a, rng)
        best = None
        for b in rng.sample(range(len(self.rounds)), min(len(self.rounds), PARTNERS)):
            if b == a:
                continue
            out_a, out_b = self._kempe(edge, a, b)
            use_a = self._moved(self.use[a], out_a, out_b)
            use_b = self._moved(self.use[b], out_b, out_a)
            over_a, over_b = self._over(use_a), self._over(use_b)
            change = over_a + over_b - self.over[a] - self.over[b]
            if best is None or change < best[0]:
                best = (change, b, out_a, out_b, use_a, use_b, over_a, over_b)
        if best is None or best[0] > 0 or (best[0] == 0 and rng.random() >= SIDEWAYS):
            return
        change, b, out_a, out_b, use_a, use_b, over_a, over_b = best
        for r, gone, came, use, over in ((a, out_a, out_b, use_a, over_a),
                                         (b, out_b, out_a, use_b, over_b)):
            self._swap(r, gone, came)
            self.use[r], self.over[r] = use, over
        self.total += change


class _Rounds(KempeRounds):
    """Rounds of arcs, each one's use of the shared links and the total overload."""

    def __init__(self, rounds, parts, capacity):
        self.rounds = rounds
        self.parts, self.capacity = parts, capacity
        self.sends = [{u: v for u, v in r} for r in rounds]
        self.gets = [{v: u for u, v in r} for r in rounds]
        self.use = [self._use(r) for r in rounds]
        self.over = [self._over(u) for u in self.use]
        self.total = sum(self.over)

    def _use(self, arcs) -> dict[str, int]:
        return _link_use(self.parts, dict.fromkeys(arcs, 1))

    def _over(self, use) -> int:
        capacity = self.capacity
        return sum(x - capacity[lid] for lid, x in use.items() if x > capacity[lid])

    def _overloaded_edge(self, a: int, rng: random.Random) -> Arc:
        """An arc of round a on one of its overloaded links, at random."""
        lid = rng.choice(sorted(l for l, x in self.use[a].items() if x > self.capacity[l]))
        return rng.choice(sorted(e for e in self.rounds[a]
                                 if any(l == lid for l, _ in self.parts.get(e, ()))))

    def _swap(self, r: int, gone, came) -> None:
        self.rounds[r] = (self.rounds[r] - gone) | came
        self.sends[r] = {u: v for u, v in self.rounds[r]}
        self.gets[r] = {v: u for u, v in self.rounds[r]}

    def _moved(self, use: dict, gone, came) -> dict[str, int]:
        """A round's link use once the arcs ``gone`` left it and ``came`` joined."""
        use = dict(use)
        for arcs, sign in ((gone, -1), (came, 1)):
            for arc in arcs:
                for lid, part in self.parts.get(arc, ()):
                    use[lid] = use.get(lid, 0) + sign * part
        return use

    def _kempe(self, arc: Arc, a: int, b: int) -> tuple[set, set]:
        """The edges of rounds a and b on the alternating path or cycle through ``arc``
        (in round a): (those in a, those in b)."""
        found = {a: {arc}, b: set()}
        stack = [(arc, a)]
        while stack:
            (u, v), r = stack.pop()
            other = b if r == a else a
            for nxt in ((self.gets[other].get(v), v), (u, self.sends[other].get(u))):
                if None not in nxt and nxt not in found[other]:
                    found[other].add(nxt)
                    stack.append((nxt, other))
        return found[a], found[b]


def rounds_needed(used: dict[Arc, int], parts: dict, capacity: dict) -> int:
    """The fewest rounds any timetable needs: the largest port degree and, per shared
    link, its parts over all transfers divided by its capacity (rounded up)."""
    return max([max_weighted_degree(used),
                *(math.ceil(x / capacity[lid])
                  for lid, x in _link_use(parts, used).items())])


def _link_use(parts: dict, counts: dict) -> dict[str, int]:
    """Per shared link, the parts its transfers hold: ``counts`` {arc: transfers}."""
    use: dict[str, int] = {}
    for arc, k in counts.items():
        for lid, part in parts.get(arc, ()):
            use[lid] = use.get(lid, 0) + k * part
    return use


def check_rounds(used, parts, capacity, rounds) -> None:
    """Runtime postcondition: every round is a matching within every link's capacity,
    and the rounds hold each arc exactly ``used[arc]`` times."""
    count: dict[Arc, int] = {}
    for r in rounds:
        senders = [u for u, _ in r]
        receivers = [v for _, v in r]
        if len(set(senders)) != len(senders) or len(set(receivers)) != len(receivers):
            raise AssertionError("postcondition: a round is not a matching")
        for arc in r:
            count[arc] = count.get(arc, 0) + 1
        use = _link_use(parts, dict.fromkeys(r, 1))
        if any(x > capacity[lid] for lid, x in use.items()):
            raise AssertionError("postcondition: a round overloads a shared link")
    if {a: k for a, k in count.items() if k} != {a: k for a, k in used.items() if k}:
        raise AssertionError("postcondition: the rounds do not hold the counts")
