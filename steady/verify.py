"""The independent checker of a steady-schedule (docs/formats.md; seed 002 §5.4.2).

``verify(platform, schedule)`` trusts nothing about how the schedule was built: it
imports only the platform model, the file format, exact numbers and the certificate
re-checker -- never the throughput LPs, the branchings, the colouring or the schedule
constructor -- and re-derives, in exact arithmetic and in time linear in the size of
the file (plus one minimum-arborescence computation on the platform), every rule of the
format's semantics:

* the schedule's embedded platform is the platform given (kind ``platform``);
* steps: durations > 0 (``duration``) that add up exactly to ``period`` > 0 (``period``);
* transfers: over an existing link (``link``), of an existing tree (``tree-index``),
  along an edge of that tree (``tree-edge``), with ``messages`` > 0 (``messages``);
* one-port (002 §2): within a step a node sends over at most one link and receives over
  at most one link (``one-port``); several transfers on one link, for several trees,
  are fine; the time on a link, sum(messages) x cost, fits in the step (``capacity``);
* trees: each a spanning arborescence rooted at the source over existing links
  (``tree``), of weight > 0 (``weight``); per period every tree edge carries exactly the
  tree's weight, summed over the steps (``delivery``);
* the weights add up to ``messages_per_period`` (``messages-per-period``), and
  ``throughput`` = messages_per_period / period exactly (``throughput``);
* unless ``optimality=False``: the throughput is the platform's optimum, proven by the
  embedded port prices (``optimality``; proofs/certificate.md): prices >= 0 summing to
  the throughput under which every spanning arborescence rooted at the source costs >= 1
  with weights c_jk (y_j^out + y_k^in).  By weak duality no schedule beats the sum of
  the prices, and the schedule itself, once valid, attains it.

A version 2 (timed) schedule has a timetable instead of steps; its rules replace the
step rules:

* every transfer has an exact ``start`` >= 0 (``start``) and ends, start + messages x
  cost, by the period (``window``): it holds the sender's out-port and the receiver's
  in-port during [start, end);
* the intervals of one port never overlap; touching is fine (``one-port``);
* the tree, delivery, total and throughput rules are those of version 1.
Its throughput is not the optimum in general: the certificate's prices y (>= 0, every
spanning arborescence costing >= c > 0 under them) bound every schedule's throughput by
sum(y) / c (weak duality), so ``ratio`` = throughput / (sum(y) / c) is a certified lower
bound on throughput / optimum, equal to it when sum(y) / c is the optimum (as in the
files steady writes).  ``min_ratio`` rejects a lower ratio (``ratio``); claimed
``optimum`` and ``ratio`` keys must equal the certified values (``ratio``).  A version 1
schedule that claims ``optimum`` or ``ratio`` (a short period in synchronous steps,
``steady schedule --max-messages M --steps``) is rated the same way instead of being
required to be optimal; one without the claims must be optimal, and ``min_ratio`` then
checks the ratio its certificate proves (1 when optimal).

Objects of the wrong type (a Schedule built in Python with a float duration, say) are
reported as kind ``format``; a *file* that cannot be read as a schedule never gets here:
:meth:`Schedule.from_file` raises :class:`~steady.errors.InputError` (exit code 2).

On a platform with a network section (issue 19; proofs/network-links.md), each shared
link l that routes cross is one more capacity (kind ``network``): in a version 1 step,
the step's transfers whose route crosses l take sum(messages) x c_l <= the step's
duration; in a version 2 timetable, at every instant the transfers in progress through
l use at most its capacity, sum of c_l / c_arc <= 1 (a transfer runs at its arc's speed,
so it uses the fraction c_l / c_arc of l).  The certificate's link prices join the port
prices: they are >= 0, count in the sum, and add z_l c_l to the weight of every arc
crossing l.  A version 1 schedule on such a platform need not reach the optimum (steps
that fit the links may not fill every port): like a version 2 one it gets a certified
``ratio``, which ``min_ratio`` bounds.

Why the rules suffice (002 §5.4.2): messages of tree l that a node forwards during
period r are those it received from its parent in T_l during period r-1; since every
edge of T_l carries exactly λ_l messages per period, every node receives λ_l new messages
of each tree per period, i.e. messages_per_period = sum λ_l distinct new messages every
``period`` time units, and the one-port and capacity rules make each step feasible.
Start-up costs (β, 002 §6) and send overheads (multi-port, 000 §2.2) are not part of
this model: the one-port time of ``m`` messages on a link is ``m x cost``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from .certificate import link_price_weights, min_arborescence_cost, shared_link_arcs
from .errors import one_line
from .numbers import format_exact
from .platform import Platform
from .schedule_file import TIMED, PriceCertificate, Schedule, Step, TimedTransfer, Transfer, TreeEntry
from .verify_collective import check_claims, shown as _text, verify_collective

__all__ = ["KINDS", "Violation", "VerifyReport", "verify", "verify_file"]

#: Every kind of violation, in the order the checks run.
KINDS = ("format", "platform", "collective", "period", "duration", "link", "tree-index",
         "tree-edge", "messages", "start", "window", "speed", "one-port", "capacity", "links",
         "network", "tree", "route", "weight", "delivery", "messages-per-period", "totals",
         "throughput", "optimality", "ratio")


@dataclass(frozen=True)
class Violation:
    """One broken rule: ``kind`` (see :data:`KINDS`), ``where`` it is (e.g.
    ``"steps[3].transfers[1]"``, ``"steps[2] node P1"``, ``"trees[0] edge P1->P2"``), the
    ``expected`` and ``found`` values (exact numbers or text) and a sentence."""

    kind: str
    where: str
    expected: object
    found: object
    message: str

    def to_dict(self) -> dict:
        return {"kind": self.kind, "where": self.where, "expected": _text(self.expected),
                "found": _text(self.found), "message": self.message}

    def __str__(self) -> str:
        # one bounded line: a value echoed from the file may be thousands of characters
        return one_line(f"[{self.kind}] {self.where}: {self.message}")


@dataclass
class VerifyReport:
    """The result of :func:`verify`: ``ok`` when ``violations`` is empty; ``optimality``
    says whether the optimality certificate was checked; ``rated`` whether the
    schedule was rated instead (a timetable, steps claiming a ratio, steps on shared
    links); then, with a valid certificate, ``bound`` is the certified upper bound on
    the optimum and ``ratio`` = throughput / bound (also set for an optimal version 1
    schedule checked with ``min_ratio``)."""

    violations: list[Violation] = field(default_factory=list)
    optimality: bool = True
    steps: int = 0
    transfers: int = 0
    trees: int = 0
    version: int = 1
    bound: Fraction | None = None
    ratio: Fraction | None = None
    rated: bool = False

    @property
    def ok(self) -> bool:
        return not self.violations

    def __bool__(self) -> bool:
        return self.ok

    def kinds(self) -> set[str]:
        return {v.kind for v in self.violations}

    def of_kind(self, kind: str) -> list[Violation]:
        return [v for v in self.violations if v.kind == kind]

    def to_dict(self) -> dict:
        doc = {"valid": self.ok, "optimality_checked": self.optimality,
               "steps": self.steps, "transfers": self.transfers, "trees": self.trees,
               "violations": [v.to_dict() for v in self.violations]}
        if self.version == TIMED or self.bound is not None:
            doc.update({"version": self.version, "optimum_bound": _text(self.bound),
                        "ratio": _text(self.ratio)})
        return doc

    def add(self, kind, where, expected, found, message) -> None:
        self.violations.append(Violation(kind, where, expected, found, message))


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_exact(x) -> bool:
    return isinstance(x, (int, Fraction)) and not isinstance(x, bool)


def _arc(tail, head) -> str:
    return f"{tail}->{head}"


# -- the checker ------------------------------------------------------------------

def verify(platform: Platform | None, schedule: Schedule, optimality: bool = True,
           min_ratio: Fraction | None = None) -> VerifyReport:
    """Check ``schedule`` against ``platform`` (None: its own embedded platform) and
    return every violation found (see the module docstring for the rules and kinds).
    A version 1 schedule must be optimal unless ``optimality=False``; a version 2 one
    gets its certified ratio, which must be >= ``min_ratio`` when given."""
    report = VerifyReport(optimality=optimality)
    if not isinstance(schedule, Schedule):
        report.add("format", "schedule", "a Schedule", type(schedule).__name__,
                   "not a steady.schedule_file.Schedule")
        return report
    if not isinstance(schedule.platform, Platform):
        report.add("format", "platform", "a Platform", type(schedule.platform).__name__,
                   "the embedded platform is not a Platform")
        if platform is None:
            return report
    if platform is None:
        platform = schedule.platform
    elif isinstance(schedule.platform, Platform):
        _check_platform(platform, schedule.platform, report)
    if schedule.is_collective or not platform.classic:
        # a collective, or a multi-port or switched platform (issue 43): its own rules,
        # written as independently (steady.verify_collective)
        return verify_collective(platform, schedule, report, optimality, min_ratio)

    steps = schedule.steps
    trees = schedule.trees
    report.steps, report.trees = len(steps), len(trees)
    tree_ok = [isinstance(t, TreeEntry) for t in trees]
    for l, ok in enumerate(tree_ok):
        if not ok:
            report.add("format", f"trees[{l}]", "a TreeEntry", type(trees[l]).__name__,
                       "not a TreeEntry")
    tree_edges = [_edge_set(t) if ok else set() for t, ok in zip(trees, tree_ok)]

    if getattr(schedule, "version", 1) == TIMED:
        report.version = TIMED
        carried = _check_timetable(platform, schedule, tree_edges, report)
    else:
        carried = _check_steps(platform, schedule, tree_edges, report)
    _check_trees(platform, trees, tree_ok, tree_edges, carried, report)
    _check_totals(schedule, trees, tree_ok, report)
    # A timetable, or steps fitted to shared links (issue 19), is rated, not required
    # to be optimal.
    # Steps that claim a ratio (short periods in steps, issue 24) too; and steps asked
    # for a ratio without optimality.
    if (report.version == TIMED or shared_link_arcs(platform) or _claims_ratio(schedule)
            or not optimality and min_ratio is not None):
        # --no-optimality: a certificate is not required
        if optimality or schedule.certificate is not None or min_ratio is not None:
            report.rated = True
            _check_ratio(platform, schedule, min_ratio, report)
    elif optimality:
        cost = _check_optimality(platform, schedule, report)
        if min_ratio is not None and cost is not None:  # proven optimal: ratio 1
            _rate(schedule, cost, min_ratio, report)
    return report


def _claims_ratio(schedule: Schedule) -> bool:
    """A version 1 schedule that claims ``optimum`` or ``ratio`` (steady writes both in
    a short-period schedule in steps) is rated by its certificate, like a timetable;
    without the claims, steps must be optimal."""
    return any(key in schedule.extra for key in ("optimum", "ratio"))


def verify_file(platform: Platform | None, path, optimality: bool = True,
                min_ratio: Fraction | None = None) -> VerifyReport:
    """:func:`verify` of the schedule file ``path``; raises InputError when the file
    cannot be read as a steady-schedule document."""
    return verify(platform, Schedule.from_file(path), optimality, min_ratio)


def _check_platform(platform: Platform, embedded: Platform, report: VerifyReport) -> None:
    if embedded == platform:
        return
    if embedded.source != platform.source:
        report.add("platform", "platform.source", platform.source, embedded.source,
                   f"the schedule's source is {embedded.source}, the platform's is "
                   f"{platform.source}")
    mine, theirs = set(platform.nodes), set(embedded.nodes)
    for v in sorted(mine - theirs):
        report.add("platform", f"platform node {v}", v, None,
                   f"node {v} of the platform is missing from the schedule's platform")
    for v in sorted(theirs - mine):
        report.add("platform", f"platform node {v}", None, v,
                   f"node {v} of the schedule's platform is not in the platform")
    links = {l.arc: l for l in platform.links}
    other = {l.arc: l for l in embedded.links}
    for arc in links.keys() | other.keys():
        a, b = links.get(arc), other.get(arc)
        where = f"platform link {_arc(*arc)}"
        if b is None:
            report.add("platform", where, a.cost, None,
                       f"link {_arc(*arc)} is missing from the schedule's platform")
        elif a is None:
            report.add("platform", where, None, b.cost,
                       f"link {_arc(*arc)} of the schedule's platform is not in the platform")
        elif a.cost != b.cost:
            report.add("platform", f"{where} cost", a.cost, b.cost,
                       f"cost {format_exact(b.cost)} in the schedule, "
                       f"{format_exact(a.cost)} in the platform")
        elif a.startup != b.startup:
            report.add("platform", f"{where} startup", a.startup, b.startup,
                       f"start-up {format_exact(b.startup)} in the schedule, "
                       f"{format_exact(a.startup)} in the platform")
    if dict(platform.send_overhead) != dict(embedded.send_overhead):
        report.add("platform", "platform.send_overhead",
                   _overheads(platform), _overheads(embedded),
                   "the send overheads differ")
    for key in ("ports", "switches"):   # issue 43: the port model and the switches
        mine, theirs = getattr(platform, key), getattr(embedded, key)
        if mine != theirs:
            report.add("platform", f"platform.{key}", _listed(mine), _listed(theirs),
                       f"the {key} differ")
    if getattr(platform, "network", None) != getattr(embedded, "network", None):
        report.add("platform", "platform.network", repr(platform.network),
                   repr(embedded.network), "the network sections (links, routes) differ")


def _listed(value) -> str:
    return value if isinstance(value, str) else ", ".join(sorted(value))


def _overheads(p: Platform) -> str:
    return ", ".join(f"{v}: {format_exact(o)}" for v, o in sorted(p.send_overhead.items()))


def _edge_set(tree: TreeEntry) -> set:
    return {e for e in tree.edges if isinstance(e, tuple) and len(e) == 2}


def _check_steps(platform: Platform, schedule: Schedule, tree_edges: list,
                 report: VerifyReport) -> dict:
    """Per-step rules; returns the messages carried per period, {(tree, tail, head): n}."""
    carried: dict[tuple[int, str, str], int] = {}
    total = Fraction(0)
    durations_exact = True
    shared = shared_link_arcs(platform)
    for i, step in enumerate(schedule.steps):
        where = f"steps[{i}]"
        if not isinstance(step, Step):
            report.add("format", where, "a Step", type(step).__name__, "not a Step")
            durations_exact = False
            continue
        duration = step.duration
        if not _is_exact(duration):
            report.add("format", f"{where}.duration", "an exact number",
                       type(duration).__name__, "a duration is an int or a Fraction")
            durations_exact = False
            duration = None
        else:
            total += duration
            if duration <= 0:
                report.add("duration", f"{where}.duration", "> 0", duration,
                           f"duration {format_exact(duration)} is not positive")
        senders: dict[str, list] = {}     # node -> the distinct links it sends on
        receivers: dict[str, list] = {}
        load: dict[tuple[str, str], int] = {}
        for j, t in enumerate(step.transfers):
            tw = f"{where}.transfers[{j}]"
            report.transfers += 1
            if not _transfer_counts(platform, t, tw, tree_edges, carried, report, Transfer):
                continue
            arc = (t.tail, t.head)
            if arc not in load:
                load[arc] = 0
                senders.setdefault(t.tail, []).append(arc)
                receivers.setdefault(t.head, []).append(arc)
            load[arc] += t.messages
        for role, table in (("sends", senders), ("receives", receivers)):
            for node, arcs in table.items():
                if len(arcs) > 1:
                    links = ", ".join(_arc(*a) for a in arcs)
                    report.add("one-port", f"{where} node {node}", "at most 1 link",
                               links, f"{node} {role} over {len(arcs)} links in one "
                               f"step ({links})")
        if duration is None:
            continue
        for arc, messages in load.items():
            if platform.has_link(*arc):
                busy = messages * platform.cost(*arc)
                if busy > duration:
                    report.add("capacity", f"{where} link {_arc(*arc)}", duration, busy,
                               f"{messages} messages x cost "
                               f"{format_exact(platform.cost(*arc))} = {format_exact(busy)}"
                               f" > duration {format_exact(duration)}")
        _check_step_network(shared, load, duration, where, report)
    period = schedule.period
    if not _is_exact(period):
        report.add("format", "period", "an exact number", type(period).__name__,
                   "the period is an int or a Fraction")
    else:
        if period <= 0:
            report.add("period", "period", "> 0", period, "the period is not positive")
        if durations_exact and total != period:
            report.add("period", "period", total, period,
                       f"the durations add up to {format_exact(total)}, the period is "
                       f"{format_exact(period)}")
    return carried


def _check_timetable(platform: Platform, schedule: Schedule, tree_edges: list,
                     report: VerifyReport) -> dict:
    """Version 2 rules; returns the messages carried per period, {(tree, tail, head): n}."""
    period = schedule.period
    period_ok = _is_exact(period) and period > 0
    if not _is_exact(period):
        report.add("format", "period", "an exact number", type(period).__name__,
                   "the period is an int or a Fraction")
    elif period <= 0:
        report.add("period", "period", "> 0", period, "the period is not positive")
    carried: dict[tuple[int, str, str], int] = {}
    busy: dict[tuple[str, str], list] = {}     # (side, node) -> [(start, end, where)]
    for j, t in enumerate(schedule.transfers):
        where = f"transfers[{j}]"
        report.transfers += 1
        if not _transfer_counts(platform, t, where, tree_edges, carried, report,
                                TimedTransfer):
            continue
        if not _is_exact(t.start):
            report.add("format", f"{where}.start", "an exact number",
                       type(t.start).__name__, "a start is an int or a Fraction")
            continue
        if t.start < 0:
            report.add("start", f"{where}.start", ">= 0", t.start,
                       f"start {format_exact(t.start)} is before the period begins")
        if not platform.has_link(t.tail, t.head):
            continue
        end = t.start + t.messages * platform.cost(t.tail, t.head)
        duration = getattr(t, "duration", None)
        if duration is not None and duration != end - t.start:
            report.add("one-port", f"{where}.duration", format_exact(end - t.start),
                       duration, "on a one-port platform a transfer runs at its link's "
                       "speed: its duration is its messages x the link's cost")
        if period_ok and end > period:
            report.add("window", where, f"<= {format_exact(period)}", end,
                       f"ends at {format_exact(end)}, after the period "
                       f"{format_exact(period)}")
        busy.setdefault(("out", t.tail), []).append((t.start, end, where))
        busy.setdefault(("in", t.head), []).append((t.start, end, where))
    for (side, node), intervals in busy.items():
        _check_port(side, node, intervals, report)
    _check_timetable_network(platform, schedule, report)
    return carried


def _check_step_network(shared: dict, load: dict, duration, where: str,
                        report: VerifyReport) -> None:
    """Issue 19's step rule: the step's transfers through a shared link take, one
    after the other on it, sum(messages) x c_l <= the step's duration."""
    for lid, (cost, arcs) in shared.items():
        messages = sum(load.get(arc, 0) for arc in arcs)
        if messages and messages * cost > duration:
            busy = messages * cost
            report.add("network", f"{where} network link {lid}", duration, busy,
                       f"{messages} messages cross shared link {lid}: x cost "
                       f"{format_exact(cost)} = {format_exact(busy)} > duration "
                       f"{format_exact(duration)}")


