"""A period's timetable by list scheduling (ours; step 3 of the timed schedules of
:mod:`.timed`, 002 §5.4.2 leaving the order inside a period free).

Given integer trees (messages per period per tree), every link carries a known count;
the timetable places those messages in exact integer ticks: whenever ports are free,
free (out-port, in-port) pairs with messages left are matched greedily by a priority of
their remaining work, ``chunk`` messages at a time; a message waits for every shared
network link on its route to have room (the transfers in progress hold at most its
capacity).  Several priority rules (:data:`PRIORITIES`) and rounds are tried (a port
that ended after the largest load gains that much priority in the next round), the
shortest period kept (then the fewest transfers).  The period is the makespan, never
below the largest load (checked exactly).  With shared links and equal link costs,
rounds (:mod:`.rounds`: König matchings, Kempe swaps until every link fits) replace it
when they end earlier.  Without shared links, a long period still more than
:data:`SLACK` above its load bound after its slack rounds gets the messages of its best
few greedy runs moved between each link's runs (:mod:`.resize_runs`), where the effort
asks for it (``Effort.one_period``: ``steady schedule`` for one long period).  The events are
those of :class:`.port_clock.PortClock`.

Work: the rules, rounds and chunk size follow from the number of messages and the
effort's placement budgets (:func:`runs_plan`), never from time.
"""

from __future__ import annotations

import heapq
import math
import random
from fractions import Fraction

from ..network.resources import alternative_routes, integer_parts, transfer_model
from ..network.rows import integer_shares, link_shares
from ..platform import Arc
from .port_clock import PortClock
from .resize_runs import resized_runs
from .rounds import link_rounds, rounds_needed
from .route_rounds import rerouted_rounds, route_rounds
from .timetable import Timetable, Tree, as_tree, extend_runs, loads_of, ticks_per_unit


def busier_port(out_work: int, in_work: int):
    """Priority of a free port pair (smallest first): the busier port's remaining work,
    most first — the port with least slack before the period's lower bound."""
    return -max(out_work, in_work)


def both_ports(out_work: int, in_work: int):
    """Priority of a free port pair: the two ports' remaining work together, most first
    (it idles a tight port less often than :func:`busier_port` when many ports are
    tight; neither is better everywhere, so both are tried)."""
    return -(out_work + in_work)


#: The priority rules, each tried: (key, stick); with ``stick`` a link that is sending
#: counts one more chunk of work, so it tends to go on (fewer, longer transfers).
PRIORITIES = ((busier_port, False), (both_ports, True), (both_ports, False),
              (busier_port, True))


def list_schedule(platform, trees, effort) -> Timetable:
    """The timetable of ``trees`` [(parent map, messages per period)] (module
    docstring), within ``effort``'s placement budgets (:class:`.effort.Effort`)."""
    used: dict[Arc, int] = {}
    for parent, w in trees:
        for child, par in parent.items():
            used[(par, child)] = used.get((par, child), 0) + w
    unit = ticks_per_unit(platform, used)
    cost = {arc: int(platform.cost(*arc) * unit) for arc in used}
    messages = sum(w for _, w in trees)
    budget = 4 * messages + len(used)   # transfers: ~300 bytes of file per message
    # makespans are whole ticks: a shared link's load may not be
    lower = math.ceil(max(loads_of(platform, used).values()) * unit)
    links = link_shares(platform, used)
    rules, rounds, chunk = runs_plan(sum(used.values()), effort)
    plans = [(key, stick, first) for first in ((False, True) if links else (False,))
             for key, stick in PRIORITIES]
    best = None
    states = []   # per rule: [its best makespan, rule, boost, rounds stale]
    # every greedy run's (makespan, transfers, runs), kept only where they may be
    # resized (one period asked for alone, no shared links)
    tried: list | None = [] if effort.one_period and not links else None
    for plan in plans[:rules]:
        if best is not None and best[0] == lower:
            break
        state = [None, plan, {}, 0]
        best = _round(state, best, used, cost, chunk, links, lower, budget, tried)
        states.append(state)
    # further rounds only for the rules that did best (:func:`_more_rounds`)
    states.sort(key=lambda state: state[0])
    rng = random.Random(0)

    def play(state, best):
        return _round(state, best, used, cost, chunk, links, lower, budget, tried)

    def ports():
        return sorted({("out", u) for u, _ in used})

    best = _more_rounds(states[:effort.round_rules], rounds - 1, best, rng, lower, play,
                        ports)
    if rounds <= effort.slack_rounds and _slack_above(best[0], lower):
        # long periods get few rounds (the placement budget); still more than SLACK
        # above the load bound, they get as many again, then (without shared links)
        # the messages of the best few move between their links' runs
        best = _more_rounds(states[:effort.round_rules], rounds, best, rng, lower, play,
                            ports)
        if tried is not None and _slack_above(best[0], lower):
            best = _resized(tried, best, cost, lower)
    if links and best[0] > lower:
        found = _link_rounds(used, cost, links, best[0])
        if found is not None:
            best = found
    makespan, _, runs = best
    table = Timetable.from_arc_runs(platform, trees, runs, makespan, unit)
    table.check()
    return table


