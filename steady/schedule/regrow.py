"""Trees regrown through a timetable's slots, by earliest arrival (ours; builds on 002
Thm 5's branchings and §5.4.2's free order inside a period).

A timed schedule (version 2) with N messages per period is, per link, a set of *message
slots*: fixed start times in the period.  Which tree each slot serves is free, as long
as every tree is a spanning arborescence and each slot serves exactly one tree: ports,
shared links, the period and so the certified ratio stay what they were.  What the
choice changes is how long a message takes to reach every node when the schedule is
repeated with pipelined forwarding (:mod:`steady.simulate.unroll`), and so what a
finite horizon loses: the trees of the optimum are deep (37 to 45 hops on
samples/random-50.json, where the links with messages are 11 hops deep), and each hop
waits for its tree's slot.

:func:`regrown` builds N trees of weight 1, one after the other.  Each grows from the
source like Dijkstra's algorithm on *unrolled* time: a node reached at time a (counted
from the start of the period the message leaves the source in) extends the tree over a
link whose first free slot starting at or after a (in this period or a later one) ends
earliest.  A link is taken only when the slots left after this tree still hold the
trees left to build: root-connectivity of the remaining slot counts >= k - 1 after
reserving the tree's links, the check of Lovász's proof of Edmonds' branching theorem
(:func:`steady.schedule.branchings.can_extend`), so the construction never gets stuck
(proofs/timed-schedule.md, "Regrown trees").  A link refused once stays refused for that
tree (reserving more links only lowers connectivity).  The unrolled arrival of a node is
exactly the pipelined rule's lag and offset there (one slot per tree and link).

Grown one after the other, the first trees reach every node 1.5 periods after they
leave the source and the last ones 9 to 14 (samples/random-50.json, M = 30): they get
the slots left over.  A bounded local search (:class:`_Swaps`) then evens them out:
two trees exchange the slots that bring a node its message when neither gets a cycle
and their latencies improve (there: mean 4.8 -> 3.6 periods, largest 14 -> 6).

The slots need not be only the timetable's: with ``idle`` (the default) the trees may
also take slots placed where the timetable leaves both ports of a link idle
(:mod:`.idle_slots`), and after the exchanges a node may *move* to a slot still free
when it gets its message earlier there; slots no tree takes are dropped.  The period,
and so the ratio, stay; on a 50-node random platform (seed 4) at M = 50 the trees lag
W = 3 periods instead of 5 (proofs/timed-schedule.md, Claim 5).

Work: one max-flow check per link tried, N trees, then at most the effort's `swap_moves`
exchanges evaluated (twice when moves were made), at most :data:`MOVE_SWEEPS` sweeps
of moves and :data:`~.idle_slots.IDLE_ROUNDS` rounds of idle slots; beyond
:data:`REGROW_WORK` it is not tried.  Runtime postcondition: :func:`check_regrown`
(the timetable's slots, each used at most once, or idle ones; spanning trees).
"""

from __future__ import annotations

import bisect
import heapq
import math
from collections import Counter

from ..exact.connectivity import Propagation
from ..platform import Arc
from .branchings import can_extend
from .idle_slots import busy_intervals, idle_slots
from .timetable import Timetable


#: Work of the growth at most, N·(|V| - 1)·|V|^2 (one connectivity check per slot, each
#: growing about as |V|^2): beyond, :func:`regrown` does not try.  It admits N <= 31 on
#: 200 nodes, where regrown trees are what brings a finite horizon within 1 % of K·TP*
#: (docs/limits.md gives the times measured).
REGROW_WORK = 250_000_000