def _check_timetable_network(platform: Platform, schedule: Schedule,
                             report: VerifyReport) -> None:
    """Issue 19's rule for a timetable: at every instant, the transfers in progress
    through a shared link l use sum c_l / c_arc <= 1 of it (a sweep over the starts and
    ends; [start, end) intervals, so one ending as another starts is fine)."""
    shared = shared_link_arcs(platform)
    if not shared:
        return
    through: dict[tuple[str, str], list] = {}
    for lid, (cost, arcs) in shared.items():
        for arc in arcs:
            through.setdefault(arc, []).append((lid, cost))
    events: dict[str, list] = {}
    for j, t in enumerate(schedule.transfers):
        if not (isinstance(t, TimedTransfer) and _is_exact(t.start) and _is_int(t.messages)
                and platform.has_link(t.tail, t.head) and t.arc in through):
            continue
        arc_cost = platform.cost(t.tail, t.head)
        end = t.start + t.messages * arc_cost
        if end <= t.start:
            continue
        for lid, cost in through[t.arc]:
            share = cost / arc_cost
            events.setdefault(lid, []).extend([(end, 0, -share, j), (t.start, 1, share, j)])
    for lid, items in events.items():
        items.sort(key=lambda e: (e[0], e[1]))
        use = Fraction(0)
        for time, _, share, j in items:
            use += share
            if share > 0 and use > 1:
                report.add("network", f"transfers[{j}] network link {lid}", "<= 1", use,
                           f"from {format_exact(time)}, the transfers in progress through "
                           f"shared link {lid} use {format_exact(use)} of its capacity")
                break


