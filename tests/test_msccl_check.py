"""``steady verify --msccl``'s checker (steady.runtimes.msccl.check): the executor's
tokenizer, its structural rules, the progress rule (deadlocks), races, the symbolic
run of broadcast, allgather, reducescatter and allreduce, the predicted time, and a
fault-injection test over every step of exported and hand-made programs."""

from __future__ import annotations

from fractions import Fraction

import pytest

from steady.errors import InputError
from steady.runtimes.msccl.check import check_bytes
from steady.runtimes.msccl.export import export_broadcast

import msccl_helpers as mh


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """name -> (XML bytes, platform) of programs exported from sample schedules."""
    folder = tmp_path_factory.mktemp("schedules")
    made = {}
    for sample, options in (("figure1", ()), ("figure5-dag", ("--max-messages", "4")),
                            ("figure1", ("--max-messages", "2", "--steps")),
                            ("random-10", ("--max-messages", "3")),
                            ("random-20-multiport", ("--max-messages", "4"))):
        schedule = mh.load(mh.schedule_file(folder, sample, *options))
        made[f"{sample} {' '.join(options)}".strip()] = (
            export_broadcast(schedule).text.encode(), schedule.platform)
    return made


def programs(exported):
    yield from exported.items()
    for path in mh.HAND_MADE:
        yield path.stem, (path.read_bytes(), None)


def rejects(data: bytes) -> bool:
    try:
        return not check_bytes(data, "<fault>").ok
    except InputError:
        return True


# -- what is valid ------------------------------------------------------------------

@pytest.mark.parametrize("path", mh.HAND_MADE, ids=lambda p: p.stem)
def test_hand_made_collectives_are_valid(path):
    report = check_bytes(path.read_bytes(), path.name)
    assert report.ok, report.violations
    assert report.modes == ("inplace", "outofplace")
    assert report.program.coll in path.stem


def test_exported_programs_are_valid_and_timed(exported):
    for name, (data, platform) in exported.items():
        report = check_bytes(data, name, platform)
        assert report.ok, (name, report.violations)
        assert report.root == 0 and report.makespan > 0
        assert report.busiest_port <= report.makespan


def test_figure1_predicted_time():
    """002 Figure 1's exact schedule: two trees of one message; the busiest port per
    loop is the period 2 (each of Ps, P1, P2 sends two unit-cost or two half-cost
    messages... the source sends 2 x 1), the makespan 3 (Ps -> P1 -> P2 -> P4 at
    1 + 1 + 1/2, and P1 -> P3 after P1's second chunk arrives at 2, + 1/2)."""
    from steady.cli import main
    import tempfile, os
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "s.json")
        assert main(["schedule", "-o", path, "--quiet"]) == 0
        schedule = mh.load(path)
    report = check_bytes(export_broadcast(schedule).text.encode(), "f1", schedule.platform)
    assert (report.makespan, report.busiest_port) == (Fraction(3), Fraction(2))
    assert report.nodes == {0: "Ps", 1: "P1", 2: "P2", 3: "P3", 4: "P4"}


# -- the executor's tokenizer ---------------------------------------------------------

ALLGATHER = (mh.FIXTURES / "allgather-ring-3.xml").read_bytes()


@pytest.mark.parametrize("change, says", [
    (lambda d: b'<?xml version="1.0"?>\n' + d, "expected '>'"),
    (lambda d: b"\t" + d, "a tab"),
    (lambda d: b"\xef\xbb\xbf" + d, "byte order mark"),
    (lambda d: d.replace(b'cnt="1"', b"cnt=1", 1), "quoted"),
    (lambda d: d.replace(b' type="s"', b'\n type="s"', 1), "expected '>'"),
    (lambda d: d.replace(b"</tb>", b"</tbx>", 1), "closes"),
    (lambda d: d.replace(b"</algo>", b""), "never closed"),
    (lambda d: b'<!DOCTYPE algo [<!ENTITY x "y">]>\n' + d, "DOCTYPE"),
    (lambda d: d.replace(b"<tb ", b"<tb>text</tb><tb ", 1), "expected '<'"),
    (lambda d: b"", "no <algo>")])
def test_what_the_executor_cannot_read_is_bad_input(change, says):
    with pytest.raises(InputError) as info:
        check_bytes(change(ALLGATHER), "f.xml")
    assert says in str(info.value) and str(info.value).startswith("f.xml: ")


def test_comments_are_read_and_well_formedness_is_separate():
    data = b"<!-- made by hand -->\n" + ALLGATHER
    assert check_bytes(data, "f").ok
    amp = ALLGATHER.replace(b"ring, 3", b"ring & 3")
    report = check_bytes(amp, "f")   # the executor reads it; other XML readers do not
    assert [v.kind for v in report.violations] == ["xml"]


