"""Pipelined broadcast of one large message: the PIPE problem of 002 §6 (Theorem 8).

The source broadcasts a single message of size L, cut into slices.  With start-ups
(002 §6) sending a slice of size m over the link (j, k) takes β_jk + m·c_jk time units
(``Link.startup`` is β, ``Link.cost`` is c).  For k slices of size s = L/k the problem
is the broadcast of k *unit* messages on the **slice platform**, whose link costs are
β_jk + s·c_jk (:func:`slice_platform`); a periodic schedule of that platform unrolled
into a finite schedule of exactly k messages (:mod:`steady.simulate.unroll`, 002 §5.5) is a
solution, and its makespan is computed exactly.

Lower bound (Lemma 7 applied to a size-L broadcast, 002 §6 proof of Theorem 8): every
schedule, start-ups or not, needs T_opt(L) >= L·T* where T* = 1/TP is the optimal
period of the platform with costs c and no start-ups.  Every result is checked against
it at run time (``AssertionError`` otherwise).

The paper's algorithm (Theorem 8): ν = ceil(sqrt(L)) slices of size ν (the message is
padded to ν² >= L), sent by the asymptotically optimal steady-state schedule of the
platform whose costs are padded to (ν + w)·c_jk >= β_jk + ν·c_jk, w = max β/c; then
T_pipe(L) <= L·T* + O(sqrt L).  :func:`paper_slices`, :func:`pipe_paper`.  By default
we cut the message into k slices of the exact size L/k instead (no padding), and
:func:`best_slices` chooses k.

Which periodic schedule?  For each (k, s) four kinds of candidate patterns are unrolled
and the shortest finite schedule wins (all exact, all steady-schedule objects, v1 or
v2, on the slice platform that ``steady.verify`` and ``steady.simulate.plan``
accept):

``"optimal"``
    the optimal periodic schedule of the slice platform (its own LP).  Its period has
    M messages, and M follows the denominators of β + s·c: often M >> k, and then the
    k slices are one partial batch that every node stores and forwards as a whole (no
    pipelining at all).
``"stretched"``
    the optimal periodic schedule of the start-up-free platform (costs c; computed once,
    its M does not depend on s), every step lasting the longest link load under the
    slice costs.  This is the paper's construction with the padding (ν + w)·c replaced
    by the exact β + s·c (a step lasts at most (s + w) times its length under c), so
    Theorem 8's bound holds for it.
``"tree"``
    one message per period along a single broadcast tree (the heaviest trees of the
    start-up-free optimum): each node sends to its children in decreasing cost order;
    step i holds every node's i-th child link.  M = 1: the pipeline of a single tree, the
    fallback when the optimal M is astronomically large (decimal costs).
``"timed M=m period"``, ``"timed M=m pipelined"`` (ours)
    the short timed schedules of the start-up-free platform with at most m slices per
    period (m on :data:`TIMED_LADDER`, :mod:`steady.schedule.timed`), compacted onto the
    slice costs (:func:`stretch_timed`) and unrolled under either forwarding rule of
    :mod:`steady.simulate.unroll`: ratios near 1 with short periods
    (benchmarks/simulate_timed.py).

Without start-ups the slice platform is the start-up-free one scaled by s: the patterns
are then built once and their makespans scaled (:meth:`PipePlanner._scaled_candidates`).

Makespans are exact Fractions.  The number of periods of a finite schedule grows like
k/M; the makespan of B > W + 1 batches is that of W + 1 batches plus (B - W - 1)·T
(W warm-up periods, T the period; the finite schedule is periodic between its warm-up
and its clean-up, proofs/pipe.md), which keeps every evaluation independent of k.
:func:`pipe_makespan` unrolls the whole finite schedule when it has at most
:data:`FULL_CHECK_BATCHES` batches and asserts both agree.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from fractions import Fraction

from ..errors import InputError
from ..network.rows import has_link_rows
from ..numbers import format_exact, parse_exact
from ..platform import Link, Platform
from ..schedule.periodic import optimal_schedule
from ..schedule_file import TIMED, Schedule, Step, TimedTransfer, TreeEntry, Transfer
from ..throughput import throughput
from .unroll import FORWARDING, PeriodicPattern, finite_schedule, share_for

#: Candidate periodic patterns, in the order they are tried (ties go to the first).
PATTERNS = ("stretched", "optimal", "tree", "timed")
#: The "timed" pattern: short timed schedules of the start-up-free platform with at
#: most these many messages per period (steady.schedule.timed), both forwarding rules.
TIMED_LADDER = (1, 5, 20, 100)
#: pipe_makespan unrolls and compares the full finite schedule up to this many batches.
FULL_CHECK_BATCHES = 4096
#: best_slices: every k <= this is evaluated (exhaustive part of the scan).
EXHAUSTIVE = 64
#: best_slices: geometric ratio of the scan beyond EXHAUSTIVE.
GROWTH = Fraction(9, 8)
#: best_slices: k is never scanned beyond max(MAX_SLICES, 16·ν) (ν = paper_slices(L)).
MAX_SLICES = 2 ** 20


# -- the slice platform and the paper's slicing ---------------------------------------

def slice_platform(platform: Platform, size) -> Platform:
    """The platform on which one unit message is one slice of ``size`` (002 §6): link
    costs β_jk + size·c_jk, start-ups 0."""
    size = _positive(size, "slice size")
    return platform.replace_links(Link(l.tail, l.head, l.startup + size * l.cost)
                                  for l in platform.links)


def startup_free(platform: Platform) -> Platform:
    """The platform with costs c and no start-ups: the one whose throughput TP gives the
    lower bound L·T* = L/TP of Theorem 8."""
    return platform.replace_links(Link(l.tail, l.head, l.cost) for l in platform.links)


def paper_slices(size) -> int:
    """ν of 002 §6: the smallest integer with ν² >= L (ν = ceil(sqrt L), exactly, for
    any positive rational L); the paper sends ν slices of size ν."""
    size = _positive(size, "message size")
    n = -(-size.numerator // size.denominator)          # ceil(L) >= 1; ν² >= L iff ν² >= ceil(L)
    return math.isqrt(n - 1) + 1


def slice_lower_bound(platform: Platform, size, slices: int) -> Fraction:
    """A bound on any schedule of ``slices`` slices adding up to ``size``: some node v
    receives every slice once, each over an in-link, so its receive port is busy at least
    slices·min β_in(v) + size·min c_in(v).  Grows with the number of slices: it is what
    lets :func:`best_slices` stop scanning."""
    size = Fraction(size)
    best = Fraction(0)
    for v in platform.destinations:
        links = platform.in_links(v)
        bound = slices * min(l.startup for l in links) + size * min(l.cost for l in links)
        best = max(best, bound)
    return best


# -- candidate periodic patterns ------------------------------------------------------

def stretch(schedule: Schedule, platform: Platform) -> Schedule:
    """The same trees, steps and message counts on ``platform`` (same links, other
    costs), every step lasting exactly its longest link load there.

    Valid whatever the costs: one-port comes from each step being a matching, causality
    from the trees and the counts, none of which depends on the costs.  Monotone: lower
    costs give shorter steps, never longer ones."""
    steps = []
    for step in schedule.steps:
        load: dict[tuple[str, str], int] = {}
        for t in step.transfers:
            load[t.arc] = load.get(t.arc, 0) + t.messages
        steps.append(Step(max(n * platform.cost(*arc) for arc, n in load.items()),
                          step.transfers))
    period = sum((s.duration for s in steps), Fraction(0))
    m = schedule.messages_per_period
    return Schedule(platform, Fraction(m) / period, period, m, schedule.trees, tuple(steps))


def tree_pattern(platform: Platform, parent: dict) -> Schedule:
    """One message per period along the tree ``parent`` (child -> parent): step i holds,
    for every node, the link to its i-th most expensive child.  A node has one parent,
    so no node receives twice in a step; it sends once per step: one-port.  Period =
    sum over steps of their most expensive link."""
    children: dict[str, list[str]] = {}
    for child, par in parent.items():
        children.setdefault(par, []).append(child)
    classes: list[list[Transfer]] = []
    for node in platform.nodes:
        ranked = sorted(children.get(node, ()), key=lambda c: -platform.cost(node, c))
        for i, child in enumerate(ranked):
            if i == len(classes):
                classes.append([])
            classes[i].append(Transfer(node, child, 0, 1))
    steps = tuple(Step(max(platform.cost(t.tail, t.head) for t in cl), tuple(cl))
                  for cl in classes)
    period = sum((s.duration for s in steps), Fraction(0))
    return Schedule(platform, 1 / period, period, 1, (TreeEntry.from_parent(parent, 1),),
                    steps)


def rescaled(schedule: Schedule, platform: Platform, a: Fraction) -> Schedule:
    """``schedule`` on ``platform``, whose link costs are ``a`` times its own: every
    time (step durations or starts, the period) times ``a``."""
    steps = tuple(Step(st.duration * a, st.transfers) for st in schedule.steps)
    transfers = tuple(replace(t, start=t.start * a) for t in schedule.transfers)
    return replace(schedule, platform=platform, throughput=schedule.throughput / a,
                   period=schedule.period * a, steps=steps, transfers=transfers,
                   certificate=None)


def stretch_timed(schedule: Schedule, platform: Platform) -> Schedule:
    """A timed (version 2) schedule on ``platform`` (same links, other costs): the same
    trees, transfers and order on every port, each transfer starting as soon as both its
    ports are free (the transfers taken in their old start order, which is every
    port's order).  Valid whatever the costs: each port serves its transfers one after
    the other inside [0, period], and the counts per tree edge do not change."""
    send: dict[str, Fraction] = {}
    recv: dict[str, Fraction] = {}
    out = []
    for t in sorted(schedule.transfers, key=lambda x: x.start):
        start = max(send.get(t.tail, Fraction(0)), recv.get(t.head, Fraction(0)))
        send[t.tail] = recv[t.head] = start + t.messages * platform.cost(t.tail, t.head)
        out.append(TimedTransfer(t.tail, t.head, t.tree, t.messages, start))
    period = max(send.values())
    m = schedule.messages_per_period
    return Schedule(platform, Fraction(m) / period, period, m, schedule.trees, (), {},
                    None, tuple(out), TIMED)


def finite_makespan(pattern, batches: int, share=None, cache: dict | None = None) -> Fraction:
    """The makespan of ``finite_schedule(pattern, batches, share)``, in time independent
    of ``batches``: beyond W + 1 batches each extra batch adds one steady period T.
    ``cache`` (a dict owned by the caller, for this pattern) keeps the makespans
    computed, per (batches, share)."""
    w = pattern.warmup
    base_batches = min(batches, w + 1)
    key = (base_batches, None if share is None else tuple(share))
    if cache is not None and key in cache:
        base = cache[key]
    else:
        base = finite_schedule(pattern, base_batches, share, placed=False).makespan
        if cache is not None:
            cache[key] = base
    return base + (batches - base_batches) * pattern.period_time


# -- results --------------------------------------------------------------------------

@dataclass(frozen=True)
class PipeResult:
    """One slicing of a size-L broadcast and the finite schedule chosen for it.

    ``slices`` slices of ``slice_size`` each (slices·slice_size >= size; equal when not
    padded); ``makespan`` of the finite schedule of exactly ``slices`` messages built
    from the periodic ``schedule`` (a steady-schedule on the slice platform, pattern
    ``pattern``, forwarding rule ``forwarding``) in ``batches`` batches, the last one cut
    to ``share``;
    ``lower_bound`` = L·T* (Lemma 7, Theorem 8), ``ratio`` = makespan / lower_bound."""

    size: Fraction
    slices: int
    slice_size: Fraction
    makespan: Fraction
    lower_bound: Fraction
    ratio: Fraction
    throughput_of_slices: Fraction     # slices per time unit of the chosen periodic pattern
    optimal_slice_throughput: Fraction | None  # TP of the slice platform (None: not solved)
    pattern: str
    messages_per_period: int
    batches: int
    share: tuple | None
    candidates: dict                  # pattern name -> makespan
    schedule: Schedule = field(repr=False, compare=False)
    forwarding: str = "period"        # the finite schedule's rule (steady.simulate.unroll)
    evaluated: int = 1                # best_slices: number of slice counts evaluated
    scan_limit: int | None = None     # best_slices: largest k scanned
    scan_proof: str = ""              # best_slices: why no k beyond scan_limit is better

    @property
    def padded(self) -> bool:
        return self.slices * self.slice_size != self.size

    def to_dict(self) -> dict:
        doc = {"size": format_exact(self.size), "slices": self.slices,
               "slice_size": format_exact(self.slice_size),
               "padded_size": format_exact(self.slices * self.slice_size),
               "makespan": format_exact(self.makespan),
               "lower_bound": format_exact(self.lower_bound),
               "ratio": format_exact(self.ratio),
               "pattern": self.pattern, "forwarding": self.forwarding,
               "messages_per_period": self.messages_per_period,
               "batches": self.batches,
               "throughput_of_slices": format_exact(self.throughput_of_slices),
               "optimal_slice_throughput": None if self.optimal_slice_throughput is None
               else format_exact(self.optimal_slice_throughput),
               "candidates": {k: format_exact(v) for k, v in self.candidates.items()},
               "evaluated": self.evaluated}
        if self.scan_limit is not None:
            doc["scan_limit"] = self.scan_limit
            doc["scan_proof"] = self.scan_proof
        return doc


class PipePlanner:
    """The parts of PIPE that do not depend on the slicing, computed once per platform:
    TP and T* of the start-up-free platform, its optimal periodic schedule (the
    ``"stretched"`` pattern) and its heaviest trees (``"tree"``).  ``evaluate`` caches
    per (slices, slice size)."""

    def __init__(self, platform: Platform, patterns=PATTERNS, trees: int = 4):
        unknown = sorted(set(patterns) - set(PATTERNS))
        if unknown or not patterns:
            raise ValueError(f"unknown patterns {unknown}; choose from {PATTERNS}")
        if has_link_rows(platform):  # its patterns and Lemma 7's bound hold ports only
            raise InputError("<platform>", "network",
                             "steady pipe models one-port links with start-ups; routes "
                             "that share network links are not modelled yet (docs/limits.md)")
        self.platform = platform
        self.patterns = tuple(p for p in PATTERNS if p in patterns)
        free = startup_free(platform)
        result = throughput(free, "trees")
        self.throughput = result.throughput          # TP (unit messages per time unit)
        self.period = 1 / result.throughput           # T*
        self.unit_schedule = (optimal_schedule(free, result)[0]
                              if "stretched" in self.patterns else None)
        ranked = sorted(result.trees or (), key=lambda tr: -tr[1])
        self.trees = [dict(parent) for parent, _ in ranked[:trees]]
        self.timed = self._timed(free, result) if "timed" in self.patterns else []
        self.scaling = all(l.startup == 0 for l in platform.links)
        self._unit = None
        self._cache: dict = {}

    @staticmethod
    def _timed(free, result) -> list[tuple[int, Schedule]]:
        """(M, timed schedule) for M on TIMED_LADDER, without repeats."""
        from ..schedule.timed import timed_schedule
        from .choose import with_trees

        result = with_trees(free, result)
        out, seen = [], set()
        for m in TIMED_LADDER:
            schedule = timed_schedule(free, result, m)[0]
            key = (schedule.messages_per_period, schedule.period, len(schedule.transfers))
            if key not in seen:
                seen.add(key)
                # compacted: then stretching to costs a·c is exactly a times it
                out.append((m, stretch_timed(schedule, free)))
        return out

    def _scaled_candidates(self):
        """Without start-ups the slice platform is the start-up-free one with every cost
        times the slice size s, and every candidate is the unit one scaled (stretching
        and compacting commute with scaling, the lags do not change; "optimal" is the
        unit optimum with every time times s, an optimal schedule of the slice platform
        though its LP might have picked another number of messages per period): their
        patterns are built once, their makespans are s times the unit ones."""
        if self._unit is None:
            free = startup_free(self.platform)
            self._unit = [(name, schedule, tp, rule, PeriodicPattern(schedule, rule), {})
                          for name, schedule, tp, rule in self.candidates(Fraction(1), free)]
        return self._unit

    def lower_bound(self, size) -> Fraction:
        """L·T* (Lemma 7, Theorem 8)."""
        return Fraction(size) * self.period

    def candidates(self, slice_size: Fraction, sliced: Platform | None = None):
        """(name, periodic schedule on the slice platform, TP of the slice LP or None,
        forwarding rule)."""
        sliced = sliced or slice_platform(self.platform, slice_size)
        out = []
        for name in self.patterns:
            if name == "stretched":
                out.append((name, stretch(self.unit_schedule, sliced), None, "period"))
            elif name == "optimal":
                result = throughput(sliced, "trees")
                out.append((name, optimal_schedule(sliced, result)[0], result.throughput,
                            "period"))
            elif name == "tree":
                out.extend((name, tree_pattern(sliced, parent), None, "period")
                           for parent in self.trees)
            else:
                for m, schedule in self.timed:
                    stretched = stretch_timed(schedule, sliced)
                    out.extend((f"timed M={m} {rule}", stretched, None, rule)
                               for rule in FORWARDING)
        return out

    def evaluate(self, size, slices: int, slice_size=None) -> PipeResult:
        """``slices`` slices of ``slice_size`` (default size/slices; larger pads the
        message) of a size-``size`` message: the shortest candidate finite schedule."""
        size = _positive(size, "message size")
        if isinstance(slices, bool) or not isinstance(slices, int) or slices < 1:
            raise ValueError(f"the number of slices must be an integer >= 1, not {slices!r}")
        slice_size = size / slices if slice_size is None else _positive(slice_size, "slice size")
        if slices * slice_size < size:
            raise ValueError(f"{slices} slices of size {slice_size} do not cover size {size}")
        key = (size, slices, slice_size)
        if key in self._cache:
            return self._cache[key]
        best = None
        found: dict[str, Fraction] = {}
        lp = None
        if self.scaling:
            scaled = [(name, schedule, None if tp is None else tp / slice_size, rule,
                       pattern, cache)
                      for name, schedule, tp, rule, pattern, cache in self._scaled_candidates()]
        else:
            scaled = [c + (None, None) for c in self.candidates(slice_size)]
        for name, schedule, tp, rule, unit, cache in scaled:
            lp = tp if tp is not None else lp
            pattern = unit or PeriodicPattern(schedule, rule)
            batches, share = share_for(pattern, slices)
            makespan = finite_makespan(pattern, batches, share, cache)
            if unit is not None:
                makespan *= slice_size
            found[name] = min(makespan, found.get(name, makespan))
            if best is None or makespan < best[0]:
                best = (makespan, name, schedule, batches, share, rule, unit)
        makespan, name, schedule, batches, share, rule, unit = best
        if unit is not None:     # the winner on the slice platform itself
            schedule = rescaled(schedule, slice_platform(self.platform, slice_size),
                                slice_size)
        bound = self.lower_bound(size)
        if makespan < bound:
            raise AssertionError(f"postcondition (Lemma 7): makespan {makespan} < L·T* "
                                 f"= {bound} for {slices} slices of size {slice_size}")
        result = PipeResult(size, slices, slice_size, makespan, bound, makespan / bound,
                            schedule.throughput, lp, name, schedule.messages_per_period,
                            batches, share, found, schedule, forwarding=rule)
        self._cache[key] = result
        return result


# -- the three entry points -----------------------------------------------------------

def pipe_makespan(platform: Platform, size, slices: int, patterns=PATTERNS,
                  planner: PipePlanner | None = None) -> PipeResult:
    """k = ``slices`` slices of equal exact size L/k (002 §6 pads to ν slices of size ν
    instead; see :func:`pipe_paper`): the exact makespan of the best candidate finite
    schedule of k messages on the slice platform, with L·T* and the ratio.

    Runtime postconditions: makespan >= L·T* (Lemma 7), and, up to
    FULL_CHECK_BATCHES batches, the makespan equals that of the whole unrolled finite
    schedule (:func:`steady.simulate.unroll.finite_schedule`)."""
    planner = planner or PipePlanner(platform, patterns)
    return _checked(planner.evaluate(size, slices))


def pipe_paper(platform: Platform, size, patterns=PATTERNS,
               planner: PipePlanner | None = None) -> PipeResult:
    """The slicing of 002 §6 (Theorem 8): ν = ceil(sqrt L) slices of size ν (the message
    padded to ν² >= L), through the same candidate schedules; lower bound L·T*."""
    size = _positive(size, "message size")
    nu = paper_slices(size)
    planner = planner or PipePlanner(platform, patterns)
    return _checked(planner.evaluate(size, nu, Fraction(nu)))


def best_slices(platform: Platform, size, exhaustive: int = EXHAUSTIVE,
                max_slices: int | None = None, patterns=PATTERNS,
                planner: PipePlanner | None = None, progress=None) -> PipeResult:
    """The number of equal slices k minimising the exact makespan over a scanned set.

    The makespan is not unimodal in k (M, the shares and the step structure change with
    the slice size), so the scan is:

    1. every k = 1 .. ``exhaustive``;
    2. k = ν (:func:`paper_slices`), with the paper's padded schedule (size ν) as an extra
       candidate stretched to the slice size L/ν (never worse, :func:`stretch` is
       monotone): so the result is never worse than :func:`pipe_paper`;
    3. a geometric scan k_{i+1} = ceil(k_i·9/8) up to the *scan limit*;
    4. a refinement (:func:`_refine`): a pattern search with steps ±2^j from the three
       best k found so far, then every k within ±16 of the best.

    The scan limit is the first k with slice_lower_bound(k) >= the best makespan found
    (then no k at or beyond it can be better: the bound grows with k), capped at
    ``max_slices`` (default max(MAX_SLICES, 16·ν)).  Guaranteed: the result is optimal
    over the scanned set (reported in ``evaluated``), not worse than k = 1 or than the
    paper's slicing, and, when ``scan_proof`` says "bound", no k beyond ``scan_limit``
    does better.  ``progress(stage)`` is called at each stage."""
    size = _positive(size, "message size")
    planner = planner or PipePlanner(platform, patterns)
    nu = paper_slices(size)
    cap = max(MAX_SLICES, 16 * nu) if max_slices is None else max(1, int(max_slices))
    seen: dict[int, Fraction] = {}
    state = {"best": None}

    def visit(k: int) -> None:
        if k in seen or k > cap:
            return
        r = planner.evaluate(size, k)
        seen[k] = r.makespan
        if state["best"] is None or (r.makespan, k) < (state["best"].makespan,
                                                        state["best"].slices):
            state["best"] = r

    def hopeless(k: int) -> bool:
        return slice_lower_bound(platform, size, k) >= state["best"].makespan

    stage = progress or (lambda name: None)
    stage("exhaustive")
    for k in range(1, min(exhaustive, cap) + 1):
        if state["best"] is not None and hopeless(k):
            break
        visit(k)
    stage("paper's slicing")
    if nu <= cap:
        visit(nu)
        padded = planner.evaluate(size, nu, Fraction(nu))
        if padded.makespan < seen[nu]:   # only with "optimal" (not monotone in the costs)
            restretched = _restretch(planner, padded, size / nu)
            seen[nu] = restretched.makespan
            if restretched.makespan < state["best"].makespan:
                state["best"] = restretched
    stage("geometric scan")
    k, proof = max(exhaustive, 1), "cap"
    while True:
        k = max(k + 1, math.ceil(k * GROWTH))
        if k > cap:
            break
        if hopeless(k):
            proof = "bound"
            break
        visit(k)
    stage("refinement")
    _refine(seen, visit, state, cap, hopeless)
    text = ("bound: every k >= scan_limit has slice_lower_bound(k) >= the makespan found"
            if proof == "bound" else "cap: k was not scanned beyond scan_limit (max_slices)")
    return _checked(replace(state["best"], evaluated=len(seen),   # k <= cap on "bound"
                            scan_limit=k if proof == "bound" else cap, scan_proof=text))


def _refine(seen, visit, state, cap, hopeless, starts: int = 3) -> None:
    """Pattern search from the ``starts`` best scanned k: try k ± 2^j (largest first,
    2^j <= k/2), move to any improvement and start again; then every k within ±16 of the
    best.  Power-of-two steps keep k's residue modulo small periods M (the makespan is
    much smoother along k ≡ const mod M than along k)."""
    for start in sorted(seen, key=lambda j: (seen[j], j))[:starts]:
        k = start
        while True:
            steps = [2 ** j for j in range(max(k // 2, 1).bit_length())][::-1]
            moved = False
            for d in steps:
                before = seen[k]
                for j in (k - d, k + d):
                    if 1 <= j <= cap and not hopeless(j):
                        visit(j)
                near = [j for j in (k - d, k + d) if j in seen]
                down = min(near, key=lambda j: (seen[j], j)) if near else k
                if seen[down] < before:
                    k, moved = down, True
                    break
            if not moved:
                break
    k = state["best"].slices
    for j in range(max(1, k - 16), k + 17):
        if j <= cap and not hopeless(j):
            visit(j)


def _restretch(planner: PipePlanner, padded: PipeResult, slice_size) -> PipeResult:
    """The paper's padded schedule run with the exact slice costs (steps or timetable
    shortened)."""
    sliced = slice_platform(planner.platform, slice_size)
    schedule = (stretch_timed(padded.schedule, sliced) if padded.schedule.version == TIMED
                else stretch(padded.schedule, sliced))
    pattern = PeriodicPattern(schedule, padded.forwarding)
    makespan = finite_makespan(pattern, padded.batches, padded.share)
    name = padded.pattern + " (paper's size)"
    return replace(padded, slice_size=Fraction(slice_size), makespan=makespan,
                   ratio=makespan / padded.lower_bound,
                   throughput_of_slices=schedule.throughput, optimal_slice_throughput=None,
                   pattern=name, candidates={name: makespan}, schedule=schedule)


def _checked(result: PipeResult) -> PipeResult:
    """Postconditions: makespan >= L·T*, and the shortcut of finite_makespan agrees with
    the whole unrolled finite schedule (when it has few enough batches)."""
    if result.makespan < result.lower_bound:
        raise AssertionError(f"postcondition (Lemma 7): makespan {result.makespan} < "
                             f"L·T* = {result.lower_bound}")
    if result.batches <= FULL_CHECK_BATCHES:
        full = finite_schedule(PeriodicPattern(result.schedule, result.forwarding),
                               result.batches, result.share)
        if full.makespan != result.makespan or full.messages != result.slices:
            raise AssertionError(f"postcondition: finite schedule of {full.messages} "
                                 f"messages ends at {full.makespan}, expected "
                                 f"{result.slices} messages by {result.makespan}")
    return result


def _positive(value, what: str) -> Fraction:
    x = parse_exact(value)
    if x <= 0:
        raise ValueError(f"the {what} must be > 0, not {value}")
    return x
