"""``steady import simgrid``: a SimGrid platform file as a steady platform with its
network section (ours, issue 19).

SimGrid itself reads the file and answers, for every ordered pair of selected hosts,
the route: its links (name, bandwidth, latency).  Each pair with a route becomes an arc
of the platform (a SimGrid host can reach another directly; routers are not nodes):

* the arc's cost is the time one message of SIZE bytes takes alone on the route,
  SIZE / (smallest bandwidth on it): SimGrid's CM02 model gives a lone flow the
  bandwidth of its slowest link (bandwidth factor 1);
* its start-up (β of 002 §6) is the route's latency, the sum of its links' latencies:
  the steady-state optimum ignores it, as SimGrid does with a latency factor of 0;
* every link on a route becomes a network link of cost SIZE / bandwidth, shared or
  fatpipe (:mod:`steady.simgrid.xmlinfo`), and the arc's route lists them.

Numbers are exact: each double from SimGrid's API is matched to the decimal text of
the file that produces exactly that double (:mod:`steady.simgrid.xmlinfo`); the few
that match none are taken at their shortest decimal and counted (``inexact``).
Hosts the source cannot reach are reported and dropped; pairs SimGrid has no route
for, or crashes on, are counted; a platform with fewer than two reachable hosts, or a
feature steady cannot model, is refused in one line naming it.

Routers are switches whose routes SimGrid gives (issue 43): they never store,
replicate or reduce, each arc is its own route, loads add on the shared links.  With
``ports="multi-port"`` the platform is such a switched fabric for the collectives
(``steady throughput --collective``): its hosts use all their links at once.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from fractions import Fraction

from ..errors import InputError, echo
from ..fileio import check_input
from ..network.model import Network, NetworkLink
from ..platform import Link, Platform
from .hosts import HostPattern
from .locate import WorkerCrash, run_worker
from .xmlinfo import exact_of, read_facts

#: More selected hosts than this is refused (the platform grows as hosts squared):
#: select some with --hosts.  Every example platform of SimGrid up to 128 hosts fits.
MAX_HOSTS = 128
#: The largest --max-hosts: 1000 hosts are 999000 routes to ask SimGrid for.
MOST_HOSTS = 1000
#: Crashes survived (each one restarts the worker past the pair it crashed on).
MAX_CRASHES = 40


@dataclass
class ImportReport:
    """What ``import_simgrid`` found besides the platform."""

    platform: Platform
    hosts: int = 0                      # hosts in the file
    selected: int = 0                   # hosts --hosts selected
    dropped: list = field(default_factory=list)      # selected, unreachable: dropped
    no_route: int = 0                   # ordered pairs SimGrid has no route for
    empty_routes: int = 0               # pairs whose route has no link (not an arc)
    crashed: list = field(default_factory=list)      # pairs SimGrid crashed on
    inexact: int = 0                    # numbers read from SimGrid's doubles
    first_error: str = ""
    seconds: float = 0.0

    def to_dict(self) -> dict:
        net = self.platform.network
        return {"platform": self.platform.name, "source": self.platform.source,
                "hosts_in_file": self.hosts, "hosts_selected": self.selected,
                "nodes": len(self.platform.nodes), "arcs": len(self.platform.links),
                "network_links": len(net.links), "shared_links": len(net.shared_links()),
                "dropped_unreachable": list(self.dropped), "pairs_without_route": self.no_route,
                "empty_routes": self.empty_routes,
                "pairs_crashing_simgrid": [f"{u} -> {v}" for u, v in self.crashed],
                "inexact_numbers": self.inexact, "seconds": round(self.seconds, 3)}


def import_simgrid(path, size: Fraction, source: str | None = None,
                   hosts=None, max_hosts: int = MAX_HOSTS,
                   ports: str = "one-port") -> ImportReport:
    """The steady platform of the SimGrid file ``path`` for messages of ``size`` bytes
    (see the module docstring), in the port model ``ports``.  ``hosts``: a ``--hosts``
    pattern (:mod:`steady.simgrid.hosts`, linear-time matching) or a collection of host
    names."""
    start = time.perf_counter()
    origin = str(path)
    check_input(path)
    matcher = None if hosts is None or not isinstance(hosts, str) else HostPattern(hosts)
    facts = read_facts(path)
    if facts.unsupported:
        raise InputError(origin, "platform", f"{facts.unsupported[0]}: steady cannot model "
                         "it (shared and fatpipe links only)")
    full = os.path.abspath(path)
    try:
        names = _answer(run_worker({"op": "hosts", "platform": full}), origin)["hosts"]
    except WorkerCrash as crash:
        raise InputError(origin, "SimGrid", f"cannot load the platform: {crash.reason}") \
            from None
    if matcher is not None:
        selected = [name for name in names if matcher.search(name)]
    elif hosts is not None:   # a list of names (steady replay): those, in file order
        wanted = set(hosts)
        selected = [name for name in names if name in wanted]
    else:
        selected = list(names)
    if len(selected) > max_hosts:
        raise InputError(origin, "hosts", f"{len(selected)} hosts selected (at most "
                         f"{max_hosts}): choose some with --hosts REGEX")
    if len(selected) < 2:
        raise InputError(origin, "hosts", f"{len(selected)} host(s) selected of "
                         f"{len(names)}: a broadcast needs two"
                         + (" (see --hosts)" if hosts else ""))
    source = source or selected[0]
    if source not in selected:
        raise InputError(origin, "--source", _not_a_source(source, names))
    pairs, crashed = _collect(full, selected, origin)
    report = ImportReport(None, hosts=len(names), selected=len(selected), crashed=crashed)
    platform = _platform(path, size, source, selected, pairs, facts, report, origin, ports)
    report.platform = platform
    report.seconds = time.perf_counter() - start
    return report


def _answer(lines: list, origin: str) -> dict:
    """The worker's lines as one dict; SimGrid's refusal of the file as one line."""
    answer = {k: v for line in lines for k, v in line.items()}
    if "load_error" in answer:
        raise load_error(answer["load_error"], origin)
    return answer


def load_error(message: str, origin: str) -> InputError:
    """SimGrid's reason for not loading the file, as one line: its first line, the
    file's name and line number as the element (``line 7``), SimGrid's wording of a
    route to a missing host made plain."""
    first = next((line.strip() for line in str(message).splitlines() if line.strip()),
                 "no reason given")
    element = "SimGrid"
    where = _PARSE_ERROR.match(first)
    if where:
        element, first = f"line {where[1]}", where[2]
    missing = _NO_NODE.match(first)
    if missing:
        first = (f"the route's {missing[1]} {echo(missing[2])} is no host, router or zone "
                 "of the file")
    return InputError(origin, element, f"SimGrid cannot load the platform: {first}")


_PARSE_ERROR = re.compile(r"Parse error at .*?:(\d+): (.*)")
_NO_NODE = re.compile(r"Route (src|dst)='(.*)' does (?:not )?name a node\.?")


def _collect(path, selected, origin):
    """({(i, j): (link records, latency) | error}, crashed pairs) for the ``selected``
    hosts, restarting the worker past every pair SimGrid crashes on."""
    pairs: dict = {}
    crashed: list = []
    skip: set[int] = set()
    start = 0
    n = len(selected)
    while True:
        request = {"op": "routes", "platform": path, "selected": selected, "start": start,
                   "skip": sorted(skip)}
        try:
            lines = run_worker(request)
            crash = None
        except WorkerCrash as exc:
            lines, crash = exc.lines, exc
        _answer(lines, origin)
        links: dict[int, dict] = {}
        last = start - 1
        for line in lines:
            if "link" in line:
                links[line["link"]] = line
            elif "pair" in line:
                last = line["pair"]
                i, j = divmod(line["pair"], n)
                pairs[(i, j)] = (line["error"] if "error" in line else
                                 ([links[k] for k in line["links"]], line["lat"]))
        if crash is None:
            return pairs, [(selected[i], selected[j]) for i, j in crashed]
        k = last + 1
        while k < n * n and (k // n == k % n or k in skip):
            k += 1
        if k >= n * n or len(crashed) >= MAX_CRASHES:
            raise InputError(origin, "SimGrid", f"{crash.reason} on {len(crashed) + 1} "
                             "routes; the last asked: "
                             + (f"{selected[k // n]} -> {selected[k % n]}" if k < n * n
                                else "after the last pair"))
        crashed.append(divmod(k, n))
        pairs[divmod(k, n)] = (f"{crash.reason} on the route {selected[k // n]} -> "
                               f"{selected[k % n]}")
        skip.add(k)
        start = k + 1


def _platform(path, size, source, selected, pairs, facts, report, origin,
              ports="one-port") -> Platform:
    arcs: dict[tuple[str, str], tuple] = {}
    link_cost: dict[str, Fraction] = {}
    for (i, j), answer in sorted(pairs.items()):
        if isinstance(answer, str):
            report.no_route += 1
            report.first_error = report.first_error or answer
            continue
        records, _ = answer
        if not records:
            report.empty_routes += 1
            continue
        costs, latency = [], Fraction(0)
        for record in records:
            name = record["name"]
            if name not in link_cost:
                bandwidth, found = exact_of(record["bw"], facts.bandwidths)
                report.inexact += not found
                if bandwidth <= 0:
                    raise InputError(origin, f"link {name}", "bandwidth <= 0")
                link_cost[name] = size / bandwidth
            lat, found = exact_of(record["lat"], facts.latencies)
            report.inexact += not found
            latency += lat
            costs.append(link_cost[name])
        arcs[(selected[i], selected[j])] = (max(costs), latency,
                                            [r["name"] for r in records])
    reached = _reachable(source, arcs)
    report.dropped = [v for v in selected if v not in reached]
    if len(reached) < 2:
        why = report.first_error or ("every route is empty" if report.empty_routes
                                     else "no route")
        raise InputError(origin, "routes", f"no host is reachable from {source}: {why}")
    nodes = [v for v in selected if v in reached]
    kept = {arc: a for arc, a in arcs.items() if arc[0] in reached and arc[1] in reached}
    used = dict.fromkeys(name for _, _, names in kept.values() for name in names)
    network = Network([NetworkLink(name, link_cost[name], facts.sharing(name))
                       for name in used],
                      {arc: names for arc, (_, _, names) in kept.items()}, origin)
    try:
        links = [Link(u, v, cost, latency) for (u, v), (cost, latency, _) in kept.items()]
    except InputError as exc:   # a number SimGrid gave that no file decimal explains
        raise InputError(origin, exc.element, exc.reason) from None
    name = os.path.splitext(os.path.basename(str(path)))[0]
    return Platform(source, links, nodes, name, origin=origin, network=network, ports=ports)


def _reachable(source, arcs) -> set:
    succ: dict[str, list] = {}
    for u, v in arcs:
        succ.setdefault(u, []).append(v)
    seen, stack = {source}, [source]
    while stack:
        for w in succ.get(stack.pop(), ()):
            if w not in seen:
                seen.add(w)
                stack.append(w)
    return seen


def _not_a_source(source: str, names: list) -> str:
    """Why ``source`` cannot send: a host left out by --hosts, or no host at all (a
    router or a typo: only hosts run programs)."""
    if source in names:
        return f"{echo(source)} is a host not selected by --hosts"
    shown = ", ".join(echo(n) for n in names[:5]) + (", ..." if len(names) > 5 else "")
    return (f"{echo(source)} is not a host of the platform (routers and links cannot be "
            f"a source; its {len(names)} hosts: {shown})")
