"""``steady export msccl``'s exporter (steady.runtimes.msccl.export, loop, program): the
mapping of one period to one loop, the causal order, threadblocks and dependencies,
refusals at the executor's limits, rank maps, switches; and the property that every
exported program passes the independent checker (proofs/msccl-export.md)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from helpers import examples

from steady.platform import Link, Platform
from steady.runtimes.msccl.check import check_bytes
from steady.runtimes.msccl.export import Refused, export_broadcast
from steady.runtimes.msccl.loop import Move, causal_order
from steady.schedule_file import Schedule, TimedTransfer, TreeEntry, timed
from steady.strategies import platforms

import msccl_helpers as mh


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("schedules")


def _chain(weight: int, transfers, nodes=("A", "B", "C")):
    """A chain A -> B -> C carrying one tree of ``weight`` messages; ``transfers``:
    (tail, head, messages, start)."""
    platform = Platform(nodes[0], [Link(a, b, 1) for a, b in zip(nodes, nodes[1:])])
    edges = list(zip(nodes, nodes[1:]))
    timetable = [TimedTransfer(a, b, 0, m, Fraction(s)) for a, b, m, s in transfers]
    period = max(t.start + t.messages for t in timetable)
    return Schedule(platform, Fraction(weight) / period, period, weight,
                    trees=[TreeEntry(weight, edges)], transfers=timetable, version=2)


def test_figure1_exact_schedule(folder):
    """002 Figure 1, the exact optimum (2 messages per period of 2): two chunks, the
    root's copy threadblock, a send and a receive threadblock per link used; the loop's
    causal makespan is 5 (the timetable forwards P2 -> P1 at 1 what P2 receives at 1),
    its busiest port 2, the period."""
    schedule = mh.load(mh.schedule_file(folder, "figure1"))
    e = export_broadcast(schedule)
    assert (e.chunks, len(e.ranks), e.threadblocks, e.steps, e.channels) == (2, 5, 13, 17, 1)
    assert (e.timing.makespan, e.timing.busiest_port, e.period) == (5, 2, 2)
    assert e.text.startswith('<algo name="steady broadcast figure-1 M=2" proto="Simple" '
                             'nchannels="1" nchunksperloop="2" ngpus="5" coll="broadcast" '
                             'inplace="1" outofplace="1" minBytes="0" maxBytes="0">\n')
    assert '<tb id="0" send="-1" recv="-1" chan="0">\n      <step s="0" type="cpy" ' \
           'srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="2" depid="-1" deps="-1" ' \
           'hasdep="1"/>' in e.text
    assert "\t" not in e.text and "<?xml" not in e.text


def test_every_attribute_the_parser_requires_is_written(folder):
    """msccl_parser.cc:315-389, 399-403, 413-416, 472-483 (runtime.*_ATTRIBUTES); the
    executor's first pass over a folder reads the algo's (issue 44: files were refused
    for a missing outofplace, minBytes or maxBytes)."""
    from steady.runtimes.msccl.check_lexer import read
    from steady.runtimes.msccl.runtime import (ALGO_ATTRIBUTES, GPU_ATTRIBUTES,
                                               STEP_ATTRIBUTES, TB_ATTRIBUTES)

    schedule = mh.load(mh.schedule_file(folder, "figure5-dag", "--max-messages", "4"))
    (algo,) = read(export_broadcast(schedule).text.encode())
    assert set(ALGO_ATTRIBUTES) <= {k for k, _ in algo.attributes}
    for gpu in algo.children:
        assert set(GPU_ATTRIBUTES) <= {k for k, _ in gpu.attributes}
        for tb in gpu.children:
            assert sorted(k for k, _ in tb.attributes) == sorted(TB_ATTRIBUTES)
            for step in tb.children:
                assert sorted(k for k, _ in step.attributes) == sorted(STEP_ATTRIBUTES)


def test_version_1_steps_give_the_program_of_their_timetable(folder):
    schedule = mh.load(mh.schedule_file(folder, "figure1"))
    assert schedule.version == 1
    assert export_broadcast(schedule).text == export_broadcast(timed(schedule)).text


def test_sends_wait_for_the_receive_of_their_last_chunk():
    """A -> B -> C, one tree of 3 messages: B forwards chunks 0-1 and 2 after the
    receives that delivered them; the loop is causal: B's second send waits for the
    second receive."""
    schedule = _chain(3, [("A", "B", 2, 0), ("A", "B", 1, 2), ("B", "C", 2, 0),
                          ("B", "C", 1, 2)])
    e = export_broadcast(schedule)
    gpu_b = e.gpus[1]
    send, recv = gpu_b.threadblocks
    assert (send.send, recv.recv) == (2, 0)
    assert [(s.type, s.srcoff, s.cnt, s.depid, s.deps) for s in send.steps] == [
        ("s", 0, 2, 1, 0), ("s", 2, 1, 1, 1)]
    assert [s.hasdep for s in recv.steps] == [1, 1]
    starts = [e.timing.start[m.index] for m in e.moves]
    assert starts == [0, 2, 2, 4]       # A->B 0-1, A->B 2, B->C 0-1 (2 .. 4), B->C 2
    assert check_bytes(e.text.encode(), "chain", schedule.platform).ok


def test_long_transfers_are_cut_at_71_chunks():
    schedule = _chain(100, [("A", "B", 100, 0), ("B", "C", 100, 0)])
    e = export_broadcast(schedule)
    assert [s.cnt for s in e.gpus[1].threadblocks[0].steps] == [71, 29]
    assert [s.cnt for s in e.gpus[0].threadblocks[0].steps] == [71, 29]   # the copy
    assert check_bytes(e.text.encode(), "chain").ok


def test_refused_beyond_the_steps_of_a_threadblock():
    schedule = _chain(65, [("A", "B", 1, k) for k in range(65)]
                      + [("B", "C", 1, k) for k in range(65)])
    with pytest.raises(Refused) as info:
        export_broadcast(schedule, "s.json")
    text = str(info.value)
    assert text.startswith("s.json: rank ") and "MSCCL_MAX_NUM_STEPS" in text
    assert "--max-messages" in text and "\n" not in text


def test_refused_beyond_16_bit_chunk_offsets(folder):
    schedule = mh.load(mh.schedule_file(folder, "random-10"))    # exact: huge M
    with pytest.raises(Refused) as info:
        export_broadcast(schedule, "s.json")
    assert "16-bit" in str(info.value) and "--max-messages" in str(info.value)
    assert str(info.value).startswith("s.json: messages_per_period: a ")


def test_rank_map(folder):
    schedule = mh.load(mh.schedule_file(folder, "figure1"))
    e = export_broadcast(schedule, given={"P3": 0, "P4": 4})
    assert e.ranks == {"P3": 0, "Ps": 1, "P1": 2, "P2": 3, "P4": 4}
    assert e.root == 1
    report = check_bytes(e.text.encode(), "m", schedule.platform)
    assert report.ok and report.root == 1
    assert report.nodes[0] == "P3"     # read back from the file's node attributes


@pytest.mark.parametrize("given_map, says", [
    ({"Q": 0}, "not a node"), ({"P1": 7}, "ranks are 0 .. 4"),
    ({"P1": 0, "P2": 0}, "given to both")])
def test_bad_rank_maps(folder, given_map, says):
    from steady.errors import InputError
    schedule = mh.load(mh.schedule_file(folder, "figure1"))
    with pytest.raises(InputError) as info:
        export_broadcast(schedule, given=given_map)
    assert says in str(info.value)


def test_switches_are_not_ranks():
    """A -> S -> {B, C} with S a switch: two ranks receive from A, one move each, at
    the slower link of the path (S -> B costs 2); S is no rank."""
    platform = Platform("A", [Link("A", "S", 1), Link("S", "B", 2), Link("S", "C", 1)],
                        switches=["S"])
    timetable = [TimedTransfer("A", "S", 0, 1, Fraction(0)),
                 TimedTransfer("S", "B", 0, 1, Fraction(1)),
                 TimedTransfer("S", "C", 0, 1, Fraction(3))]
    schedule = Schedule(platform, Fraction(1, 4), Fraction(4), 1,
                        trees=[TreeEntry(1, [("A", "S"), ("S", "B"), ("S", "C")])],
                        transfers=timetable, version=2)
    e = export_broadcast(schedule)
    assert e.ranks == {"A": 0, "B": 1, "C": 2}
    assert [(m.sender, m.receiver, m.cost) for m in e.moves] == [(0, 1, 2), (0, 2, 1)]
    assert e.timing.makespan == 3
    report = check_bytes(e.text.encode(), "sw", platform)
    assert report.ok and report.makespan == 2   # threadblocks in parallel


# -- the causal order --------------------------------------------------------------------

@st.composite
def _moves(draw):
    n = draw(st.integers(1, 12))
    moves = []
    for i in range(n):
        after = tuple(sorted(draw(st.sets(st.integers(0, i - 1), max_size=2)))) if i else ()
        moves.append(Move(i, draw(st.integers(0, 3)), draw(st.integers(4, 6)), i, 1, after,
                          (draw(st.integers(0, 5)), i), Fraction(draw(st.integers(1, 4)), 2),
                          Fraction(draw(st.integers(0, 2)))))
    return moves


@given(_moves())
@settings(max_examples=examples(60), deadline=None)
def test_causal_order_is_causal_and_one_port(moves):
    """proofs/msccl-export.md, Claim 1: every move starts after the moves it needs and
    after the earlier moves of both its ports; the postcondition (loop._check) runs
    inside, and the makespan is at least every port's load."""
    timing = causal_order(moves)
    assert sorted(timing.order) == list(range(len(moves)))
    assert timing.makespan >= timing.busiest_port
    for m in moves:
        assert all(timing.end[a] <= timing.start[m.index] for a in m.after)


@given(platforms(min_nodes=2, max_nodes=6), st.integers(1, 6))
@settings(max_examples=examples(30), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
def test_exported_programs_pass_the_checker(platform, most):
    """proofs/msccl-export.md, Claim 2: the program of any timed schedule is valid for
    the independent checker (no deadlock, no race, every rank ends with the root's
    chunks in place and out of place), and its busiest port per loop is the timetable's
    largest port load (at most the period)."""
    from steady.schedule.timed import timed_schedule
    from steady.throughput import throughput

    schedule, _ = timed_schedule(platform, throughput(platform, "trees"), most)
    e = export_broadcast(schedule)
    report = check_bytes(e.text.encode(), "p", platform)
    assert report.ok, report.violations
    assert report.busiest_port == e.timing.busiest_port <= schedule.period