def _check_port(side: str, node: str, intervals: list, report: VerifyReport) -> None:
    """One port's busy intervals [start, end) may touch but never overlap."""
    intervals.sort(key=lambda x: (x[0], x[1]))
    role = "sends" if side == "out" else "receives"
    latest_end, latest = None, None
    for start, end, where in intervals:
        if latest_end is not None and start < latest_end:
            report.add("one-port", f"{where} node {node}", f">= {format_exact(latest_end)}",
                       start, f"{node} {role} in {latest} until {format_exact(latest_end)}"
                       f" and in {where} from {format_exact(start)}: its {side}-port "
                       "would serve two transfers at once")
        if latest_end is None or end > latest_end:
            latest_end, latest = end, where


def _transfer_counts(platform, t, where, tree_edges, carried, report, kind) -> bool:
    """The rules every transfer obeys, steps or timetable: its type, an existing link,
    an existing tree having that edge, messages > 0; counts its messages in
    ``carried``.  Returns False when it is too malformed to check further."""
    if not isinstance(t, kind):
        report.add("format", where, f"a {kind.__name__}", type(t).__name__,
                   f"not a {kind.__name__}")
        return False
    if not (_is_int(t.tree) and _is_int(t.messages)
            and isinstance(t.tail, str) and isinstance(t.head, str)):
        report.add("format", where, "names and integers", repr(t),
                   "a transfer has node names and integer tree and messages")
        return False
    arc = (t.tail, t.head)
    if t.messages <= 0:
        report.add("messages", f"{where}.messages", "> 0", t.messages,
                   f"{t.messages} messages: a transfer sends at least one")
    if not platform.has_link(*arc):
        report.add("link", where, "a link of the platform", _arc(*arc),
                   f"{_arc(*arc)} is not a link of the platform")
    ntrees = len(tree_edges)
    if not 0 <= t.tree < ntrees:
        report.add("tree-index", f"{where}.tree", f"0..{ntrees - 1}", t.tree,
                   f"tree {t.tree} does not exist ({ntrees} trees)")
    elif arc not in tree_edges[t.tree]:
        report.add("tree-edge", where, f"an edge of trees[{t.tree}]", _arc(*arc),
                   f"{_arc(*arc)} is not an edge of tree {t.tree}: nothing of "
                   "that tree is sent there")
    else:
        key = (t.tree, t.tail, t.head)
        carried[key] = carried.get(key, 0) + t.messages
    return True


