"""The fast paths of the finite-horizon plan (issue 41, CPU at 65 nodes) agree with the
straightforward code they replace: :func:`steady.simulate.plan.check_plan` and
``Plan.completion`` read the transfers' fields unpacked (reference: the loops over
``t.messages`` and ``t.end`` kept below), :func:`steady.simulate.unroll.periodic_plan`
builds the steady periods by shifting one period and ``unrolled`` places the warm-up
once per pattern (reference: every period walked, the warm-up placed afresh, by the
list scheduling as it was; proofs/finite-plan.md, "Steady periods by shifting")."""

import json
from fractions import Fraction

from hypothesis import assume, event, given, settings

from helpers import examples
from hypothesis import strategies as st

from steady.simulate.horizon import transfers_needed
from steady.simulate.plan import Plan, Transfer, check_plan, checked, _link_overloads
from steady.simulate.rerouted import routed_cleanup
from steady.simulate.unroll import (FORWARDING, PIPELINED, Holdings, PeriodicPattern,
                                    finite_schedule, periodic_plan,
                                    share_for, synchronous, unrolled, _link_fit,
                                    _numbered, _placed, _singles)
from steady.strategies import platforms, schedules

F = Fraction
EASY_COSTS = st.sampled_from([F(1), F(2), F(1, 2), F(3, 2)])


# -- the references: the code before the fast paths -------------------------------------

def reference_check(plan: Plan, limit: int = 20) -> list[str]:
    found: list[str] = []
    names = plan.nodes
    transfers = plan.transfers
    busy_out = [0] * len(names)
    busy_in = [0] * len(names)
    held = [dict() for _ in names]
    streams: dict = {}
    ordered = all(a.release <= b.release for a, b in zip(transfers, transfers[1:]))
    for t in (transfers if ordered else sorted(transfers, key=lambda t: t.release)):
        if t.duration <= 0 or t.count < 1:
            found.append(f"transfer {t.id} has {t.count} messages and duration "
                         f"{t.duration}")
        if t.release < busy_out[t.tail]:
            found.append(f"{names[t.tail]} sends transfer {t.id} while another is on")
        if t.release < busy_in[t.head]:
            found.append(f"{names[t.head]} receives transfer {t.id} while another is on")
        busy_out[t.tail] = max(busy_out[t.tail], t.end)
        busy_in[t.head] = max(busy_in[t.head], t.end)
        if t.tail != plan.source:
            mine = held[t.tail]
            for m in t.messages:
                got = mine.get(m)
                if got is None or got > t.release:
                    found.append(f"{names[t.tail]} forwards message {m} (transfer {t.id}) "
                                 "before it has received it")
                    break
        into = held[t.head]
        for m in t.messages:
            if m in into:
                found.append(f"{names[t.head]} receives message {m} twice")
            into[m] = t.end
        key = (t.tail, t.head, t.tree)
        if t.first <= streams.get(key, -1):
            found.append(f"{names[t.tail]} sends message {t.first} of stream {t.tree} to "
                         f"{names[t.head]} after message {streams[key]}")
        streams[key] = t.first + t.count - 1
        if len(found) >= limit:
            return found[:limit]
    found += _link_overloads(plan)
    expected = plan.broadcasts * (len(names) - 1)
    total = sum(len(h) for v, h in enumerate(held) if v != plan.source)
    inside = sum(1 for v, h in enumerate(held) if v != plan.source
                 for m in h if 0 <= m < plan.broadcasts)
    if held[plan.source] or inside != expected or total != expected:
        found.append(f"{total} receptions by non-source nodes, {inside} of them of "
                     f"messages 0..{plan.broadcasts - 1}; expected {expected}"
                     + (" (and the source receives)" if held[plan.source] else ""))
    return found[:limit]


def reference_completion(plan: Plan) -> list:
    others = len(plan.nodes) - 1
    got = [0] * plan.broadcasts
    at = [0] * plan.broadcasts
    for t in plan.transfers:
        if t.head == plan.source:
            continue
        for m in t.messages:
            if 0 <= m < plan.broadcasts:
                got[m] += 1
                at[m] = max(at[m], t.end)
    return [a if g == others else None for g, a in zip(got, at)]


