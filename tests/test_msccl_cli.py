"""``steady export msccl`` and ``steady verify --msccl`` on the command line: exit codes,
one-line refusals, files written only once checked, --sizes files that cover a range
without overlap, ``steady tradeoff --sizes``; and every sample's schedules exported or
refused in one line (slow)."""

from __future__ import annotations

import json
import re

import pytest

from steady.runtimes.msccl.check import check_msccl
from steady.runtimes.msccl.runtime import MAX_STEPS, MAX_THREADBLOCKS

from helpers import assert_one_line_error, run
import msccl_helpers as mh

FIG1 = str(mh.SAMPLES / "figure1.json")
STARTUP = str(mh.SAMPLES / "figure1-startup.json")


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("msccl-cli")


def test_export_then_verify(capsys, folder):
    schedule = mh.schedule_file(folder, "figure5-dag", "--max-messages", "4")
    out = folder / "f5.xml"
    code, text, err = run(capsys, "export", "msccl", schedule, "-o", out, "--json")
    assert code == 0, err
    summary = json.loads(text)
    assert (summary["chunks_per_loop"], summary["ranks"], summary["root_node"]) == (4, 5, "Ps")
    assert summary["verified"] and out.read_bytes().startswith(b"<algo ")
    code, text, _ = run(capsys, "verify", "--msccl", out, mh.SAMPLES / "figure5-dag.json")
    assert code == 0
    assert text.startswith("valid: broadcast, 5 ranks, 4 chunks per loop")
    assert "time per loop on figure-5-dag" in text or "time per loop on" in text
    code, text, _ = run(capsys, "verify", "--msccl", out, "--json")
    assert code == 0 and json.loads(text)["valid"] is True


def test_human_summary(capsys, folder):
    schedule = mh.schedule_file(folder, "figure1")
    code, text, _ = run(capsys, "export", "msccl", schedule, "--proto", "LL")
    assert code == 0
    assert re.search(r"^loop +causal makespan 5 against the period 2", text, re.M)
    assert "(not written: use -o FILE)" in text
    assert "call it with root 0" in text


def test_refusals_are_one_line(capsys, folder):
    exact = mh.schedule_file(folder, "random-10")
    code, _, err = run(capsys, "export", "msccl", exact, "-o", folder / "x.xml")
    assert code == 2 and not (folder / "x.xml").exists()
    assert_one_line_error(err, "messages_per_period")
    assert "--max-messages" in err
    code, _, err = run(capsys, "export", "msccl", FIG1)
    assert code == 2
    assert_one_line_error(err, "--sizes")
    code, _, err = run(capsys, "export", "msccl", mh.schedule_file(folder, "figure1"),
                       "--map", "P9=0")
    assert code == 2
    assert_one_line_error(err, "--map")


def test_verify_exit_codes(capsys, folder):
    bad = folder / "bad.xml"
    bad.write_bytes(b"\t<algo/>")
    code, _, err = run(capsys, "verify", "--msccl", bad)
    assert code == 2
    assert_one_line_error(err, "line 1")
    data = (mh.FIXTURES / "allgather-ring-3.xml").read_bytes()
    wrong = folder / "wrong.xml"
    wrong.write_bytes(data.replace(b'type="rcs"', b'type="rrcs"', 1))
    code, text, _ = run(capsys, "verify", "--msccl", wrong)
    assert code == 1
    assert text.startswith("invalid: ") and "  result: gpu " in text
    code, _, err = run(capsys, "verify", FIG1)
    assert code == 2
    assert_one_line_error(err, "verify")