#: After this many rounds in a row that end no earlier than its best, a rule's ports
#: get a random nudge (:data:`JOLTED` of them, up to 1/50 of the load each).
STALE_ROUNDS = 6
JOLTED = 5
#: A timetable of few rounds per rule (at most ``effort.slack_rounds``: long periods,
#: whose rounds the placement budget bounds) whose makespan is more than this part above
#: its load bound gets as many rounds again: with the counts' own bound, the list
#: schedule would keep it from a certified ratio of 0.999 (`schedule --max-messages
#: 1000`'s goal; benchmarks/timed_m1000.py, docs/limits.md).
SLACK = Fraction(1, 4000)


def _slack_above(makespan: int, lower: int) -> bool:
    """Whether ``makespan`` is more than :data:`SLACK` above the load bound ``lower``."""
    return makespan * SLACK.denominator > lower * (SLACK.denominator + SLACK.numerator)


#: The greedy runs (the shortest first, one per makespan, of at most
#: :data:`RESIZE_PIECES` transfers) whose runs :mod:`.resize_runs` resizes, until one
#: ends at the load bound: the shortest greedy run does not always resize best.
RESIZE_TRIES = 3
#: Greedy runs of more transfers than this are not resized (the program's size).
RESIZE_PIECES = 600


def _resized(tried: list, best, cost, lower: int):
    """The best (makespan, transfers, runs) of ``best`` and the resized runs
    (:func:`.resize_runs.resized_runs`) of the first :data:`RESIZE_TRIES` greedy runs
    of ``tried`` (see there) (ours)."""
    seen = set()
    for makespan, pieces, runs in sorted(tried, key=lambda run: run[:2]):
        if len(seen) == RESIZE_TRIES or best[0] == lower:
            break
        if makespan in seen or pieces > RESIZE_PIECES:
            continue
        seen.add(makespan)
        found = resized_runs(runs, cost, lower, best[0])
        if found is not None:   # ends strictly earlier than the best so far
            best = (found[0], sum(len(rs) for rs in found[1].values()), found[1])
    return best


