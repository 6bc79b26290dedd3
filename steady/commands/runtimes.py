"""Other runtimes on the command line: ``steady export msccl`` and ``steady verify
--msccl`` (docs/cli.md).

Only argparse wiring and presentation live here; :mod:`steady.runtimes.msccl` exports
and checks, and the schedules of ``--sizes`` come from :mod:`steady.schedule.timed`,
each imported when a command runs.  Every file written has passed the independent
checker first.
"""

from __future__ import annotations

import os
import sys
from fractions import Fraction

from ..errors import InputError
from ..numbers import format_exact
from .files import write_output
from .options import check_integer, integer_list
from ..present.sheet import IN_JSON, number, print_json, print_sheet

#: Messages per period tried by ``--sizes`` (the executor needs powers of two, and 64
#: or fewer always fit its 64 steps per threadblock).
SIZE_CANDIDATES = "1,2,4,8,16,32,64"
#: At most this many violations are listed.
SHOWN = 50


def add_commands(sub) -> None:
    """``steady export msccl``."""
    ex = sub.add_parser("export", help="write a schedule as another runtime's program "
                        "(MSCCL XML for NCCL/RCCL)")
    kinds = ex.add_subparsers(dest="runtime", required=True, metavar="RUNTIME")
    ms = kinds.add_parser(
        "msccl", help="an MSCCL algorithm XML (broadcast), checked before it is written",
        description="Write a steady broadcast schedule (steady-schedule v1 steps or v2 "
                    "timetable) as the algorithm XML of the MSCCL executor (NCCL, RCCL): "
                    "one period is one loop, a message one chunk, a link a pair of "
                    "threadblocks. With --sizes, from a platform: one file per message-"
                    "size range, each with the messages per period that the platform's "
                    "start-ups and costs favour. Every file passes steady verify --msccl "
                    "before it is written. A schedule beyond the executor's limits is "
                    "refused in one line (exit 2).")
    ms.add_argument("input", help="steady-schedule file; with --sizes, a steady-platform "
                    "file (or a schedule, whose platform is used)")
    ms.add_argument("-o", "--output", metavar="FILE|DIR", help="the .xml file to write; "
                    "with --sizes, the folder for the files")
    ms.add_argument("--map", metavar="NODE=RANK,...", help="ranks of platform nodes, or "
                    "a JSON file {\"node\": rank}; other nodes take the free ranks in the "
                    "default order (the source is rank 0, then the platform's order)")
    ms.add_argument("--proto", choices=("Simple", "LL", "LL128"), default="Simple",
                    help="the executor's protocol (default Simple)")
    ms.add_argument("--name", help="the algo's name attribute")
    ms.add_argument("--min-bytes", default="0", metavar="B", help="minBytes (default 0)")
    ms.add_argument("--max-bytes", default="0", metavar="B", help="maxBytes (default 0: "
                    "no limit)")
    ms.add_argument("--sizes", metavar="LOW..HIGH", help="files for this size range, e.g. "
                    "1KB..1GB (binary units)")
    ms.add_argument("--max-messages", default=SIZE_CANDIDATES, metavar="M,M,...",
                    help=f"--sizes: the messages per period tried (default "
                    f"{SIZE_CANDIDATES})")
    ms.add_argument("--unit-bytes", default="1", metavar="U", help="--sizes: bytes in the "
                    "platform's unit-size message (default 1: costs are per byte)")
    ms.add_argument("--slice-bytes", metavar="S", help="--sizes: bytes of a chunk per "
                    "loop (default: the protocol's with NCCL's default buffers)")
    ms.add_argument("--json", action="store_true", help="machine-readable summary")
    ms.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    ms.set_defaults(run=_cmd_export_msccl)


def add_verify_options(parser) -> None:
    """``steady verify --msccl FILE [PLATFORM]``."""
    parser.add_argument("--msccl", metavar="FILE.xml", help="check an MSCCL algorithm "
                        "file instead (PLATFORM optional: with it, the time of a loop)")
    parser.add_argument("--map", metavar="NODE=RANK,...", help="--msccl: ranks of the "
                        "platform's nodes (default: the file's node attributes, else the "
                        "source first)")


# -- steady export msccl ------------------------------------------------------------------

