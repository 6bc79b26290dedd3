"""Timed short-period schedules on the command line: ``steady schedule --max-messages M``
(and ``--max-period T``, ``--ratio R``; with ``--steps``, synchronous steps instead of a
timetable) and ``steady tradeoff``.

Only argparse wiring and presentation live here; the constructions are
:mod:`steady.schedule.timed` and :mod:`steady.schedule.steps`, imported when a command
runs.
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction

from ..errors import InputError, one_line
from ..numbers import decimal_text, echo_exact, floor_decimal, format_exact, ratio_text
from . import collective, options, runtimes
from .files import rejected, write_output
from .options import (MAX_MESSAGES, add_effort, check_integer, input_file, output_file,
                      positive_exact)
from ..present.sheet import column_exact, number, per_time_unit, print_json, print_sheet

#: Messages per period tried by --ratio when no --max-messages bounds the search.
RATIO_LIMIT = 100_000
#: `steady schedule` without a bound says so beyond this many messages per period.
HUGE = 10 ** 6


def add_schedule_options(parser) -> None:
    """The short-period options of ``steady schedule``."""
    short = parser.add_argument_group(
        "short periods (a timed steady-schedule version 2 file, certified ratio)")
    short.add_argument("--max-messages", metavar="M",
                       type=options.integer(1, MAX_MESSAGES), help="at most M messages per "
                       "period: a timetable whose ratio to the optimum is certified")
    short.add_argument("--max-period", metavar="T", type=options.exact(),
                       help="a period of at most T time units (exact number)")
    short.add_argument("--ratio", metavar="R", type=options.exact(),
                       help="the smallest M (up to --max-messages, "
                       f"default {RATIO_LIMIT}) whose certified ratio is >= R; exit 1 "
                       "naming the best found when none is")
    add_effort(short)
    short.add_argument("--steps", action="store_true", help="synchronous steps (a "
                       "steady-schedule version 1 file, for runtimes that need barriers) "
                       "instead of a timetable, with its own certified ratio")


def wants_short(args) -> bool:
    """A short period was asked for.  (``--steps`` alone changes nothing: the exact
    optimum is in steps already.)"""
    return any(x is not None for x in (args.max_messages, args.max_period, args.ratio))


def _builder(args, platform, result):
    """The construction asked for: synchronous steps (version 1) or a timetable (2),
    as build(platform, result, M) (a timetable's tree families computed once)."""
    if getattr(args, "steps", False):
        from ..schedule.steps import steps_schedule

        return steps_schedule
    from ..schedule.effort import effort as effort_of
    from ..schedule.timed import PACKED_MESSAGES, timed_schedule, tree_families

    effort = effort_of(getattr(args, "effort", "default"))
    families = tree_families(platform, result, effort)
    # one long period asked for: a timetable certified well enough ends the search
    # early (on short periods the MILP costs a fraction of a second and can still
    # gain: 8-node meshes at M = 100, docs/limits.md), and the list schedule's runs are
    # resized where it stays above its load bound (Effort.one_period)
    one = getattr(args, "ratio", None) is None and getattr(args, "max_period", None) is None
    alone = effort.but(one_period=True)

    def build(p, r, m):
        return timed_schedule(p, r, m, alone if one and m > PACKED_MESSAGES else effort,
                              families)
    return build


def add_commands(sub) -> None:
    """Add ``steady tradeoff`` to the ``steady`` subparsers ``sub``."""
    tr = sub.add_parser("tradeoff", help="messages per period against the certified "
                        "ratio of timed short-period schedules",
                        description="For each M: the timed schedule with at most M "
                                    "messages per period, its certified ratio to the "
                                    "optimum, period, transfers and file size.")
    tr.add_argument("platform", nargs="?", type=input_file, help="steady-platform v1 file "
                    "(default: the embedded platform of 002 Figure 1)")
    tr.add_argument("--max-messages", default="10,100,1000", metavar="M,M,...",
                    help="the values of M (default 10,100,1000)")
    tr.add_argument("--no-steps", action="store_true", help="leave out the synchronous "
                    "steps beside each timetable")
    tr.add_argument("--plot", metavar="FILE", type=output_file,
                    help="draw ratio against M (.png or .svg; "
                    "needs the 'plot' extra)")
    tr.add_argument("--json", action="store_true", help="machine-readable output")
    tr.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    add_effort(tr)
    runtimes.add_tradeoff_options(tr)
    collective.add_options(tr, size=False)
    tr.set_defaults(run=_cmd_tradeoff)


# -- steady schedule --max-messages / --max-period / --ratio --------------------------

def run_schedule(args, platform, origin) -> int:
    """``steady schedule`` with a short-period option: build, verify, write, report."""
    from ..progress import StageBar
    from ..network.rows import has_link_rows
    from ..throughput import throughput
    from ..verify import verify

    if args.dag:
        raise InputError("<command line>", "--dag", "short periods are built for the "
                         "graph problem; drop --dag or the short-period option")
    if args.steps and has_link_rows(platform):
        raise InputError(origin, "network", "short synchronous steps (--steps) do not fit "
                         "shared network links yet (docs/limits.md): drop --steps for a "
                         "timetable that does")
    most = args.max_messages
    shape = "steps" if args.steps else "timetable"
    with StageBar(["exact throughput", shape, "verifier", "file"], args.quiet) as bar:
        bar.stage("exact throughput")
        result = throughput(platform, "trees")
        bar.stage(shape)
        schedule, stats = _short_schedule(platform, result, args, most, bar.note)
        bar.stage("verifier")
        report = verify(platform, schedule)  # the independent checker, before any write
        bar.stage("file")
        text = schedule.to_json() if report.ok else ""
    if rejected(report):
        return 1
    write_output(args.output, text)
    summary = _summary(platform, origin, schedule, report.ratio, text, args.output)
    if args.json:
        print_json(summary)
    else:
        print_sheet(_rows(schedule, report.ratio, stats, summary, args.output, most,
                          args.ratio is None))
    if args.ratio is not None and report.ratio < positive_exact(args.ratio, "--ratio"):
        print(one_line(f"steady: no M up to {stats['limit']} reaches ratio "
                       f"{echo_exact(args.ratio)}; the best found is M = "
                       f"{schedule.messages_per_period}, ratio "
                       f"{floor_decimal(report.ratio, 6)}"), file=sys.stderr)
        return 1
    return 0


def _short_schedule(platform, result, args, most, note=None):
    """The schedule the options ask for; ``note(text)`` is told the M under way (the
    searches of --ratio and --max-period build several)."""
    construct = _builder(args, platform, result)

    def build(p, r, m):
        if note is not None:
            note(f"M = {m}")
        return construct(p, r, m)

    if args.ratio is not None:
        return _for_ratio(platform, result, positive_exact(args.ratio, "--ratio"),
                          most or RATIO_LIMIT, build)
    if args.max_period is not None:
        return _for_period(platform, result, positive_exact(args.max_period, "--max-period"),
                           most, build)
    return build(platform, result, most)


def _for_period(platform, result, limit: Fraction, most, build):
    """The largest M (<= ``most``) whose schedule (by ``build``) has a period <=
    ``limit``."""
    m = math.floor(limit * result.throughput)
    if most is not None:
        m = min(m, most)
    while m >= 1:
        schedule, stats = build(platform, result, m)
        if schedule.period <= limit:
            return schedule, stats
        m = min(m - 1, math.floor(m * limit / schedule.period))
    raise InputError("<command line>", "--max-period", f"{format_exact(limit)} is shorter "
                     f"than one broadcast (the optimum needs {format_exact(result.period)} "
                     "time units per message)")


def _for_ratio(platform, result, target: Fraction, limit: int, construct):
    """The smallest M <= ``limit`` whose certified ratio is >= ``target`` (doubling,
    then bisection; the ratio is not monotone in M, so this is the smallest found),
    else the best schedule seen; stats gain ``limit``."""
    best = None
    seen = {}

    def build(m):
        if m not in seen:
            seen[m] = construct(platform, result, m)
        return seen[m]

    m, low = 1, 0
    while True:
        schedule, stats = build(m)
        if best is None or stats["ratio"] > best[1]["ratio"]:
            best = (schedule, stats)
        if stats["ratio"] >= target or m >= limit:
            break
        low, m = m, min(2 * m, limit)
    if stats["ratio"] >= target:
        while m - low > 1:
            mid = (low + m) // 2
            if build(mid)[1]["ratio"] >= target:
                m = mid
            else:
                low = mid
        best = build(m)
    best[1]["limit"] = limit
    return best


# -- steady tradeoff ------------------------------------------------------------------

def _cmd_tradeoff(args) -> int:
    from ..platform import load_platform
    from ..present.plots import pyplot, tradeoff_plot
    from ..progress import StageBar
    from ..network.rows import has_link_rows
    from ..schedule.timed import timed_schedule, tree_families
    from ..throughput import throughput

    counts = [_count(x, "--max-messages") for x in args.max_messages.split(",")]
    steps = not args.no_steps
    if args.plot:
        pyplot(args.plot, "--plot")  # a bad suffix or no matplotlib: say so before the work
    platform, origin = load_platform(args.platform)
    if collective.wanted(args, platform):   # issue 43: a collective's timetables
        if getattr(args, "sizes", None):
            raise InputError("<command line>", "--sizes", "MSCCL sizes are for a "
                             "broadcast's schedules")
        return collective.run_tradeoff(args, platform, origin, counts)
    shared = steps and has_link_rows(platform)
    steps = steps and not shared  # short synchronous steps hold ports only (shared links)
    rows = []
    with StageBar(["exact throughput", "optimal trees", "short-period schedules"],
                  args.quiet) as bar:
        bar.stage("exact throughput")
        result = throughput(platform, "trees")
        bar.stage("optimal trees")
        families = tree_families(platform, result, args.effort)
        bar.stage("short-period schedules")
        for i, m in enumerate(counts):
            bar.item(i, len(counts), f"M = {m}")
            schedule, stats = timed_schedule(platform, result, m, args.effort, families)
            row = {"max_messages": m, "messages_per_period": schedule.messages_per_period,
                   "ratio": stats["ratio"], "period": schedule.period,
                   "transfers": len(schedule.transfers),
                   "file_bytes": len(schedule.to_json().encode())}
            if steps:
                row.update(_steps_row(platform, result, m, schedule))
            rows.append(row)
    if args.plot:
        tradeoff_plot(rows, args.plot, platform.name or origin)
        if not args.json:
            print(f"plot written to {args.plot}")
    sizes = runtimes.tradeoff_sizes(args, platform, origin, result)   # None without --sizes
    if args.json:
        print_json({"platform": platform.name or origin,
                    "optimum": format_exact(result.throughput),
                    "schedules": [{k: (format_exact(v) if isinstance(v, Fraction) else v)
                                   for k, v in row.items()} for row in rows]}
                   | ({"msccl_sizes": sizes} if sizes is not None else {}))
        return 0
    print(f"{platform.name or origin}: optimum {per_time_unit(result.throughput)}")
    head = (f"{'M':>8} {'messages':>9} {'ratio':>10} {'period':>16} {'transfers':>9} "
            f"{'file bytes':>11}")
    print(head + (f" {'steps ratio':>11} {'steps':>6}" if steps else ""))
    for row in rows:
        line = (f"{row['max_messages']:>8} {row['messages_per_period']:>9} "
                f"{floor_decimal(row['ratio'], 6):>10} {column_exact(row['period'], 16):>16} "
                f"{row['transfers']:>9} {row['file_bytes']:>11}")
        if steps:
            line += f" {floor_decimal(row['steps_ratio'], 6):>11} {row['steps']:>6}"
        print(line)
    print("period: exact, or ~ rounded (--json: exact)")
    if steps:
        print("ratio: the timetable (version 2); steps ratio: synchronous steps (version 1,"
              " --steps) on the same trees")
    if shared:
        print("no steps column: short synchronous steps do not fit shared network links "
              "yet (docs/limits.md); the timetables do")
    if sizes is not None:
        runtimes.print_tradeoff_sizes(sizes)
    return 0


def _steps_row(platform, result, m, timetable) -> dict:
    """The synchronous steps of ``timetable``'s own trees (the same messages per
    period and per link): the cost of barriers, measured beside the timetable."""
    from ..schedule.steps import steps_schedule

    trees = [(tree.parent, tree.weight) for tree in timetable.trees]
    schedule, stats = steps_schedule(platform, result, m, trees=trees)
    return {"steps_ratio": stats["ratio"], "steps": len(schedule.steps),
            "steps_period": schedule.period, "steps_transfers": schedule.transfer_count,
            "steps_file_bytes": len(schedule.to_json().encode())}


# -- helpers --------------------------------------------------------------------------

def _summary(platform, origin, schedule, ratio, text, output) -> dict:
    return {"platform": platform.name or origin, "version": schedule.version,
            "throughput": format_exact(schedule.throughput),
            "optimum": format_exact(schedule.optimum_bound),
            "ratio": format_exact(ratio), "ratio_decimal": floor_decimal(ratio, 6),
            "period": format_exact(schedule.period),
            "messages_per_period": schedule.messages_per_period,
            "trees": len(schedule.trees),
            "steps": len(schedule.steps) if schedule.version == 1 else None,
            "transfers": schedule.transfer_count,
            "file_bytes": len(text.encode()), "file": output, "verified": True}


def _shape(schedule) -> str:
    """The version and time line of a schedule, for a terminal."""
    if schedule.version == 1:
        return f"steady-schedule v1, {len(schedule.steps)} synchronous steps"
    return "steady-schedule v2, a timetable"


def _messages_text(m: int, most, ratio, bounded: bool) -> str:
    """Messages per period, and why not fewer: the construction fills the period up to
    M (more messages never certify a worse ratio on the same trees), so at ratio 1 a
    smaller M may do as well."""
    text = str(m)
    if most is not None and bounded:
        text += f" (at most --max-messages {most})"
        if ratio == 1 and m > 1:
            text += ("; fewer may reach ratio 1 too: --ratio 1 finds a small M that "
                     "does")
    return text


def _rows(schedule, ratio, stats, summary, output, most=None, bounded=True) -> list:
    return [("platform", summary["platform"]),
            ("schedule", _shape(schedule)),
            ("throughput", per_time_unit(schedule.throughput)),
            ("optimum", per_time_unit(schedule.optimum_bound)),
            ("ratio", f"{ratio_text(ratio)}, certified"),
            ("period", f"{number(schedule.period)} time units (one round of the "
                       "schedule, which repeats)"),
            ("messages/period", _messages_text(schedule.messages_per_period, most, ratio,
                                               bounded)),
            ("trees", str(len(schedule.trees))),
            ("transfers", f"{schedule.transfer_count} ({stats['construction']})"),
            ("file", f"{output or '(not written: use -o FILE)'}, "
                     f"{summary['file_bytes']} bytes"),
            ("verified", "yes (steady verify: every rule; the ratio by the optimum's "
                         "prices)")]


def huge_period_note(messages_per_period: int, period=None) -> str | None:
    """One line for an exact schedule too long to run, naming --max-messages (None
    when it can run: at most HUGE messages per period)."""
    if messages_per_period <= HUGE:
        return None
    digits = len(str(messages_per_period))
    length = "" if period is None else \
        f"one period lasts {magnitude(period)} time units and "
    return (f"no: {length}carries a {digits}-digit number of messages: it cannot run "
            "in any horizon of practical length (exact optima of heterogeneous "
            "platforms have huge denominators); steady schedule PLATFORM "
            "--max-messages 1000 gives a short period with a certified ratio")


def magnitude(x) -> str:
    """``~8.4e+30``: the size of a huge positive number at a glance."""
    x = Fraction(x)
    whole = x.numerator // x.denominator
    if whole < 10 ** 6:
        return "~" + decimal_text(x, 2)
    digits = len(str(whole))
    lead = round(whole / 10 ** (digits - 2)) if digits <= 300 else int(str(whole)[:2])
    if lead == 100:
        lead, digits = 10, digits + 1
    return f"~{lead // 10}.{lead % 10}e+{digits - 1}"


def _count(text, option) -> int:
    """--max-messages: an integer in [1, MAX_MESSAGES], in ASCII digits."""
    return check_integer(text, option, 1, MAX_MESSAGES)