def _check_trees(platform: Platform, trees, tree_ok, tree_edges, carried,
                 report: VerifyReport) -> None:
    if not trees:
        report.add("tree", "trees", "at least one tree", 0, "the schedule has no tree")
    for l, tree in enumerate(trees):
        if not tree_ok[l]:
            continue
        where = f"trees[{l}]"
        weight = tree.weight
        if not _is_int(weight):
            report.add("format", f"{where}.weight", "an integer", type(weight).__name__,
                       "a weight is an integer")
            weight = None
        elif weight <= 0:
            report.add("weight", f"{where}.weight", "> 0", weight,
                       f"weight {weight} is not positive")
        _check_arborescence(platform, tree, where, report)
        if weight is None:
            continue
        for tail, head in dict.fromkeys(e for e in tree.edges if e in tree_edges[l]):
            n = carried.get((l, tail, head), 0)
            if n != weight:
                report.add("delivery", f"{where} edge {_arc(tail, head)}", weight, n,
                           f"{_arc(tail, head)} carries {n} messages of tree {l} per "
                           f"period, the tree's weight is {weight}")


def _check_arborescence(platform: Platform, tree: TreeEntry, where: str,
                        report: VerifyReport) -> None:
    """Spanning arborescence rooted at the source over existing links; one violation
    per problem found."""
    parent: dict[str, str] = {}
    nodes = set(platform.nodes)
    before = len(report.violations)
    for j, edge in enumerate(tree.edges):
        ew = f"{where}.edges[{j}]"
        if not (isinstance(edge, tuple) and len(edge) == 2
                and all(isinstance(x, str) for x in edge)):
            report.add("format", ew, "a pair of node names", repr(edge),
                       "an edge is a (parent, child) pair")
            continue
        tail, head = edge
        if not platform.has_link(tail, head):
            unknown = [v for v in edge if v not in nodes]
            reason = (f"unknown node {unknown[0]}" if unknown
                      else f"{_arc(tail, head)} is not a link of the platform")
            report.add("tree", ew, "a link of the platform", _arc(tail, head), reason)
        if head == platform.source:
            report.add("tree", ew, "no edge into the source", _arc(tail, head),
                       f"the source {head} has no parent in a tree rooted at it")
            continue
        if head in parent:
            if parent[head] == tail:
                report.add("tree", ew, "each edge once", _arc(tail, head),
                           f"edge {_arc(tail, head)} is listed twice")
            else:
                report.add("tree", ew, "one parent", f"{parent[head]}, {tail}",
                           f"{head} has two parents, {parent[head]} and {tail}")
            continue
        parent[head] = tail
    missing = [v for v in platform.nodes if v != platform.source and v not in parent]
    if missing:
        report.add("tree", where, "every destination", ", ".join(missing),
                   "not spanning: no parent for " + ", ".join(missing))
    if len(report.violations) > before:
        return
    # Every node has exactly one parent: it is an arborescence rooted at the source
    # iff following parents always reaches the source (no cycle).  Linear: each node is
    # resolved once.
    state = {platform.source: True}
    for v in platform.nodes:
        path = []
        while v not in state:
            state[v] = None       # on the current path
            path.append(v)
            v = parent[v]
        good = state[v] is True
        if state[v] is None:      # walked back onto the current path: a new cycle
            report.add("tree", where, "no cycle", v,
                       f"cycle through {v}: it is not reached from the source")
        for u in path:
            state[u] = good