def _more_rounds(states, count: int, best, rng, lower: int, play, names) -> tuple:
    """``count`` further rounds (``play(state, best)``: one greedy run, the best
    returned) for each rule of ``states`` until the load bound ``lower`` is reached:
    the resources that ended late get that much priority in the next; when that stops
    gaining, a few of them (or of ``names()`` while none has any) get a little priority
    at random (``rng``, seeded: the same input, the same timetable)."""
    for state in states:
        for _ in range(count):
            if best[0] == lower:
                break
            if state[3] >= STALE_ROUNDS:
                picked = sorted(state[2]) or names()
                for name in rng.sample(picked, min(JOLTED, len(picked))):
                    state[2][name] = state[2].get(name, 0) + rng.randint(0, lower // 50)
                state[3] = 0
            best = play(state, best)
    return best


def _round(state, best, used, cost, chunk, links, lower: int, budget: int, tried=None):
    """One greedy run under ``state``'s rule and boosts; ``state`` and the best
    (makespan, transfers, runs) so far updated (the best returned); the run's
    (makespan, transfers, runs) appended to ``tried`` when given."""
    key, stick, link_first = state[1]
    runs = greedy_runs(used, cost, key, state[2], stick, chunk, links, link_first)
    ends = _port_ends(runs, cost)
    makespan = max(ends.values())
    pieces = sum(len(rs) for rs in runs.values())
    if tried is not None:
        tried.append((makespan, pieces, runs))
    if best is None or (pieces <= budget and (makespan, pieces) < best[:2]):
        best = (makespan, pieces, runs)
    state[3] = 0 if state[0] is None or makespan < state[0] else state[3] + 1
    state[0] = makespan if state[0] is None else min(state[0], makespan)
    for port, end in ends.items():   # ports that ended late go first next round
        if end > lower:
            state[2][port] = state[2].get(port, 0) + end - lower
    return best


def runs_plan(sends: int, effort) -> tuple[int, int, int]:
    """(priority rules, rounds per rule, messages per placement) for ``sends`` message
    transmissions per period: single messages up to ``effort.run_placements`` per run,
    chunks beyond; up to ``effort.list_rounds`` rounds per rule while a rule's rounds
    fit in a third of ``effort.all_placements``; ``effort.rules`` rules at most, as many
    as the whole budget allows (at least one)."""
    chunk = -(-sends // effort.run_placements)
    placements = -(-sends // chunk)
    rules = max(1, min(2 * len(PRIORITIES), effort.rules,
                       effort.all_placements // placements))
    rounds = max(1, min(effort.list_rounds, effort.all_placements // 3 // max(1, sends)))
    return rules, rounds, chunk


def greedy_runs(used: dict[Arc, int], cost: dict[Arc, int], key=busier_port, boost=None,
                stick: bool = False, chunk: int = 1, links=None,
                link_first: bool = False, fast: bool = True) -> dict[Arc, list]:
    """{arc: [[start, messages], ...]} in integer ticks: ``chunk`` messages at a time
    (fewer when fewer are left) on matched idle port pairs, by ``key`` of the two ports'
    remaining work (plus ``boost``; plus one chunk's work for a link that is sending
    when ``stick``); on ties the link that just sent goes on; a chunk that follows the
    previous one on its link extends that run.  With ``links``
    (:func:`steady.network.rows.link_shares`) a chunk also waits until every shared link
    on its route has room for it; with ``link_first`` too, the remaining work of a
    shared link on the route counts as the receiving port's when it is larger.  Without
    shared links and with either rule of :data:`PRIORITIES` (and ``fast``) the runs come
    from :func:`_port_runs`, the same runs in fewer operations."""
    boost = boost or {}
    if fast and not links and key in (busier_port, both_ports):
        return _port_runs(used, cost, key is both_ports, boost, stick, chunk)
    left, work_out, work_in, live_out, live_in = _port_work(used, cost)
    parts, capacity = integer_shares(links or {})
    clock = PortClock(parts, capacity)
    work_link: dict[str, int] = {}   # shared link -> work left, in ticks x its capacity
    for arc, shares in parts.items():
        for lid, share in shares:
            work_link[lid] = work_link.get(lid, 0) + used[arc] * cost[arc] * share
    on_link: dict[str, list] = {}
    for arc, shares in parts.items():
        for lid, _ in shares:
            on_link.setdefault(lid, []).append(arc)
    idle_out, idle_in = set(work_out), set(work_in)
    runs: dict[Arc, list] = {arc: [] for arc in used}
    pending = sum(left.values())
    freed_out, freed_in, freed_links = set(work_out), set(), set()
    while pending:
        t, ended = clock.advance()
        for u, v, _ in ended:
            idle_out.add(u)
            idle_in.add(v)
            freed_out.add(u)
            freed_in.add(v)
            for lid, _ in parts.get((u, v), ()):
                freed_links.add(lid)
        # Only a pair with a port (or a shared link) freed now can have become free to
        # send: every other pair free at the last event was placed there, or lost a
        # port to a pair placed before it (which is still busy).
        pairs = {arc for u in freed_out for arc in live_out.get(u, ()) if arc[1] in idle_in}
        pairs.update(arc for v in freed_in for arc in live_in.get(v, ())
                     if arc[0] in idle_out)
        pairs.update(arc for lid in freed_links for arc in on_link[lid]
                     if left[arc] and arc[0] in idle_out and arc[1] in idle_in)
        freed_out, freed_in, freed_links = set(), set(), set()
        candidates = []
        for arc in pairs:
            u, v = arc
            last = runs[arc][-1] if runs[arc] else None
            going_on = last is not None and last[0] + last[1] * cost[arc] == t
            extra = min(chunk, left[arc]) * cost[arc] if going_on and stick else 0
            inward = work_in[v] + boost.get(("in", v), 0)
            if link_first and arc in parts:   # a busy shared link counts like a busy port
                inward = max(inward, max(work_link[lid] // capacity[lid]
                                         for lid, _ in parts[arc]))
            candidates.append((key(work_out[u] + boost.get(("out", u), 0) + extra,
                                   inward + extra), not going_on, arc))
        candidates.sort()
        for _, _, arc in candidates:
            u, v = arc
            if u not in idle_out or v not in idle_in or clock.full(arc):
                continue   # a link in use ends a transfer later: an event comes
            k = min(chunk, left[arc])
            c = cost[arc]
            left[arc] -= k
            pending -= k
            work_out[u] -= k * c
            work_in[v] -= k * c
            for lid, share in parts.get(arc, ()):
                work_link[lid] -= k * c * share
            if not left[arc]:
                live_out[u].remove(arc)
                live_in[v].remove(arc)
            idle_out.discard(u)
            idle_in.discard(v)
            clock.start(arc, t + k * c, None)
            extend_runs(runs[arc], t, k, c)
        if pending and not clock:   # pragma: no cover - a free pair always exists
            raise AssertionError("list schedule stalled with messages left")
    return runs


def _port_work(used: dict[Arc, int], cost: dict[Arc, int], numbered: bool = False):
    """(messages left per link, work left per out-port and per in-port, the links with
    messages left by tail and by head -- as their numbers in sorted order when
    ``numbered``): what a greedy run starts from."""
    left = dict(used)
    work_out: dict[str, int] = {}
    work_in: dict[str, int] = {}
    live_out: dict[str, list] = {}
    live_in: dict[str, list] = {}
    for a, ((u, v), k) in enumerate(sorted(used.items())):
        work_out[u] = work_out.get(u, 0) + k * cost[(u, v)]
        work_in[v] = work_in.get(v, 0) + k * cost[(u, v)]
        link = a if numbered else (u, v)
        live_out.setdefault(u, []).append(link)
        live_in.setdefault(v, []).append(link)
    return left, work_out, work_in, live_out, live_in


def _port_runs(used: dict[Arc, int], cost: dict[Arc, int], both: bool, boost: dict,
               stick: bool, chunk: int) -> dict[Arc, list]:
    """:func:`greedy_runs` without shared links, by :func:`busier_port` (or
    :func:`both_ports` when ``both``), in fewer operations (ours): the same events, the
    same candidates in the same order, the same runs (tests/test_list_schedule_fast.py
    compares the two).  Its own event heap instead of a :class:`.port_clock.PortClock`
    (no link to hold), links numbered in their sorted order (so that ties between
    candidates fall as between the links themselves, without hashing them), each
    port's remaining work kept with its boost added (only their sum is compared), each
    link's last run end kept (whether a link goes on is one comparison, not a product
    of big ticks), and an event where one link ended alone and goes on settled without
    building and sorting the candidates (:func:`_streak`)."""
    arcs = sorted(used)
    tail = [u for u, _ in arcs]
    head = [v for _, v in arcs]
    left = [used[arc] for arc in arcs]
    ticks = [cost[arc] for arc in arcs]
    _, work_out, work_in, live_out, live_in = _port_work(used, cost, numbered=True)
    w_out = {u: w + boost.get(("out", u), 0) for u, w in work_out.items()}
    w_in = {v: w + boost.get(("in", v), 0) for v, w in work_in.items()}
    idle_out, idle_in = set(w_out), set(w_in)
    runs: list[list] = [[] for _ in arcs]
    run_end = [None] * len(arcs)   # where each link's last run ends
    ending: dict[int, list] = {}
    times = [0]
    pending = sum(left)
    freed_out, freed_in = list(w_out), []
    heappop, heappush = heapq.heappop, heapq.heappush
    while pending:
        if not times:   # pragma: no cover - a free pair always exists
            raise AssertionError("list schedule stalled with messages left")
        t = heappop(times)
        ended = ending.pop(t, ())
        steps = 0
        if chunk == 1 and len(ended) == 1 and left[ended[0]]:
            a = ended[0]
            steps = _streak(a, t, times[0] if times else None, left[a], ticks[a],
                            stick, both, w_out, w_in, live_out, live_in, idle_out,
                            idle_in, tail, head)
        if steps:   # the link goes on alone for ``steps`` events: one run longer
            u, v = tail[a], head[a]
            work = steps * ticks[a]
            left[a] -= steps
            pending -= steps
            w_out[u] -= work
            w_in[v] -= work
            if not left[a]:
                live_out[u].remove(a)
                live_in[v].remove(a)
            end = t + work
            run_end[a] = end
            runs[a][-1][1] += steps
            later = ending.get(end)
            if later is None:
                ending[end] = [a]
                heappush(times, end)
            else:
                later.append(a)
            continue
        for a in ended:
            u, v = tail[a], head[a]
            idle_out.add(u)
            idle_in.add(v)
            freed_out.append(u)
            freed_in.append(v)
        # as in greedy_runs: only a pair with a port freed now can have become free
        pairs = {a for u in freed_out for a in live_out[u] if head[a] in idle_in}
        pairs.update(a for v in freed_in for a in live_in[v] if tail[a] in idle_out)
        freed_out, freed_in = [], []
        candidates = []
        for a in pairs:
            going_on = run_end[a] == t
            extra = min(chunk, left[a]) * ticks[a] if going_on and stick else 0
            x = w_out[tail[a]] + extra
            y = w_in[head[a]] + extra
            candidates.append((-(x + y) if both else -(x if x > y else y), not going_on, a))
        candidates.sort()
        for _, fresh, a in candidates:
            u, v = tail[a], head[a]
            if u not in idle_out or v not in idle_in:
                continue
            k = left[a]
            if k > chunk:
                k = chunk
            work = k * ticks[a]
            left[a] -= k
            pending -= k
            w_out[u] -= work
            w_in[v] -= work
            if not left[a]:
                live_out[u].remove(a)
                live_in[v].remove(a)
            idle_out.discard(u)
            idle_in.discard(v)
            end = t + work
            run_end[a] = end
            if fresh:   # not following the link's last run back to back
                runs[a].append([t, k])
            else:
                runs[a][-1][1] += k
            later = ending.get(end)
            if later is None:
                ending[end] = [a]
                heappush(times, end)
            else:
                later.append(a)
    index = {arc: a for a, arc in enumerate(arcs)}
    return {arc: runs[index[arc]] for arc in used}


def _streak(a: int, t: int, following, left: int, c: int, stick: bool, both: bool,
            w_out, w_in, live_out, live_in, idle_out, idle_in, tail, head) -> int:
    """How many events of :func:`_port_runs` in a row, from ``t``, place one message of
    link ``a`` (a number: its ends are ``tail[a]`` and ``head[a]``) and nothing else,
    when ``a`` = (u, v) alone ended at ``t`` and has ``left`` messages (one per
    placement) of ``c`` ticks; 0: the event loop decides (ours).  Until the next other
    event (``following``, or None) the idle ports stay the same, so the candidates stay
    ``a`` and the pairs (u, x) and (y, v) with x, y idle, and only W_u and W_v
    (remaining work plus boost, ``w_out``/``w_in``) fall, by c a message.  ``a`` is
    placed first (it wins ties: the others do not go on), which busies u and v and so
    ends the event, while its key beats every rival's: under the busier port rule while
    max(W_u, W_v) - s·c + extra >= W_x and >= W_y (a rival's other term, W_u - s·c or
    W_v - s·c, never beats ``a``'s), under both ports while W_v - s·c + 2·extra >= W_x
    and W_u - s·c + 2·extra >= W_y (extra: c with ``stick``: ``a`` goes on).  Every
    slack falls by c a message."""
    u, v = tail[a], head[a]
    extra = c if stick else 0
    w_u, w_v = w_out[u], w_in[v]
    if both:
        top_in, top_out = w_v + 2 * extra, w_u + 2 * extra
    else:
        top_in = top_out = (w_u if w_u > w_v else w_v) + extra
    low = None   # the least slack over the rivals (u and v are not idle: not rivals)
    for b in live_out[u]:
        x = head[b]
        if x in idle_in:
            slack = top_in - w_in[x]
            if slack < 0:
                return 0
            if low is None or slack < low:
                low = slack
    for b in live_in[v]:
        y = tail[b]
        if y in idle_out:
            slack = top_out - w_out[y]
            if slack < 0:
                return 0
            if low is None or slack < low:
                low = slack
    most = left
    if following is not None:   # the streak's events come before the next other one
        gap = following - t
        if gap <= c:
            return 1
        most = min(most, -(-gap // c))
    if low is not None:
        most = min(most, low // c + 1)
    return most


def _port_ends(runs, cost) -> dict[tuple[str, str], int]:
    """When each port's last transfer ends."""
    ends: dict[tuple[str, str], int] = {}
    for (u, v), rs in runs.items():
        for start, count in rs[-1:]:
            end = start + count * cost[(u, v)]
            ends[("out", u)] = max(ends.get(("out", u), 0), end)
            ends[("in", v)] = max(ends.get(("in", v), 0), end)
    return ends


def _link_rounds(used, cost, links, makespan: int):
    """(makespan, pieces, runs) of a timetable in rounds (:mod:`.rounds`) when every
    used link costs the same and its rounds end before ``makespan``; else None.  Rounds
    that share arcs are put next to each other, so that their transfers merge."""
    if len(set(cost.values())) != 1:
        return None
    c = next(iter(cost.values()))
    parts, capacity = integer_shares(links)
    need = rounds_needed(used, parts, capacity)
    if need * c >= makespan:
        return None
    found = link_rounds(used, parts, capacity, need)
    if found is None:
        return None
    runs: dict[Arc, list] = {arc: [] for arc in used}
    for i, arcs in enumerate(_chained(found)):
        for arc in sorted(arcs):
            extend_runs(runs[arc], i * c, 1, c)
    return need * c, sum(map(len, runs.values())), runs


#: Rounds that :func:`_chained` orders (its work grows with their square).
CHAIN_ROUNDS = 1_000


def _chained(rounds: list[set]) -> list[set]:
    """The rounds in an order where each shares the most arcs with the one before
    (greedy; up to :data:`CHAIN_ROUNDS` rounds, else as they are)."""
    if len(rounds) > CHAIN_ROUNDS:
        return rounds
    left = list(range(1, len(rounds)))
    order = [0]
    while left:
        last = rounds[order[-1]]
        i = max(range(len(left)), key=lambda j: (len(last & rounds[left[j]]), -j))
        order.append(left.pop(i))
    return [rounds[i] for i in order]


# -- a collective's routes under the resource rule (issue 43) ----------------------------

def route_list_schedule(platform, trees, effort) -> Timetable:
    """The timetable of a collective's ``trees`` (:class:`.timetable.Tree` with roots,
    directions and routes) under the resource rule of :mod:`steady.network.resources`:
    a tree edge is one transfer over its route, which holds its parts of the ports
    (one-port) and of the links (multi-port, links between switches, shared network
    links) while it runs; the edges of all trees over one route share its messages.

    The routes split into *components* that share no resource (on an A100 box pair: the
    NVSwitch routes and the InfiniBand ones), each scheduled alone from tick 0: a
    component whose routes all cost the same and hold whole resources gets rounds
    (:mod:`.route_rounds`: König matchings, Kempe swaps) when they reach its largest
    load; the others are list scheduled as :func:`list_schedule` does (the same
    priority rules, rounds and work bounds, :func:`runs_plan`).  The period is the
    latest end, never below the largest resource load (checked exactly)."""
    trees = [as_tree(t) for t in trees]
    model = transfer_model(platform)
    used: dict = {}
    for tree in trees:
        for arc in tree.arcs():
            route = tree.route(arc)
            used[route] = used.get(route, 0) + tree.weight
    costs = {route: model.cost(route) for route in used}
    unit = math.lcm(*(c.denominator for c in costs.values()))
    cost = {route: int(c * unit) for route, c in costs.items()}
    parts, capacity = integer_parts({route: model.holds(route)[1] for route in used})
    runs: dict = {}
    listed: dict = {}
    moved: dict = {}   # ends -> the routes their messages take after rerouting
    for component in route_components(used, parts):
        found = _component_rounds(component, used, cost, parts, capacity)
        if found is None and platform.switches:
            found = _rerouted(platform, model, component, used, cost, parts, capacity,
                              unit, moved)
        if found is None:
            listed.update({route: used[route] for route in component})
        else:
            runs.update(found)
    if listed:
        runs.update(_listed_routes(model, listed, cost, parts, capacity, unit, trees,
                                   effort))
    if moved:
        trees = rerouted_trees(trees, moved, model)
    makespan = max(s + n * cost.get(route) for route, rs in runs.items() for s, n in rs)
    table = Timetable.from_route_runs(platform, trees, runs, makespan, unit)
    table.check()
    return table


def route_components(used: dict, parts: dict) -> list[list]:
    """The routes grouped by the resources they share (union-find), each group sorted,
    in the order of their first routes."""
    owner: dict = {}

    def find(x):
        while owner.setdefault(x, x) != x:
            owner[x] = owner[owner[x]]
            x = owner[x]
        return x

    for route in used:
        names = [res for res, _ in parts[route]]
        for res in names[1:]:
            a, b = find(names[0]), find(res)
            if a != b:
                owner[b] = a
    groups: dict = {}
    for route in sorted(used):
        groups.setdefault(find(parts[route][0][0]), []).append(route)
    return list(groups.values())


def _component_rounds(routes, used, cost, parts, capacity):
    """Runs in rounds (:func:`.route_rounds.route_rounds`) of a component whose routes
    all cost the same and hold whole resources (and fractions of resources that no
    round can overfill, :func:`_never_full`), reaching its largest load; else None."""
    c = cost[routes[0]]
    if len(routes) == 1:   # one route alone: its messages back to back
        return {routes[0]: [[0, used[routes[0]]]]}
    if any(cost[r] != c for r in routes):
        return None
    whole = {r: [res for res, part in parts[r] if part == capacity[res]] for r in routes}
    load: dict = {}
    for r in routes:
        for res in whole[r]:
            load[res] = load.get(res, 0) + used[r]
    whole = _ends_outside(routes, whole, load)
    if whole is None or not _never_full(routes, parts, capacity, whole):
        return None
    need = max(load.values())
    found = route_rounds({r: used[r] for r in routes}, whole, need)
    if found is None:
        return None
    runs: dict = {r: [] for r in routes}
    for i, members in enumerate(_chained([set(m) for m in found])):
        for r in sorted(members):
            extend_runs(runs[r], i * c, 1, c)
    return runs


def _ends_outside(routes, whole, load):
    """{route: its whole resources, a sender-side one first and a receiver-side one
    last} as :func:`.route_rounds.route_rounds` needs them (no route holds another's
    first or last resource inside), or None: a resource is sender-side when every route
    holding it leaves the same node (a host's uplink, a GPU's first link, an out-port),
    receiver-side when every route holding it reaches the same node; of each side the
    most loaded one is the end (a network section lists a route's shared links in no
    particular order)."""
    senders: dict = {}
    receivers: dict = {}
    for r in routes:
        for res in whole[r]:
            senders.setdefault(res, set()).add(r[0])
            receivers.setdefault(res, set()).add(r[-1])
    out = {}
    for r in routes:
        firsts = [res for res in whole[r] if len(senders[res]) == 1]
        if not firsts:
            return None
        first = max(firsts, key=lambda res: (load[res], -whole[r].index(res)))
        lasts = [res for res in whole[r] if len(receivers[res]) == 1 and res != first]
        if not lasts:
            return None
        last = max(lasts, key=lambda res: (load[res], whole[r].index(res)))
        out[r] = [first] + [res for res in whole[r] if res not in (first, last)] + [last]
    return out


def _never_full(routes, parts, capacity, whole) -> bool:
    """Whether every resource that the routes hold only in part stays within its
    capacity in any round (ours): the routes of a round hold pairwise distinct whole
    resources, so a round holds at most, over the distinct first (and over the distinct
    last) whole resources of the routes through it, the largest part of each (a network
    section's shared backbone under host links that the rounds match)."""
    through: dict = {}
    for r in routes:
        for res, part in parts[r]:
            if part != capacity[res]:
                through.setdefault(res, []).append((whole[r][0], whole[r][-1], part))
    for res, items in through.items():
        bounds = []
        for side in (0, 1):
            most: dict = {}
            for item in items:
                most[item[side]] = max(most.get(item[side], 0), item[2])
            bounds.append(sum(most.values()))
        if min(bounds) > capacity[res]:
            return False
    return True


def _ends(held) -> tuple:
    """A route's first and last resources (its sender's and receiver's side)."""
    return (held[0][0], held[-1][0])


def _rerouted(platform, model, routes, used, cost, parts, capacity, unit, moved):
    """Runs in rounds whose routes are chosen per round (:func:`.route_rounds
    .rerouted_rounds`) for a component of one cost and whole resources, reaching its
    ends' largest load; the routes its messages now take are added to ``moved`` (and
    ``cost``, ``parts``); None when it does not apply or finds no routing."""
    c = cost[routes[0]]
    if any(cost[r] != c or any(part != capacity[res] for res, part in parts[r])
           for r in routes):
        return None
    counts: dict = {}
    choices: dict = {}
    for r in routes:
        ends = _ends(parts[r])
        counts[ends] = counts.get(ends, 0) + used[r]
        if ends not in choices:
            options = []
            for other in alternative_routes(platform, r, model, longer=0):
                oc, held = model.holds(other)
                if (oc * unit != c or _ends(held) != ends
                        or any(part != 1 for _, part in held)):
                    continue
                options.append((other, frozenset(res for res, _ in held[1:-1])))
            choices[ends] = options
    load: dict = {}
    for (a, b), k in counts.items():
        load[a] = load.get(a, 0) + k
        load[b] = load.get(b, 0) + k
    found = rerouted_rounds(counts, choices, max(load.values()))
    if found is None:
        return None
    runs: dict = {}
    for i, members in enumerate(_chained([set(m) for m in found])):
        for r in sorted(members):
            if r not in runs:
                runs[r] = []
                cost[r] = c
                parts.setdefault(r, [(res, capacity.setdefault(res, 1))
                                     for res, _ in model.holds(r)[1]])
            extend_runs(runs[r], i * c, 1, c)
    for r, rs in runs.items():
        ends = _ends(model.holds(r)[1])
        moved.setdefault(ends, []).extend([r] * sum(n for _, n in rs))
    return runs


def rerouted_trees(trees, moved: dict, model) -> list:
    """The trees with the routes their edges' messages take after rerouting
    (``moved``: {ends: [route per message]}): an edge of weight w whose ends were
    rerouted takes the next w routes of its ends; a tree whose edges now take several
    routes splits into trees of one route per edge (message j of the tree takes the
    j-th route of every edge), identical ones merged."""
    queues = {ends: sorted(routes) for ends, routes in moved.items()}
    out = []
    for tree in trees:
        per_edge = {}
        for child in tree.parent:
            arc = tree.arc(child)
            ends = _ends(model.holds(tree.route(arc))[1])
            if ends in queues:
                per_edge[child] = queues[ends][:tree.weight]
                del queues[ends][:tree.weight]
        if not per_edge:
            out.append(tree)
            continue
        split: dict = {}
        for j in range(tree.weight):
            routes = dict(tree.routes or {})
            for child, taken in per_edge.items():
                inner = tuple(taken[j][1:-1])
                if inner:
                    routes[child] = inner
                else:
                    routes.pop(child, None)
            key = tuple(sorted(routes.items()))
            split[key] = split.get(key, 0) + 1
        for key, w in split.items():
            out.append(Tree(tree.parent, w, tree.root, tree.direction, dict(key) or None))
    return out


def _listed_routes(model, used, cost, parts, capacity, unit, trees, effort) -> dict:
    """{route: runs} of the routes of ``used`` by the list schedule (the rules and
    rounds of :func:`list_schedule`, the best makespan kept)."""
    lower = math.ceil(max(model.loads(used).values()) * unit)
    messages = sum(t.weight for t in trees)
    budget = 4 * messages + len(used)
    rules, rounds, chunk = runs_plan(sum(used.values()), effort)
    best, states = None, []
    for key, stick in PRIORITIES[:rules]:
        if best is not None and best[0] == lower:
            break
        state = [None, (key, stick), {}, 0]
        best = _route_round(state, best, used, cost, parts, capacity, chunk, lower, budget)
        states.append(state)
    states.sort(key=lambda state: state[0])
    best = _more_rounds(
        states[:effort.round_rules], rounds - 1, best, random.Random(0), lower,
        lambda state, best: _route_round(state, best, used, cost, parts, capacity, chunk,
                                         lower, budget),
        lambda: sorted(capacity))
    return best[2]


def _route_round(state, best, used, cost, parts, capacity, chunk, lower: int, budget: int):
    """One greedy run of :func:`greedy_routes` under ``state``'s rule and boosts (as
    :func:`_round`); the best (makespan, transfers, runs) returned."""
    key, stick = state[1]
    runs, ends = greedy_routes(used, cost, parts, capacity, key, state[2], stick, chunk)
    makespan = max(ends.values())
    pieces = sum(len(rs) for rs in runs.values())
    if best is None or (pieces <= budget and (makespan, pieces) < best[:2]):
        best = (makespan, pieces, runs)
    state[3] = 0 if state[0] is None or makespan < state[0] else state[3] + 1
    state[0] = makespan if state[0] is None else min(state[0], makespan)
    for res, end in ends.items():   # resources that ended late go first next round
        if end > lower:
            state[2][res] = state[2].get(res, 0) + end - lower
    return best


def greedy_routes(used: dict, cost: dict, parts: dict, capacity: dict, key=busier_port,
                  boost=None, stick: bool = False, chunk: int = 1):
    """({route: [[start, messages], ...]}, {resource: when its last transfer ends}):
    ``chunk`` messages at a time of the routes whose resources have room (``parts``,
    ``capacity``: :func:`steady.network.resources.integer_parts`), by ``key`` of the
    remaining work (in ticks, per unit of capacity, plus ``boost``) of the busiest
    resource on the route's sending half and on its receiving half (ports are its ends
    in the one-port model); on ties the route that just sent goes on.  List
    scheduling: at every event the routes through a resource freed then are tried (no
    other can have gained room)."""
    boost = boost or {}
    left = dict(used)
    work: dict = {}
    through: dict = {}
    for route, k in sorted(used.items()):
        for res, part in parts[route]:
            work[res] = work.get(res, 0) + k * cost[route] * part
            through.setdefault(res, []).append(route)
    halves = {}
    for route, held in parts.items():
        names = [res for res, _ in held]
        cut = max(1, len(names) // 2)
        halves[route] = (names[:cut], names[cut:] or names[:cut])
    # each resource's priority term, work // capacity + boost, kept up to date as work
    # drops (the same numbers as computed afresh; the boosts are fixed for the run)
    score = {res: w // capacity[res] + boost.get(res, 0) for res, w in work.items()}
    clock = PortClock(parts, capacity, ports=False)
    in_use = clock.in_use
    for res in capacity:   # every resource's use, 0 at first: read by subscript below
        in_use.setdefault(res, 0)
    # room for one more transfer on a route: every resource's use at most its
    # capacity minus the route's part (the test of PortClock.full, inlined: it is the
    # list schedule's innermost loop)
    limits = {route: tuple((res, capacity[res] - part) for res, part in parts[route])
              for route in used}

    def full(route) -> bool:
        for res, limit in limits[route]:
            if in_use[res] > limit:
                return True
        return False

    runs: dict = {route: [] for route in used}
    ends: dict = {}
    pending = sum(left.values())
    fresh = sorted(used)
    while pending:
        t, ended = clock.advance()
        if ended:   # the routes through a resource freed now (any order: sorted below)
            fresh = set()
            for _, _, route in ended:
                for res, _ in parts[route]:
                    fresh.update(through[res])
        candidates = []
        for route in fresh:
            if not left[route] or full(route):
                continue
            last = runs[route][-1] if runs[route] else None
            going_on = last is not None and last[0] + last[1] * cost[route] == t
            extra = min(chunk, left[route]) * cost[route] if going_on and stick else 0
            sending, receiving = halves[route]
            out_work = max([score[r] for r in sending])
            in_work = max([score[r] for r in receiving])
            candidates.append((key(out_work + extra, in_work + extra), not going_on, route))
        candidates.sort()
        for _, _, route in candidates:
            if full(route):
                continue   # a resource in use ends a transfer later: an event comes
            k = min(chunk, left[route])
            c = cost[route]
            left[route] -= k
            pending -= k
            for res, part in parts[route]:
                work[res] -= k * c * part
                score[res] = work[res] // capacity[res] + boost.get(res, 0)
                ends[res] = max(ends.get(res, 0), t + k * c)
            clock.start(route, t + k * c, route, route)
            extend_runs(runs[route], t, k, c)
        if pending and not clock:   # pragma: no cover - every route fits an idle fabric
            raise AssertionError("list schedule stalled with messages left")
    return runs, ends
