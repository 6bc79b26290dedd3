"""SimGrid on the command line (issue 19): ``steady import simgrid`` and ``steady replay``.

Only argparse wiring and presentation live here; :mod:`steady.simgrid` computes, and is
imported when a command runs.  SimGrid's Python bindings are found at run time
(:mod:`steady.simgrid.locate`); without them both commands stop with one line saying
how to install them (exit code 2).
"""

from __future__ import annotations

import sys
from fractions import Fraction

from ..errors import InputError, echo, one_line
from ..numbers import decimal_text, echo_exact, format_exact, parse_exact
from .files import rejected, write_output
from .options import checked_type, exact, input_file, integer, output_file

#: ``replay --periods``: at most this many (and at most
#: :data:`steady.simgrid.replay.MAX_TRANSFERS` transfers in all).
MAX_PERIODS = 10 ** 4
from ..present.sheet import IN_JSON, number, per_time_unit, print_json, print_sheet


def _size(text) -> object:
    from ..simgrid.units import parse_size

    try:
        return parse_size(text)
    except ValueError as exc:
        raise InputError("<command line>", "--size", f"{exc} (e.g. 1MB = 10^6 bytes, "
                         "1MiB = 2^20)") from None


def _hosts(text: str) -> str:
    """--hosts: a pattern the linear-time matcher takes (steady.simgrid.hosts)."""
    from ..simgrid.hosts import HostPattern

    HostPattern(text)
    return text


def _cmd_import_simgrid(args) -> int:
    from ..progress import StageBar
    from ..simgrid.importer import import_simgrid

    size = _size(args.size)
    with StageBar(["SimGrid routes", "file"], args.quiet) as bar:
        bar.stage("SimGrid routes")
        report = import_simgrid(args.platform, size, args.source, args.hosts,
                                args.max_hosts, args.ports)
        bar.stage("file")
        text = report.platform.to_json()
    if not args.output and not args.json:
        sys.stdout.write(text)          # the document itself: steady import ... > x.json
        _dropped_note(report)
        return 0
    write_output(args.output, text)
    if args.json:
        doc = report.to_dict()
        doc["file"] = args.output
        print_json(doc)
        return 0
    p = report.platform
    net = p.network
    rows = [("platform", f"{p.name}: {len(p.nodes)} hosts, {len(p.links)} arcs "
                         f"(routes of SimGrid), source {p.source}"),
            ("network", f"{len(net.links)} links on the routes, "
                        f"{len(net.shared_links())} shared"),
            ("costs", f"seconds per message of {format_exact(size)} bytes; latencies as "
                      "start-ups"),
            ("hosts", f"{report.selected} selected of {report.hosts} in the file"
                      + (f", {len(report.dropped)} unreachable dropped" if report.dropped
                         else ""))]
    if report.no_route or report.empty_routes:
        rows.append(("routes", f"{report.no_route} host pairs without a route, "
                               f"{report.empty_routes} with an empty route (not arcs)"))
    if report.crashed:
        rows.append(("SimGrid", f"crashed on {len(report.crashed)} routes (first: "
                                f"{report.crashed[0][0]} -> {report.crashed[0][1]})"))
    rows.append(("exact", "every number from the file's decimals" if not report.inexact
                 else f"{report.inexact} numbers from SimGrid's doubles (not in the file)"))
    rows.append(("file", f"{args.output}, {len(text.encode())} bytes"))
    print_sheet(rows)
    return 0


def _dropped_note(report) -> None:
    if report.dropped:
        print(one_line(f"steady: import: {len(report.dropped)} hosts unreachable from "
                       f"{echo(report.platform.source)}, dropped (first: "
                       f"{echo(report.dropped[0])})"), file=sys.stderr)