def _check_totals(schedule: Schedule, trees, tree_ok, report: VerifyReport) -> None:
    mpp = schedule.messages_per_period
    if not _is_int(mpp):
        report.add("format", "messages_per_period", "an integer", type(mpp).__name__,
                   "messages_per_period is an integer")
        return
    weights = [t.weight for t, ok in zip(trees, tree_ok) if ok]
    if all(_is_int(w) for w in weights) and all(tree_ok):
        total = sum(weights)
        if total != mpp:
            report.add("messages-per-period", "messages_per_period", total, mpp,
                       f"the tree weights add up to {total}, messages_per_period is {mpp}")
    tp, period = schedule.throughput, schedule.period
    if not _is_exact(tp):
        report.add("format", "throughput", "an exact number", type(tp).__name__,
                   "the throughput is an int or a Fraction")
        return
    if _is_exact(period) and period > 0:
        expected = Fraction(mpp) / period
        if tp != expected:
            report.add("throughput", "throughput", expected, tp,
                       f"messages_per_period / period = {format_exact(expected)}, the "
                       f"schedule claims {format_exact(tp)}")


def _check_optimality(platform: Platform, schedule: Schedule,
                      report: VerifyReport) -> Fraction | None:
    """Weak duality (proofs/certificate.md): prices y >= 0 with sum y = TP under which
    every spanning arborescence costs >= 1 bound every feasible throughput by TP.
    Returns the cheapest arborescence's cost when the prices are usable."""
    cert = schedule.certificate
    tp = schedule.throughput
    if cert is None:
        report.add("optimality", "certificate", "port prices", None,
                   "no certificate: the throughput is not proven optimal")
        return None
    cost = _price_check(platform, cert, report)
    if cost is None:
        return None
    total = _price_sum(cert)
    if not _is_exact(tp) or total != tp:
        report.add("optimality", "certificate", tp, total,
                   f"the prices add up to {format_exact(total)}, not to the throughput "
                   f"{_text(tp)}")
    if cost < 1:
        report.add("optimality", "certificate", ">= 1", cost,
                   f"a spanning arborescence costs {format_exact(cost)} < 1 under the "
                   "prices: they do not bound the throughput")
    return cost if cost > 0 else None


