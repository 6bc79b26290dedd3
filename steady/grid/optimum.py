"""The exact optimal makespan of the hierarchical broadcast, for small grids.

Not in seed 001: the paper measures its heuristics against the "global minimum", the
best makespan any of them finds (001 §6, Figure 4), because "it is too expensive to find
the optimal schedule".  For up to ~10 clusters of 001 Table 2 it is not: a branch and
bound over the schedules in a canonical order finds the optimum exactly, so that each
heuristic's true optimality gap is known (proofs/grid-optimum.md).

The search enumerates decisions "i sends to j" in the order of their start times (ties:
the sender with the smaller index first).  Every schedule in which coordinators send as
soon as they can (a schedule cannot gain by idling, proofs/grid-model.md) has exactly one
such sequence, and choosing a send that starts at s closes every other coordinator that
is free before s: it will never send again, so its finish is known.  A node of the search
is cut when one of two lower bounds of its completions reaches the best makespan found so
far (initially the best heuristic's):

* the *path bound*: the finish of the closed clusters, RT_i + T_i for the open ones, and
  for every cluster j still in B its shortest arrival from the open senders (each
  starting at its RT_i, nobody ever busy: Dijkstra) plus T_j;
* the *counting bound*: no schedule informs clusters faster than the free process in
  which every informed coordinator sends every g_min and each message arrives c_min after
  its start (the smallest gap and gap + latency of the grid); its k-th arrival is a lower
  bound of the k-th arrival in B, and pairing the earliest arrivals with the longest T
  gives a bound on the makespan.  It is what cuts the nearly homogeneous grids, where all
  shortest paths are one hop.

Times are scaled to integers (by the least common multiple of the denominators) inside
the search; the optimal schedule is then replayed in the grid's own exact numbers and
checked by the independent checker.  :mod:`steady.grid.cpsat` solves the same problem
with CP-SAT, without relying on the canonical order, to cross-check this search.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from fractions import Fraction

from ..numbers import lcm_of_denominators
from .check import check
from .heuristics import HEURISTICS
from .model import Grid
from .schedule import GridSchedule, lower_bound, replay

#: Above this many clusters :func:`optimal_schedule` refuses unless told otherwise: the
#: number of schedules grows like (n-1)! Catalan(n-1) (1.8e9 at 10 clusters), and a
#: nearly homogeneous grid of 10 clusters can take minutes.
DEFAULT_MAX_CLUSTERS = 10


class SearchLimit(Exception):
    """The search explored ``node_limit`` nodes without closing the gap."""


@dataclass(frozen=True)
class Optimum:
    """The optimal schedule and how the search went: ``nodes`` explored, the ``start``
    upper bound it was given (the best heuristic makespan)."""

    schedule: GridSchedule
    nodes: int
    start: int | Fraction

    @property
    def makespan(self):
        return self.schedule.makespan


def scaled_times(grid: Grid):
    """(scale, g, c, T): the gaps g_ij, the transfer times c_ij = g_ij + L_ij and the
    broadcast times T_k multiplied by ``scale``, the lcm of all denominators, as ints."""
    scale = lcm_of_denominators([x for row in grid.g for x in row]
                                + [x for row in grid.L for x in row] + list(grid.T))
    n = grid.size

    def s(x):
        return int(x * scale)

    g = [[s(grid.g[i][j]) for j in range(n)] for i in range(n)]
    c = [[g[i][j] + s(grid.L[i][j]) for j in range(n)] for i in range(n)]
    return scale, g, c, [s(t) for t in grid.T]


def optimal_schedule(grid: Grid, upper=None, node_limit: int | None = None,
                     max_clusters: int = DEFAULT_MAX_CLUSTERS) -> Optimum:
    """The exact minimum makespan and a schedule reaching it (branch and bound).

    ``upper``: the makespan of a known schedule (e.g. the best heuristic's) to prune with
    from the start; the default runs every heuristic of :mod:`steady.grid.heuristics`
    first.  ``node_limit``: raise :class:`SearchLimit` after exploring that many nodes.
    Raises ValueError above ``max_clusters`` clusters.
    Postconditions: the schedule passes the checker, its makespan is >= the
    shortest-arrival bound and <= ``upper``.
    """
    if grid.size > max_clusters:
        raise ValueError(f"{grid.size} clusters: the exact search is limited to "
                         f"{max_clusters} (raise max_clusters to insist)")
    incumbent = None
    if upper is None:
        incumbent = min((f(grid) for _, f in HEURISTICS.values()),
                        key=lambda s: s.makespan)
        upper = incumbent.makespan
    scale, g, c, T = scaled_times(grid)
    search = _Search(grid.size, grid.root, g, c, T, Fraction(upper) * scale, node_limit)
    search.run()
    if search.best_pairs is not None:
        schedule = replay(grid, search.best_pairs, "optimum")
    elif incumbent is not None:   # only reachable if the search were wrong: checked below
        schedule = replay(grid, [(s.sender, s.receiver) for s in incumbent.chronological()],
                          "optimum")
    else:
        raise ValueError(f"no schedule has a makespan of at most upper={upper}")
    check(grid, schedule)
    if not lower_bound(grid) <= schedule.makespan <= upper:
        raise AssertionError("postcondition (optimum): makespan outside [shortest-arrival "
                             "bound, start upper bound]")
    return Optimum(schedule, search.nodes, upper)


def path_bound(ready, senders, B, closed, c, T):
    """The path bound of a partial schedule: max of ``closed`` (the finish of the closed
    clusters), RT_i + T_i for the ``senders`` still open, and for every j in ``B`` its
    shortest arrival from the open senders, each starting at its RT_i and never busy
    (Dijkstra on c), plus T_j (proofs/grid-optimum.md, "The path bound")."""
    bound = closed
    for i in senders:
        bound = max(bound, ready[i] + T[i])
    dist = {j: min(ready[i] + c[i][j] for i in senders) for j in B}
    todo = set(B)
    while todo:          # |B| <= n is small: a scan beats a heap
        k = min(todo, key=dist.__getitem__)
        todo.discard(k)
        dk = dist[k]
        bound = max(bound, dk + T[k])
        for j in todo:
            if dk + c[k][j] < dist[j]:
                dist[j] = dk + c[k][j]
    return bound


def counting_bound(starts, T_B, g_min, c_min):
    """The counting bound: ``starts`` the times the open senders are free, ``T_B`` the
    broadcast times of the clusters of B.  In the free process every informed coordinator
    sends every g_min and each message arrives c_min after its start; its k-th arrival is
    at most the k-th arrival in B of any schedule, and the k-th earliest arrival goes
    with the k-th longest T (proofs/grid-optimum.md, "The counting bound")."""
    starts = sorted(starts)                # a sorted list is a heap
    bound = 0
    for t in sorted(T_B, reverse=True):
        s = heapq.heappop(starts)
        bound = max(bound, s + c_min + t)
        heapq.heappush(starts, s + g_min)       # the sender's next send
        heapq.heappush(starts, s + c_min)       # the new cluster's first send
    return bound


def initial_bounds(grid: Grid) -> tuple:
    """(path bound, counting bound) before the first send, in the grid's units: two
    lower bounds of the optimal makespan (the first is
    :func:`steady.grid.schedule.lower_bound`)."""
    scale, g, c, T = scaled_times(grid)
    n, root = grid.size, grid.root
    ready = [None] * n
    ready[root] = 0
    B = [j for j in range(n) if j != root]
    g_min, c_min = _minimum_times(g, c, root)
    return (Fraction(path_bound(ready, [root], B, 0, c, T), scale),
            Fraction(counting_bound([0], [T[j] for j in B], g_min, c_min), scale))


def _minimum_times(g, c, root):
    """(g_min, c_min) over the sends that can happen: any sender, any receiver but the
    root's cluster."""
    n = len(g)
    others = [(i, j) for i in range(n) for j in range(n) if i != j and j != root]
    return min(g[i][j] for i, j in others), min(c[i][j] for i, j in others)


class _Search:
    """Depth-first branch and bound in integers; ``best`` is the makespan to beat."""

    def __init__(self, n, root, g, c, T, upper, node_limit):
        self.n, self.g, self.c, self.T = n, g, c, T
        # schedules equal to ``upper`` are wanted too (``upper`` may be a Fraction)
        self.best = int(upper) + 1
        self.best_pairs = None
        self.node_limit = node_limit
        self.nodes = 0
        self.ready = [None] * n
        self.ready[root] = 0
        self.pairs: list[tuple[int, int]] = []
        self.g_min, self.c_min = _minimum_times(g, c, root)

    def run(self) -> None:
        self._node(0, -1, 0)

    def _node(self, t, last, closed) -> None:
        self.nodes += 1
        if self.node_limit is not None and self.nodes > self.node_limit:
            raise SearchLimit(f"more than {self.node_limit} nodes")
        ready, n = self.ready, self.n
        open_ = [i for i in range(n) if ready[i] is not None
                 and (ready[i] > t or (ready[i] == t and i > last))]
        B = [j for j in range(n) if ready[j] is None]
        if not B:
            value = max([closed] + [ready[i] + self.T[i] for i in open_])
            if value < self.best:
                self.best, self.best_pairs = value, list(self.pairs)
            return
        c, g, T = self.c, self.g, self.T
        if path_bound(ready, open_, B, closed, c, T) >= self.best or counting_bound(
                [ready[i] for i in open_], [T[j] for j in B], self.g_min,
                self.c_min) >= self.best:
            return
        # the earliest arrivals first: good schedules early, so the bounds cut more
        moves = sorted((ready[i] + c[i][j], i, j) for i in open_ for j in B)
        best = self.best
        for arrival, i, j in moves:
            s = ready[i]
            # the two finishes this send fixes at once (cheaper than entering the node)
            if arrival + T[j] >= best or s + g[i][j] + T[i] >= best:
                continue
            shut = closed
            for k in open_:   # free before s (or at s with a smaller index): closed now
                if k != i and (ready[k] < s or (ready[k] == s and k < i)):
                    shut = max(shut, ready[k] + T[k])
            if shut >= best:
                continue
            ready[i], ready[j] = s + g[i][j], s + c[i][j]
            self.pairs.append((i, j))
            self._node(s, i, shut)
            self.pairs.pop()
            ready[i], ready[j] = s, None
            best = self.best
