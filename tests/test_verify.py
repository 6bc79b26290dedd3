"""steady.verify: the independent checker of steady-schedule v1 schedules.

The valid schedules here are built BY HAND (not by steady.schedule.periodic) and checked by hand in
the comments; the checker must accept them and -- it is a proof checker -- reject every
single corruption of them, naming the broken rule (the violation kind).
"""

import ast
import subprocess
import sys
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings

from helpers import examples
from hypothesis import strategies as st

from steady import InputError, Link, Platform, default_platform
from steady.certificate import min_arborescence_cost
from steady.schedule_file import PriceCertificate, Schedule, Step, Transfer, TreeEntry
from steady.strategies import platforms_with_tree
from steady.verify import KINDS, VerifyReport, Violation, verify, verify_file

F = Fraction
ROOT = Path(__file__).resolve().parent.parent


# -- schedules built by hand ----------------------------------------------------------

def figure1_schedule(k: int = 1) -> Schedule:
    """002 Figure 1 (optimal TP 1) with two trees of weight k, period 2k.

    T0 = {Ps->P1, P1->P2, P1->P3, P2->P4}, T1 = {Ps->P2, P2->P1, P1->P3, P2->P4}.
    Per period: Ps->P1 k (T0), Ps->P2 k (T1), P1->P2 k (T0), P2->P1 k (T1),
    P1->P3 k+k at cost 1/2, P2->P4 k+k at cost 1/2: every port is busy 2k.
    Step 0 (k): Ps->P1, P1->P2, P2->P4 -- senders Ps, P1, P2; receivers P1, P2, P4.
    Step 1 (k): Ps->P2, P2->P1, P1->P3 -- senders Ps, P2, P1; receivers P2, P1, P3.
    Each link is busy exactly k in its step.  TP = 2k / 2k = 1.  Certificate: y_Ps^out = 1;
    every arborescence leaves Ps over a cost-1 link, so it costs >= 1; sum y = 1.
    """
    t0 = TreeEntry(k, (("Ps", "P1"), ("P1", "P2"), ("P1", "P3"), ("P2", "P4")))
    t1 = TreeEntry(k, (("Ps", "P2"), ("P2", "P1"), ("P1", "P3"), ("P2", "P4")))
    step0 = Step(F(k), (Transfer("Ps", "P1", 0, k), Transfer("P1", "P2", 0, k),
                        Transfer("P2", "P4", 0, k), Transfer("P2", "P4", 1, k)))
    step1 = Step(F(k), (Transfer("Ps", "P2", 1, k), Transfer("P2", "P1", 1, k),
                        Transfer("P1", "P3", 0, k), Transfer("P1", "P3", 1, k)))
    return Schedule(default_platform(), F(1), F(2 * k), 2 * k, (t0, t1), (step0, step1),
                    certificate=PriceCertificate({"Ps": F(1)}, {}))


def chain_platform() -> Platform:
    return Platform("S", [Link("S", "A", F(2, 3)), Link("A", "B", F(1, 2))], name="chain")


def chain_schedule(k: int = 1) -> Schedule:
    """S -(2/3)-> A -(1/2)-> B: the only tree; the out-port of S (2/3 per message) is the
    bottleneck, TP = 3/2.  One step of 2k: S->A 3k messages (busy 2k), A->B 3k (busy 3k/2);
    A sends and receives in the same step, which one-port allows.  Certificate
    y_S^out = 3/2: the tree costs 2/3 * 3/2 = 1."""
    tree = TreeEntry(3 * k, (("S", "A"), ("A", "B")))
    step = Step(F(2 * k), (Transfer("S", "A", 0, 3 * k), Transfer("A", "B", 0, 3 * k)))
    return Schedule(chain_platform(), F(3, 2), F(2 * k), 3 * k, (tree,), (step,),
                    certificate=PriceCertificate({"S": F(3, 2)}, {}))


def diamond_platform() -> Platform:
    return Platform("S", [Link("S", "A", F(1)), Link("S", "B", F(1)), Link("A", "C", F(1)),
                          Link("B", "C", F(1))], name="diamond")