def _price_sum(cert) -> Fraction:
    return (sum(cert.out_prices.values(), Fraction(0))
            + sum(cert.in_prices.values(), Fraction(0))
            + sum(getattr(cert, "link_prices", {}).values(), Fraction(0)))


def _bad_price(where: str, key, price, known: bool, letter: str,
               report: VerifyReport) -> bool:
    """One certificate price: exact, >= 0 (weak duality), of a known node or shared
    link; True (after reporting) when it is not."""
    bad = False
    if not _is_exact(price):
        report.add("format", where, "an exact number", type(price).__name__,
                   "a price is an int or a Fraction")
        bad = True
    elif price < 0:
        report.add("optimality", where, ">= 0", price, f"negative price "
                   f"{format_exact(price)}: weak duality needs {letter} >= 0")
        bad = True
    if not known:
        if letter == "z":
            report.add("optimality", where, "a shared link some route crosses", key,
                       f"price for {key!r}, not a shared link of the platform's network")
        else:
            report.add("optimality", where, "a node of the platform", key,
                       f"price for unknown node {key!r}")
        bad = True
    return bad


def _price_check(platform: Platform, cert, report: VerifyReport) -> Fraction | None:
    """The prices are exact, >= 0 and on nodes of the platform; returns the exact cost
    of the cheapest spanning arborescence under them (None when they are unusable), and
    checks the certificate's claimed ``min_tree_cost`` against it."""
    if not isinstance(cert, PriceCertificate):
        report.add("format", "certificate", "a PriceCertificate", type(cert).__name__,
                   "not a PriceCertificate")
        return None
    nodes = set(platform.nodes)
    links = shared_link_arcs(platform)
    link_prices = getattr(cert, "link_prices", {})
    bad = False
    for side, prices, known, letter in (
            ("link_prices", link_prices, links, "z"),
            ("out_prices", cert.out_prices, nodes, "y"),
            ("in_prices", cert.in_prices, nodes, "y")):
        for key, price in prices.items():
            bad |= _bad_price(f"certificate.{side}[{key!r}]", key, price, key in known,
                              letter, report)
    if bad:
        return None
    extra = link_price_weights(platform, link_prices)  # shared links (issue 19)
    weights = {l.arc: l.cost * (cert.out_prices.get(l.tail, 0) + cert.in_prices.get(l.head, 0))
               + extra.get(l.arc, 0) for l in platform.links}
    cost = min_arborescence_cost(platform.nodes, weights, root=platform.source)
    if cost is None:  # impossible for a validated Platform; kept for safety
        report.add("optimality", "certificate", "a spanning arborescence", None,
                   "the platform has no spanning arborescence rooted at the source")
        return None
    if cert.min_tree_cost is not None and cert.min_tree_cost != cost:
        report.add("optimality", "certificate.min_tree_cost", cost, cert.min_tree_cost,
                   f"the cheapest arborescence costs {format_exact(cost)}, the "
                   f"certificate claims {_text(cert.min_tree_cost)}")
    return cost


