"""The independent checker of a collective's schedule (issue 43; docs/formats.md,
"Collectives"; proofs/collectives.md, "The resource rule").  Called by
:func:`steady.verify.verify` for a schedule that serves a collective or lives on a
multi-port or switched platform.

Like :mod:`steady.verify` it imports only the platform, the file format, exact numbers
and the certificate re-checker (whose collective half, :func:`~steady.certificate
.collective_bound`, imports nothing of the constructors either: networkx's Dijkstra
and the Edmonds families), and restates every rule from the format's semantics:

* the collective (``collective``): its kind, a broadcast's sources (distinct compute
  nodes; default the platform's source) and rates (> 0) -- hence the roots: (node,
  direction) with a relative rate;
* trees (``tree``, ``route``, ``weight``): each rooted at a root of the collective in
  that root's direction, an arborescence of the *compute* nodes (a switch is never a
  tree node: it forwards, it never stores, replicates or reduces), its edges listed as
  the data flows (parent -> child out, child -> parent in); an edge's route is a path
  of links whose interior nodes are switches (``routes``; none: the edge is a link);
* transfers (``tree-index``, ``tree-edge``, ``messages``): of an existing tree, along
  one of its edges, messages > 0; per period every tree edge carries the tree's
  weight (``delivery``);
* the resource rule: a transfer of m messages over a route runs m·c_P (c_P its slowest
  link) and holds, while it runs -- one-port: its sender's out-port and its receiver's
  in-port (switches have no port) and c_l / c_P of every link between two switches;
  multi-port: c_l / c_P of every link of the route; both: c_nl / c_P of every shared
  network link some arc of the route crosses.  On a multi-port platform a transfer
  may run slower, for a ``duration`` above m·c_P, and then holds those parts times
  m·c_P / duration (``speed``: never faster than m·c_P; ``one-port``: never slower
  on a one-port platform).  A timetable (version 2) keeps every
  resource within its capacity 1 at every instant (``one-port`` for ports, ``links``,
  ``network``), inside [0, period] (``start``, ``window``); synchronous steps (version
  1) keep each resource's time in a step, sum of m·c_P·part, within the step's
  duration (``capacity``, ``links``, ``network``; a transfer may then run at a
  constant fraction of its speed through the step), and one-port nodes send and receive
  over one route per step (``one-port``);
* totals (``messages-per-period``, ``totals``, ``throughput``): the weights add up to
  messages_per_period; each root's trees carry m_r messages per period with m_r / ρ_r
  the same for every root; throughput = messages_per_period / period;
* the rate per root x = m_r / (ρ_r·period) against the certificate (``ratio``): prices
  and Edmonds families bounding every schedule's rate per root by
  B = sum(y) / sum(ρ_r·w_r), re-checked by :func:`steady.certificate.collective_bound`;
  ratio = x / B; claimed ``optimum`` (B) and ``ratio`` must equal them.

In-trees under the period rule: a node sends, in period p, the reduction of its own
share with what its children sent it in period p - 1, so a timetable whose every in-tree
edge carries its weight per period is valid whatever the order inside the period (as
for out-trees, 002 §5.4.2); the order within a finite run is the plan check's
(:func:`steady.simulate.plan.check_plan`).
"""

from __future__ import annotations

from fractions import Fraction

from .certificate import collective_bound, shared_link_arcs
from .numbers import format_exact, parse_exact
from .schedule_file import (COLLECTIVES, IN, OUT, TIMED, FabricCertificate, Step,
                            TimedTransfer, Transfer, TreeEntry)


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_exact(x) -> bool:
    return isinstance(x, (int, Fraction)) and not isinstance(x, bool)


def _arc(a, b) -> str:
    return f"{a}->{b}"