def _cmd_export_msccl(args) -> int:
    from ..fileio import load_json
    from ..platform import Platform
    from ..runtimes.msccl.ranks import read_map
    from ..schedule_file import Schedule

    origin = str(args.input)
    doc = load_json(args.input)
    given = read_map(args.map) if args.map else None
    if isinstance(doc, dict) and doc.get("format") == "steady-schedule":
        schedule = Schedule.from_dict(doc, origin)
        platform = schedule.platform
    else:
        schedule, platform = None, Platform.from_dict(doc, origin)
    if args.sizes is not None:
        return _export_sizes(args, platform, origin, given)
    if schedule is None:
        raise InputError(origin, "format", "a platform: export a schedule (steady schedule "
                         "PLATFORM --max-messages 64 -o S.json), or give --sizes LOW..HIGH")
    if args.output is not None:   # before the work: one line naming the file
        from ..fileio import check_output_path

        check_output_path(args.output, "-o/--output")
    from ..runtimes.msccl.export import export_broadcast, export_collective

    export = export_collective if schedule.is_collective else export_broadcast
    exported = export(schedule, origin, given, args.proto, args.name,
                      _bytes(args.min_bytes, "--min-bytes"),
                      _bytes(args.max_bytes, "--max-bytes"))
    report = _checked(exported, platform, args.output)
    if report is None:
        return 1
    write_output(args.output, exported.text)
    summary = _summary(exported, report, origin, args.output)
    if args.json:
        print_json(summary)
    else:
        print_sheet(_rows(exported, report, summary))
    return 0


def _checked(exported, platform, output):
    """The independent checker's report of ``exported``, or None after listing its
    violations (the command then exits 1 and writes nothing)."""
    from ..runtimes.msccl.check import check_bytes

    report = check_bytes(exported.text.encode(), output or "<export>", platform)
    for violation in report.violations[:20]:
        print(f"steady: program rejected by the checker: {violation}", file=sys.stderr)
    return report if report.ok else None


def _bytes(text: str, option: str) -> int:
    return check_integer(str(text).strip(), option, 0, 2 ** 63 - 1)


def _summary(exported, report, origin, output) -> dict:
    t = exported.timing
    return {"input": origin, "file": output,
            "collective": exported.attributes.get("coll", "broadcast"),
            "ranks": len(exported.ranks), "root": exported.root,
            "root_node": next((v for v, r in exported.ranks.items() if r == exported.root),
                              None),
            "nodes": {str(r): v for v, r in sorted(exported.ranks.items(), key=lambda x: x[1])},
            "chunks_per_loop": exported.chunks, "protocol": exported.proto,
            "channels": exported.channels, "threadblocks": exported.threadblocks,
            "steps": exported.steps, "most_steps_per_threadblock": exported.most_steps,
            "period": format_exact(exported.period), "loop_makespan": format_exact(t.makespan),
            "busiest_port": format_exact(t.busiest_port),
            "file_bytes": len(exported.text.encode()), "verified": report.ok,
            "notes": report.notes}


def _rows(exported, report, summary) -> list:
    t = exported.timing
    modes = " and ".join({"inplace": "in place", "outofplace": "out of place"}[m]
                         for m in report.modes)
    coll = summary["collective"]
    gather = coll in ("allgather", "reducescatter")       # every rank a root
    per = exported.chunks // len(exported.ranks)
    promise = {"allgather": f"every rank's {per} chunks",
               "reducescatter": f"its {per} chunks reduced over all ranks, each "
                                "contribution once"}.get(coll, f"the root's "
                                                              f"{exported.chunks} chunks")
    rows = [("input", summary["input"]),
            ("ranks", f"{summary['ranks']}, every rank a root (switches are not ranks)"
                      if gather else f"{summary['ranks']}, the root is rank "
                      f"{exported.root} ({summary['root_node']})"),
            ("program", f"{coll}, {exported.chunks} chunks per loop, {exported.proto}, "
                        f"{exported.channels} channel(s), {exported.threadblocks} "
                        f"threadblocks, {exported.steps} steps (at most "
                        f"{exported.most_steps} in one threadblock)"),
            ("loop", f"causal makespan {number(t.makespan, IN_JSON)} against the period "
                     f"{number(exported.period, IN_JSON)} (the first loop); busiest port "
                     f"{number(t.busiest_port, IN_JSON)} per loop once loops overlap"
                     if not any(k[0] == "pair" for k in t.ports) else
                     f"causal makespan {number(t.makespan, IN_JSON)} over the (sender, "
                     f"receiver) pairs alone, busiest pair {number(t.busiest_port, IN_JSON)}"
                     f" (multi-port: the physical links the pairs share make the period, "
                     f"{number(exported.period, IN_JSON)})"),
            ("checker", f"valid: no deadlock, no race, every rank ends with {promise} "
                        f"({modes})"),
            ("file", f"{summary['file'] or '(not written: use -o FILE)'}, "
                     f"{summary['file_bytes']} bytes")]
    rows += [("note", note) for note in report.notes]
    return rows


# -- --sizes -----------------------------------------------------------------------------