def diamond_schedule() -> Schedule:
    """S->A, S->B, A->C, B->C, cost 1.  A and B are reached only from S, so S sends every
    message twice: TP <= 1/2 (certificate y_S^out = 1/2: every arborescence has the two
    arcs out of S, cost 2 * 1/2 = 1).  Trees T0 = {S->A, S->B, A->C}, T1 = {S->A, S->B,
    B->C}, weight 1 each, period 4, TP = 2/4.
    Step 0 (2): S->A (T0, T1), B->C (T1) -- senders S, B; receivers A, C.
    Step 1 (2): S->B (T0, T1), A->C (T0) -- senders S, A; receivers B, C."""
    t0 = TreeEntry(1, (("S", "A"), ("S", "B"), ("A", "C")))
    t1 = TreeEntry(1, (("S", "A"), ("S", "B"), ("B", "C")))
    step0 = Step(F(2), (Transfer("S", "A", 0, 1), Transfer("S", "A", 1, 1),
                        Transfer("B", "C", 1, 1)))
    step1 = Step(F(2), (Transfer("S", "B", 0, 1), Transfer("S", "B", 1, 1),
                        Transfer("A", "C", 0, 1)))
    return Schedule(diamond_platform(), F(1, 2), F(4), 2, (t0, t1), (step0, step1),
                    certificate=PriceCertificate({"S": F(1, 2)}, {}))


def figure4_tree_schedule() -> Schedule:
    """The single tree of 002 Figure 4 on Figure 1 (TP 2/3 < 1): valid, not optimal.
    Weight 2, period 3.  Step 0 (2): Ps->P1 2 (busy 2), P1->P2 2 (busy 2), P2->P4 2
    (busy 1).  Step 1 (1): P1->P3 2 (busy 1)."""
    tree = TreeEntry(2, (("Ps", "P1"), ("P1", "P2"), ("P1", "P3"), ("P2", "P4")))
    steps = (Step(F(2), (Transfer("Ps", "P1", 0, 2), Transfer("P1", "P2", 0, 2),
                         Transfer("P2", "P4", 0, 2))),
             Step(F(1), (Transfer("P1", "P3", 0, 2),)))
    return Schedule(default_platform(), F(2, 3), F(3), 2, (tree,), steps)


VALID = {"figure1": figure1_schedule, "chain": chain_schedule, "diamond": diamond_schedule,
         "figure1-big": lambda: figure1_schedule(5 * 10**39),
         "chain-big": lambda: chain_schedule(10**40)}


# -- editing helpers ------------------------------------------------------------------

def with_step(s: Schedule, i: int, step: Step) -> Schedule:
    steps = list(s.steps)
    steps[i] = step
    return replace(s, steps=tuple(steps))


def with_transfers(s: Schedule, i: int, transfers) -> Schedule:
    return with_step(s, i, replace(s.steps[i], transfers=tuple(transfers)))


def with_transfer(s: Schedule, i: int, j: int, **changes) -> Schedule:
    ts = list(s.steps[i].transfers)
    ts[j] = replace(ts[j], **changes)
    return with_transfers(s, i, ts)


def with_tree(s: Schedule, l: int, **changes) -> Schedule:
    trees = list(s.trees)
    trees[l] = replace(trees[l], **changes)
    return replace(s, trees=tuple(trees))


def move(s: Schedule, i: int, j: int, to: int) -> Schedule:
    t = s.steps[i].transfers[j]
    out = with_transfers(s, i, [x for n, x in enumerate(s.steps[i].transfers) if n != j])
    return with_transfers(out, to, list(out.steps[to].transfers) + [t])


def with_prices(s: Schedule, out=None, inn=None) -> Schedule:
    return replace(s, certificate=PriceCertificate(out or {}, inn or {}))


# -- the valid ones pass --------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(VALID))
def test_hand_built_optimal_schedules_verify(name):
    s = VALID[name]()
    report = verify(s.platform, s)
    assert isinstance(report, VerifyReport)
    assert report.ok and bool(report) and report.violations == [], report.violations
    assert report.optimality and report.steps == len(s.steps) and report.trees == len(s.trees)
    assert report.transfers == s.transfer_count
    assert report.to_dict()["valid"] is True


@pytest.mark.parametrize("name", sorted(VALID))
def test_the_file_round_trip_still_verifies(name, tmp_path):
    s = VALID[name]()
    path = tmp_path / "s.json"
    s.write(path)
    assert verify_file(s.platform, path).ok
    assert verify(None, Schedule.from_file(path)).ok