class _Model:
    """The platform as the rules read it: compute nodes, switches, link costs, the
    shared network links each link crosses, the port model."""

    def __init__(self, platform):
        self.platform = platform
        self.switches = frozenset(platform.switches)
        self.compute = [v for v in platform.nodes if v not in self.switches]
        self.one_port = platform.ports != "multi-port"
        self.shared: dict = {}
        for lid, (cost, arcs) in shared_link_arcs(platform).items():
            for arc in arcs:
                self.shared.setdefault(arc, []).append((lid, cost))

    def route_problem(self, route) -> str:
        """'' when ``route`` runs over links through switches only, else why not."""
        if len(route) < 2:
            return "a route has two ends"
        for a, b in zip(route, route[1:]):
            if not self.platform.has_link(a, b):
                return f"{_arc(a, b)} is not a link of the platform"
        inner = [v for v in route[1:-1] if v not in self.switches]
        if inner:
            return f"it crosses the compute node {inner[0]} (routes forward at switches only)"
        if len(set(route)) != len(route):
            return "it visits a node twice"
        return ""

    def holds(self, route) -> tuple[Fraction, dict]:
        """(c_P, {resource: part}) of a valid route (the module docstring's rule)."""
        cost = self.platform.cost
        c = max(cost(a, b) for a, b in zip(route, route[1:]))
        parts: dict = {}
        if self.one_port:
            parts[("out", route[0])] = Fraction(1)
            parts[("in", route[-1])] = Fraction(1)
        for a, b in zip(route, route[1:]):
            if not self.one_port or (a in self.switches and b in self.switches):
                parts[("arc", (a, b))] = parts.get(("arc", (a, b)), 0) + cost(a, b) / c
            for lid, lc in self.shared.get((a, b), ()):
                parts[("link", lid)] = parts.get(("link", lid), 0) + lc / c
        return c, parts


def _resource_kind(key) -> str:
    return {"out": "one-port", "in": "one-port", "arc": "links"}.get(key[0], "network")


def _resource_words(key) -> str:
    kind, what = key
    if kind in ("out", "in"):
        return f"{kind}-port of {what}"
    if kind == "arc":
        return f"link {_arc(*what)}"
    return f"shared link {what}"


# -- the collective and its roots ------------------------------------------------------

def collective_roots(model: _Model, schedule, report) -> tuple[str, dict] | None:
    """(kind, {(node, direction): ρ}) of the schedule's collective (a broadcast from the
    source when it names none); None after reporting when it is not one."""
    spec = schedule.collective
    platform = model.platform
    if spec is None:
        return "broadcast", {(platform.source, OUT): Fraction(1)}
    if spec.kind not in COLLECTIVES:
        report.add("collective", "collective.kind", ", ".join(COLLECTIVES), spec.kind,
                   f"unknown collective {spec.kind!r}")
        return None
    bad = False
    if spec.kind == "broadcast":
        sources = spec.sources or (platform.source,)
        for i, v in enumerate(sources):
            if v not in model.compute:
                report.add("collective", f"collective.sources[{i}]", "a compute node", v,
                           f"{v} is not a compute node of the platform")
                bad = True
        if len(set(sources)) != len(sources):
            report.add("collective", "collective.sources", "distinct sources",
                       ", ".join(sources), "a source is given twice")
            bad = True
        rates = spec.rates or (Fraction(1),) * len(sources)
        if len(rates) != len(sources) or any(not _is_exact(r) or r <= 0 for r in rates):
            report.add("collective", "collective.rates", "one rate > 0 per source",
                       ", ".join(map(str, rates)), "the rates are not one > 0 per source")
            bad = True
    elif spec.sources is not None or spec.rates is not None:
        report.add("collective", "collective.sources", None, spec.sources,
                   f"{spec.kind}: every compute node is a root (sources are for a "
                   "broadcast)")
        bad = True
    if bad:
        return None
    return spec.kind, spec.roots(platform)


# -- trees ---------------------------------------------------------------------------

def check_trees(model: _Model, trees, roots: dict, report) -> list:
    """Per tree: {edge (sender, receiver): route} when the tree is valid (every rule of
    the module docstring), else None (after reporting)."""
    out = []
    for l, tree in enumerate(trees):
        where = f"trees[{l}]"
        if not isinstance(tree, TreeEntry):
            report.add("format", where, "a TreeEntry", type(tree).__name__,
                       "not a TreeEntry")
            out.append(None)
            continue
        if not _is_int(tree.weight):
            report.add("format", f"{where}.weight", "an integer",
                       type(tree.weight).__name__, "a weight is an integer")
        elif tree.weight <= 0:
            report.add("weight", f"{where}.weight", "> 0", tree.weight,
                       f"weight {tree.weight} is not positive")
        out.append(_tree_edges(model, tree, where, roots, report))
    return out