def reference_asap(pattern, periods, batches, start=0, share=None, held=None):
    """as_soon_as_possible as it was: Holdings.available and .receive called."""
    import heapq
    send_free, recv_free, in_use = {}, {}, {}
    held = Holdings() if held is None else held
    source, w = pattern.source, pattern.weights
    queue = []
    for i, (p, run, b, first, count, skip) in enumerate(
            pattern.blocks(periods, batches, share)):
        key = p * pattern.period + run.offset + skip * run.cost
        queue.append((key, i, p, run, b * w[run.tree] + first, count))
    heapq.heapify(queue)
    out = []
    while queue:
        key, i, p, run, index, count = heapq.heappop(queue)
        if run.tail != source:
            have = held.available(run.tail, run.tree, index, count)
            assert have
            if have < count:
                heapq.heappush(queue, (key + have * run.cost, i, p, run, index + have,
                                       count - have))
                count = have
        ready = max(start, send_free.get(run.tail, start), recv_free.get(run.head, start))
        if run.tail != source:
            ready = held.ready(run.tail, run.tree, index, count, run.cost, ready)
        shares = pattern.link_parts.get((run.tail, run.head))
        if shares:
            ready = _link_fit(in_use, shares, ready, count * run.cost)
        end = ready + count * run.cost
        send_free[run.tail] = recv_free[run.head] = end
        held.receive(run.head, run.tree, index, count, ready, run.cost)
        out.extend(_placed(pattern, p, run, index, count, ready))
    return out


def reference_unrolled(pattern, batches, share=None):
    """unrolled as it was: (placed runs of every period, I in ticks), the warm-up
    placed afresh."""
    w = pattern.warmup
    if batches < w or batches == 0:
        placed = reference_asap(pattern, range(batches + w), batches, 0, share)
        return placed, max((r[-1] for r in placed), default=0)
    init = reference_asap(pattern, range(w), batches, 0, share)
    i_ticks = max((r[-1] for r in init), default=0)
    clean_start = i_ticks + (batches - w) * pattern.period
    limit = pattern.limits(batches, share)
    frontier = {(v, l): min(batches * pattern.weights[l] - lag, limit[l])
                for l, lags in enumerate(pattern.lag) for v, lag in lags.items()}
    cleanup = reference_asap(pattern, range(batches, batches + w), batches,
                             clean_start, share, Holdings(frontier))
    steady = synchronous(pattern, range(w, batches), batches, i_ticks, share)
    return init + steady + cleanup, i_ticks


def reference_plan(pattern, batches, share=None, cleanup=None) -> Plan:
    """periodic_plan as it was: every placed run of finite_schedule expanded."""
    runs, i_ticks = reference_unrolled(pattern, batches, share)
    steady_periods = max(batches - pattern.warmup, 0)
    scale, shift = 1, 0
    if cleanup is not None:
        runs = [r for r in runs if r[0] < batches]
        scale = cleanup.unit // pattern.unit
        shift = int((pattern.time(i_ticks) + steady_periods * pattern.period_time)
                    * cleanup.unit)
    rows = _singles(pattern, runs, scale)
    if cleanup is not None:
        index = {v: i for i, v in enumerate(pattern.platform.nodes)}
        streams = len(pattern.weights)
        rows += [(shift + s, index[u], index[v], g, e - s, streams + k)
                 for k, (u, v, g, s, e) in enumerate(cleanup.events)]
    transfers = tuple(Transfer(*t) for t in _numbered(rows))
    nodes = tuple(pattern.platform.nodes)
    return Plan("steady schedule", nodes, nodes.index(pattern.source),
                sum(pattern.limits(batches, share)),
                pattern.unit * scale, transfers,
                max((t.end for t in transfers), default=0), {}, pattern.platform)


def reference_json(plan: Plan) -> str:
    doc = plan.to_dict()
    rows = doc.pop("transfers")
    head = json.dumps(doc, indent=1)
    body = ",\n".join("  " + json.dumps(row, separators=(",", ":")) for row in rows)
    return head[:-2] + ',\n "transfers": [\n' + body + "\n ]\n}\n"


# -- generated plans ------------------------------------------------------------------

@st.composite
def loose_plans(draw):
    """Transfers drawn freely over 2-5 nodes: most such plans break some rule (ports
    overlapping, forwarding early, a broadcast twice or never, streams out of order,
    empty or zero-length transfers), in or out of release order."""
    n = draw(st.integers(2, 5))
    k = draw(st.integers(1, 4))
    rows = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1),
                                   st.integers(0, k + 1), st.integers(0, 3),
                                   st.integers(0, 12), st.integers(0, 4),
                                   st.integers(0, 2)), max_size=14))
    rows = [r for r in rows if r[0] != r[1]]
    if draw(st.booleans()):
        rows.sort(key=lambda r: r[4])
    transfers = tuple(Transfer(i, *r) for i, r in enumerate(rows))
    source = draw(st.integers(0, n - 1))
    return Plan("loose", tuple(f"P{v}" for v in range(n)), source, k, 1, transfers,
                max((t.end for t in transfers), default=0))


@st.composite
def timed_cases(draw, rules=FORWARDING):
    """A valid timed schedule of a small platform under a forwarding rule (as in
    tests/test_simulate_timed.py), its unrolling small enough to build."""
    platform = draw(platforms(max_nodes=5, cost=EASY_COSTS))
    schedule = draw(schedules(platform, version=2))
    rule = draw(st.sampled_from(rules))
    pattern = PeriodicPattern(schedule, rule)
    assume(transfers_needed(pattern, 1) * (pattern.warmup + 5) <= 20_000)
    return pattern


