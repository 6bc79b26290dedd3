"""The network section (issue 19): its format, the link rows in every LP formulation,
the certificate with link prices, the step rule, and the steps that fit the links.

proofs/network-links.md states the claims; these tests exercise them on hand-checked
platforms and as hypothesis properties."""

from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import assume, given, settings

from helpers import examples
from hypothesis import strategies as st

from steady import InputError, Platform
from steady.certificate import check
from steady.network import FATPIPE, SHARED, Network, NetworkLink
from steady.schedule.link_steps import check_network_steps, network_schedule
from steady.schedule.periodic import optimal_schedule
from steady.schedule_file import Schedule
from steady.strategies import platforms
from steady.throughput import dag_throughput, throughput, tree_throughput
from steady.verify import verify

F = Fraction

# 002 Figure 1 with a shared backbone under Ps->P1, Ps->P2, P1->P3 and P2->P4, each of
# cost 1/2 on it.  A spanning tree crosses it at least three times (one arc out of Ps,
# P1->P3 and P2->P4 are the only ways into P3, P4): 3/2 per message, so TP <= 2/3, and
# the tree Ps->P1, P1->P2, P1->P3, P2->P4 reaches it (ports: Ps 1, P1 2, P2 1/2 per
# message, all below 3/2).  Without the backbone the optimum is 1 (DESIGN.md).
FIGURE1 = {"format": "steady-platform", "version": 1, "source": "Ps",
           "links": [{"from": "Ps", "to": "P1", "cost": "1"},
                     {"from": "Ps", "to": "P2", "cost": "1"},
                     {"from": "P1", "to": "P2", "cost": "1"},
                     {"from": "P2", "to": "P1", "cost": "1"},
                     {"from": "P1", "to": "P3", "cost": "1/2"},
                     {"from": "P2", "to": "P4", "cost": "1/2"}]}
BACKBONE = {"links": [{"id": "bb", "cost": "1/2"}],
            "routes": [{"from": "Ps", "to": "P1", "links": ["bb"]},
                       {"from": "Ps", "to": "P2", "links": ["bb"]},
                       {"from": "P1", "to": "P3", "links": ["bb"]},
                       {"from": "P2", "to": "P4", "links": ["bb"]}]}


def figure1(network=BACKBONE) -> Platform:
    doc = dict(FIGURE1)
    if network is not None:
        doc["network"] = network
    return Platform.from_dict(doc)


# -- the format -------------------------------------------------------------------------

def test_the_section_round_trips_and_defaults_to_shared():
    p = figure1()
    assert p.network.link("bb") == NetworkLink("bb", F(1, 2), SHARED)
    assert p.network.route("Ps", "P1") == ("bb",)
    assert p.network.route("P1", "P2") == ()
    doc = p.to_dict()
    assert doc["network"]["links"] == [{"id": "bb", "cost": "1/2"}]
    assert Platform.from_dict(doc) == p
    assert Platform.from_dict(doc) != figure1(None)


def test_without_the_section_nothing_changes():
    assert "network" not in figure1(None).to_dict()
    assert figure1(None).network is None


@pytest.mark.parametrize("network, element, reason", [
    ({"links": [], "routes": [], "x": 1}, "network.x", "unknown key"),
    ({"links": [{"id": "a", "cost": "1/2"}, {"id": "a", "cost": "1"}]}, "network.links[1]",
     "duplicate link id"),
    ({"links": [{"id": "a", "cost": "0"}]}, "network.links[0] (a).cost", "> 0"),
    ({"links": [{"id": "a", "cost": "1/2", "sharing": "wifi"}]}, "network.links[0] (a).sharing",
     "'shared' or 'fatpipe'"),
    ({"links": [], "routes": [{"from": "Ps", "to": "P1", "links": ["z"]}]},
     "network route Ps->P1", "unknown link 'z'"),
    ({"links": [{"id": "a", "cost": "1/2"}],
      "routes": [{"from": "P3", "to": "P1", "links": ["a"]}]},
     "network route P3->P1", "not a link (arc) of the platform"),
    ({"links": [{"id": "a", "cost": "2"}],
      "routes": [{"from": "Ps", "to": "P1", "links": ["a"]}]},
     "network route Ps->P1", "never faster than a link it crosses"),
    ({"links": [{"id": "a", "cost": "1/2"}],
      "routes": [{"from": "Ps", "to": "P1", "links": ["a", "a"]}]},
     "network route Ps->P1", "appears twice"),
    ({"links": [{"id": "a", "cost": "1/2"}],
      "routes": [{"from": "Ps", "to": "P1", "links": ["a"]},
                 {"from": "Ps", "to": "P1", "links": []}]},
     "network.routes[1]", "second route"),
])
def test_a_bad_section_is_refused_naming_the_element(network, element, reason):
    with pytest.raises(InputError) as caught:
        figure1(network)
    assert caught.value.element == element
    assert reason in caught.value.reason