def _tree_edges(model: _Model, tree: TreeEntry, where: str, roots: dict, report):
    before = len(report.violations)
    root = tree.root if tree.root is not None else model.platform.source
    direction = tree.direction
    if (root, direction) not in roots:
        report.add("tree", f"{where}.root", "a root of the collective",
                   f"{root} ({direction})", f"{root} ({direction}) is not a root of the "
                   "collective")
        return None
    parent: dict = {}
    edges: dict = {}
    compute = set(model.compute)
    for j, edge in enumerate(tree.edges):
        ew = f"{where}.edges[{j}]"
        if not (isinstance(edge, tuple) and len(edge) == 2
                and all(isinstance(x, str) for x in edge)):
            report.add("format", ew, "a pair of node names", repr(edge),
                       "an edge is a (sender, receiver) pair")
            continue
        sender, receiver = edge
        outside = [v for v in edge if v not in compute]
        if outside:
            v = outside[0]
            reason = (f"{v} is a switch: a tree joins compute nodes (a switch forwards "
                      "inside routes, it never stores or replicates)"
                      if v in model.switches else f"unknown node {v}")
            report.add("tree", ew, "two compute nodes", _arc(*edge), reason)
            continue
        child, par = (receiver, sender) if direction == OUT else (sender, receiver)
        if child == root:
            report.add("tree", ew, f"no parent for the root {root}", _arc(*edge),
                       f"the root {root} has no parent in a tree rooted at it")
            continue
        if child in parent:
            report.add("tree", ew, "one parent", f"{parent[child]}, {par}",
                       f"{child} has two parents, {parent[child]} and {par}"
                       if parent[child] != par else f"edge {_arc(*edge)} is listed twice")
            continue
        parent[child] = par
        route = tree.route(edge)
        problem = model.route_problem(route)
        if problem:
            report.add("route", f"{where} edge {_arc(*edge)}", "links through switches",
                       "->".join(route), f"the route {'->'.join(route)}: {problem}")
            continue
        edges[edge] = route
    for child in tree.routes:
        if child not in parent:
            report.add("route", f"{where}.routes[{child!r}]", "a child of the tree", child,
                       f"a route for {child}, which has no edge in the tree")
    missing = [v for v in model.compute if v != root and v not in parent]
    if missing:
        report.add("tree", where, "every compute node", ", ".join(missing[:5]),
                   "not spanning: no edge for " + ", ".join(missing[:5])
                   + (f" (and {len(missing) - 5} more)" if len(missing) > 5 else ""))
    if len(report.violations) > before:
        return None
    state = {root: True}   # every chain of parents must reach the root
    for v in parent:
        path = []
        while v not in state:
            state[v] = None
            path.append(v)
            v = parent[v]
        if state[v] is None:
            report.add("tree", where, "no cycle", v, f"cycle through {v}: it is not "
                       f"{'reached from' if direction == OUT else 'led to'} the root {root}")
            return None
        for u in path:
            state[u] = True
    return edges


# -- transfers, resources --------------------------------------------------------------