def regrown(table: Timetable, swap_moves: int, idle: bool = True):
    """``table`` with the same period and N trees of weight 1 grown by earliest arrival
    and evened out by at most ``swap_moves`` exchanges (module docstring); with
    ``idle``, the trees may also use slots in the idle time of both ports of a link
    (:func:`steady.schedule.idle_slots.idle_slots`), and every message slot then left
    unused is dropped.  Otherwise the reason, in words."""
    if not table.runs:
        return "no transfers"
    platform = table.platform
    if not regrowable(table):
        return f"beyond the work bound of {REGROW_WORK} (N·|V|^3)"
    table, free = growth_slots(table, idle)
    grower = _Grower(platform, free, table.cost, table.period)
    trees = [grower.grow(table.messages - j) for j in range(table.messages)]
    swaps = _Swaps(platform.source, trees, table.cost, table.period)
    swaps.search(swap_moves)
    if swaps.moves(grower.free):   # a freed slot may open another exchange
        swaps.search(swap_moves)
    trees = swaps.trees()
    runs = {(l, arc): [(start, 1)] for l, (_, chosen) in enumerate(trees)
            for arc, start in chosen}
    new = Timetable.build(platform, [(parent, 1) for parent, _ in trees], runs,
                          table.period, table.unit)
    check_regrown(table, new, idle)
    return new


def most_regrown(platform) -> int:
    """The most messages per period whose trees :func:`regrown` grows on ``platform``
    (:data:`REGROW_WORK` over |V|^3)."""
    return REGROW_WORK // len(platform.nodes) ** 3


def regrowable(table: Timetable) -> bool:
    """Whether :func:`regrown` tries ``table``."""
    return table.messages <= most_regrown(table.platform)


def growth_slots(table: Timetable, idle: bool) -> tuple[Timetable, dict[Arc, list[int]]]:
    """(table, slots) the trees are regrown through: ``table`` in ticks fine enough for
    every link of the platform when ``idle`` (an idle slot may lie on a link the
    timetable does not use), and per link the sorted start ticks of its slots, with
    ``idle`` also of the idle ones (:func:`steady.schedule.idle_slots.idle_slots`)."""
    if idle:
        unit = math.lcm(table.unit, *(table.platform.cost(*arc).denominator
                                      for arc in table.platform.arcs))
        table = table.refined(unit)
    slots = table.arc_slots()
    if idle:
        for arc, starts in idle_slots(table.platform, slots, table.cost,
                                      table.period).items():
            slots[arc] = sorted(slots.get(arc, []) + starts)
    return table, slots


def unrolled(start, at, period):
    """When a slot starting at ``start`` in every period next starts at or after the
    unrolled time ``at``."""
    base = at - at % period
    return base + start if base + start >= at else base + period + start


class _Grower:
    """The free slots (per link, sorted start ticks) and their counts, shared by the
    trees grown one after the other."""

    def __init__(self, platform, free: dict[Arc, list[int]], cost: dict[Arc, int],
                 period: int):
        self.platform = platform
        self.period = period
        self.free = {arc: starts for arc, starts in free.items() if starts}
        self.cost = cost
        self.count = {arc: len(self.free.get(arc, ())) for arc in platform.arcs}
        self.out: dict[str, list[Arc]] = {}
        for arc in sorted(self.free):
            self.out.setdefault(arc[0], []).append(arc)
        self.prop = Propagation(platform)

    def first_slot(self, arc: Arc, at: int | None) -> tuple[int, int]:
        """(unrolled start, start in the period) of the first free slot of ``arc``
        starting at or after the unrolled time ``at`` (any slot for the source: None)."""
        free = self.free[arc]
        if at is None:
            return free[0], free[0]
        i = bisect.bisect_left(free, at % self.period)
        slot = free[i] if i < len(free) else free[0]  # none left in this period: wrap
        return unrolled(slot, at, self.period), slot

    def grow(self, k: int) -> tuple[dict, list]:
        """One tree, with ``k`` trees left to build (this one included): (parent map,
        [(arc, slot start tick)]); its slots are taken."""
        source = self.platform.source
        arrival: dict[str, int] = {source: 0}
        parent: dict[str, str] = {}
        chosen: list[tuple[Arc, int]] = []
        heap: list = []

        def offer(u: str, at: int | None) -> None:
            for arc in self.out.get(u, ()):
                if arc[1] not in arrival and self.count[arc]:
                    start, slot = self.first_slot(arc, at)
                    heapq.heappush(heap, (start + self.cost[arc], arc, slot))

        offer(source, None)
        while len(arrival) < len(self.platform.nodes):
            if not heap:  # pragma: no cover - excluded by Edmonds' theorem
                raise AssertionError("no slot extends the tree: invariant broken")
            end, arc, slot = heapq.heappop(heap)
            if arc[1] in arrival:
                continue
            if k > 1 and not can_extend(self.prop, self.count, k, parent, arc):
                continue
            parent[arc[1]] = arc[0]
            arrival[arc[1]] = end
            chosen.append((arc, slot))
            offer(arc[1], end)
        for arc, slot in chosen:
            self.count[arc] -= 1
            self.free[arc].remove(slot)
        return parent, chosen