def test_derived_platforms_keep_the_network():
    p = figure1()
    scaled = p.scale_costs(3)
    assert scaled.network.link("bb").cost == F(3, 2)
    renamed = p.relabel({"P1": "Q1"})
    assert renamed.network.route("Ps", "Q1") == ("bb",)
    sub = p.subplatform(lambda l: l.arc != ("Ps", "P2"))
    assert ("Ps", "P2") not in sub.network.routes


# -- the LP with link rows, every method ---------------------------------------------------

@pytest.mark.parametrize("method", ["cuts", "trees", "flow"])
def test_the_link_row_binds_in_every_method(method):
    """TP = 2/3 (see FIGURE1's comment); the only price is the backbone's, 2/3."""
    r = throughput(figure1(), method)
    assert r.throughput == F(2, 3)
    assert r.certificate.link_prices == {"bb": F(2, 3)}
    assert "link bb" in r.bottleneck
    assert check(figure1(), r).ok
    assert r.certificate.to_dict()["link_prices"] == {"bb": "2/3"}
    assert throughput(figure1(None), method).throughput == 1


def test_dag_and_tree_throughputs_count_the_link():
    dag = figure1({"links": BACKBONE["links"], "routes": BACKBONE["routes"]})
    dag = dag.subplatform(lambda l: l.arc != ("P2", "P1"))
    assert dag_throughput(dag).throughput == F(2, 3)
    tree = {"P1": "Ps", "P2": "P1", "P3": "P1", "P4": "P2"}
    # ports: P1 sends 1 + 1/2 per message, the backbone takes 3 x 1/2: TP(T) = 2/3
    assert tree_throughput(figure1(), tree).throughput == F(2, 3)


def test_tiny_costs_are_scaled_with_their_links():
    """The float search runs on costs near 1 (steady.exact.scaling): the network's link
    costs must be scaled with the arcs', and the link prices scaled back."""
    p = figure1().scale_costs(F(1, 10 ** 30))
    r = throughput(p, "trees")
    assert r.throughput == F(2, 3) * 10 ** 30
    assert r.certificate.link_prices == {"bb": F(2, 3) * 10 ** 30}
    assert check(p, r).ok


def test_the_independent_check_rejects_a_wrong_link_price():
    p = figure1()
    r = throughput(p)
    bad = replace(r, certificate=replace(r.certificate, link_prices={"bb": F(1, 3)}))
    assert any("sum to" in problem for problem in check(p, bad).problems)
    overloaded = replace(r, n={**r.n, ("Ps", "P1"): r.n.get(("Ps", "P1"), 0) + 1})
    assert any("shared link bb" in problem for problem in check(p, overloaded).problems)


# -- hypothesis properties --------------------------------------------------------------------