def test_none_means_the_embedded_platform():
    assert verify(None, figure1_schedule()).ok


def test_the_platform_given_may_be_read_from_a_file():
    platform = Platform.from_file(ROOT / "samples" / "figure1.json")
    assert verify(platform, figure1_schedule()).ok


def test_period_ten_to_the_forty_loads_and_verifies_without_expansion(tmp_path):
    """Compactness (002 §4.3 note): nothing proportional to the period is built: the
    file stays small and reading and verifying it finish (an expansion of 10^40 would
    not; no wall-clock bound is asserted, so that a loaded machine cannot fail it)."""
    k = 5 * 10**39
    s = figure1_schedule(k)
    assert s.period == 10**40
    path = tmp_path / "big.json"
    s.write(path)
    assert path.stat().st_size < 5000
    loaded = Schedule.from_file(path)
    report = verify(loaded.platform, loaded)
    assert loaded == s and report.ok
    assert loaded.trees[0].weight == k and loaded.steps[1].transfers[0].messages == k


def test_a_valid_suboptimal_schedule():
    s = figure4_tree_schedule()
    assert verify(s.platform, s, optimality=False).ok
    report = verify(s.platform, s)
    assert report.kinds() == {"optimality"}
    assert report.of_kind("optimality")[0].where == "certificate"
    # Prices summing to 2/3 cannot make every tree cost >= 1: Figure 1's optimum is 1.
    report = verify(s.platform, with_prices(s, {"Ps": F(2, 3)}))
    assert report.kinds() == {"optimality"}
    (v,) = report.violations
    assert v.expected == ">= 1" and v.found == F(2, 3)


def test_optimality_false_needs_no_certificate():
    s = replace(figure1_schedule(), certificate=None)
    assert verify(s.platform, s, optimality=False).ok
    assert verify(s.platform, s).kinds() == {"optimality"}


def test_in_prices_certify_too():
    """Figure 1 again, with y_P3^in = y_P4^in = 1/2... costs 1/4 per tree: too little;
    y_P1^in = y_P2^in = 1/2 works (every tree enters P1 and P2 over cost-1 links)."""
    s = figure1_schedule()
    assert not verify(s.platform, with_prices(s, inn={"P3": F(1, 2), "P4": F(1, 2)})).ok
    assert verify(s.platform, with_prices(s, inn={"P1": F(1, 2), "P2": F(1, 2)})).ok


def test_a_claimed_min_tree_cost_is_checked():
    s = figure1_schedule()
    good = replace(s, certificate=PriceCertificate({"Ps": F(1)}, {}, min_tree_cost=F(1)))
    assert verify(s.platform, good).ok
    bad = replace(s, certificate=PriceCertificate({"Ps": F(1)}, {}, min_tree_cost=F(2)))
    assert verify(s.platform, bad).kinds() == {"optimality"}


def test_min_arborescence_cost_wrapper():
    weights = {("Ps", "P1"): F(1), ("Ps", "P2"): F(3), ("P1", "P2"): F(1),
               ("P2", "P1"): F(0), ("P1", "Ps"): F(-5)}
    assert min_arborescence_cost(["Ps", "P1", "P2"], weights, root="Ps") == 2
    assert min_arborescence_cost(["Ps", "P1", "P2"], {("Ps", "P1"): 1}, root="Ps") is None


# -- mutations: each single corruption is rejected with the right kind ----------------