def _transfer(model, t, where, kind, tree_edges, carried, report):
    """The route of a well-formed transfer along a valid tree edge (counted in
    ``carried``), or None."""
    if not isinstance(t, kind):
        report.add("format", where, f"a {kind.__name__}", type(t).__name__,
                   f"not a {kind.__name__}")
        return None
    if not (_is_int(t.tree) and _is_int(t.messages)
            and isinstance(t.tail, str) and isinstance(t.head, str)):
        report.add("format", where, "names and integers", repr(t),
                   "a transfer has node names and integer tree and messages")
        return None
    if t.messages <= 0:
        report.add("messages", f"{where}.messages", "> 0", t.messages,
                   f"{t.messages} messages: a transfer sends at least one")
        return None
    n = len(tree_edges)
    if not 0 <= t.tree < n:
        report.add("tree-index", f"{where}.tree", f"0..{n - 1}", t.tree,
                   f"tree {t.tree} does not exist ({n} trees)")
        return None
    edges = tree_edges[t.tree]
    if edges is None:
        return None   # the tree is reported already
    arc = (t.tail, t.head)
    if arc not in edges:
        report.add("tree-edge", where, f"an edge of trees[{t.tree}]", _arc(*arc),
                   f"{_arc(*arc)} is not an edge of tree {t.tree} (as its data flows)")
        return None
    carried[(t.tree, arc)] = carried.get((t.tree, arc), 0) + t.messages
    return edges[arc]


def check_timetable(model: _Model, schedule, tree_edges, report) -> dict:
    """Version 2: windows and the resource rule at every instant; returns the messages
    carried per period {(tree, edge): n}."""
    period = schedule.period
    period_ok = _is_exact(period) and period > 0
    if not _is_exact(period):
        report.add("format", "period", "an exact number", type(period).__name__,
                   "the period is an int or a Fraction")
    elif period <= 0:
        report.add("period", "period", "> 0", period, "the period is not positive")
    carried: dict = {}
    events: dict = {}   # resource -> [(time, 0 end / 1 start, part, where)]
    for j, t in enumerate(schedule.transfers):
        where = f"transfers[{j}]"
        report.transfers += 1
        route = _transfer(model, t, where, TimedTransfer, tree_edges, carried, report)
        if route is None:
            continue
        if not _is_exact(t.start):
            report.add("format", f"{where}.start", "an exact number",
                       type(t.start).__name__, "a start is an int or a Fraction")
            continue
        if t.start < 0:
            report.add("start", f"{where}.start", ">= 0", t.start,
                       f"start {format_exact(t.start)} is before the period begins")
        c, parts = model.holds(route)
        length = _duration(model, t, t.messages * c, where, report)
        if length is None:
            continue
        if length != t.messages * c:   # slower than its route: a share of each link
            share = t.messages * c / length
            parts = {key: part * share for key, part in parts.items()}
        end = t.start + length
        if period_ok and end > period:
            report.add("window", where, f"<= {format_exact(period)}", end,
                       f"ends at {format_exact(end)}, after the period "
                       f"{format_exact(period)}")
        for key, part in parts.items():
            events.setdefault(key, []).extend([(end, 0, -part, where),
                                               (t.start, 1, part, where)])
    for key, items in events.items():
        items.sort(key=lambda e: (e[0], e[1]))
        use = Fraction(0)
        for time, _, part, where in items:
            use += part
            if part > 0 and use > 1:
                report.add(_resource_kind(key), f"{where} {_resource_words(key)}", "<= 1",
                           use, f"from {format_exact(time)}, the transfers in progress "
                           f"hold {format_exact(use)} of the {_resource_words(key)}"
                           + (": it would serve two transfers at once"
                              if key[0] in ("out", "in") else ""))
                break
    return carried


def _duration(model: _Model, t, length: Fraction, where: str, report):
    """How long the transfer ``t`` runs (``length``: its messages at its route's speed),
    or None when its ``duration`` breaks the rule: a transfer never runs faster than
    its route, and slower only on a multi-port platform (a one-port one holds its
    ports whole, whatever its speed)."""
    duration = getattr(t, "duration", None)
    if duration is None or duration == length:
        return length
    if not _is_exact(duration):
        report.add("format", f"{where}.duration", "an exact number",
                   type(duration).__name__, "a duration is an int or a Fraction")
    elif duration < length:
        report.add("speed", f"{where}.duration", f">= {format_exact(length)}", duration,
                   f"{format_exact(duration)} is faster than its route allows "
                   f"({t.messages} messages at the route's slowest link)")
    elif model.one_port:
        report.add("one-port", f"{where}.duration", format_exact(length), duration,
                   "on a one-port platform a transfer runs at its route's speed")
    else:
        return duration
    return None