@st.composite
def networked(draw, sharing=SHARED, cheap=False, max_nodes=5):
    """A platform and the same platform with a network: 1-3 links, each crossed by a
    random set of arcs, costing at most the cheapest arc through it (or, ``cheap``, at
    most a random fraction of it)."""
    p = draw(platforms(min_nodes=2, max_nodes=max_nodes))
    arcs = list(p.arcs)
    links, routes = [], {}
    for k in range(draw(st.integers(1, 3))):
        crossing = draw(st.lists(st.sampled_from(arcs), min_size=1, unique=True))
        top = min(p.cost(*a) for a in crossing)
        share = draw(st.sampled_from([F(1), F(1, 2), F(1, 3), F(2, 3)]))
        links.append(NetworkLink(f"l{k}", top * share, sharing))
        for a in crossing:
            routes.setdefault(a, []).append(f"l{k}")
    net = Network(links, routes)
    return p, Platform(p.source, p.links, p.nodes, p.name, network=net)


@settings(max_examples=examples(40))
@given(networked(), st.sampled_from(["cuts", "trees"]))
def test_adding_link_rows_never_raises_the_throughput(pair, method):
    """Claim 1 of proofs/network-links.md: a link row only removes solutions."""
    plain, wired = pair
    r = throughput(wired, method)
    assert r.throughput <= throughput(plain, method).throughput
    assert check(wired, r).ok


@settings(max_examples=examples(30))
@given(networked(sharing=FATPIPE))
def test_fatpipes_no_dearer_than_their_arcs_change_nothing(pair):
    """Claim 1 again: a fatpipe bounds each transfer alone, which its arc's cost (never
    below the link's) already does -- same optimum, same certificate."""
    plain, wired = pair
    a, b = throughput(plain, "cuts"), throughput(wired, "cuts")
    assert a.throughput == b.throughput
    assert b.certificate.link_prices == {}
    schedule, _ = optimal_schedule(wired, throughput(wired, "trees"))
    assert verify(wired, schedule).ok


@settings(max_examples=examples(25))
@given(st.data())
def test_verify_rejects_a_step_overloading_a_shared_link(data):
    """The step rule: in a §5.4.2 schedule every transfer of a step fills the step
    (messages x c_e = duration); a shared link crossed by two arcs of one step, costing
    as much as the cheaper of the two, then holds duration + more > duration."""
    p = data.draw(platforms(min_nodes=3, max_nodes=6))
    schedule, _ = optimal_schedule(p, throughput(p, "trees"))
    crowded = [s for s in schedule.steps if len({t.arc for t in s.transfers}) >= 2]
    assume(crowded)
    i = data.draw(st.sampled_from(range(len(crowded))))
    arcs = sorted({t.arc for t in crowded[i].transfers})[:2]
    link = NetworkLink("uplink", min(p.cost(*a) for a in arcs))
    wired = Platform(p.source, p.links, p.nodes, p.name,
                     network=Network([link], {a: ["uplink"] for a in arcs}))
    rewired = replace(schedule, platform=wired)
    report = verify(wired, rewired, optimality=False)
    assert "network" in report.kinds()
    assert all(v.where.endswith("network link uplink") for v in report.of_kind("network"))
    assert verify(p, schedule).ok


@settings(max_examples=examples(25))
@given(networked(max_nodes=5))
def test_network_steps_are_valid_and_certified(pair):
    """The configuration LP's steps (steady.schedule.link_steps): every rule of verify,
    the step rule included; the ratio is certified, <= 1, claimed exactly."""
    _, wired = pair
    result = throughput(wired, "trees")
    schedule, stats = network_schedule(wired, result, rounds=40)
    report = verify(wired, schedule)
    assert report.ok, report.violations[:3]
    assert report.ratio == stats["ratio"] <= 1
    check_network_steps(wired, Schedule.from_dict(schedule.to_dict()))