# -- structural rules --------------------------------------------------------------------

def _mutated(edit):
    root = mh.parse(ALLGATHER)
    edit(root)
    return check_bytes(mh.dump(root), "f")


@pytest.mark.parametrize("edit, kind, says", [
    (lambda r: r.attrib.pop("outofplace"), "attribute", "no 'outofplace'"),
    (lambda r: r.attrib.pop("maxBytes"), "attribute", "no 'maxBytes'"),
    (lambda r: r.set("nchannels", "33"), "attribute", "nchannels=33"),
    (lambda r: r.set("nchunksperloop", "010"), "attribute", "strtol"),
    (lambda r: r.set("proto", "simple"), "attribute", "proto='simple'"),
    (lambda r: r.set("coll", "bcast"), "attribute", "coll='bcast'"),
    (lambda r: r.set("nchunksperloop", "4"), "algo", "not a multiple of ngpus"),
    (lambda r: r.set("inplace", "0") or r.set("outofplace", "0"), "algo", "both 0"),
    (lambda r: r.set("maxBytes", "5") or r.set("minBytes", "9"), "algo", "no size"),
    (lambda r: r.remove(r[2]), "gpu", "no <gpu> for rank(s) 2"),
    (lambda r: r[1].set("id", "0"), "gpu", "a second <gpu>"),
    (lambda r: r[0].set("o_chunks", "4"), "buffer", "holds 3 chunks"),
    (lambda r: r[0][0].set("id", "1"), "threadblock", "missing"),
    (lambda r: r[0][0].set("send", "0"), "threadblock", "the GPU itself"),
    (lambda r: r[0][0].set("chan", "1"), "attribute", "chan=1"),
    (lambda r: r[0][0][1].set("s", "5"), "step", "numbers steps by position"),
    (lambda r: r[0][0][1].set("cnt", "72"), "attribute", "cnt=72"),
    (lambda r: r[0][0][1].set("type", "send"), "attribute", "type='send'"),
    (lambda r: r[0][0][1].set("srcbuf", "x"), "attribute", "srcbuf='x'"),
    (lambda r: r[0][0][1].set("hasdep", "2"), "attribute", "hasdep=2"),
    (lambda r: r[0][0][1].set("depid", "0") or r[0][0][1].set("deps", "0"), "dependency",
     "its own threadblock"),
    (lambda r: r[0][0][3].set("dstoff", "3"), "buffer", "dstoff=3 outside -1 .. 2"),
    (lambda r: r[0][0][0].set("srcoff", "1"), "buffer", "srcoff=1 outside"),
    (lambda r: r[0][0].set("send", "-1"), "step", "no send peer"),
    (lambda r: r[0][0][0].set("cnt", "0"), "step", "cnt=0"),
])
def test_structural_rules(edit, kind, says):
    report = _mutated(edit)
    assert not report.ok
    assert any(v.kind == kind and says in v.reason for v in report.violations), \
        report.violations


def test_offsets_the_executor_does_not_check_are_checked():
    """An rrc's offsets pass the executor's parser unchecked (msccl_parser.cc:518-521):
    past the end of reducescatter's one-chunk output, the checker refuses it."""
    root = mh.parse((mh.FIXTURES / "reducescatter-ring-3.xml").read_bytes())
    root[0][0][2].set("dstoff", "1")
    report = check_bytes(mh.dump(root), "f")
    assert any(v.kind == "buffer" and "which holds 1" in v.reason for v in report.violations)


def test_a_second_threadblock_on_one_connection_is_refused():
    import xml.etree.ElementTree as ET

    def edit(r):
        extra = ET.SubElement(r[0], "tb", {"id": "1", "send": "1", "recv": "-1", "chan": "0"})
        ET.SubElement(extra, "step", dict(r[0][0][1].attrib))
    report = _mutated(edit)
    assert any(v.kind == "channel" and "one connection" in v.reason
               for v in report.violations)


def test_dependencies_must_name_a_publishing_step():
    import xml.etree.ElementTree as ET

    def edit(r):
        extra = ET.SubElement(r[0], "tb", {"id": "1", "send": "-1", "recv": "-1", "chan": "0"})
        ET.SubElement(extra, "step", {"s": "0", "type": "nop", "srcbuf": "i", "srcoff": "-1",
                                      "dstbuf": "o", "dstoff": "-1", "cnt": "0", "depid": "0",
                                      "deps": "9", "hasdep": "0"})
        ET.SubElement(extra, "step", {"s": "1", "type": "cpy", "srcbuf": "o", "srcoff": "0",
                                      "dstbuf": "o", "dstoff": "0", "cnt": "1", "depid": "0",
                                      "deps": "1", "hasdep": "0"})
    report = _mutated(edit)
    reasons = [v.reason for v in report.violations if v.kind == "dependency"]
    assert any("does not exist" in r for r in reasons)
    assert any("hasdep is 0" in r for r in reasons)


