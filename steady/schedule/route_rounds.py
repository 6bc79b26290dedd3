"""Rounds for a collective's routes of one cost (ours; issue 43, on 002 §5.4.1
Theorem 6 and the Kempe swaps of :mod:`.rounds`).

On today's fabrics many routes cost the same and hold every resource they cross whole
(an NVSwitch box: GPU -> switch -> GPU at 300 GB/s each hop; a fat tree whose links all
run at one speed; the InfiniBand part of a multi-box platform).  A timetable of such
routes may as well be a sequence of *rounds* of one message time c, each a set of routes
that share no resource.  Every route holds a *first* resource (its sender's out-port in
the one-port model, its first link in the multi-port one) and a *last* one, and no
route holds another's first or last resource inside (a compute node ends every route):
the counts form a bipartite multigraph between first and last resources, whose largest
degree is the largest load of those resources, and König's theorem
(:func:`~.matchings.weighted_edge_coloring`) splits it into that many matchings -- on
the ends alone nothing is shorter.  The resources inside the routes (the links between
switches) are a constraint per round, repaired by Kempe swaps as :mod:`.rounds` does for
shared links: the edges of two rounds on the alternating path through an overloaded
route's edge change rounds, which keeps both rounds matchings and every count.  The
search is seeded and bounded (:data:`KEMPE_STEPS`); either every round fits, and the
rounds reach the largest load of the component (nothing shorter exists), or the caller
keeps its list schedule.  proofs/collectives.md, "Timetables".
"""

from __future__ import annotations

import random

from .matchings import max_weighted_degree, weighted_edge_coloring
from .rounds import MAX_ROUNDS, KempeRounds, kempe_search


def route_rounds(used: dict, held: dict, rounds: int, seed: int = 0) -> list | None:
    """``rounds`` lists of routes, each list holding no resource twice, that together
    hold every route ``used[route]`` times (``held``: {route: [resource, ...]} with the
    first and last resources first and last); None when the bounded search does not
    find them or ``rounds`` is below the ends' largest degree."""
    label: dict = {}   # the colouring reads node names: resources by number
    for route in sorted(used):
        for res in (held[route][0], held[route][-1]):
            label.setdefault(res, str(len(label)))
    ends = {route: (label[held[route][0]], label[held[route][-1]]) for route in used}
    weights: dict = {}
    for route, k in used.items():
        weights[ends[route]] = weights.get(ends[route], 0) + k
    if rounds > MAX_ROUNDS or max_weighted_degree(weights) > rounds:
        return None
    pool = {edge: [] for edge in weights}
    for route in sorted(used):
        pool[ends[route]].extend([route] * used[route])
    start = []
    for matching in weighted_edge_coloring(weights):
        for _ in range(matching.weight):
            start.append({a: (b, pool[(a, b)].pop()) for a, b in matching.edges})
    start += [{} for _ in range(rounds - len(start))]
    inner = {route: tuple(held[route][1:-1]) for route in used}
    state = _RouteRounds(start, inner)
    if not kempe_search(state, seed):
        return None
    found = [[route for _, route in r.values()] for r in state.rounds]
    check_route_rounds(used, held, found)
    return found


class _RouteRounds(KempeRounds):
    """The rounds ({first: (last, route)}), each round's use of the inner resources and
    the total overload."""

    def __init__(self, rounds, inner):
        self.rounds = rounds
        self.inner = inner
        self.gets = [{b: a for a, (b, _) in r.items()} for r in rounds]
        self.use = [self._use(r.values()) for r in rounds]
        self.over = [self._over(u) for u in self.use]
        self.total = sum(self.over)

    def _use(self, items) -> dict:
        use: dict = {}
        for _, route in items:
            for res in self.inner[route]:
                use[res] = use.get(res, 0) + 1
        return use

    @staticmethod
    def _over(use) -> int:
        return sum(x - 1 for x in use.values() if x > 1)

    def _overloaded_edge(self, a: int, rng: random.Random):
        """The first resource of a route of round a through one of its overloaded
        resources, at random."""
        res = rng.choice(sorted(r for r, x in self.use[a].items() if x > 1))
        return rng.choice(sorted(f for f, (_, route) in self.rounds[a].items()
                                 if res in self.inner[route]))

    def _swap(self, r: int, gone, came) -> None:
        for f, _ in gone:
            del self.rounds[r][f]
        for f, item in came:
            self.rounds[r][f] = item
        self.gets[r] = {last: f for f, (last, _) in self.rounds[r].items()}

    def _moved(self, use: dict, gone, came) -> dict:
        use = dict(use)
        for items, sign in ((gone, -1), (came, 1)):
            for _, (_, route) in items:
                for res in self.inner[route]:
                    use[res] = use.get(res, 0) + sign
        return use

    def _kempe(self, first, a: int, b: int) -> tuple[list, list]:
        """The edges of rounds a and b on the alternating path or cycle through the
        edge of ``first`` in round a: (those in a, those in b), as (first, (last,
        route))."""
        found = {a: {first}, b: set()}
        stack = [(first, a)]
        while stack:
            f, r = stack.pop()
            last = self.rounds[r][f][0]
            other = b if r == a else a
            for g in (self.gets[other].get(last), f if f in self.rounds[other] else None):
                if g is not None and g not in found[other]:
                    found[other].add(g)
                    stack.append((g, other))
        return ([(f, self.rounds[a][f]) for f in sorted(found[a])],
                [(f, self.rounds[b][f]) for f in sorted(found[b])])