@settings(max_examples=examples(15))
@given(networked(max_nodes=5))
def test_every_candidate_is_built_and_chosen_exactly(pair):
    """Issue 42: a float score once chose a step schedule stretched in doubles (its
    period 4753799606668857/4503599627370496 for 19/18).  The stretched steps last
    exactly what max-min sharing takes (steady.schedule.link_steps.fluid_duration, in
    Fractions), and the schedule kept is the first of the exactly best."""
    from steady.schedule.link_steps import _stretched, _used_arcs, fluid_duration, \
        network_trees
    from steady.schedule.periodic import periodic_schedule
    from steady.schedule_file import PriceCertificate

    _, wired = pair
    result = throughput(wired, "trees")
    schedule, stats = optimal_schedule(wired, result)
    scores = stats["candidates"]
    assert all(isinstance(r, Fraction) for r in scores.values())
    best = max(scores.values())
    assert stats["ratio"] == best
    assert stats["construction"] == next(k for k, r in scores.items() if r == best)
    trees, scale = network_trees(wired, result)
    planned = periodic_schedule(wired, trees, scale, PriceCertificate.of(result.certificate))
    stretched = _stretched(wired, planned)
    used = _used_arcs(wired, {t.arc: 1 for t in planned.all_transfers()})
    index = {arc: e for e, arc in enumerate(used.arcs)}
    for before, after in zip(planned.steps, stretched.steps):
        load = {}
        for t in before.transfers:
            load[index[t.arc]] = load.get(index[t.arc], 0) + t.messages
        assert after.duration == max(before.duration, fluid_duration(used, load))
    assert stretched.period == sum(step.duration for step in stretched.steps)


@pytest.mark.slow
def test_the_backbone_sample_reaches_the_optimum_exactly():
    """samples/simgrid/cluster_backbone-20.json (the issue's case): 002 §5.4.2's steps
    of the one-port trees, stretched, reach the optimum: period 19/18, ratio 1."""
    from pathlib import Path

    p = Platform.from_file(Path(__file__).resolve().parent.parent / "samples" / "simgrid"
                           / "cluster_backbone-20.json")
    schedule, stats = optimal_schedule(p, throughput(p, "trees"))
    assert schedule.period == F(19, 18) and stats["ratio"] == 1
    assert verify(p, schedule).ratio == 1


def test_network_steps_reach_the_optimum_on_figure1():
    p = figure1()
    schedule, stats = optimal_schedule(p, throughput(p, "trees"))
    assert stats["ratio"] == 1
    report = verify(p, schedule)
    assert report.ok and report.ratio == 1
    assert schedule.throughput == F(2, 3)


# -- the timetable rule ---------------------------------------------------------------------

def test_a_timetable_overloading_a_link_at_some_instant_is_rejected():
    """Ps->P1 uses 1/2 of the backbone (1/2 / 1), P1->P3 and P2->P4 all of it (1/2 /
    1/2): one after the other they fit; P1->P3 overlapping Ps->P1 (1/2 + 1) does not,
    although the ports would allow it."""
    from steady.schedule_file import TimedTransfer, TreeEntry, PriceCertificate

    p = figure1()
    tree = TreeEntry.from_parent({"P1": "Ps", "P2": "P1", "P3": "P1", "P4": "P2"}, 1)
    ok = [TimedTransfer("Ps", "P1", 0, 1, F(0)), TimedTransfer("P1", "P2", 0, 1, F(1)),
          TimedTransfer("P1", "P3", 0, 1, F(2)), TimedTransfer("P2", "P4", 0, 1, F(5, 2))]
    cert = PriceCertificate({}, {}, link_prices={"bb": F(2, 3)})
    base = Schedule(p, F(1, 3), F(3), 1, (tree,), (), {}, cert, tuple(ok), 2)
    report = verify(p, base)
    assert report.ok and report.ratio == F(1, 2)
    clash = replace(base, transfers=(ok[0], ok[1], TimedTransfer("P1", "P3", 0, 1, F(0)),
                                     ok[3]))
    assert verify(p, clash).kinds() == {"network"}