def mutated(plan: Plan, data) -> Plan:
    """``plan`` with one of its transfers moved, dropped, doubled or re-streamed (or
    none): a built plan with a few violations, or none."""
    transfers = list(plan.transfers)
    how = data.draw(st.sampled_from(["none", "move", "drop", "double", "stream"]))
    if transfers and how != "none":
        i = data.draw(st.integers(0, len(transfers) - 1))
        t = transfers[i]
        if how == "move":
            transfers[i] = t._replace(release=max(t.release + data.draw(
                st.integers(-3 * t.duration, 3 * t.duration)), 0))
        elif how == "drop":
            del transfers[i]
        elif how == "double":
            transfers.insert(i, t)
        else:
            transfers[i] = t._replace(tree=t.tree + 1)
    return Plan(plan.name, plan.nodes, plan.source, plan.broadcasts, plan.unit,
                tuple(transfers), plan.makespan, plan.about, plan.platform)


# -- the properties -------------------------------------------------------------------

@settings(max_examples=examples(300))
@given(loose_plans(), st.integers(1, 20))
def test_check_plan_finds_what_the_reference_finds_in_loose_plans(plan, limit):
    """Same violations, same words, same order, same cut at ``limit``."""
    found = check_plan(plan, limit)
    event(f"violations: {min(len(found), 3)}")
    assert found == reference_check(plan, limit)
    assert plan.completion() == reference_completion(plan)
    assert plan.to_json() == reference_json(plan)


@settings(max_examples=examples(40))
@given(timed_cases(), st.integers(0, 3), st.data())
def test_check_plan_agrees_on_built_plans_and_their_mutations(pattern, extra, data):
    """On plans built by the unrolling (valid) and on the same with one transfer moved,
    dropped, doubled or re-streamed (a few violations: which ones, the reference says)."""
    plan = periodic_plan(pattern, max(pattern.warmup, 1) + extra)
    broken = mutated(plan, data)
    found = check_plan(broken)
    event(f"violations: {min(len(found), 3)}")
    assert found == reference_check(broken)
    assert broken.completion() == reference_completion(broken)
    assert check_plan(plan) == [] == reference_check(plan)


@settings(max_examples=examples(40))
@given(timed_cases(), st.integers(0, 4), st.integers(0, 3))
def test_periodic_plan_is_the_plan_every_period_walked_gives(pattern, extra, cut):
    """The steady periods shifted from one (whole batches) give the very transfers of
    every period walked; a cut last batch (``share``) goes the old way and is compared
    too."""
    batches = max(pattern.warmup, 1) + extra
    fast = periodic_plan(pattern, batches)
    event(f"steady periods: {min(batches - pattern.warmup, 2)}")
    slow = reference_plan(pattern, batches)
    assert fast.transfers == slow.transfers
    assert fast.to_json() == reference_json(fast)
    assert (fast.broadcasts, fast.unit, fast.makespan) == \
        (slow.broadcasts, slow.unit, slow.makespan)
    broadcasts = batches * pattern.messages - cut
    assume(broadcasts >= 1)
    n, share = share_for(pattern, broadcasts)
    assert periodic_plan(pattern, n, share).transfers == \
        reference_plan(pattern, n, share).transfers


@settings(max_examples=examples(30))
@given(timed_cases((PIPELINED,)), st.integers(0, 3))
def test_periodic_plan_with_a_routed_cleanup_is_the_plan_every_period_walked_gives(
        pattern, extra):
    """The same with the clean-up routed afresh (pipelined forwarding, a warm-up): the
    steady periods end, and the routed clean-up starts, at the same tick."""
    assume(pattern.warmup)
    batches = pattern.warmup + extra
    event(f"steady periods: {min(extra, 2)}")
    cleanup = routed_cleanup(pattern, batches)
    fast = periodic_plan(pattern, batches, None, cleanup)
    slow = reference_plan(pattern, batches, None, cleanup)
    assert fast.transfers == slow.transfers
    assert (fast.broadcasts, fast.unit, fast.makespan) == \
        (slow.broadcasts, slow.unit, slow.makespan)


@settings(max_examples=examples(40))
@given(timed_cases(), st.integers(0, 4))
def test_the_warmup_placed_once_is_the_warmup_of_every_whole_batch_count(pattern, extra):
    """unrolled places the warm-up once per pattern (the same for every B >= W whole
    batches): the runs, I, the clean-up and the makespan are those placed afresh."""
    batches = pattern.warmup + extra
    assume(batches >= 1)
    finite_schedule(pattern, pattern.warmup + 2, placed=False)   # fills the cache
    placed, i_ticks, _, _ = unrolled(pattern, batches)
    again, i_again = reference_unrolled(pattern, batches)
    assert list(placed) == list(again) and i_ticks == i_again
    assert finite_schedule(pattern, batches).placed == tuple(again)