def check_steps(model: _Model, schedule, tree_edges, report) -> dict:
    """Version 1: durations adding up to the period, per step each resource's time
    within the duration and one route per one-port node side."""
    carried: dict = {}
    total, exact = Fraction(0), True
    for i, step in enumerate(schedule.steps):
        where = f"steps[{i}]"
        if not isinstance(step, Step):
            report.add("format", where, "a Step", type(step).__name__, "not a Step")
            exact = False
            continue
        duration = step.duration
        if not _is_exact(duration):
            report.add("format", f"{where}.duration", "an exact number",
                       type(duration).__name__, "a duration is an int or a Fraction")
            exact, duration = False, None
        else:
            total += duration
            if duration <= 0:
                report.add("duration", f"{where}.duration", "> 0", duration,
                           f"duration {format_exact(duration)} is not positive")
        busy: dict = {}
        sides: dict = {}
        for j, t in enumerate(step.transfers):
            report.transfers += 1
            route = _transfer(model, t, f"{where}.transfers[{j}]", Transfer, tree_edges,
                              carried, report)
            if route is None:
                continue
            c, parts = model.holds(route)
            for key, part in parts.items():
                busy[key] = busy.get(key, 0) + t.messages * c * part
                if key[0] in ("out", "in"):
                    sides.setdefault(key, set()).add(route)
        for key, routes in sides.items():
            if len(routes) > 1:
                role = "sends" if key[0] == "out" else "receives"
                names = ", ".join(sorted("->".join(r) for r in routes))
                report.add("one-port", f"{where} node {key[1]}", "at most 1 route", names,
                           f"{key[1]} {role} over {len(routes)} routes in one step "
                           f"({names})")
        if duration is None:
            continue
        for key, time in busy.items():
            if time > duration:
                kind = "capacity" if key[0] in ("out", "in") else _resource_kind(key)
                report.add(kind, f"{where} {_resource_words(key)}", duration, time,
                           f"the {_resource_words(key)} is busy {format_exact(time)} > "
                           f"duration {format_exact(duration)}")
    period = schedule.period
    if not _is_exact(period):
        report.add("format", "period", "an exact number", type(period).__name__,
                   "the period is an int or a Fraction")
    else:
        if period <= 0:
            report.add("period", "period", "> 0", period, "the period is not positive")
        if exact and total != period:
            report.add("period", "period", total, period,
                       f"the durations add up to {format_exact(total)}, the period is "
                       f"{format_exact(period)}")
    return carried


# -- delivery, totals, rate --------------------------------------------------------------

def check_delivery(trees, tree_edges, carried, report) -> None:
    for l, edges in enumerate(tree_edges):
        if edges is None or not _is_int(trees[l].weight):
            continue
        for edge in edges:
            n = carried.get((l, edge), 0)
            if n != trees[l].weight:
                report.add("delivery", f"trees[{l}] edge {_arc(*edge)}", trees[l].weight, n,
                           f"{_arc(*edge)} carries {n} messages of tree {l} per period, "
                           f"the tree's weight is {trees[l].weight}")


def check_totals(platform, schedule, roots: dict, report) -> Fraction | None:
    """The totals; returns the rate per root x = m_r / (ρ_r·period) when they hold."""
    trees = schedule.trees
    if not all(isinstance(t, TreeEntry) and _is_int(t.weight) for t in trees):
        return None
    mpp = schedule.messages_per_period
    if not _is_int(mpp):
        report.add("format", "messages_per_period", "an integer", type(mpp).__name__,
                   "messages_per_period is an integer")
        return None
    total = sum(t.weight for t in trees)
    if total != mpp:
        report.add("messages-per-period", "messages_per_period", total, mpp,
                   f"the tree weights add up to {total}, messages_per_period is {mpp}")
    per_root = {r: 0 for r in roots}
    for t in trees:
        key = (t.root if t.root is not None else platform.source, t.direction)
        if key in per_root:
            per_root[key] += t.weight
    shares = {r: Fraction(m) / roots[r] for r, m in per_root.items()}
    first = next(iter(shares.values()), None)
    bad = [r for r, s in shares.items() if s != first or s <= 0]
    if bad:
        r = bad[0]
        report.add("totals", f"root {r[0]} ({r[1]})",
                   format_exact(first * roots[r]) if first else "> 0", per_root[r],
                   f"the trees of {r[0]} ({r[1]}) carry {per_root[r]} messages per period; "
                   f"every root must carry its relative rate times the same number "
                   f"({', '.join(f'{v} {m}' for (v, _), m in list(per_root.items())[:4])}"
                   + (", ..." if len(per_root) > 4 else "") + ")")
    tp, period = schedule.throughput, schedule.period
    if not (_is_exact(tp) and _is_exact(period) and period > 0):
        if not _is_exact(tp):
            report.add("format", "throughput", "an exact number", type(tp).__name__,
                       "the throughput is an int or a Fraction")
        return None
    if tp != Fraction(mpp) / period:
        report.add("throughput", "throughput", Fraction(mpp) / period, tp,
                   f"messages_per_period / period = {format_exact(Fraction(mpp) / period)}"
                   f", the schedule claims {format_exact(tp)}")
    if bad or first is None:
        return None
    return first / period


