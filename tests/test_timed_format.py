"""steady-schedule version 2 (timed): the document, the v1 -> v2 conversion and the
verifier's timetable and ratio rules (proofs/timed-schedule.md).

The valid timetables here are built BY HAND (checked in the comments) or converted from
the optimal v1 schedule with ``timed``; the checker must accept them, reject every
single corruption of them naming the broken rule, and certify the ratio exactly.
"""

import copy
import json
from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import assume, given, settings

from helpers import examples
from hypothesis import strategies as st

from steady import InputError, Link, Platform, default_platform
from steady.schedule import optimal_schedule
from steady.schedule_file import (MAX_JSON_INT, TIMED, PriceCertificate, Schedule, Step,
                                  TimedTransfer, Transfer, TreeEntry, timed)
from steady.strategies import platforms, spanning_trees
from steady.throughput import throughput
from steady.verify import KINDS, verify

F = Fraction
BIG = 5 * 10**39        # far above 2^53: counts are written as strings


# -- schedules built by hand ----------------------------------------------------------

T0_EDGES = (("Ps", "P1"), ("P1", "P2"), ("P1", "P3"), ("P2", "P4"))
T1_EDGES = (("Ps", "P2"), ("P2", "P1"), ("P1", "P3"), ("P2", "P4"))


def figure1_v1(k: int = 1) -> Schedule:
    """002 Figure 1, optimum 1: T0, T1 of weight k, period 2k, two steps of k (checked
    by hand in tests/test_verify.py: every port busy 2k)."""
    step0 = Step(F(k), (Transfer("Ps", "P1", 0, k), Transfer("P1", "P2", 0, k),
                        Transfer("P2", "P4", 0, k), Transfer("P2", "P4", 1, k)))
    step1 = Step(F(k), (Transfer("Ps", "P2", 1, k), Transfer("P2", "P1", 1, k),
                        Transfer("P1", "P3", 0, k), Transfer("P1", "P3", 1, k)))
    return Schedule(default_platform(), F(1), F(2 * k), 2 * k,
                    (TreeEntry(k, T0_EDGES), TreeEntry(k, T1_EDGES)), (step0, step1),
                    certificate=PriceCertificate({"Ps": F(1)}, {}))


def figure1_v2(k: int = 1) -> Schedule:
    """The same period as a timetable (what ``timed(figure1_v1(k))`` must give).

    Busy intervals per port (k = 1; every one of [0, 2] exactly once, touching ends):
      Ps out: Ps->P1 [0,1), Ps->P2 [1,2)       P1 in: Ps->P1 [0,1), P2->P1 [1,2)
      P1 out: P1->P2 [0,1), P1->P3 [1,3/2), [3/2,2)    P2 in: P1->P2 [0,1), Ps->P2 [1,2)
      P2 out: P2->P4 [0,1/2), [1/2,1), P2->P1 [1,2)    P3 in: [1,2)   P4 in: [0,1)
    Each tree edge carries k messages of its tree; TP = 2k / 2k = 1.  The certificate
    y_Ps^out = 1: every arborescence leaves Ps over a cost-1 link, so the cheapest costs
    c = 1, bound sum(y)/c = 1, ratio 1."""
    h = F(k, 2)
    transfers = (TimedTransfer("Ps", "P1", 0, k, F(0)), TimedTransfer("P1", "P2", 0, k, F(0)),
                 TimedTransfer("P2", "P4", 0, k, F(0)), TimedTransfer("P2", "P4", 1, k, h),
                 TimedTransfer("Ps", "P2", 1, k, F(k)), TimedTransfer("P2", "P1", 1, k, F(k)),
                 TimedTransfer("P1", "P3", 0, k, F(k)),
                 TimedTransfer("P1", "P3", 1, k, F(k) + h))
    return Schedule(default_platform(), F(1), F(2 * k), 2 * k,
                    (TreeEntry(k, T0_EDGES), TreeEntry(k, T1_EDGES)),
                    certificate=PriceCertificate({"Ps": F(1)}, {}),
                    transfers=transfers, version=TIMED)