def size_plan(platform, origin, lo: int, hi: int, counts, given=None, proto="Simple",
              unit_bytes: int = 1, slice_bytes=None, quiet: bool = True, result=None):
    """(choices, exports by M, notes): the size ranges of ``lo .. hi`` and the program
    each runs (:func:`steady.runtimes.msccl.sizes.choose`) among the timed schedules of
    ``counts`` messages per period whose M is a power of two and that fit the
    executor."""
    from ..progress import CountBar
    from ..runtimes.msccl.export import Refused, export_broadcast
    from ..runtimes.msccl.sizes import choose
    from ..schedule.timed import timed_schedule, tree_families
    from ..throughput import throughput

    result = result or throughput(platform, "trees")
    families = tree_families(platform, result)
    exports, notes = {}, []
    with CountBar(len(counts), "candidate schedules", quiet) as bar:
        for m in counts:
            schedule, _ = timed_schedule(platform, result, m, families=families)
            got = schedule.messages_per_period
            bar.advance()
            if got in exports:
                continue
            if got & (got - 1):
                notes.append(f"--max-messages {m} gives {got} messages per period, not a "
                             "power of two (the executor would take it only for counts "
                             f"that are multiples of {got}): left out")
                continue
            try:
                exports[got] = export_broadcast(schedule, origin, given, proto)
            except Refused as exc:
                notes.append(f"--max-messages {m}: refused: {exc.reason}")
    if not exports:
        raise InputError(origin, "--max-messages", "no candidate schedule fits the "
                         "executor: " + ("; ".join(notes) or "none tried"))
    candidates = {m: (e.moves, e.chunks) for m, e in sorted(exports.items())}
    choices = choose(candidates, lo, hi, unit_bytes, slice_bytes, proto)
    return choices, exports, notes, result


def size_rows(choices, result, unit_bytes: int) -> list[dict]:
    """One row per range: its M, loops, chunk bytes, predicted time and its ratio to
    the bandwidth bound (the size in units / the optimal throughput)."""
    rows = []
    for c in choices:
        p = c.prediction
        bound = Fraction(c.low, unit_bytes) / result.throughput
        rows.append({"min_bytes": c.low, "max_bytes": c.high, "messages_per_period": c.key,
                     "loops": p.loops, "chunk_bytes": p.chunk_bytes, "time": p.time,
                     "ratio_to_bound": p.time / bound})
    return rows


def print_size_rows(rows) -> None:
    """The table of ``steady export msccl --sizes`` and ``steady tradeoff --sizes``."""
    from ..runtimes.msccl.sizes import range_text

    print(f"{'sizes':>17} {'M':>3} {'loops':>6} {'chunk bytes':>12} {'time':>14} "
          f"{'/ bound':>8}")
    for r in rows:
        span = range_text(r["min_bytes"], r["max_bytes"])
        print(f"{span:>17} {r['messages_per_period']:>3} {r['loops']:>6} "
              f"{float(r['chunk_bytes']):>12.6g} {float(r['time']):>14.6g} "
              f"{float(r['ratio_to_bound']):>8.4f}")
    print("time: predicted at the range's lower end (first loop + one busiest port per "
          "further loop); / bound: to the size over the optimal throughput")


def _export_sizes(args, platform, origin, given) -> int:
    from ..runtimes.msccl.sizes import parse_range, size_text
    from .collective import refuse_on_fabric

    refuse_on_fabric(platform, origin, "export msccl --sizes")
    lo, hi = parse_range(args.sizes)
    counts = integer_list(args.max_messages, "--max-messages", 1, 64, "1,2,4,8,16,32,64")
    unit = _positive(args.unit_bytes, "--unit-bytes")
    slice_bytes = _positive(args.slice_bytes, "--slice-bytes") if args.slice_bytes else None
    if args.output is not None and os.path.exists(args.output) and not os.path.isdir(args.output):
        raise InputError(args.output, "file", "--sizes writes a folder of files: give a "
                         "folder")
    choices, exports, notes, result = size_plan(platform, origin, lo, hi, counts, given,
                                                args.proto, unit, slice_bytes, args.quiet)
    files = []
    for c in choices:
        base = exports[c.key]
        name = f"broadcast-from-{size_text(c.low)}.xml"
        exported = base.with_range(c.low, c.high, args.name)
        path = os.path.join(args.output, name) if args.output else None
        report = _checked(exported, platform, path)
        if report is None:
            return 1
        if path is not None:
            os.makedirs(args.output, exist_ok=True)
            write_output(path, exported.text)
        files.append(path or name)
    rows = size_rows(choices, result, unit)
    if args.json:
        print_json({"platform": platform.name or origin, "protocol": args.proto,
                    "unit_bytes": unit, "files": files, "notes": notes,
                    "ranges": [{k: (format_exact(v) if isinstance(v, Fraction) else v)
                                for k, v in r.items()} for r in rows]})
        return 0
    print(f"{platform.name or origin}: broadcast {size_text(lo)}..{size_text(hi)}, "
          f"{args.proto}, {unit} byte(s) per unit of the platform's costs")
    print_size_rows(rows)
    for note in notes:
        print(f"note: {note}")
    print(("written: " if args.output else "not written (use -o DIR): ") + ", ".join(files))
    return 0