def test_fused_reductions_must_agree_on_cnt():
    data = (mh.FIXTURES / "reducescatter-ring-3.xml").read_bytes()
    root = mh.parse(data)
    import xml.etree.ElementTree as ET
    tb = root[0][0]
    for cnt in ("1", "2"):
        ET.SubElement(tb, "step", {"s": "0", "type": "re", "srcbuf": "i", "srcoff": "0",
                                   "dstbuf": "s", "dstoff": "0", "cnt": cnt, "depid": "-1",
                                   "deps": "-1", "hasdep": "0"})
    root[0].set("s_chunks", "2")
    mh.renumber(tb)
    report = check_bytes(mh.dump(root), "f")
    assert any("fused" in v.reason for v in report.violations), report.violations


# -- deadlocks, races, results ---------------------------------------------------------

def test_a_ring_needs_the_fifo_room_and_has_it():
    """Every rank first sends, then forwards: with no room in the connections this
    ring would hang; the executor's FIFO holds two Simple sends, and the file is valid.
    Three sends in a row before the first receive are one too many."""
    assert check_bytes(ALLGATHER, "ring").ok
    root = mh.parse(ALLGATHER)
    import xml.etree.ElementTree as ET
    for r, gpu in enumerate(root):
        tb = gpu[0]
        for k in (1, 2):      # two more sends of the rank's own shard, before receiving
            extra = ET.Element("step", dict(tb[1].attrib))
            tb.insert(2, extra)
        mh.renumber(tb)
    # the receivers take them as extra receives at the end
    for r, gpu in enumerate(root):
        tb = gpu[0]
        for k in (1, 2):
            ET.SubElement(tb, "step", {"s": "0", "type": "r", "srcbuf": "o",
                                       "srcoff": str((r - 1) % 3), "dstbuf": "o",
                                       "dstoff": str((r - 1) % 3), "cnt": "1",
                                       "depid": "-1", "deps": "-1", "hasdep": "0"})
        mh.renumber(tb)
    report = check_bytes(mh.dump(root), "ring+")
    assert [v.kind for v in report.violations][:3] == ["deadlock"] * 3
    assert "waits for room on its connection" in report.violations[0].reason


def test_a_missing_dependency_is_a_race():
    """A send that no longer waits for the receive of the chunk it forwards: the data
    may be the right one in one order, the rule says it is a race."""
    schedule_root = mh.parse(export_broadcast(_figure1()).text.encode())
    gpu1 = schedule_root[1]
    sender = next(tb for tb in gpu1 if tb.get("send") == "2")
    sender[0].attrib.update({"depid": "-1", "deps": "-1"})
    report = check_bytes(mh.dump(schedule_root), "f")
    assert [v.kind for v in report.violations][:1] == ["race"], report.violations


def test_results_name_the_wrong_chunk():
    root = mh.parse((mh.FIXTURES / "allreduce-ring-3.xml").read_bytes())
    root[0][0][2].set("type", "rcs")     # rank 0 forwards chunk 0 without its own part
    report = check_bytes(mh.dump(root), "f")
    kinds = {v.kind for v in report.violations}
    assert kinds == {"result"}
    assert any("promises" in v.reason and "gpu 0 o[0]" in v.where for v in report.violations)


def test_broadcast_reads_no_input_but_the_roots():
    root = mh.parse(export_broadcast(_figure1()).text.encode())
    gpu1 = root[1]
    tb = next(tb for tb in gpu1 if tb.get("send") == "2")
    tb[0].set("srcbuf", "i")
    gpu1.set("i_chunks", "2")
    report = check_bytes(mh.dump(root), "f")
    assert any("defines on the root only" in v.reason for v in report.violations)


def _figure1():
    from steady.cli import main
    import tempfile, os
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "s.json")
        assert main(["schedule", "-o", path, "--quiet"]) == 0
        return mh.load(path)


# -- fault injection ---------------------------------------------------------------------

@pytest.mark.parametrize("fault", mh.FAULTS, ids=lambda f: f.__name__)
def test_every_injected_fault_is_rejected(exported, fault):
    """Each fault, at every step where it applies, in every program (exported from
    five sample schedules, and the hand-made allgather, reducescatter, allreduce):
    the checker rejects the program.  Each fault applies somewhere."""
    applied, escaped = 0, []
    for name, (data, _) in programs(exported):
        for k in range(len(mh.steps(mh.parse(data)))):
            root = mh.parse(data)
            if not fault(root, k):
                continue
            applied += 1
            if not rejects(mh.dump(root)):
                escaped.append((name, k))
    assert applied > 0
    assert not escaped, escaped