def figure4_slow(prices=None) -> Schedule:
    """The single tree of 002 Figure 4 (T0 above) on Figure 1, 3 messages in a period 5:
    Ps->P1 [0,3), P1->P2 [0,3), P2->P4 [0,3/2) (cost 1/2), P1->P3 [3,9/2): P1's out-port
    is busy [0,3) then [3,9/2), touching; everything ends by 9/2 <= 5.  TP = 3/5."""
    tree = TreeEntry(3, T0_EDGES)
    transfers = (TimedTransfer("Ps", "P1", 0, 3, F(0)), TimedTransfer("P1", "P2", 0, 3, F(0)),
                 TimedTransfer("P2", "P4", 0, 3, F(0)), TimedTransfer("P1", "P3", 0, 3, F(3)))
    cert = PriceCertificate(*(prices or ({"Ps": F(1)}, {})))
    return Schedule(default_platform(), F(3, 5), F(5), 3, (tree,), certificate=cert,
                    transfers=transfers, version=TIMED)


def star_platform() -> Platform:
    return Platform("S", [Link("S", "A", F(1)), Link("S", "B", F(1))], name="star")


def star_v2(second_start=F(1), period=F(2)) -> Schedule:
    """S->A, S->B of cost 1, one tree of weight 1: S's out-port [0,1) then [1,2).
    Certificate y_S^out = 1/2: the only arborescence costs 2 x 1/2 = 1; optimum 1/2."""
    tree = TreeEntry(1, (("S", "A"), ("S", "B")))
    transfers = (TimedTransfer("S", "A", 0, 1, F(0)),
                 TimedTransfer("S", "B", 0, 1, second_start))
    return Schedule(star_platform(), 1 / period, period, 1, (tree,),
                    certificate=PriceCertificate({"S": F(1, 2)}, {}),
                    transfers=transfers, version=TIMED)


def with_timed(s: Schedule, j: int, **changes) -> Schedule:
    ts = list(s.transfers)
    ts[j] = replace(ts[j], **changes)
    return replace(s, transfers=tuple(ts))


def optimal_timed(platform: Platform) -> Schedule:
    v1, _ = optimal_schedule(platform, throughput(platform))
    return timed(v1)


def port_intervals(s: Schedule) -> dict:
    """{(side, node): [(start, end, j)]} of a timetable."""
    busy: dict = {}
    for j, t in enumerate(s.transfers):
        end = t.start + t.messages * s.platform.cost(t.tail, t.head)
        busy.setdefault(("out", t.tail), []).append((t.start, end, j))
        busy.setdefault(("in", t.head), []).append((t.start, end, j))
    return busy


def shared_port_pairs(s: Schedule) -> list:
    """(j, k) pairs of distinct transfers that use one port."""
    pairs = []
    for intervals in port_intervals(s).values():
        for a in intervals:
            for b in intervals:
                if a[2] != b[2]:
                    pairs.append((a[2], b[2]))
    return pairs


SMALL = platforms(min_nodes=3, max_nodes=5)


# -- the document: round trips ----------------------------------------------------------

@pytest.mark.parametrize("k", [1, 3, BIG])
def test_v2_round_trip_dict_json_file(k, tmp_path):
    s = figure1_v2(k)
    doc = s.to_dict()
    assert doc["version"] == 2 and "steps" not in doc and len(doc["transfers"]) == 8
    assert json.loads(s.to_json()) == json.loads(json.dumps(doc))
    assert Schedule.from_dict(doc) == s
    assert Schedule.from_dict(json.loads(s.to_json())) == s
    path = tmp_path / "s.json"
    s.write(path)
    loaded = Schedule.from_file(path)
    assert loaded == s and loaded.version == TIMED and loaded.steps == ()
    assert verify(None, loaded).ok


def test_v2_transfer_record_exact_text():
    doc = json.loads(figure1_v2(1).to_json())
    assert doc["transfers"][7] == {"from": "P1", "to": "P3", "tree": 1, "messages": 1,
                                   "start": "3/2"}
    assert doc["transfers"][0]["start"] == "0"
    assert '{"from": "P2", "to": "P4", "tree": 1, "messages": 1, "start": "1/2"}' in \
        figure1_v2(1).to_json()