def check_rate(platform, schedule, kind, roots, rate, min_ratio, report) -> None:
    """The certified ratio x / B (module docstring)."""
    cert = schedule.certificate
    if not isinstance(cert, FabricCertificate):
        report.add("ratio", "certificate", "a collective certificate",
                   type(cert).__name__ if cert is not None else None,
                   "no collective certificate: the ratio to the optimum is not certified")
        return
    checked, bound = collective_bound(platform, kind, roots, cert)
    for problem in checked.problems[:20]:
        report.add("ratio", "certificate", "a valid certificate", None, problem)
    if bound is None or bound <= 0:
        return
    report.bound = bound
    if rate is None:
        return
    report.ratio = rate / bound
    check_claims(schedule, min_ratio, report)


def check_claims(schedule, min_ratio, report) -> None:
    """The optimum and ratio the file claims against the certified ``report.bound`` and
    ``report.ratio``, and the ratio against ``min_ratio`` (both checkers' last rule)."""
    for key, value in (("optimum", report.bound), ("ratio", report.ratio)):
        if key in schedule.extra:
            try:
                claimed = parse_exact(schedule.extra[key])
            except (ValueError, TypeError):
                claimed = None
            if claimed != value:
                report.add("ratio", key, value, schedule.extra[key],
                           f"the file claims {key} {shown(schedule.extra[key])}, the "
                           f"certificate proves {format_exact(value)}")
    if min_ratio is not None and report.ratio < min_ratio:
        report.add("ratio", "ratio", f">= {format_exact(min_ratio)}", report.ratio,
                   f"certified ratio {format_exact(report.ratio)} is below the required "
                   f"{format_exact(min_ratio)}")


def shown(value):
    """A value read from a file, as a violation quotes it (exact numbers exactly)."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, Fraction)):
        return format_exact(value)
    return str(value)


def verify_collective(platform, schedule, report, optimality: bool = True,
                      min_ratio=None):
    """Every rule of the module docstring into ``report`` (a VerifyReport); the rate is
    always rated (a collective's schedule is never required to be optimal), unless
    ``optimality`` is off and no certificate or ``min_ratio`` asks for it."""
    model = _Model(platform)
    found = collective_roots(model, schedule, report)
    trees = schedule.trees
    report.steps, report.trees = len(schedule.steps), len(trees)
    if not trees:
        report.add("tree", "trees", "at least one tree", 0, "the schedule has no tree")
    if found is None:
        return report
    kind, roots = found
    tree_edges = check_trees(model, trees, roots, report)
    if getattr(schedule, "version", 1) == TIMED:
        report.version = TIMED
        carried = check_timetable(model, schedule, tree_edges, report)
    else:
        carried = check_steps(model, schedule, tree_edges, report)
    check_delivery(trees, tree_edges, carried, report)
    rate = check_totals(platform, schedule, roots, report)
    if optimality or schedule.certificate is not None or min_ratio is not None:
        report.rated = True
        check_rate(platform, schedule, kind, roots, rate, min_ratio, report)
    return report