def test_sizes_cover_the_range_without_overlap(capsys, folder):
    """002 Figure 1 with a start-up of 1 on every link, 1 MiB per unit: one message
    per period below 16 MiB (fewer start-ups), two from 16 MiB on (the optimum's two
    trees); the files' [minBytes, maxBytes] tile 1KB .. 1GB."""
    out = folder / "sizes"
    code, text, err = run(capsys, "export", "msccl", STARTUP, "--sizes", "1KB..1GB",
                          "--unit-bytes", str(2 ** 20), "-o", out, "--quiet")
    assert code == 0, err
    ranges = []
    for path in sorted(out.glob("*.xml")):
        report = check_msccl(path)
        assert report.ok
        ranges.append((report.program.min_bytes, report.program.max_bytes,
                       report.program.chunks))
    ranges.sort()
    assert ranges == [(1024, 2 ** 24 - 1, 1), (2 ** 24, 2 ** 30, 2)]
    assert "1KB..16MB-1" in text and "16MB..1GB" in text


def test_tradeoff_shows_the_size_choice(capsys):
    code, text, _ = run(capsys, "tradeoff", STARTUP, "--max-messages", "1,2", "--sizes",
                        "1KB..1GB", "--unit-bytes", str(2 ** 20), "--quiet", "--json")
    assert code == 0
    sizes = json.loads(text)["msccl_sizes"]
    assert [(r["min_bytes"], r["messages_per_period"]) for r in sizes["ranges"]] == [
        (1024, 1), (2 ** 24, 2)]


# -- every sample ------------------------------------------------------------------------

PLATFORMS = ["figure1", "figure5-dag", "figure1-startup", "figure4-tree", "random-10",
             "random-20-multiport", "random-30", "tiers-30", "mesh-65", "random-50"]
VARIANTS = [(), ("--max-messages", "4"), ("--max-messages", "16"), ("--max-messages", "64"),
            ("--max-messages", "4", "--steps")]
SLOW = {("random-50", ("--max-messages", "16"))}   # 140 s to build the schedule


@pytest.mark.slow
@pytest.mark.parametrize("sample", PLATFORMS)
def test_every_sample_schedule_exports_or_is_refused(capsys, folder, sample):
    """Done for issue 44: each schedule steady writes for the sample exports and passes
    the checker within the executor's limits, or is refused in one line naming the
    limit and --max-messages."""
    for options in VARIANTS:
        if (sample, options) in SLOW:
            continue
        schedule = mh.schedule_file(folder, sample, *options)
        out = folder / f"{sample}-{'-'.join(o.lstrip('-') for o in options)}.xml"
        code, _, err = run(capsys, "export", "msccl", schedule, "-o", out, "--quiet")
        if code == 2:
            assert_one_line_error(err, "")
            assert "--max-messages" in err and not out.exists()
            assert not options or options[-1] != "4", (sample, options, err)
            continue
        assert code == 0, (sample, options, err)
        report = check_msccl(out, mh.load(schedule).platform)
        assert report.ok
        assert all(len(g.threadblocks) <= MAX_THREADBLOCKS for g in report.program.gpus)
        assert all(len(tb.steps) <= MAX_STEPS for g in report.program.gpus
                   for tb in g.threadblocks)


def test_verify_times_a_ring_on_its_platform(capsys, folder):
    """The hand-made allgather ring on a 3-node ring platform (unit costs): every rank
    sends its shard (0 .. 1), forwards its neighbour's (1 .. 2): makespan 2, two sends a
    rank. With ranks mapped against the links, a pair without a link is a violation."""
    from steady.platform import Link, Platform

    ring = folder / "ring.json"
    Platform("A", [Link("A", "B", 1), Link("B", "C", 1), Link("C", "A", 1)],
             name="ring").write(ring)
    xml = mh.FIXTURES / "allgather-ring-3.xml"
    code, text, _ = run(capsys, "verify", "--msccl", xml, ring, "--json")
    report = json.loads(text)
    assert code == 0
    assert (report["loop_makespan"], report["busiest_port"], report["nodes"]) == (
        "2", "2", {"0": "A", "1": "B", "2": "C"})
    code, text, _ = run(capsys, "verify", "--msccl", xml, ring, "--map", "A=0,C=1,B=2")
    assert code == 1
    assert "platform: gpu 0 tb 0 step 1" in text and "no link between them" in text