def _check_ratio(platform: Platform, schedule: Schedule, min_ratio, report: VerifyReport) -> None:
    """A timed schedule's certified ratio (weak duality, proofs/timed-schedule.md): prices
    y >= 0 under which every spanning arborescence costs >= c > 0 bound the optimum by
    sum(y) / c, so throughput / (sum(y) / c) <= throughput / optimum."""
    cert = schedule.certificate
    if cert is None:
        report.add("ratio", "certificate", "port prices", None,
                   "no certificate: the ratio to the optimum is not certified")
        return
    cost = _price_check(platform, cert, report)
    if cost is None:
        return
    if cost <= 0:
        report.add("ratio", "certificate", "> 0", cost, "the prices bound nothing: the "
                   "cheapest arborescence costs 0 under them")
        return
    _rate(schedule, cost, min_ratio, report)


def _rate(schedule: Schedule, cost: Fraction, min_ratio, report: VerifyReport) -> None:
    """bound = sum(y) / c and ratio = throughput / bound; claimed ``optimum`` and
    ``ratio`` must equal them, and the ratio must reach ``min_ratio`` when given."""
    cert = schedule.certificate
    report.bound = _price_sum(cert) / cost
    if not _is_exact(schedule.throughput) or report.bound == 0:
        return
    report.ratio = schedule.throughput / report.bound
    check_claims(schedule, min_ratio, report)