def unrolled_starts(table: Timetable) -> list[dict[str, int]]:
    """Per tree of a timetable whose trees have weight 1: {node: the tick at which the
    slot bringing it the tree's message starts}, unrolled from the start of the period
    the message leaves the source in (a hop whose slot starts before the previous one
    has ended waits for the next period).  So the pipelined rule's lag of node v is
    ``start // period`` (proofs/timed-schedule.md, "Regrown trees")."""
    source, period = table.platform.source, table.period
    slot = {key: rs[0][0] for key, rs in table.runs.items()}
    out = []
    for l, tree in enumerate(table.trees):
        parent, start = tree.parent, {}
        for v in parent:
            chain = []
            while v not in start and v != source:
                chain.append(v)
                v = parent[v]
            for v in reversed(chain):   # from the shallowest: its parent is known
                u = parent[v]
                s = slot[(l, (u, v))]
                if u != source:
                    s = unrolled(s, start[u] + table.cost[(parent[u], u)], period)
                start[v] = s
        out.append(start)
    return out


#: Sweeps over all (tree, tree, node) triples at most (the exchanges evaluated are
#: bounded by the effort's ``swap_moves``).
SWEEPS = 8
#: Sweeps over all (tree, node) pairs at most of the moves to free slots.
MOVE_SWEEPS = 6