def _mutations():
    """(name, valid schedule builder, corruption, the kind that must be reported)."""
    fig, dia, ch = figure1_schedule, diamond_schedule, chain_schedule
    return [
        ("drop a transfer", fig, lambda s: with_transfers(s, 0, s.steps[0].transfers[1:]),
         "delivery"),
        ("drop a transfer (chain)", ch,
         lambda s: with_transfers(s, 0, s.steps[0].transfers[:1]), "delivery"),
        ("duplicate a transfer in its step", fig,
         lambda s: with_transfers(s, 0, s.steps[0].transfers + s.steps[0].transfers[:1]),
         "delivery"),
        ("duplicate a transfer into the other step", fig,
         lambda s: with_transfers(s, 1, s.steps[1].transfers + s.steps[0].transfers[:1]),
         "one-port"),
        ("move a transfer where its sender is busy", fig, lambda s: move(s, 1, 2, 0),
         "one-port"),
        ("move a transfer where its sender and receiver are busy", fig,
         lambda s: move(s, 0, 0, 1), "one-port"),
        ("move a transfer where its receiver is busy", dia, lambda s: move(s, 0, 2, 1),
         "one-port"),
        ("raise a message count", fig, lambda s: with_transfer(s, 1, 0, messages=2),
         "delivery"),
        ("raise a message count beyond the step", ch,
         lambda s: with_transfer(s, 0, 0, messages=4), "capacity"),
        ("lower a message count", ch, lambda s: with_transfer(s, 0, 1, messages=2),
         "delivery"),
        ("zero messages", fig, lambda s: with_transfer(s, 0, 0, messages=0), "messages"),
        ("negative messages", fig, lambda s: with_transfer(s, 0, 0, messages=-1),
         "messages"),
        ("shorten a step", fig, lambda s: with_step(s, 0, replace(s.steps[0], duration=F(1, 2))),
         "capacity"),
        ("shorten a step, period kept", fig,
         lambda s: with_step(with_step(s, 0, replace(s.steps[0], duration=F(1, 2))), 1,
                             replace(s.steps[1], duration=F(3, 2))), "capacity"),
        ("lengthen a step", fig, lambda s: with_step(s, 1, replace(s.steps[1], duration=F(2))),
         "period"),
        ("zero duration", fig, lambda s: with_step(s, 1, replace(s.steps[1], duration=F(0))),
         "duration"),
        ("negative duration, total kept", ch,
         lambda s: replace(s, steps=(replace(s.steps[0], duration=F(3)),
                                     Step(F(-1), ()))), "duration"),
        ("raise a weight", fig, lambda s: with_tree(s, 0, weight=2), "delivery"),
        ("raise a weight and messages_per_period", fig,
         lambda s: replace(with_tree(s, 0, weight=2), messages_per_period=3), "delivery"),
        ("zero weight", ch, lambda s: replace(with_tree(s, 0, weight=0), messages_per_period=0,
                                              throughput=F(0)), "weight"),
        ("change the period", fig, lambda s: replace(s, period=F(3)), "period"),
        ("change the period and throughput", fig,
         lambda s: replace(s, period=F(3), throughput=F(2, 3)), "period"),
        ("a tree edge replaced by another link", fig,
         lambda s: with_tree(s, 0, edges=(("Ps", "P1"), ("Ps", "P2"), ("P1", "P3"),
                                          ("P2", "P4"))), "tree-edge"),
        ("a tree edge that is not a link", fig,
         lambda s: with_tree(s, 0, edges=(("Ps", "P1"), ("P1", "P2"), ("P1", "P3"),
                                          ("P1", "P4"))), "tree"),
        ("a tree that misses a node", fig,
         lambda s: with_tree(s, 0, edges=(("Ps", "P1"), ("P1", "P2"), ("P1", "P3"))), "tree"),
        ("a tree with a cycle", fig,
         lambda s: with_tree(s, 1, edges=(("P1", "P2"), ("P2", "P1"), ("P1", "P3"),
                                          ("P2", "P4"))), "tree"),
        ("a tree edge into the source", ch,
         lambda s: with_tree(s, 0, edges=(("S", "A"), ("A", "B"), ("B", "S"))), "tree"),
        ("a transfer on the wrong tree", fig, lambda s: with_transfer(s, 0, 0, tree=1),
         "tree-edge"),
        ("a transfer of a tree that does not exist", fig,
         lambda s: with_transfer(s, 0, 0, tree=2), "tree-index"),
        ("a transfer on a missing link", fig,
         lambda s: with_transfer(s, 1, 2, tail="P2", head="P3"), "link"),
        ("a transfer from an unknown node", ch,
         lambda s: with_transfer(s, 0, 0, tail="Z"), "link"),
        ("change messages_per_period", fig, lambda s: replace(s, messages_per_period=3),
         "messages-per-period"),
        ("change the claimed throughput", fig, lambda s: replace(s, throughput=F(1, 2)),
         "throughput"),
        ("claim more throughput", ch, lambda s: replace(s, throughput=F(2)), "throughput"),
        ("lower a certificate price", fig, lambda s: with_prices(s, {"Ps": F(1, 2)}),
         "optimality"),
        ("raise a certificate price", fig, lambda s: with_prices(s, {"Ps": F(2)}),
         "optimality"),
        ("move a price to a port that does not bound", fig,
         lambda s: with_prices(s, {"P1": F(1)}), "optimality"),
        ("a negative price, sum kept", dia,
         lambda s: with_prices(s, {"S": F(1), "A": F(-1, 2)}), "optimality"),
        ("a price on an unknown node", ch, lambda s: with_prices(s, {"S": F(3, 2), "Z": 0}),
         "optimality"),
        ("drop the certificate", dia, lambda s: replace(s, certificate=None), "optimality"),
        ("another platform", ch,
         lambda s: replace(s, platform=Platform("S", [Link("S", "A", F(1, 3)),
                                                      Link("A", "B", F(1, 2))])), "platform"),
        ("no trees", ch, lambda s: replace(s, trees=(), messages_per_period=0,
                                           throughput=F(0)), "tree"),
        ("no steps", ch, lambda s: replace(s, steps=(), period=F(0)), "period"),
    ]