def check_route_rounds(used: dict, held: dict, rounds: list) -> None:
    """Runtime postcondition: no round holds a resource twice, and the rounds hold every
    route exactly ``used[route]`` times."""
    count: dict = {}
    for r in rounds:
        seen: set = set()
        for route in r:
            for res in held[route]:
                if res in seen:
                    raise AssertionError("postcondition: a round holds a resource twice")
                seen.add(res)
            count[route] = count.get(route, 0) + 1
    if count != {route: k for route, k in used.items() if k}:
        raise AssertionError("postcondition: the rounds do not hold the counts")


#: Search nodes (route choices tried) per round of :func:`rerouted_rounds`.
ROUTING_NODES = 20_000


def rerouted_rounds(counts: dict, choices: dict, rounds: int) -> list | None:
    """Rounds whose routes are chosen per round (ours): ``counts`` {(first, last):
    messages} between first and last resources, ``choices`` {(first, last): [(route,
    inner resources), ...]} the routes of one cost that hold those ends and whole
    resources; König's matchings of the ends (as :func:`route_rounds`), then in every
    round each pair of ends gets one of its routes so that no inner resource is held
    twice -- a depth-first search, the pairs with the fewest routes first, at most
    :data:`ROUTING_NODES` choices per round, then a bounded repair by minimum conflicts
    (:func:`repaired_routing`; a rearrangeable fabric, such as a fat tree, routes any
    matching of its hosts so).  Returns the rounds as lists of
    routes, or None when a round finds no routing or ``rounds`` is below the ends'
    largest degree."""
    label: dict = {}
    for a, b in sorted(counts):
        label.setdefault(a, str(len(label)))
        label.setdefault(b, str(len(label)))
    weights = {(label[a], label[b]): k for (a, b), k in counts.items()}
    back = {(label[a], label[b]): (a, b) for a, b in counts}
    if rounds > MAX_ROUNDS or max_weighted_degree(weights) > rounds:
        return None
    found, memo = [], {}
    for matching in weighted_edge_coloring(weights):
        pairs = tuple(sorted(back[e] for e in matching.edges))
        if pairs not in memo:
            memo[pairs] = _routing(pairs, choices)
        if memo[pairs] is None:
            return None
        found.extend([list(memo[pairs])] * matching.weight)
    return found + [[] for _ in range(rounds - len(found))]


def _routing(pairs, choices):
    """One route per pair of ends, no inner resource twice, or None (bounded DFS, then
    :func:`repaired_routing` when the DFS runs out of nodes)."""
    order = sorted(pairs, key=lambda e: (len(choices[e]), e))
    chosen: list = []
    held: set = set()
    budget = [ROUTING_NODES]

    def place(i) -> bool:
        if i == len(order):
            return True
        for route, inner in choices[order[i]]:
            if budget[0] <= 0:
                return False
            budget[0] -= 1
            if held.isdisjoint(inner):
                held.update(inner)
                chosen.append(route)
                if place(i + 1):
                    return True
                chosen.pop()
                held.difference_update(inner)
        return False

    if place(0):
        return tuple(chosen)
    return repaired_routing(order, choices)


#: Route changes that :func:`repaired_routing` tries for one matching.
REPAIR_STEPS = 20_000
#: The share of :func:`repaired_routing`'s moves that take a route at random (a random
#: walk out of the local minima where pure minimum conflicts stalls: it routed no
#: random permutation of a k = 6 fat tree's hosts, with 1/10 of random moves all).
WALK = 0.1


def repaired_routing(order, choices, seed: int = 0):
    """One route per pair of ends of ``order``, no inner resource twice, by minimum
    conflicts (ours, after Minton et al. 1992): each pair first takes, in turn, its
    route through the fewest resources already held; then, while some resource is held
    twice, a pair through one such resource (at random, seeded) moves to its route of
    fewest conflicts with the others (ties at random; a share :data:`WALK` of the moves
    to a route at random), at most :data:`REPAIR_STEPS` moves.  Where the depth-first search of :func:`_routing` runs out of nodes (a fat
    tree of k = 6: pairs of 1, 3 and 9 routes, 54 at once), this finds the routing a
    rearrangeable fabric has.  Returns the routes in ``order``, or None."""
    rng = random.Random(seed)
    use: dict = {}
    pick: list = []

    def conflicts(inner) -> int:
        return sum(use.get(res, 0) for res in inner)

    def hold(j, sign) -> None:
        for res in choices[order[j]][pick[j]][1]:
            use[res] = use.get(res, 0) + sign

    for j, e in enumerate(order):
        pick.append(min(range(len(choices[e])), key=lambda i: conflicts(choices[e][i][1])))
        hold(j, 1)
    through: dict = {}
    for j, e in enumerate(order):
        for i, (_, inner) in enumerate(choices[e]):
            for res in inner:
                through.setdefault(res, []).append(j)
    for _ in range(REPAIR_STEPS):
        bad = sorted(res for res, x in use.items() if x > 1)
        if not bad:
            return tuple(choices[e][pick[j]][0] for j, e in enumerate(order))
        res = rng.choice(bad)
        j = rng.choice([j for j in sorted(set(through[res]))
                        if res in choices[order[j]][pick[j]][1]])
        hold(j, -1)
        if rng.random() < WALK:
            pick[j] = rng.randrange(len(choices[order[j]]))
        else:
            scores = [conflicts(inner) for _, inner in choices[order[j]]]
            least = min(scores)
            pick[j] = rng.choice([i for i, x in enumerate(scores) if x == least])
        hold(j, 1)
    return None