def _cmd_replay(args) -> int:
    from fractions import Fraction

    from ..fileio import load_json
    from ..schedule_file import Schedule
    from ..simgrid.replay import replay
    from ..simgrid.xmlinfo import read_facts
    from ..verify import verify

    size = _size(args.size)
    read_facts(args.platform)   # the platform file first: refused before the schedule
    doc = load_json(args.schedule)
    if isinstance(doc, dict) and doc.get("format") == "steady-plan":
        return _replay_plan(args, doc, size)
    schedule = Schedule.from_dict(doc, str(args.schedule))
    roots = _collective_roots(args, schedule)
    # as run and simulate: the independent verifier first (optimality not required);
    # the replay then checks that the schedule's platform is the file's
    if rejected(verify(schedule.platform, schedule, optimality=False)):
        return 1
    report = replay(args.platform, schedule, size, args.periods, args.with_latency)
    below = args.min_ratio is not None and Fraction(report.ratio) < args.min_ratio
    if args.json:
        doc = report.to_dict()
        if roots is not None:
            doc.update(_per_root(schedule, report, roots))
        print_json(doc)
    else:
        worst = report.worst
        if "step" in worst:
            worst_text = (f"step {worst['step']} (period {worst['period']}): "
                          f"{_dec(worst['simulated'])} s simulated for "
                          f"{_dec(worst['predicted'])} s predicted, x{worst['ratio']:.6f}")
        else:
            worst_text = (f"transfer {worst.get('transfer')} (period {worst.get('period')})"
                          f" ends {worst.get('late', 0):.3g} s late")
        rows = [("platform", f"{report.platform} (schedule version {report.version})"),
                ("model", report.model),
                ("periods", f"{report.periods}" + ("" if report.scale == 1 else
                            f", sizes scaled by {format_exact(report.scale)} (CM02 with "
                            "latency factor 0 scales every time alike)")),
                ("period", f"predicted {number(report.predicted_period, IN_JSON)} s, "
                           f"simulated {report.simulated_period:.9g} s"),
                ("throughput", f"predicted {per_time_unit(report.predicted_throughput, 'message', IN_JSON)}"
                               f", simulated {report.simulated_throughput:.9g}"),
                ("ratio", f"{report.ratio:.6f} (simulated / predicted throughput)"),
                ("worst", worst_text)]
        if roots is not None:
            each = _per_root(schedule, report, roots)
            fewest = min(each["chunks_per_root"].values())
            rows.insert(1, ("collective", f"{each['collective']}, {len(roots)} roots, "
                            f"{fewest} chunk{'' if fewest == 1 else 's'} per period at the root that "
                            "sends fewest: "
                            f"predicted {number(Fraction(fewest) / report.predicted_period, IN_JSON)}"
                            f", simulated {fewest / report.simulated_period:.9g} per s"))
        print_sheet(rows)
    if below:
        print(f"steady: replay: ratio {report.ratio:.6f} is below --min-ratio "
              f"{echo_exact(args.min_ratio)}", file=sys.stderr)
        return 1
    return 0


def _collective_roots(args, schedule):
    """{root: chunks per period} of a collective's schedule (issue 43, recognised from
    the file), None for a broadcast of 002; --collective must name the file's."""
    kind = schedule.collective.kind if schedule.collective is not None else "broadcast"
    if args.collective not in (None, kind):
        raise InputError(args.schedule, "collective", f"the file's schedule serves the "
                         f"{kind}, not the {args.collective}")
    if not schedule.is_collective:
        return None
    # per (root, direction): an allreduce's chunk of a root is one in-tree chunk (the
    # reduction) and one out-tree chunk (its broadcast), not two chunks, and its rate
    # per root is x (proofs/collectives.md §6), as schedule, verify and simulate say
    both: dict = {}
    for tree in schedule.trees:
        key = (tree.root or schedule.platform.source, tree.direction)
        both[key] = both.get(key, 0) + tree.weight
    roots: dict = {}
    for (root, _), chunks in both.items():   # equal both ways in a verified file
        roots[root] = min(roots.get(root, chunks), chunks)
    return roots


def _per_root(schedule, report, roots) -> dict:
    """The collective's view of a replay: chunks per root per period and the rates."""
    kind = schedule.collective.kind if schedule.collective is not None else "broadcast"
    fewest = min(roots.values())
    return {"collective": kind, "chunks_per_root": roots,
            "predicted_rate_per_root": format_exact(Fraction(fewest)
                                                    / report.predicted_period),
            "simulated_rate_per_root": repr(fewest / report.simulated_period)}


def _replay_plan(args, doc, size) -> int:
    """``steady replay PLATFORM PLAN``: the plan's transfers at their planned starts."""
    from fractions import Fraction

    from ..simgrid.replay import replay_plan
    from ..simulate.plan import Plan, check_plan

    plan = Plan.from_dict(doc, str(args.schedule))
    kind = plan.collective.kind if plan.collective is not None else "broadcast"
    if args.collective not in (None, kind):   # as for a schedule file
        raise InputError(args.schedule, "collective", f"the file's plan serves the "
                         f"{kind}, not the {args.collective}")
    if plan.platform is None:
        raise InputError(args.schedule, "platform", "missing: a plan replays on its "
                         "platform (steady simulate --plan writes it)")
    problems = check_plan(plan)
    if problems:
        raise InputError(args.schedule, "transfers", f"not a valid plan: {problems[0]}")
    report = replay_plan(args.platform, plan, size, args.with_latency)
    below = args.min_ratio is not None and Fraction(report.ratio) < args.min_ratio
    if args.json:
        print_json(report.to_dict())
    else:
        worst = report.worst
        what = (f"a plan of {report.broadcasts} broadcasts" if plan.collective is None
                else f"a plan of the {plan.collective.kind}: {report.broadcasts} chunks "
                     f"over {len(plan.collective.chunks)} roots")
        print_sheet([
            ("platform", f"{report.platform} ({what})"),
            ("model", report.model),
            ("makespan", f"planned {number(report.planned_makespan, IN_JSON)} s, "
                         f"simulated {report.simulated_makespan:.9g} s"),
            ("ratio", f"{report.ratio:.6f} (planned / simulated makespan)"),
            ("worst", f"transfer {worst.get('transfer')} ends {worst.get('late', 0):.3g} s "
                      "late" if worst else "-")])
    if below:
        print(f"steady: replay: ratio {report.ratio:.6f} is below --min-ratio "
              f"{echo_exact(args.min_ratio)}", file=sys.stderr)
        return 1
    return 0