MUTATIONS = _mutations()


@pytest.mark.parametrize("name,build,corrupt,kind", MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_every_single_corruption_is_rejected(name, build, corrupt, kind):
    valid = build()
    assert verify(valid.platform, valid).ok
    bad = corrupt(valid)
    platform = valid.platform
    report = verify(platform, bad)
    assert not report.ok
    assert kind in report.kinds(), report.violations
    assert report.kinds() <= set(KINDS)
    for v in report.violations:
        assert isinstance(v, Violation) and v.where and v.message
        assert set(v.to_dict()) == {"kind", "where", "expected", "found", "message"}


@pytest.mark.parametrize("name", ["figure1", "diamond", "chain", "figure1-big"])
def test_exhaustive_single_corruptions(name):
    """Every transfer dropped, doubled, +1, -1, moved to every other step; every step
    shortened by any amount; every tree weight +-1: rejected, each time."""
    s = VALID[name]()
    p = s.platform
    bad = []
    for i, step in enumerate(s.steps):
        for j, t in enumerate(step.transfers):
            bad.append(with_transfers(s, i, step.transfers[:j] + step.transfers[j + 1:]))
            for m in (2 * t.messages, t.messages + 1, t.messages - 1):
                bad.append(with_transfer(s, i, j, messages=m))
            for to in range(len(s.steps)):
                if to != i:
                    bad.append(move(s, i, j, to))
        for factor in (F(1, 2), F(99, 100), F(2)):
            bad.append(with_step(s, i, replace(step, duration=step.duration * factor)))
    for l, tree in enumerate(s.trees):
        for w in (tree.weight + 1, tree.weight - 1):
            bad.append(with_tree(s, l, weight=w))
    for b in bad:
        assert not verify(p, b).ok, b


def test_every_violation_is_listed_not_just_the_first():
    s = figure1_schedule()
    s = with_transfer(s, 0, 0, messages=0)           # messages + delivery
    s = with_transfer(s, 1, 2, tail="P2", head="P3")  # link + tree-edge + delivery
    s = replace(s, messages_per_period=5)              # messages-per-period + throughput
    s = with_prices(s, {"Ps": F(1, 2)})                 # optimality
    report = verify(s.platform, s)
    assert {"messages", "delivery", "link", "tree-edge", "messages-per-period",
            "throughput", "optimality"} <= report.kinds()
    deliveries = {v.where for v in report.of_kind("delivery")}
    assert deliveries == {"trees[0] edge Ps->P1", "trees[0] edge P1->P3"}
    (link,) = report.of_kind("link")
    assert link.where == "steps[1].transfers[2]" and link.found == "P2->P3"


def test_one_port_violation_names_step_node_and_links():
    report = verify(None, move(figure1_schedule(), 1, 2, 0))
    (v,) = report.violations
    assert v.kind == "one-port" and v.where == "steps[0] node P1"
    assert v.found == "P1->P2, P1->P3" and "sends over 2 links" in v.message


def test_capacity_violation_gives_expected_and_found():
    s = chain_schedule()
    report = verify(None, with_transfer(s, 0, 0, messages=4))
    cap = report.of_kind("capacity")
    assert [(v.where, v.expected, v.found) for v in cap] == [("steps[0] link S->A", 2, F(8, 3))]


def test_several_trees_on_one_link_in_a_step_are_fine():
    # figure1 step 0 carries T0 and T1 on P2->P4: that is one link, so one port use.
    s = figure1_schedule()
    assert len({t.arc for t in s.steps[0].transfers}) == 3 and verify(None, s).ok


def test_a_transfer_split_in_two_is_fine():
    s = chain_schedule(2)
    t = s.steps[0].transfers[0]
    split = with_transfers(s, 0, [replace(t, messages=2), replace(t, messages=4)]
                           + list(s.steps[0].transfers[1:]))
    assert verify(None, split).ok


def test_the_steps_may_come_in_any_order():
    s = figure1_schedule()
    assert verify(None, replace(s, steps=s.steps[::-1])).ok


def test_platform_mismatch_is_described():
    s = chain_schedule()
    other = Platform("S", [Link("S", "A", F(1, 3)), Link("A", "B", F(1, 2)),
                           Link("S", "B", F(1))])
    report = verify(other, s, optimality=False)
    wheres = {v.where for v in report.of_kind("platform")}
    assert wheres == {"platform link S->A cost", "platform link S->B"}


def test_python_objects_of_the_wrong_type_are_format_violations():
    s = figure1_schedule()
    bad = with_step(s, 0, replace(s.steps[0], duration=1.0))
    assert "format" in verify(None, bad).kinds()
    bad = with_transfer(s, 0, 0, messages=1.0)
    assert "format" in verify(None, bad).kinds()
    assert verify(None, "not a schedule").kinds() == {"format"}


def test_verify_file_raises_input_error_on_a_bad_file(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"format": "steady-schedule", "version": 3}')
    with pytest.raises(InputError) as err:
        verify_file(None, path)
    assert err.value.element == "version"


# -- properties -----------------------------------------------------------------------

def sequential_schedule(platform: Platform, parent: dict) -> Schedule:
    """One transfer per step, one message per period: trivially one-port."""
    tree = TreeEntry.from_parent(parent, 1)
    steps = tuple(Step(platform.cost(p, c), (Transfer(p, c, 0, 1),))
                  for c, p in parent.items())
    period = sum((st_.duration for st_ in steps), F(0))
    return Schedule(platform, 1 / period, period, 1, (tree,), steps)


@settings(max_examples=examples(60), deadline=None)
@given(platforms_with_tree(max_nodes=6), st.data())
def test_any_tree_run_sequentially_is_a_valid_schedule(pair, data):
    """Semantics of steady-schedule v1 (002 §5.4.2 with one matching per edge): every
    such schedule is valid; dropping or re-timing any step breaks it."""
    platform, parent = pair
    s = sequential_schedule(platform, parent)
    assert verify(platform, s, optimality=False).ok
    i = data.draw(st.integers(0, len(s.steps) - 1))
    dropped = replace(s, steps=s.steps[:i] + s.steps[i + 1:])
    assert "delivery" in verify(platform, dropped, optimality=False).kinds()
    short = with_step(s, i, replace(s.steps[i], duration=s.steps[i].duration / 2))
    assert {"capacity", "period"} <= verify(platform, short, optimality=False).kinds()


# -- independence ---------------------------------------------------------------------

def test_verify_imports_no_constructor():
    """DESIGN: the checker imports only the platform and the file format (and the exact
    re-checker of certificates), never the LP, branching, colouring or schedule code."""
    tree = ast.parse((ROOT / "steady" / "verify.py").read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            imported.add(node.module)
        elif isinstance(node, ast.Import):
            imported.update(a.name for a in node.names)
    assert imported <= {"__future__", "dataclasses", "fractions", "certificate", "numbers",
                        "platform", "schedule_file", "errors", "verify_collective"}, imported
    code = ("import sys, steady.verify; "
            "print(sorted(m for m in sys.modules if m.startswith('steady')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    for banned in ("steady.throughput", "steady.schedule.branchings", "steady.schedule.matchings",
                   "steady.schedule.periodic'", "steady.exact.arborescence"):
        assert banned not in out, out