def _positive(text: str, option: str) -> int:
    return check_integer(str(text).strip(), option, 1, 2 ** 40)


# -- steady verify --msccl ----------------------------------------------------------------

def verify_msccl(args) -> int:
    """``steady verify --msccl FILE [PLATFORM]``: exit 0 valid, 1 violations, 2 a file
    that cannot be read as an MSCCL algorithm."""
    from ..platform import MULTI_PORT, Platform
    from ..runtimes.msccl.check import check_msccl
    from ..runtimes.msccl.ranks import read_map

    if args.schedule is not None:
        raise InputError("<command line>", "--msccl", "takes the XML file and at most a "
                         "platform file, not a schedule")
    platform = Platform.from_file(args.platform) if args.platform else None
    given = read_map(args.map) if args.map else None
    report = check_msccl(args.msccl, platform, given)
    if args.json:
        print_json(report.to_dict())
        return 0 if report.ok else 1
    if not report.ok:
        print(f"invalid: {len(report.violations)} violation(s)")
        for violation in report.violations[:SHOWN]:
            print(f"  {violation}")
        if len(report.violations) > SHOWN:
            print(f"  ... and {len(report.violations) - SHOWN} more (all with --json)")
        return 1
    p = report.program
    modes = " and ".join({"inplace": "in place", "outofplace": "out of place"}[m]
                         for m in report.modes)
    what = {"broadcast": f"every rank ends with rank {report.root}'s {p.chunks} chunks",
            "allgather": "every rank ends with every rank's shard",
            "reducescatter": "every rank ends with its shard reduced over all ranks, each "
                             "contribution once",
            "allreduce": "every rank ends with every chunk reduced over all ranks, each "
                         "contribution once"}.get(p.coll, "result not modelled")
    print(f"valid: {p.coll}, {p.ngpus} ranks, {p.chunks} chunks per loop, "
          f"{report.threadblocks} threadblocks, {report.steps} steps; no deadlock, no "
          f"race; {what} ({modes})")
    if report.makespan is not None:
        print(f"time per loop on {platform.name or args.platform}: makespan "
              f"{number(report.makespan, IN_JSON)} (threadblocks in parallel), busiest "
              f"port {number(report.busiest_port, IN_JSON)} ("
              + ("the one-port cost of a loop once loops overlap"
                 if platform.ports != MULTI_PORT else
                 "a one-port figure: on this multi-port platform the physical links "
                 "the pairs share set a loop's cost, as steady export msccl prints it")
              + "), busiest threadblock "
              f"{number(report.busiest_threadblock, IN_JSON)}")
    for note in report.notes:
        print(f"note: {note}")
    return 0


# -- steady tradeoff --sizes ---------------------------------------------------------------

def add_tradeoff_options(parser) -> None:
    """``steady tradeoff --sizes LOW..HIGH [--unit-bytes U]``: the MSCCL files that
    ``steady export msccl --sizes`` would write."""
    parser.add_argument("--sizes", metavar="LOW..HIGH", help="also: which messages per "
                        "period an MSCCL file runs for each size of this range (steady "
                        "export msccl --sizes), under the platform's start-ups and costs")
    parser.add_argument("--unit-bytes", default="1", metavar="U", help="--sizes: bytes in "
                        "the platform's unit-size message (default 1)")


def tradeoff_sizes(args, platform, origin, result):
    """The rows of ``--sizes`` (exact numbers as text), or None without it."""
    if args.sizes is None:
        return None
    from ..runtimes.msccl.sizes import parse_range

    lo, hi = parse_range(args.sizes)
    unit = _positive(args.unit_bytes, "--unit-bytes")
    counts = [int(x) for x in SIZE_CANDIDATES.split(",")]
    choices, _, notes, _ = size_plan(platform, origin, lo, hi, counts, quiet=args.quiet,
                                     unit_bytes=unit, result=result)
    return {"range": args.sizes, "unit_bytes": unit, "notes": notes,
            "ranges": [{k: (format_exact(v) if isinstance(v, Fraction) else v)
                        for k, v in r.items()} for r in size_rows(choices, result, unit)]}


def print_tradeoff_sizes(sizes) -> None:
    rows = [{k: (Fraction(v) if k in ("chunk_bytes", "time", "ratio_to_bound") else v)
             for k, v in r.items()} for r in sizes["ranges"]]
    print(f"\nMSCCL broadcast files for {sizes['range']} (steady export msccl --sizes; "
          f"{sizes['unit_bytes']} byte(s) per unit; M = 1, 2, 4, ..., 64):")
    print_size_rows(rows)
    for note in sizes["notes"]:
        print(f"note: {note}")
