"""A collective's periodic schedule over a finite horizon K (issue 43; ours, the
collective form of 002 §5.5's warm-up and Lemma 7's bound; proofs/collectives.md,
"Finite horizon").

The schedule (a verified steady-schedule of a collective, version 1 or 2) runs period
after period from time 0 under the period rule: every tree's root sends the chunks of
batch b (its ``weight`` messages) in period b, and a node sends on a tree edge in
period b + lag what it received (out-trees), or the reduction of its own share with what
its children sent (in-trees), in earlier periods, where the edge's *lag* is the number
of edges on the longest chain of the tree that ends where the edge starts (its sender's
depth in an out-tree, its sender's height above the leaves in an in-tree).  An
allreduce's out-trees of a root carry batch b once its in-trees have brought the
root batch b's reduction: H_in(r) = ceil(D_in / P) periods later, D_in the latest end
of r's in-tree chunks of a batch (below).  Repeating a period whose transfers all lie
in [0, period) keeps the resource rule at every instant (what :func:`steady.verify`
checked of the one period), so the horizon needs no new check of capacity, only of
time.

A transfer of m messages lasts its ``duration`` (m·c_P but where it runs slower than its
route on a multi-port platform), its i-th message ending at start + (i + 1)·duration / m.
Message j of a tree (the j-th it sends on each edge, in start order) of batch b is
complete -- at every compute node for an out-tree, reduced at the root for an in-tree,
at every node for an allreduce -- at b·P + D_j, D_j the latest over the tree's edges of
(lag·P + the end of the edge's j-th message in the period); the count by K is exact
(floor((K - D_j) / P) + 1 batches when D_j <= K), in time linear in the messages of
one period whatever K.

The bound: the transfers of any schedule over [0, K], divided by K, are a fractional
packing of the collective's trees whose rate at root r is n_r / K for n_r chunks of r
complete by K (each complete chunk crossed a spanning arborescence of its root), within
every resource's capacity; hence min_r n_r / ρ_r <= K·x*, certified by the optimum's
certificate.  The ratio reported is min_r n_r / (ρ_r·K·x*) <= 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

from ..numbers import format_exact
from ..schedule_file import IN, OUT, timed, transfer_time


@dataclass
class CollectiveHorizon:
    """What a collective's schedule completes by the horizon (module docstring); per
    root key ``"node"`` (``"node/in"`` and ``"node/out"`` stay one allreduce root)."""

    kind: str
    horizon: Fraction
    period: Fraction
    optimum: Fraction
    rates: dict                       # {root: ρ_r}
    delivered: dict                   # {root: chunks complete by K}
    per_period: dict                  # {root: chunks per period}
    warmup: dict                      # {root: periods before the first complete batch}
    about: dict = field(default_factory=dict)

    @property
    def bound(self) -> dict:
        """{root: K·x*·ρ_r}: what the optimum would complete (the ratio's scale)."""
        return {r: self.horizon * self.optimum * rho for r, rho in self.rates.items()}

    @property
    def ratio(self) -> Fraction:
        """min_r n_r / (ρ_r·K·x*): at most 1 (module docstring)."""
        return min(Fraction(self.delivered[r]) / b for r, b in self.bound.items())

    def to_dict(self) -> dict:
        return {"collective": self.kind, "horizon": format_exact(self.horizon),
                "period": format_exact(self.period), "optimum": format_exact(self.optimum),
                "ratio": format_exact(self.ratio),
                "roots": {r: {"delivered": self.delivered[r],
                              "bound": format_exact(self.bound[r]),
                              "per_period": self.per_period[r],
                              "warmup_periods": self.warmup[r]} for r in self.rates},
                **{k: v for k, v in self.about.items()}}


def edge_lags(edges) -> dict:
    """{(sender, receiver): lag} of a tree's edges in the data's direction: the edges on
    the longest chain that ends at the sender (0 at the leaves of an in-tree and at the
    root of an out-tree)."""
    into: dict = {}
    for s, r in edges:
        into.setdefault(r, []).append(s)
    memo: dict = {}

    def chain(v):   # iterative depth of the longest chain ending at v
        stack = [v]
        while stack:
            u = stack[-1]
            todo = [s for s in into.get(u, ()) if s not in memo]
            if todo:
                stack.extend(todo)
                continue
            memo[u] = max((memo[s] + 1 for s in into.get(u, ())), default=0)
            stack.pop()
        return memo[v]

    return {(s, r): chain(s) for s, r in edges}


def message_ends(schedule) -> dict:
    """{(tree, edge): [end of its j-th message in the period, ...]}: each edge's
    transfers in start order, message by message."""
    table = timed(schedule)
    platform, trees = table.platform, table.trees
    by_edge: dict = {}
    for t in table.transfers:
        by_edge.setdefault((t.tree, t.arc), []).append(t)
    out = {}
    for key, transfers in by_edge.items():
        ends = []
        for t in sorted(transfers, key=lambda t: t.start):
            c = transfer_time(platform, trees, t) / t.messages   # a slowed one's too
            ends.extend(t.start + (i + 1) * c for i in range(t.messages))
        out[key] = ends
    return out


def collective_horizon(schedule, horizon, optimum: Fraction) -> CollectiveHorizon:
    """The chunks per root that ``schedule`` (a verified collective schedule) completes
    by ``horizon`` under the period rule, against K·x*·ρ_r (``optimum`` = x*, the
    certified rate per root)."""
    horizon = Fraction(horizon)
    if horizon <= 0:
        raise ValueError(f"the horizon must be > 0, not {horizon}")
    platform = schedule.platform
    spec = schedule.collective
    kind = spec.kind if spec is not None else "broadcast"
    period = schedule.period
    ends = message_ends(schedule)
    done: dict = {}            # {(root, direction): [D_j, ...]}
    for l, tree in enumerate(schedule.trees):
        root = tree.root or platform.source
        lags = edge_lags(tree.edges)
        for j in range(tree.weight):
            d = max(lags[e] * period + ends[(l, e)][j] for e in tree.edges)
            done.setdefault((root, tree.direction), []).append(d)
    roots = sorted({r for r, _ in done})
    rates = ({(v, d): rho for (v, d), rho in spec.roots(platform).items()}
             if spec is not None else {(platform.source, OUT): Fraction(1)})
    delivered, per_period, warmup, rho = {}, {}, {}, {}
    for r in roots:
        if (r, IN) in done and (r, OUT) in done:   # an allreduce: reduce, then gather
            shift = math.ceil(max(done[(r, IN)]) / period) * period
            finish = [shift + d for d in done[(r, OUT)]]
        else:
            finish = done.get((r, OUT)) or done[(r, IN)]
        delivered[r] = sum(math.floor((horizon - d) / period) + 1
                           for d in finish if d <= horizon)
        per_period[r] = len(finish)
        warmup[r] = max(math.ceil(d / period) for d in finish) - 1 if finish else 0
        rho[r] = next(x for (v, _), x in rates.items() if v == r)
    found = CollectiveHorizon(kind, horizon, period, Fraction(optimum), rho, delivered,
                              per_period, warmup)
    if found.ratio > 1:   # pragma: no cover - the certificate's bound forbids it
        raise AssertionError("postcondition: a horizon beats K·x* (module docstring)")
    return found


# -- the plan (issue 43: the plan of the consolidation issue carries the collectives) ---

def collective_plan(schedule, horizon, budget: int | None = None):
    """The finite-horizon plan of what :func:`collective_horizon` counts: every chunk
    that ``schedule`` (a verified collective schedule) completes by ``horizon`` under
    the period rule, each of its transfers at its place in the repeated timetable
    (batch b's message j of a tree on edge e in period b + lag_e, at the slot's offset;
    an allreduce's out-trees H_in periods later), one chunk per transfer.  The periods
    before every slot carries a chunk are the warm-up, those after the last complete
    batch the clean-up; chunks that would complete after ``horizon`` are left out, so
    the plan's chunks per root are the count's, exactly.  Chunks of a root are numbered
    in the order they complete (ties: batch, tree, message), so a prefix of them is
    complete at every time.  One out-root on a one-port platform without switches is a
    broadcast: the plan is then today's broadcast plan from that root (no
    ``collective``), the same file a broadcast's plan is.  Raises
    :class:`~steady.simulate.plan.TooLarge` beyond ``budget`` transfers (default: the
    plan's own budget, :data:`~steady.simulate.plan.MAX_TRANSFERS`)."""
    from .plan import MAX_TRANSFERS, Plan, TooLarge, Transfer, checked
    from .plan_streams import Stream, Streams

    horizon = Fraction(horizon)
    budget = MAX_TRANSFERS if budget is None else min(budget, MAX_TRANSFERS)
    table = timed(schedule)
    platform, trees, period = schedule.platform, schedule.trees, schedule.period
    spec = schedule.collective
    kind = spec.kind if spec is not None else "broadcast"
    slots: dict = {}                    # (tree, edge) -> [(start, end) of message j]
    for t in sorted(table.transfers, key=lambda t: t.start):
        c = transfer_time(platform, trees, t) / t.messages   # per message, slowed or not
        slots.setdefault((t.tree, t.arc), []).extend(
            (t.start + i * c, t.start + (i + 1) * c) for i in range(t.messages))
    unit = math.lcm(period.denominator,
                    *(x.denominator for v in slots.values() for s in v for x in s))
    lags = [edge_lags(tree.edges) for tree in trees]
    done = [[max(lags[l][e] * period + slots[(l, e)][j][1] for e in tree.edges)
             for j in range(tree.weight)] for l, tree in enumerate(trees)]
    by_root: dict = {}
    for l, tree in enumerate(trees):
        by_root.setdefault(tree.root or platform.source, {}).setdefault(
            tree.direction, []).extend((l, j) for j in range(tree.weight))
    index = {v: i for i, v in enumerate(platform.nodes)}
    rows, chunks, warm = [], [], 0
    for root in sorted(by_root, key=index.get):
        phases = by_root[root]
        if IN in phases and OUT in phases:        # an allreduce: reduce, then gather
            if len(phases[IN]) != len(phases[OUT]):  # pragma: no cover - verified
                raise AssertionError(f"{root}: in- and out-trees carry different chunks")
            shift = math.ceil(max(done[l][j] for l, j in phases[IN]) / period) * period
            pairs = [((li, ji, 0), (lo, jo, shift))
                     for (li, ji), (lo, jo) in zip(phases[IN], phases[OUT])]
        else:
            pairs = [((l, j, 0),) for l, j in next(iter(phases.values()))]
        finish = [done[l][j] + off for *_, (l, j, off) in [(p[-1],) for p in pairs]]
        batches = [math.floor((horizon - d) / period) + 1 if d <= horizon else 0
                   for d in finish]
        size = sum(n * sum(len(trees[l].edges) for l, _, _ in pairs[i])
                   for i, n in enumerate(batches))
        if len(rows) + size > budget:   # counted before the chunks are listed
            raise TooLarge(f"the plan of horizon {format_exact(horizon)} holds more than "
                           f"{budget} transfers")
        complete = sorted((b * period + d, b, i) for i, d in enumerate(finish)
                          for b in range(batches[i]))
        chunks.append((index[root], len(complete)))
        warm = max([warm] + [math.ceil(d / period) - 1 for d in finish])
        for c, (_, b, i) in enumerate(complete):
            for l, j, off in pairs[i]:
                for e in trees[l].edges:
                    start, end = slots[(l, e)][j]
                    at = ((b + lags[l][e]) * period + off + start) * unit
                    rows.append((int(at), index[e[0]], index[e[1]], c,
                                 int((end - start) * unit), l))
    rows.sort()
    transfers = tuple(Transfer(i, u, v, c, 1, at, d, l)
                      for i, (at, u, v, c, d, l) in enumerate(rows))
    about = {"period": period, "messages_per_period": schedule.messages_per_period,
             "forwarding": "period", "collective": kind, "horizon": horizon,
             "warmup_periods": warm}
    makespan = max((t.end for t in transfers), default=0)
    nodes = tuple(platform.nodes)
    streams = tuple(Stream(index[tree.root or platform.source], tree.direction,
                           {index[c]: r for c, r in tree.routes.items()})
                    for tree in trees)
    if platform.classic and len(chunks) == 1 and all(s.direction == OUT for s in streams):
        source, n = chunks[0]     # a broadcast from one root: today's plan
        return checked(Plan("steady schedule", nodes, source, n, unit, transfers,
                            makespan, about, platform))
    return checked(Plan("steady schedule", nodes, chunks[0][0], sum(n for _, n in chunks),
                        unit, transfers, makespan, about, platform,
                        Streams(kind, streams, tuple(chunks))))