class _Swaps:
    """Local search on the grown trees (ours): two trees exchange the slots (and links)
    that bring a node v its message, when neither tree gets a cycle and the two trees'
    latencies improve.  Any such exchange keeps N spanning arborescences using every
    slot once (Claim 1 of proofs/timed-schedule.md, "Regrown trees").  A tree's score is
    its last arrival, then (1/20 as much) its mean arrival; arrivals below v change only
    in v's subtree.  The greedy growth favours the first trees (1.5 periods) over the
    last (9 to 14 on samples/random-50.json at M = 30); the swaps even that out.  An
    exchange is judged from v's subtree and the trees' last and summed arrivals, and
    skipped early by a lower bound on the later tree's rise, making the same exchanges
    as whole-tree scores (proofs/timed-schedule.md, Claim 4')."""

    def __init__(self, source, trees, cost, period: int):
        self.source, self.cost, self.period = source, cost, period
        self.parent = [dict(parent) for parent, _ in trees]
        self.slot = [{arc[1]: start for arc, start in chosen} for _, chosen in trees]
        # per tree, the cost of the link that brings each node its message
        self.into = [{v: cost[(u, v)] for v, u in parent.items()} for parent in self.parent]
        self.children = []
        for parent in self.parent:
            children: dict[str, set] = {}
            for v, u in parent.items():
                children.setdefault(u, set()).add(v)
            self.children.append(children)
        self.arrival = [self._arrivals(l, source, None) for l in range(len(trees))]
        self.scores = [self._score(arrival) for arrival in self.arrival]
        # each tree's last and summed arrivals: an exchange rescores from v's subtree
        self.last = [max(arrival.values(), default=0) for arrival in self.arrival]
        self.total = [sum(arrival.values()) for arrival in self.arrival]
        self.nodes = sorted(self.parent[0]) if trees else []

    def _arrivals(self, l: int, top: str, at: int | None) -> dict[str, int]:
        """Unrolled arrivals (slot ends) in ``top``'s subtree of tree l, ``top`` reached
        at ``at`` (None for the source), under the tree's current slots and links."""
        children = self.children[l]
        out, stack = {}, [(v, at) for v in children.get(top, ())]
        slot, period, into = self.slot[l], self.period, self.into[l]
        while stack:
            v, au = stack.pop()
            s = slot[v]
            if au is not None:   # unrolled(s, au, period), inline: the hot loop
                base = au - au % period
                s = base + s if base + s >= au else base + period + s
            a = out[v] = s + into[v]
            below = children.get(v)
            if below:
                stack.extend([(w, a) for w in below])
        return out

    #: A tree's score weighs its last arrival this many times |V| against the sum of
    #: its arrivals (the mean counts 1/LAST as much as the last).
    LAST = 20

    def _score(self, arrival) -> int:
        return self.LAST * len(arrival) * max(arrival.values()) + sum(arrival.values())

    def _below(self, l: int, x: str, v: str) -> bool:
        """Whether ``x`` lies in v's subtree of tree l."""
        parent = self.parent[l]
        while x != self.source:
            if x == v:
                return True
            x = parent[x]
        return False

    def _try(self, i: int, j: int, v: str) -> bool:
        parent_i, parent_j = self.parent[i], self.parent[j]
        ui, uj = parent_i[v], parent_j[v]
        si, sj = self.slot[i][v], self.slot[j][v]
        if ui == uj and si == sj:
            return False
        # arrivals below v only grow with v's (unrolled() is monotone): when v gets its
        # message no earlier in either tree, no score can fall (a value read for a
        # parent inside v's subtree is never used: the cycle test below refuses it)
        arrival_i, arrival_j = self.arrival[i], self.arrival[j]
        period, source = self.period, self.source
        at_i, at_j = sj, si   # _arrival_at(i, v, uj, sj) and (j, v, ui, si), inline
        if uj != source:
            au = arrival_i[uj]
            base = au - au % period
            at_i = base + sj if base + sj >= au else base + period + sj
        if ui != source:
            au = arrival_j[ui]
            base = au - au % period
            at_j = base + si if base + si >= au else base + period + si
        at_i += self.into[j][v]
        at_j += self.into[i][v]
        later_i = at_i >= arrival_i[v]
        if later_i and at_j >= arrival_j[v]:
            return False
        if self._below(i, uj, v) or self._below(j, ui, v):
            return False  # the exchange would close a cycle
        if later_i:   # the tree where v gets it earlier goes first
            i, j, at_i, at_j = j, i, at_j, at_i
        # only v's subtree moves in either tree (its new parent lies outside it, and
        # its subtree keeps its links and slots): the two scores follow from its
        # arrivals alone, the same integers as in full
        new_i = self._rescored(i, v, at_i)
        if new_i[0] - self.scores[i] + self._least_rise(j, v, at_j) >= 0:
            return False   # tree j's score rises at least that much
        new_j = self._rescored(j, v, at_j)
        if new_i[0] + new_j[0] < self.scores[i] + self.scores[j]:
            self._exchange(i, j, v)
            self._take(i, v, at_i, new_i)
            self._take(j, v, at_j, new_j)
            return True
        return False

    def _least_rise(self, l: int, v: str, at: int) -> int:
        """A lower bound on how much tree l's score rises when v gets its message at
        ``at`` instead (0 when that is earlier): no earlier, every arrival in v's
        subtree is no earlier either (unrolled() is monotone), so the sum rises by at
        least v's delay and the last arrival is at least ``at`` and the last before."""
        before = self.arrival[l][v]
        if at < before:
            return 0
        rise = at - before
        if at > self.last[l]:
            rise += self.LAST * len(self.arrival[l]) * (at - self.last[l])
        return rise

    def _rescored(self, l: int, v: str, at: int) -> tuple[int, int, int]:
        """(score, last, total) of tree l when v gets its message at ``at`` and its
        subtree follows (its links and slots as they are: v's own link and slot are not
        read; v's new parent lies outside it), counted from the subtree's arrivals and
        the tree's last and summed ones: :meth:`_score` of the whole tree's arrivals."""
        old, children = self.arrival[l], self.children[l]
        slot, period, into = self.slot[l], self.period, self.into[l]
        gone = gone_last = old[v]
        came = came_last = at
        stack = [(w, at) for w in children.get(v, ())]
        while stack:   # the hot loop: _arrivals, with only the sums and largest kept
            w, au = stack.pop()
            s = slot[w]
            base = au - au % period
            a = (base + s if base + s >= au else base + period + s) + into[w]
            b = old[w]
            gone += b
            came += a
            if b > gone_last:
                gone_last = b
            if a > came_last:
                came_last = a
            below = children.get(w)
            if below:
                stack.extend([(x, a) for x in below])
        total, last = self.total[l] + came - gone, self.last[l]
        if came_last >= last:
            last = came_last
        elif gone_last == last:   # the last arrival may have been in the subtree
            sub = self._arrivals(l, v, at)
            sub[v] = at
            last = max([a for w, a in old.items() if w not in sub] + [came_last])
        return self.LAST * len(old) * last + total, last, total

    def _take(self, l: int, v: str, at: int, new: tuple) -> None:
        """Tree l's score, last and total set from :meth:`_rescored`'s, and its
        arrivals with v's at ``at`` (its links and slots as they are now)."""
        self.scores[l], self.last[l], self.total[l] = new
        arrival = self.arrival[l]
        arrival.update(self._arrivals(l, v, at))
        arrival[v] = at

    def _arrival_at(self, l: int, v: str, u: str, slot: int) -> int:
        """When v would get tree l's message from u (outside v's subtree) in ``slot``."""
        if u != self.source:
            slot = unrolled(slot, self.arrival[l][u], self.period)
        return slot + self.cost[(u, v)]

    def _exchange(self, i: int, j: int, v: str) -> None:
        ui, uj = self.parent[i][v], self.parent[j][v]
        self.children[i][ui].discard(v)
        self.children[j][uj].discard(v)
        self.children[i].setdefault(uj, set()).add(v)
        self.children[j].setdefault(ui, set()).add(v)
        self.parent[i][v], self.parent[j][v] = uj, ui
        self.slot[i][v], self.slot[j][v] = self.slot[j][v], self.slot[i][v]
        self.into[i][v], self.into[j][v] = self.into[j][v], self.into[i][v]

    def search(self, budget: int) -> list[tuple[dict, list]]:
        """Sweeps over all (i < j, v) until one improves nothing, at most ``budget``
        exchanges evaluated and :data:`SWEEPS` sweeps."""
        n = len(self.parent)
        for _ in range(SWEEPS):
            improved = False
            for i in range(n):
                for j in range(i + 1, n):
                    for v in self.nodes:
                        if budget == 0:
                            return self.trees()
                        budget -= 1
                        improved |= self._try(i, j, v)
            if not improved:
                break
        return self.trees()

    def moves(self, free: dict[Arc, list[int]]) -> int:
        """Moves a node of a tree to a free slot (``free``: per link, sorted start
        ticks, updated) of any link into it from outside its subtree, when the node then
        gets the tree's message strictly earlier; the slot it left becomes free.
        Arrivals below it only fall with it, so every move lowers the tree's score
        (Claim 5).  At most :data:`MOVE_SWEEPS` sweeps; the number of moves made."""
        into: dict[str, list[Arc]] = {}
        for arc in sorted(self.cost):
            into.setdefault(arc[1], []).append(arc)
        made = 0
        for _ in range(MOVE_SWEEPS):
            before = made
            for l in range(len(self.parent)):
                for v in self.nodes:
                    best = self._earliest_free(l, v, into.get(v, ()), free)
                    if best is not None:
                        self._move(l, v, best[1], best[2], free)
                        made += 1
            if made == before:
                break
        return made

    def _earliest_free(self, l: int, v: str, arcs, free) -> tuple | None:
        """(arrival, link, slot) of the free slot that would bring v tree l's message
        earliest, if earlier than now; None otherwise."""
        best = None
        for arc in arcs:
            starts = free.get(arc)
            u = arc[0]
            if not starts or (u != self.source and self._below(l, u, v)):
                continue
            if u == self.source:
                slot = starts[0]
            else:
                i = bisect.bisect_left(starts, self.arrival[l][u] % self.period)
                slot = starts[i] if i < len(starts) else starts[0]
            arrival = self._arrival_at(l, v, u, slot)
            if arrival < (self.arrival[l][v] if best is None else best[0]):
                best = (arrival, arc, slot)
        return best

    def _move(self, l: int, v: str, arc: Arc, slot: int, free) -> None:
        old = (self.parent[l][v], v)
        bisect.insort(free.setdefault(old, []), self.slot[l][v])
        free[arc].remove(slot)
        self.children[l][old[0]].discard(v)
        self.children[l].setdefault(arc[0], set()).add(v)
        self.parent[l][v], self.slot[l][v] = arc[0], slot
        self.into[l][v] = self.cost[arc]
        at = self._arrival_at(l, v, arc[0], slot)
        self._take(l, v, at, self._rescored(l, v, at))

    def trees(self) -> list[tuple[dict, list]]:
        return [(parent, [((u, v), slot[v]) for v, u in parent.items()])
                for parent, slot in zip(self.parent, self.slot)]