def test_short_steps_refuse_shared_links_in_one_line(tmp_path, capsys):
    """--steps (synchronous short steps) holds ports only: refused in one line, while
    the timetable of --max-messages fits the links."""
    from steady.cli import main

    path = tmp_path / "p.json"
    figure1().write(path)
    assert main(["schedule", str(path), "--max-messages", "10", "--steps", "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "shared network links" in err[0]
    out = tmp_path / "s.json"
    assert main(["schedule", str(path), "--max-messages", "10", "-o", str(out),
                 "--quiet"]) == 0
    assert verify(figure1(), Schedule.from_file(out)).ok


@settings(max_examples=examples(25))
@given(networked(max_nodes=5), st.integers(1, 30))
def test_network_timetables_are_valid_and_certified(pair, m):
    """A timed schedule on a platform with shared links: the independent verifier
    accepts it (ports, and every shared link at every instant), ratio <= 1."""
    from steady.schedule.timed import timed_schedule

    _, p = pair
    schedule, stats = timed_schedule(p, throughput(p, "trees"), m)
    report = verify(p, schedule)
    assert report.ok, report.violations[:3]
    assert report.ratio == stats["ratio"] <= 1


def test_the_timetable_postcondition_rejects_a_link_overload():
    """Timetable.check (the runtime postcondition) sees a shared link over capacity
    even where the ports are free: P1->P3 overlapping Ps->P1 on the backbone."""
    from steady.schedule.timetable import Timetable
    from steady.schedule_file import TimedTransfer, TreeEntry, PriceCertificate

    p = figure1()
    tree = TreeEntry.from_parent({"P1": "Ps", "P2": "P1", "P3": "P1", "P4": "P2"}, 1)
    clash = [TimedTransfer("Ps", "P1", 0, 1, F(0)), TimedTransfer("P1", "P2", 0, 1, F(1)),
             TimedTransfer("P1", "P3", 0, 1, F(0)), TimedTransfer("P2", "P4", 0, 1, F(5, 2))]
    cert = PriceCertificate({}, {}, link_prices={"bb": F(2, 3)})
    bad = Schedule(p, F(1, 3), F(3), 1, (tree,), (), {"ratio": F(1, 2)}, cert,
                   tuple(clash), 2)
    Timetable.of(replace(bad, transfers=tuple(clash[:2]) + (
        TimedTransfer("P1", "P3", 0, 1, F(2)), clash[3]))).check()   # one after the other
    with pytest.raises(AssertionError, match="shared link bb"):
        Timetable.of(bad).check()


@settings(max_examples=examples(15))
@given(networked(max_nodes=5), st.integers(1, 30))
def test_network_timetables_beat_the_rounded_optimum_scheduled_alone(pair, m):
    """On shared links the timetable kept is at least as fast as the optimum's own
    rounded weights list-scheduled for the same number of messages (the load bound
    alone can prefer worse weights: samples/simgrid/small_platform at M = 1000)."""
    from steady.schedule.counts import rounded_trees
    from steady.schedule.effort import DEFAULT
    from steady.schedule.list_schedule import list_schedule
    from steady.schedule.timed import optimum_trees, timed_schedule

    _, p = pair
    result = throughput(p, "trees")
    schedule, stats = timed_schedule(p, result, m, DEFAULT)
    weights = rounded_trees(p, optimum_trees(p, result), result.throughput,
                            stats["messages_target"])
    alone = list_schedule(p, weights, DEFAULT)
    assert schedule.throughput >= Fraction(sum(w for _, w in weights) * alone.unit,
                                           alone.period)


@settings(max_examples=examples(20))
@given(networked(max_nodes=5), st.integers(1, 12), st.integers(1, 25))
def test_list_runs_respect_shared_links(pair, m, k):
    """The list run of steady simulate (steady.simulate.list_run) on a platform with
    shared links: the plan's independent check (steady.simulate.plan.check_plan:
    one-port, causality, every shared link within capacity at every instant, every
    broadcast everywhere once) finds nothing, and Lemma 7 holds for every prefix: the
    (x + 1)-th broadcast to reach every node does so no earlier than (x + 1) / TP*."""
    from steady.schedule.timed import timed_schedule
    from steady.simulate.list_run import list_plan
    from steady.simulate.plan import check_plan

    _, p = pair
    result = throughput(p, "trees")
    schedule, _ = timed_schedule(p, result, m)
    plan = list_plan(p, [(t.parent, t.weight) for t in schedule.trees], k)
    assert plan.broadcasts == k and plan.platform is p
    assert check_plan(plan) == []
    completion = plan.completion()
    assert None not in completion
    for rank, done in enumerate(sorted(completion)):
        assert Fraction(done, plan.unit) >= Fraction(rank + 1) / result.throughput