def _dec(text) -> str:
    try:
        return decimal_text(parse_exact(text), 9)
    except (ValueError, TypeError):
        return str(text)


def add_commands(sub) -> None:
    """``steady import simgrid`` and ``steady replay``."""
    from ..simgrid.importer import MAX_HOSTS, MOST_HOSTS

    im = sub.add_parser("import", help="turn another tool's platform into a "
                        "steady-platform (SimGrid)")
    kinds = im.add_subparsers(dest="kind", required=True, metavar="KIND")
    sg = kinds.add_parser(
        "simgrid", help="a SimGrid platform file (needs SimGrid's Python bindings)",
        description="Read a SimGrid platform with SimGrid itself and write a "
                    "steady-platform: hosts are nodes, every routed host pair an arc "
                    "costing SIZE / its slowest link (seconds), latencies as start-ups, "
                    "and a network section with every link on the routes (shared or "
                    "fatpipe) and each arc's route.  Without -o (and --json) the "
                    "document goes to stdout.")
    sg.add_argument("platform", type=input_file, help="SimGrid platform file (.xml)")
    sg.add_argument("--size", required=True, metavar="SIZE", help="message size, with "
                    "SimGrid's units: 1MB = 10^6 bytes, 1MiB = 2^20, 8kb = 1000 bytes")
    sg.add_argument("--source", metavar="HOST", help="the broadcasting host (default: "
                    "the first selected host in natural order)")
    sg.add_argument("--hosts", metavar="REGEX", type=checked_type(_hosts, "pattern"),
                    help="keep the hosts whose name matches (Python re.search, matched "
                         "in linear time: no backreferences or lookarounds); big "
                         "platforms need it")
    sg.add_argument("--max-hosts", type=integer(2, MOST_HOSTS), default=MAX_HOSTS,
                    metavar="N", help=f"refuse more selected hosts than this, 2 to "
                                      f"{MOST_HOSTS} (default {MAX_HOSTS}: the platform "
                                      "grows as hosts squared)")
    sg.add_argument("--ports", choices=("one-port", "multi-port"), default="one-port",
                    help="the platform's port model (multi-port: for the collectives of "
                         "steady throughput --collective; routers stay inside routes)")
    sg.add_argument("-o", "--output", metavar="OUT.json", type=output_file,
                    help="write the steady-platform "
                    "here (atomically)")
    sg.add_argument("--json", action="store_true", help="machine-readable summary")
    sg.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    sg.set_defaults(run=_cmd_import_simgrid)

    re = sub.add_parser(
        "replay", help="run a schedule in SimGrid: simulated against predicted",
        description="Run SCHEDULE (steady-schedule v1 steps or v2 timetable) in SimGrid "
                    "on PLATFORM, the file it was imported from, with messages of SIZE "
                    "bytes; network model CM02, bandwidth factor 1, latency factor 0, "
                    "no TCP window limit, no cross traffic.  Reports the simulated and "
                    "predicted period and throughput and the worst step.")
    re.add_argument("platform", type=input_file, help="SimGrid platform file (.xml)")
    re.add_argument("schedule", type=input_file, help="steady-schedule file, or a "
                    "steady-plan file written by steady simulate --plan (its transfers "
                    "at their planned starts)")
    re.add_argument("--size", required=True, metavar="SIZE", help="message size, as "
                    "given to steady import simgrid")
    re.add_argument("--periods", type=integer(1, MAX_PERIODS), default=1, metavar="R",
                    help=f"periods run back to back, 1 to {MAX_PERIODS} (default 1)")
    re.add_argument("--with-latency", action="store_true", help="latency factor 1: every "
                    "transfer also pays its route's latency (not in the prediction)")
    re.add_argument("--min-ratio", metavar="R", type=exact(), help="exit 1 when "
                    "simulated / predicted throughput is below R (exact number > 0)")
    re.add_argument("--collective", choices=("broadcast", "allgather", "reduce-scatter",
                                              "allreduce"),
                    help="the collective SCHEDULE (a schedule or plan) serves (from the file; "
                         "given, it must match): the report adds its rate per root")
    re.add_argument("--json", action="store_true", help="machine-readable report")
    re.set_defaults(run=_cmd_replay)