def check_regrown(old: Timetable, new: Timetable, idle: bool = False) -> None:
    """Runtime postcondition: the same period and messages; every message slot of
    ``old`` used by exactly one tree of ``new`` (same links, same starts) or, with
    ``idle``, by at most one, any other slot of ``new`` lying in time that ``old`` left
    idle on both its ports, no two slots of ``new`` overlapping on a port, all inside
    the period; N spanning arborescences of weight 1, each link used once per tree."""
    platform = old.platform
    if (new.period * old.unit, new.messages) != (old.period * new.unit, old.messages):
        raise AssertionError("postcondition: regrown trees changed the period")
    unit = math.lcm(old.unit, new.unit)
    before, after = old.refined(unit).arc_slots(), new.refined(unit).arc_slots()
    if not idle and before != after:
        raise AssertionError("postcondition: regrown trees moved a message slot")
    if idle:
        _check_idle_slots(platform, before, after, unit, new.period * unit // new.unit)
    if len(new.trees) != new.messages:
        raise AssertionError("postcondition: not one tree per message")
    for (l, arc), rs in new.runs.items():
        if rs != ((rs[0][0], 1),):
            raise AssertionError(f"postcondition: regrown tree {l} uses {arc} twice")
    for l, tree in enumerate(new.trees):
        platform.check_arborescence(tree.parent, f"<regrown tree {l}>")
        if tree.weight != 1 or {(p, c) for c, p in tree.parent.items()} != {
                arc for (k, arc) in new.runs if k == l}:
            raise AssertionError(f"postcondition: regrown tree {l} and its slots differ")


def _check_idle_slots(platform, before, after, unit: int, period: int) -> None:
    """``after``'s slots are ``before``'s, each at most once, or in time ``before`` left
    idle on both ports; none overlap on a port; all lie inside [0, period]."""
    cost = {arc: int(platform.cost(*arc) * unit) for arc in set(before) | set(after)}
    busy = busy_intervals(platform, before, cost)
    for arc, starts in after.items():
        left = Counter(before.get(arc, ()))   # each of old's slots used at most once
        for start in starts:
            if left[start]:
                left[start] -= 1
                continue
            end = start + cost[arc]
            for port in (("out", arc[0]), ("in", arc[1])):
                held = busy.get(port, [])
                i = bisect.bisect_left(held, (end,))
                if i and held[i - 1][1] > start:
                    raise AssertionError(f"postcondition: regrown trees use {arc} at "
                                         f"tick {start} of {unit}, when {port} was busy")
    for port, held in busy_intervals(platform, after, cost).items():
        if held[0][0] < 0 or held[-1][1] > period:
            raise AssertionError(f"postcondition: regrown trees leave the period on {port}")
        if any(a[1] > b[0] for a, b in zip(held, held[1:])):
            raise AssertionError(f"postcondition: regrown trees overlap on {port}")