def test_v2_big_integers_are_strings_and_read_back_exactly(tmp_path):
    s = figure1_v2(BIG)
    doc = json.loads(s.to_json())
    assert doc["messages_per_period"] == str(2 * BIG)
    assert doc["trees"][0]["weight"] == str(BIG)
    t = doc["transfers"][3]
    assert t["messages"] == str(BIG) and t["start"] == str(BIG // 2)
    assert t["tree"] == 1                       # small integers stay JSON integers
    path = tmp_path / "big.json"
    s.write(path)
    loaded = Schedule.from_file(path)
    assert loaded.transfers[3] == TimedTransfer("P2", "P4", 1, BIG, F(BIG // 2))
    assert loaded.transfers[7].start == F(3 * BIG, 2)
    report = verify(None, loaded)
    assert report.ok and report.ratio == 1 and report.bound == 1


def test_v2_the_2_to_the_53_boundary():
    s = replace(figure1_v2(), transfers=(
        TimedTransfer("Ps", "P1", 0, MAX_JSON_INT, F(0)),
        TimedTransfer("Ps", "P1", 0, MAX_JSON_INT + 1, F(1))))
    records = json.loads(s.to_json())["transfers"]
    assert records[0]["messages"] == MAX_JSON_INT
    assert records[1]["messages"] == str(MAX_JSON_INT + 1)
    assert Schedule.from_dict(json.loads(s.to_json())) == s


def test_v2_start_in_every_spelling_is_exact(tmp_path):
    doc = figure1_v2().to_dict()
    for spelling, value in [(0, F(0)), ("0", F(0)), ("3/2", F(3, 2)), ("1.5", F(3, 2)),
                            ("0.1", F(1, 10)), ("7/4", F(7, 4))]:   # no spaces
        doc["transfers"][7]["start"] = spelling
        assert Schedule.from_dict(doc).transfers[7].start == value, spelling
    text = figure1_v2().to_json().replace('"start": "3/2"', '"start": 0.1')
    path = tmp_path / "float.json"
    path.write_text(text)
    assert Schedule.from_file(path).transfers[7].start == F(1, 10)   # not the double


def test_v2_unknown_top_level_keys_and_claims_are_kept():
    s = replace(figure1_v2(), extra={"optimum": "1", "ratio": "1", "note": [1, "x"]})
    back = Schedule.from_dict(json.loads(s.to_json()))
    assert back == s and dict(back.extra) == {"optimum": "1", "ratio": "1", "note": [1, "x"]}
    assert verify(None, back).ok


def test_v2_conveniences():
    s = figure1_v2()
    assert list(s.all_transfers()) == list(s.transfers)
    assert s.transfer_count == 8
    assert s.messages_per_link() == {("Ps", "P1"): 1, ("P1", "P2"): 1, ("P2", "P4"): 2,
                                     ("Ps", "P2"): 1, ("P2", "P1"): 1, ("P1", "P3"): 2}
    assert s.optimum_bound == 1
    assert replace(s, certificate=None).optimum_bound is None
    assert figure4_slow(({"Ps": F(1)}, {"P3": F(1)})).optimum_bound == 2
    v1 = figure1_v1()
    assert list(v1.all_transfers()) == [t for step in v1.steps for t in step.transfers]
    assert TimedTransfer("a", "b", 0, 1, 3).start == F(3)
    assert isinstance(TimedTransfer("a", "b", 0, 1, 3).start, Fraction)


def test_v2_objects_reject_steps_and_v1_transfers():
    s = figure1_v2()
    with pytest.raises(ValueError):
        replace(s, steps=figure1_v1().steps)
    with pytest.raises(ValueError):
        replace(figure1_v1(), transfers=s.transfers)
    with pytest.raises(ValueError):
        replace(s, version=3)


# -- the document: bad v2 documents name the element ------------------------------------

def error_of(doc) -> InputError:
    with pytest.raises(InputError) as err:
        Schedule.from_dict(doc, "s.json")
    assert err.value.origin == "s.json"
    assert str(err.value).startswith(f"s.json: {err.value.element}: ")
    assert "\n" not in str(err.value)
    return err.value


DELETE = object()

BAD_V2 = [
    (("transfers", 2, "start"), DELETE, "transfers[2].start", "missing"),
    (("transfers", 2, "start"), "abc", "transfers[2].start", "not a number"),
    (("transfers", 2, "start"), None, "transfers[2].start", "not a number"),
    (("transfers", 2, "start"), True, "transfers[2].start", "not a number"),
    (("transfers", 2, "start"), "1/0", "transfers[2].start", "zero denominator"),
    (("transfers", 2, "end"), 1, "transfers[2].end", "unknown key"),
    (("transfers", 2, "messages"), "1.5", "transfers[2].messages", "must be an integer"),
    (("transfers", 2, "tree"), DELETE, "transfers[2].tree", "missing"),
    (("transfers", 2, "from"), 3, "transfers[2].from", "non-empty string"),
    (("transfers", 2), [], "transfers[2]", "a transfer is a JSON object"),
    (("transfers",), {}, "transfers", "must be a list"),
    (("transfers",), DELETE, "transfers", "missing"),
    (("steps",), [], "steps", "a version 2 schedule has 'transfers', not 'steps'"),
    (("version",), 3, "version", "unsupported version 3"),
    (("version",), 2.0, "version", "unsupported"),
    (("version",), "2", "version", "unsupported"),
]


@pytest.mark.parametrize("path,value,element,reason", BAD_V2,
                         ids=[f"{e}:{r}" for _, _, e, r in BAD_V2])
def test_bad_v2_documents_name_the_element(path, value, element, reason):
    doc = copy.deepcopy(figure1_v2().to_dict())
    target = doc
    for key in path[:-1]:
        target = target[key]
    if value is DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    err = error_of(doc)
    assert err.element == element
    assert reason in err.reason


def test_a_v1_document_with_transfers_is_rejected():
    doc = figure1_v1().to_dict()
    doc["transfers"] = []
    err = error_of(doc)
    assert err.element == "transfers"
    assert "version 1 schedule has 'steps', not 'transfers'" in err.reason


def test_a_v1_transfer_with_a_start_is_rejected():
    doc = figure1_v1().to_dict()
    doc["steps"][1]["transfers"][0]["start"] = "0"
    assert error_of(doc).element == "steps[1].transfers[0].start"


def test_semantic_errors_of_v2_are_left_to_verify():
    doc = figure1_v2().to_dict()
    doc["transfers"][0].update(start="-1", messages=0, tree=9)
    s = Schedule.from_dict(doc)
    assert s.transfers[0] == TimedTransfer("Ps", "P1", 9, 0, F(-1))
    assert {"start", "messages", "tree-index"} <= verify(None, s).kinds()


# -- the v1 -> v2 conversion ------------------------------------------------------------

@pytest.mark.parametrize("k", [1, 2, BIG])
def test_timed_of_figure1_is_the_hand_built_timetable(k):
    """Each step's transfers start at the step's start (0, then k); those on one link
    one after the other (P2->P4 and P1->P3 carry two trees each)."""
    converted = timed(figure1_v1(k))
    assert converted == figure1_v2(k)
    assert timed(converted) is converted


def test_timed_keeps_everything_but_the_time_line():
    v1 = replace(figure1_v1(), extra={"statistics": {"matchings": 2}})
    v2 = timed(v1)
    assert v2.version == TIMED and v2.steps == () and len(v2.transfers) == 8
    assert (v2.platform, v2.throughput, v2.period, v2.messages_per_period, v2.trees,
            v2.certificate, dict(v2.extra)) == (v1.platform, v1.throughput, v1.period,
                                                v1.messages_per_period, v1.trees,
                                                v1.certificate, dict(v1.extra))
    assert v2.messages_per_link() == v1.messages_per_link()
    assert v1.version == 1 and len(v1.steps) == 2          # the input is untouched


def sequential_schedule(platform: Platform, parent: dict, certificate) -> Schedule:
    """One transfer per step, one message per period (as in tests/test_verify.py)."""
    tree = TreeEntry.from_parent(parent, 1)
    steps = tuple(Step(platform.cost(p, c), (Transfer(p, c, 0, 1),))
                  for c, p in parent.items())
    period = sum((s.duration for s in steps), F(0))
    return Schedule(platform, 1 / period, period, 1, (tree,), steps, certificate=certificate)


def _certificate(result) -> PriceCertificate:
    return PriceCertificate(dict(result.certificate.out_prices),
                            dict(result.certificate.in_prices))


@settings(max_examples=examples(40), deadline=None)
@given(SMALL, st.data())
def test_conversion_preserves_validity_sequential(platform, data):
    """Claim (proofs/timed-schedule.md, (c)): timed() of a valid v1 schedule is a valid
    v2 schedule with the same throughput, period and trees; with the optimum's
    certificate its certified ratio is exactly TP / TP* <= 1 (weak duality)."""
    parent = data.draw(spanning_trees(platform))
    result = throughput(platform)
    v1 = sequential_schedule(platform, parent, _certificate(result))
    assert verify(platform, v1, optimality=False).ok
    v2 = timed(v1)
    report = verify(platform, v2)
    assert report.ok, report.violations
    assert (v2.throughput, v2.period, v2.trees) == (v1.throughput, v1.period, v1.trees)
    assert report.bound == result.throughput
    assert report.ratio == v1.throughput / result.throughput and report.ratio <= 1
    # one message per step: the starts are the steps' partial sums
    begin = F(0)
    for step, t in zip(v1.steps, v2.transfers):
        assert t.start == begin
        begin += step.duration


@settings(max_examples=examples(40), deadline=None)
@given(platforms(max_nodes=5))
def test_conversion_preserves_validity_optimal(platform):
    """Claim (c) on the optimal v1 schedule (002 §5.4.2), and ratio == 1 when the exact
    optimum fits in the period (its certificate sums to TP*, cheapest tree costs 1).
    Every transfer lies inside its step's window [begin, begin + duration]."""
    v1, _ = optimal_schedule(platform, throughput(platform))
    v2 = timed(v1)
    report = verify(platform, v2)
    assert report.ok, report.violations
    assert report.ratio == 1 and report.bound == v1.throughput
    assert (v2.throughput, v2.period, v2.trees, v2.messages_per_period) == \
        (v1.throughput, v1.period, v1.trees, v1.messages_per_period)
    converted = iter(v2.transfers)
    begin = F(0)
    for step in v1.steps:
        for t in step.transfers:
            tt = next(converted)
            assert (tt.tail, tt.head, tt.tree, tt.messages) == \
                (t.tail, t.head, t.tree, t.messages)
            end = tt.start + tt.messages * platform.cost(tt.tail, tt.head)
            assert begin <= tt.start and end <= begin + step.duration
        begin += step.duration
    assert next(converted, None) is None


# -- every v2 file steady writes passes verify -------------------------------------------

@settings(max_examples=examples(25), deadline=None)
@given(platform=platforms(max_nodes=5))
def test_every_written_v2_file_verifies(platform, tmp_path_factory):
    s = optimal_timed(platform)
    path = tmp_path_factory.mktemp("v2") / "s.json"
    s.write(path)
    loaded = Schedule.from_file(path)
    assert loaded == s
    assert verify(platform, loaded).ok
    assert verify(None, loaded).ok


# -- the timetable rules: hand-built cases ----------------------------------------------

def test_hand_built_v2_schedules_verify():
    for s in (figure1_v2(), figure1_v2(7), figure4_slow(), star_v2()):
        report = verify(s.platform, s)
        assert report.ok, report.violations
        assert report.version == TIMED and report.steps == 0
        assert report.transfers == len(s.transfers) and report.trees == len(s.trees)
        doc = report.to_dict()
        assert doc["valid"] is True and doc["version"] == 2
        assert doc["optimum_bound"] == str(report.bound)
        assert doc["ratio"] == str(report.ratio).replace(" ", "")


def test_touching_intervals_are_accepted():
    """[0,1) and [1,2) on S's out-port touch; the second ends exactly at the period."""
    assert verify(None, star_v2(F(1))).ok
    assert verify(None, star_v2(F(1), period=F(3))).ok        # a gap is fine too
    assert verify(None, star_v2(F(2), period=F(3))).ok        # ends exactly at 3


def test_overlap_by_any_amount_is_one_port():
    for start in (F(0), F(1, 2), F(1) - F(1, 10**30)):
        report = verify(None, star_v2(start))
        assert report.kinds() == {"one-port"}, (start, report.violations)
        (v,) = report.violations
        assert v.where == "transfers[1] node S" and v.expected == ">= 1" and v.found == start
        assert "S sends in transfers[0] until 1" in v.message


def test_one_port_names_both_ports_of_an_overlap():
    """P1->P3 of tree 1 moved from 3/2 to 5/4 overlaps P1->P3 of tree 0 [1, 3/2) on P1's
    out-port and on P3's in-port; it still ends by 7/4 <= 2."""
    report = verify(None, with_timed(figure1_v2(), 7, start=F(5, 4)))
    assert report.kinds() == {"one-port"}
    assert {(v.where, v.expected, v.found) for v in report.violations} == {
        ("transfers[7] node P1", ">= 3/2", F(5, 4)), ("transfers[7] node P3", ">= 3/2", F(5, 4))}


def test_sending_and_receiving_at_once_is_fine():
    """P1 receives Ps->P1 [0,1) while it sends P1->P2 [0,1): two different ports."""
    s = figure1_v2()
    assert s.transfers[0].start == s.transfers[1].start == 0 and verify(None, s).ok


def test_start_and_window_exact():
    s = figure1_v2()
    report = verify(None, with_timed(s, 0, start=F(-1, 3)))
    assert "start" in report.kinds()
    (v,) = report.of_kind("start")
    assert (v.where, v.expected, v.found) == ("transfers[0].start", ">= 0", F(-1, 3))
    # P1->P3 of tree 1 (cost 1/2) started at 7/4 ends at 9/4 > 2
    report = verify(None, with_timed(s, 7, start=F(7, 4)))
    assert report.kinds() == {"window", "one-port"} or report.kinds() == {"window"}
    (v,) = report.of_kind("window")
    assert (v.where, v.expected, v.found) == ("transfers[7]", "<= 2", F(9, 4))
    # a start exactly at the period with one message is also outside
    assert "window" in verify(None, star_v2(F(2))).kinds()


def test_wrong_types_are_format_violations():
    s = figure1_v2()
    assert verify(None, with_timed(s, 0, start=0.0)).kinds() == {"format"}
    bad = replace(s, transfers=s.transfers[:-1] + (Transfer("P1", "P3", 1, 1),))
    assert "format" in verify(None, bad).kinds()


def _v2_mutations():
    """(name, valid builder, corruption, the kind that must be reported)."""
    fig, slow = figure1_v2, figure4_slow
    return [
        ("drop a transfer", fig, lambda s: replace(s, transfers=s.transfers[1:]), "delivery"),
        ("duplicate a transfer", fig, lambda s: replace(s, transfers=s.transfers
                                                        + s.transfers[:1]), "delivery"),
        ("one more message", fig, lambda s: with_timed(s, 6, messages=2), "delivery"),
        ("one message fewer", slow, lambda s: with_timed(s, 3, messages=2), "delivery"),
        ("zero messages", fig, lambda s: with_timed(s, 0, messages=0), "messages"),
        ("wrong tree", fig, lambda s: with_timed(s, 0, tree=1), "tree-edge"),
        ("no such tree", fig, lambda s: with_timed(s, 0, tree=2), "tree-index"),
        ("a non-edge of the tree", fig, lambda s: with_timed(s, 1, tail="Ps", head="P2"),
         "tree-edge"),
        ("not a link", fig, lambda s: with_timed(s, 1, tail="P2", head="P3"), "link"),
        ("negative start", fig, lambda s: with_timed(s, 4, start=F(-1)), "start"),
        ("late start", slow, lambda s: with_timed(s, 3, start=F(4)), "window"),
        ("overlap on an out-port", fig, lambda s: with_timed(s, 4, start=F(1, 2)), "one-port"),
        ("overlap on an in-port", fig,
         lambda s: with_timed(s, 5, start=F(1, 2)), "one-port"),
        ("shorter period", fig, lambda s: replace(s, period=F(3, 2), throughput=F(4, 3)),
         "window"),
        ("period and throughput disagree", slow, lambda s: replace(s, throughput=F(1)),
         "throughput"),
        ("weight raised", fig, lambda s: replace(s, trees=(replace(s.trees[0], weight=2),
                                                           s.trees[1])), "delivery"),
        ("messages_per_period", fig, lambda s: replace(s, messages_per_period=3),
         "messages-per-period"),
        ("no certificate", fig, lambda s: replace(s, certificate=None), "ratio"),
        ("all prices zero", fig,
         lambda s: replace(s, certificate=PriceCertificate({"Ps": F(0)}, {})), "ratio"),
        ("a negative price", fig,
         lambda s: replace(s, certificate=PriceCertificate({"Ps": F(2), "P1": F(-1)}, {})),
         "optimality"),
        ("a wrong claimed ratio", slow, lambda s: replace(s, extra={"ratio": "3/4"}), "ratio"),
        ("a wrong claimed optimum", slow, lambda s: replace(s, extra={"optimum": "2"}),
         "ratio"),
        ("an unreadable claimed ratio", slow, lambda s: replace(s, extra={"ratio": "high"}),
         "ratio"),
        ("a wrong min_tree_cost", fig, lambda s: replace(s, certificate=PriceCertificate(
            {"Ps": F(1)}, {}, min_tree_cost=F(2))), "optimality"),
    ]


V2_MUTATIONS = _v2_mutations()


@pytest.mark.parametrize("name,build,corrupt,kind", V2_MUTATIONS,
                         ids=[m[0] for m in V2_MUTATIONS])
def test_every_single_v2_corruption_is_rejected(name, build, corrupt, kind):
    valid = build()
    assert verify(None, valid).ok
    report = verify(valid.platform, corrupt(valid))
    assert kind in report.kinds(), report.violations
    assert report.kinds() <= set(KINDS)


def test_exhaustive_moved_starts_on_figure1():
    """Figure 1's timetable is tight: every port is busy on all of [0, 2] (see
    figure1_v2), so moving any start by any amount is rejected."""
    s = figure1_v2()
    for j, t in enumerate(s.transfers):
        for delta in (F(1, 10**9), F(1, 4), F(1, 2), F(1), F(-1, 10**9), F(-1, 2), F(-1)):
            report = verify(None, with_timed(s, j, start=t.start + delta))
            assert report.kinds() & {"one-port", "start", "window"}, (j, delta)
            assert report.kinds() <= {"one-port", "start", "window"}, (j, delta)


# -- the certified ratio: exact values ---------------------------------------------------

def test_figure1_certified_ratio_is_exactly_one():
    """Figure 1 (optimum 1): the optimal schedule, made a timetable, has ratio 1."""
    platform = default_platform()
    s = optimal_timed(platform)
    report = verify(platform, s)
    assert report.ok and report.bound == 1 and report.ratio == 1
    assert s.optimum_bound == 1 and s.throughput == 1
    assert report.to_dict()["ratio"] == "1" and report.to_dict()["optimum_bound"] == "1"
    hand = verify(None, figure1_v2(BIG))
    assert hand.ok and hand.bound == 1 and hand.ratio == 1


def test_a_longer_period_has_ratio_messages_over_period():
    """figure4_slow: 3 messages every 5 time units; the optimum is 1, so the ratio is
    (3/5) / 1 = 3/5 exactly, whatever the certificate's scale: prices y_Ps^out = 2 make
    the cheapest arborescence cost c = 2 (one cost-1 arc out of Ps) and sum(y)/c = 1."""
    messages, period = 3, F(5)
    for prices in (({"Ps": F(1)}, {}), ({"Ps": F(2)}, {}),
                   ({"Ps": F(1, 3), "P1": F(1, 3), "P2": F(1, 3)}, {}),
                   ({}, {"P1": F(1, 2), "P2": F(1, 2)})):
        report = verify(None, figure4_slow(prices))
        assert report.ok, (prices, report.violations)
        assert report.bound == 1 and report.ratio == F(messages) / period == F(3, 5)
    assert verify(None, figure4_slow(), min_ratio=F(3, 5)).ok
    report = verify(None, figure4_slow(), min_ratio=F(3, 5) + F(1, 10**20))
    assert report.kinds() == {"ratio"}
    (v,) = report.violations
    assert v.found == F(3, 5) and "below the required" in v.message


def test_a_loose_certificate_certifies_less():
    """Prices y_Ps^out = 1, y_P3^in = 1 sum to 2; the cheapest arborescence costs
    1 (one arc out of Ps) + 1/2 (P1->P3 at cost 1/2) = 3/2, so the certified bound is
    2 / (3/2) = 4/3 >= the optimum 1, and the ratio (3/5) / (4/3) = 9/20 < 3/5."""
    report = verify(None, figure4_slow(({"Ps": F(1)}, {"P3": F(1)})))
    assert report.ok
    assert report.bound == F(4, 3) and report.ratio == F(9, 20)
    claims = replace(figure4_slow(({"Ps": F(1)}, {"P3": F(1)})),
                     extra={"optimum": "4/3", "ratio": "9/20"})
    assert verify(None, claims).ok


def test_claimed_optimum_and_ratio_must_match_exactly():
    s = figure4_slow()
    for claim in ("3/5", "0.6", F(3, 5), 0.6):
        assert verify(None, replace(s, extra={"ratio": claim, "optimum": 1})).ok, claim
    report = verify(None, replace(s, extra={"ratio": "0.6000001", "optimum": "1"}))
    (v,) = report.violations
    assert (v.kind, v.where, v.expected) == ("ratio", "ratio", F(3, 5))


def test_star_certified_ratio():
    """Star: optimum 1/2 (S sends every message twice).  Period 2 -> ratio 1; period 3
    (a gap) -> throughput 1/3, ratio 2/3."""
    assert verify(None, star_v2()).ratio == 1
    report = verify(None, star_v2(period=F(3)))
    assert report.bound == F(1, 2) and report.ratio == F(2, 3)


# -- rejection properties on the optimal timetables of random platforms -----------------

@settings(max_examples=examples(40), deadline=None)
@given(SMALL, st.data())
def test_overlapping_a_shared_port_is_rejected(platform, data):
    """Any transfer moved onto the start of another transfer of one of its ports
    overlaps it (both last > 0): one-port."""
    s = optimal_timed(platform)
    pairs = shared_port_pairs(s)
    assume(pairs)
    j, k = data.draw(st.sampled_from(pairs))
    report = verify(platform, with_timed(s, j, start=s.transfers[k].start))
    assert "one-port" in report.kinds(), report.violations


@settings(max_examples=examples(40), deadline=None)
@given(platforms(max_nodes=5), st.data())
def test_start_window_message_and_edge_corruptions(platform, data):
    s = optimal_timed(platform)
    j = data.draw(st.integers(0, len(s.transfers) - 1))
    t = s.transfers[j]
    duration = t.messages * platform.cost(t.tail, t.head)
    eps = data.draw(st.fractions(min_value=F(1, 1000), max_value=10, max_denominator=1000))
    # a start before the period
    assert "start" in verify(platform, with_timed(s, j, start=-eps)).kinds()
    # so late that it ends after the period
    late = with_timed(s, j, start=s.period - duration + eps)
    assert "window" in verify(platform, late).kinds()
    # one extra message
    kinds = verify(platform, with_timed(s, j, messages=t.messages + 1)).kinds()
    assert "delivery" in kinds and kinds <= {"delivery", "one-port", "window"}
    # a link of the platform that is not an edge of the transfer's tree
    edges = set(s.trees[t.tree].edges)
    others = [l.arc for l in platform.links if l.arc not in edges]
    if others:
        tail, head = data.draw(st.sampled_from(others))
        assert "tree-edge" in verify(platform, with_timed(s, j, tail=tail, head=head)).kinds()


@settings(max_examples=examples(40), deadline=None)
@given(platforms(max_nodes=5), st.data())
def test_claimed_ratio_and_min_ratio(platform, data):
    s = optimal_timed(platform)
    report = verify(platform, s)
    assert report.ratio == 1
    delta = data.draw(st.fractions(min_value=F(1, 10**6), max_value=1, max_denominator=10**6))
    assert "ratio" in verify(platform, replace(s, extra={"ratio": format(1 - delta)})).kinds()
    assert "ratio" in verify(platform, replace(s, extra={"optimum": str(
        s.throughput + delta)})).kinds()
    assert verify(platform, replace(s, extra={"ratio": "1", "optimum": str(s.throughput)})).ok
    assert verify(platform, s, min_ratio=F(1)).ok
    assert verify(platform, s, min_ratio=1 + delta).kinds() == {"ratio"}


@settings(max_examples=examples(40), deadline=None)
@given(platforms(max_nodes=5), st.data())
def test_positive_prices_mean_full_ports_and_any_move_there_is_rejected(platform, data):
    """Complementary slackness (proofs/timed-schedule.md (b)): in an optimal timetable a
    port with a positive price is busy the whole period, so its intervals tile
    [0, period] and moving any of its transfers by any delta != 0 is rejected
    (one-port, start or window): the issue's "any single moved start"."""
    s = optimal_timed(platform)
    cert = s.certificate
    busy = port_intervals(s)
    tight = []
    for side, prices in (("out", cert.out_prices), ("in", cert.in_prices)):
        for node, y in prices.items():
            if y > 0:
                intervals = busy.get((side, node), [])
                assert sum((e - b for b, e, _ in intervals), F(0)) == s.period, (side, node)
                tight.extend(j for _, _, j in intervals)
    assert tight                                    # some price is positive
    j = data.draw(st.sampled_from(tight))
    delta = data.draw(st.fractions(min_value=-s.period, max_value=s.period,
                                   max_denominator=10**6).filter(lambda d: d != 0))
    report = verify(platform, with_timed(s, j, start=s.transfers[j].start + delta))
    assert report.kinds() & {"one-port", "start", "window"}, (j, delta)
    assert report.kinds() <= {"one-port", "start", "window"}


@settings(max_examples=examples(30), deadline=None)
@given(platforms(max_nodes=5), st.integers(1, 10**6))
def test_scaling_the_prices_keeps_the_bound(platform, a):
    """sum(a y) / min cost under a y = sum(y) / min cost under y: the certified bound
    does not depend on the certificate's normalisation (c need not be 1)."""
    s = optimal_timed(platform)
    cert = s.certificate
    scaled = PriceCertificate({v: a * y for v, y in cert.out_prices.items()},
                              {v: a * y for v, y in cert.in_prices.items()})
    report = verify(platform, replace(s, certificate=scaled))
    assert report.ok and report.bound == s.throughput and report.ratio == 1
