"""The commands of seed 002's pipeline: ``steady throughput``, ``schedule``, ``verify``,
``show``, ``pipe`` and ``simulate``.

Only argparse wiring and presentation live here; each command imports the computing
modules when it runs, so that ``steady --help`` stays fast.
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction

from ..errors import InputError
from ..fileio import load_json
from ..numbers import decimal_text, format_exact, parse_exact
from ..platform import FORMAT as PLATFORM_FORMAT
from ..platform import Platform, load_platform


def load_tree(path, platform) -> dict:
    """A tree file: ``{"format": "steady-tree", "version": 1, "edges": [[u, v], ...]}``
    or a steady-platform document whose links are the tree's arcs.  Returns
    child -> parent, validated as a spanning arborescence of ``platform``."""
    origin = str(path)
    doc = load_json(path)
    if isinstance(doc, dict) and doc.get("format") == PLATFORM_FORMAT:
        edges = [[l.tail, l.head] for l in Platform.from_dict(doc, origin).links]
    elif isinstance(doc, dict) and doc.get("format") == "steady-tree":
        if doc.get("version", 1) != 1:
            raise InputError(origin, "version", f"unsupported version {doc['version']!r}")
        unknown = sorted(set(doc) - {"format", "version", "edges"})
        if unknown:
            raise InputError(origin, f"key {unknown[0]!r}", "unknown key")
        edges = doc.get("edges")
    else:
        raise InputError(origin, "format", "expected a steady-tree or steady-platform document")
    if not isinstance(edges, list):
        raise InputError(origin, "edges", "must be a list of [parent, child] pairs")
    parent: dict[str, str] = {}
    for i, edge in enumerate(edges):
        if not (isinstance(edge, list) and len(edge) == 2 and all(isinstance(x, str) for x in edge)):
            raise InputError(origin, f"edges[{i}]", "an edge is a pair [parent, child] of names")
        par, child = edge
        if child in parent:
            raise InputError(origin, f"edges[{i}]", f"{child} has two parents")
        parent[child] = par
    platform.check_arborescence(parent, origin)
    return parent


def _cmd_throughput(args) -> int:
    from ..throughput import dag_throughput, throughput, tree_throughput

    platform, origin = load_platform(args.platform)
    if args.tree is not None:
        result = tree_throughput(platform, load_tree(args.tree, platform), str(args.tree))
    elif args.dag:
        result = dag_throughput(platform, origin)
    else:
        result = throughput(platform, args.method)
    if args.json:
        doc = {"platform": platform.name or origin}
        doc.update(result.to_dict())
        print(json.dumps(doc, indent=1))
        return 0
    problem = {"graph": "SSB(G), 002 §5.2", "dag": "SSBPDAG, 002 §4.1",
               "tree": "TP(T), 002 §3.1.2"}[result.scope]
    rows = [
        ("platform", f"{platform.name or origin} ({len(platform.nodes)} nodes, "
                     f"{len(platform.links)} links, source {platform.source})"),
        ("problem", f"{problem}; formulation {result.formulation}"),
        ("throughput", f"{format_exact(result.throughput)} = "
                       f"{decimal_text(result.throughput)} broadcasts per time unit"),
        ("period T*", f"{format_exact(result.period)} = {decimal_text(result.period)}"),
        ("bottleneck", ", ".join(result.bottleneck) or "-"),
        ("certified", "yes: exact primal rates + port prices under which every "
                      f"broadcast tree costs >= 1 (min {format_exact(result.certificate.min_tree_cost)})"),
    ]
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"{key:<{width}}  {value}")
    return 0


def _digits(x) -> str:
    """An exact number for a terminal: in full when short, else its leading digits and
    size (periods can have hundreds of digits; the file has the exact value)."""
    from ..numbers import many_digits

    text = format_exact(x)
    if len(text) <= 40:
        return text
    with many_digits():
        whole = str(x.numerator // x.denominator)
    if len(whole) < 16:
        return f"{decimal_text(x)} (exact value in the file)"
    return (f"{whole[0]}.{whole[1:7]}e+{len(whole) - 1} ({len(whole)} digits; exact value "
            "in the file)")


def _write_error(path, exc: OSError) -> InputError:
    """An output file that cannot be written: one line naming it (exit code 2)."""
    return InputError(str(path), "file", f"cannot write: {exc.strerror or exc}")


def _cmd_schedule(args) -> int:
    from ..schedule.periodic import optimal_schedule
    from ..throughput import throughput
    from ..verify import verify

    from ..progress import StageBar

    platform, origin = load_platform(args.platform)
    with StageBar(["exact throughput", "trees and matchings", "verifier", "file"],
                  args.quiet) as bar:
        bar.stage("exact throughput")
        if args.dag:  # 002 §4.3 Theorem 2: layers, their trees, the edge colouring
            from ..schedule.dag import dag_schedule

            schedule, stats = dag_schedule(platform, origin)
        else:
            result = throughput(platform, args.method)
            bar.stage("trees and matchings")
            schedule, stats = optimal_schedule(platform, result)
        bar.stage("verifier")
        report = verify(platform, schedule)  # the independent checker, before any write
        bar.stage("file")
        text = schedule.to_json() if report.ok else ""
    if not report.ok:
        for violation in report.violations[:20]:
            print(f"steady: schedule rejected by the verifier: {violation}", file=sys.stderr)
        return 1
    if args.output:
        from ..fileio import atomic_write_text

        try:
            atomic_write_text(args.output, text)
        except OSError as exc:
            raise _write_error(args.output, exc) from None
    summary = {"platform": platform.name or origin,
               "throughput": format_exact(schedule.throughput),
               "period": format_exact(schedule.period),
               "messages_per_period": str(schedule.messages_per_period),
               "trees": stats["trees"], "trees_built": stats["trees_built"],
               "tree_bound": stats["tree_bound"], "matchings": stats["matchings"],
               "matching_bound": stats["matching_bound"], "steps": len(schedule.steps),
               "transfers": schedule.transfer_count, "file_bytes": len(text.encode()),
               "file": args.output, "verified": True}
    if args.dag:
        summary.update({"q": stats["q"], "heights": stats["heights"],
                        "layers": stats["layer_table"]})
    if args.json:
        from ..numbers import many_digits

        with many_digits():
            print(json.dumps(summary, indent=1))
        return 0
    bound = stats.get("tree_bound_text", "paper's bound |V|^3+|E|")
    rows = [("platform", summary["platform"]),
            ("throughput", f"{format_exact(schedule.throughput)} = "
                           f"{decimal_text(schedule.throughput)} broadcasts per time unit"),
            ("period", _digits(schedule.period)),
            ("messages/period", _digits(Fraction(schedule.messages_per_period))),
            ("trees", f"{stats['trees']} (built {stats['trees_built']} by "
                      f"{stats['construction']}; {bound} = {stats['tree_bound']})"),
            ("matchings", f"{stats['matchings']} (bound |E| = {stats['matching_bound']})"),
            ("file", f"{args.output or '(not written: use -o FILE)'}, "
                     f"{summary['file_bytes']} bytes"),
            ("verified", "yes (steady verify: every rule, and optimality)")]
    if args.dag:
        rows[4:4] = [("q", f"{stats['q']} (q·n_jk, q·t_jk, q·TP integers; 002 §4.3 "
                           "Theorem 2)"),
                     ("heights", ", ".join(f"{v} {h}" for v, h in stats["heights"].items())),
                     ("layers", f"{stats['layer_count']} of q time units, "
                                f"{len(stats['layer_table'])} transfers (--json lists them)")]
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"{key:<{width}}  {value}")
    return 0


def _cmd_verify(args) -> int:
    from ..schedule_file import Schedule
    from ..verify import verify

    platform = Platform.from_file(args.platform)
    schedule = Schedule.from_file(args.schedule)
    report = verify(platform, schedule, optimality=not args.no_optimality)
    if args.json:
        print(json.dumps(report.to_dict(), indent=1))
    elif report.ok:
        print(f"valid: {report.steps} steps, {report.transfers} transfers, "
              f"{report.trees} trees; throughput {format_exact(schedule.throughput)}"
              + (" is optimal" if report.optimality else " (optimality not checked)"))
    else:
        print(f"invalid: {len(report.violations)} violation(s)")
        for violation in report.violations:
            print(f"  {violation}")
    return 0 if report.ok else 1


def _cmd_show(args) -> int:
    from ..schedule_file import Schedule
    from ..present.show import gantt, period_table

    schedule = Schedule.from_file(args.schedule)
    print(period_table(schedule))
    if args.gantt:
        try:
            gantt(schedule, args.gantt)
        except OSError as exc:
            raise _write_error(args.gantt, exc) from None
        print(f"Gantt chart written to {args.gantt}")
    return 0


def _cmd_simulate(args) -> int:
    from ..simulate.horizon import horizon_report
    from ..schedule_file import Schedule

    horizon = _positive(args.horizon, "--horizon")
    if args.schedule:
        schedule = Schedule.from_file(args.schedule)
        rejected = _rejected(schedule.platform, schedule, optimality=False)
        if rejected:
            return rejected
    else:
        schedule = _optimal_schedule(args.platform, args.quiet)
    report = horizon_report(schedule, horizon, args.max_events)
    if args.plot:
        _ratio_plot(schedule, report, args.plot)
    summary = _simulation_summary(report)
    if args.json:
        from ..numbers import many_digits

        with many_digits():
            print(json.dumps(summary, indent=1))
    else:
        _print_simulation(report, summary)
    for violation in report.violations[:20]:
        print(f"steady: simulation: {violation}", file=sys.stderr)
    return 1 if report.violations else 0


def _positive(text, option) -> Fraction:
    try:
        value = parse_exact(text)
    except ValueError as exc:
        raise InputError("<command line>", option, str(exc)) from None
    if value <= 0:
        raise InputError("<command line>", option, f"must be > 0, not {text}")
    return value


def _rejected(platform, schedule, optimality: bool) -> int:
    """Exit code 1 after listing the violations if ``steady verify`` rejects it, else 0."""
    from ..verify import verify

    report = verify(platform, schedule, optimality=optimality)
    for violation in report.violations[:20]:
        print(f"steady: schedule rejected by the verifier: {violation}", file=sys.stderr)
    return 0 if report.ok else 1


def _optimal_schedule(path, quiet: bool):
    from ..schedule.periodic import optimal_schedule
    from ..throughput import throughput

    platform, _ = load_platform(path)
    from ..progress import StageBar

    with StageBar(["exact throughput", "trees and matchings"], quiet) as bar:
        bar.stage("exact throughput")
        result = throughput(platform, "trees")
        bar.stage("trees and matchings")
        return optimal_schedule(platform, result)[0]


def _simulation_summary(report) -> dict:
    p = report.phases
    return {"horizon": format_exact(report.horizon), "delivered": report.delivered,
            "bound": format_exact(report.bound),
            "ratio": None if report.ratio is None else format_exact(report.ratio),
            "batches": report.batches, "period": format_exact(p.period),
            "messages_per_period": p.messages_per_period,
            "warmup_periods": p.warmup_periods,
            "init": format_exact(p.init), "cleanup": format_exact(p.cleanup),
            "pipelined_phase": format_exact(p.pipelined),
            "paper_init": format_exact(p.paper_init),
            "paper_cleanup": format_exact(p.paper_cleanup),
            "simulated": report.simulated, "transfers": report.transfers,
            "largest_checkable_horizon": None if report.largest_checkable is None
            else format_exact(report.largest_checkable),
            "violations": list(report.violations)}


def _print_simulation(report, summary) -> None:
    def both(x):
        return f"{_digits(x)} (~{decimal_text(x)})"

    p = report.phases
    if report.simulated:
        checked = (f"yes: {report.transfers} message transfers, one-port and causality "
                   f"checked" + ("" if not report.violations else ", VIOLATIONS below"))
    else:
        fits = report.largest_checkable
        checked = (f"no: {report.batches} batches need {report.transfers} message "
                   f"transfers (> --max-events); "
                   + (f"horizons up to {_digits(fits)} can be simulated" if fits is not None
                      else "not even one batch fits: raise --max-events"))
    rows = [("horizon K", both(report.horizon)),
            ("delivered", f"{report.delivered} messages ({report.batches} batches), "
                          "each held by every node by K"),
            ("bound K·TP", f"{both(report.bound)} (Lemma 7)"),
            ("ratio", "-" if report.ratio is None else both(report.ratio)),
            ("I (warm-up)", f"{both(p.init)}; pipelined {both(p.pipelined)}, "
                            f"paper's sequential {both(p.paper_init)}"),
            ("J (clean-up)", f"{both(p.cleanup)}; pipelined {both(p.pipelined)}, "
                             f"paper's sequential {both(p.paper_cleanup)}"),
            ("period", f"{both(p.period)}, {p.messages_per_period} messages, "
                       f"{p.warmup_periods} warm-up periods"),
            ("simulated", checked)]
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"{key:<{width}}  {value}")


def _ratio_plot(schedule, report, path) -> None:
    from ..simulate.horizon import PeriodicPattern, steady_count
    from ..present.plots import ratio_plot

    pattern = PeriodicPattern(schedule)
    k = report.horizon
    points = [(k * i / 400, Fraction(steady_count(pattern, k * i / 400, report.phases))
               / (k * i / 400 * schedule.throughput)) for i in range(1, 401)]
    try:
        ratio_plot(points, path, f"{schedule.platform.name or 'platform'}: Theorem 7")
    except OSError as exc:
        raise _write_error(path, exc) from None


def _cmd_pipe(args) -> int:
    """``steady pipe``: one message of size L cut into slices (002 §6, Theorem 8)."""
    from ..simulate.pipe import PipePlanner, best_slices, pipe_makespan, pipe_paper
    from ..progress import StageBar

    try:
        size = parse_exact(args.size)
    except ValueError as exc:
        raise InputError("<command line>", "--size", str(exc)) from None
    if size <= 0:
        raise InputError("<command line>", "--size", f"must be > 0, not {args.size}")
    choice = args.slices.strip().lower()
    slices = None
    if choice not in ("auto", "paper"):
        try:
            slices = int(choice)
        except ValueError:
            raise InputError("<command line>", "--slices", f"expected auto, paper or an "
                             f"integer >= 1, not {args.slices!r}") from None
        if slices < 1:
            raise InputError("<command line>", "--slices", f"must be >= 1, not {slices}")
        choice = "given"
    platform, origin = load_platform(args.platform)
    with StageBar(["exact throughput", "exhaustive", "paper's slicing", "geometric scan",
                   "refinement"], args.quiet) as bar:
        bar.stage("exact throughput")
        planner = PipePlanner(platform)
        if choice == "auto":
            result = best_slices(platform, size, planner=planner, progress=bar.stage)
        elif choice == "paper":
            result = pipe_paper(platform, size, planner=planner)
        else:
            result = pipe_makespan(platform, size, slices, planner=planner)
    if args.json:
        from ..numbers import many_digits

        doc = {"platform": platform.name or origin, "choice": choice}
        doc.update(result.to_dict())
        with many_digits():
            print(json.dumps(doc, indent=1))
        return 0

    def both(x):
        return f"{_digits(x)} (~{decimal_text(x)})"

    how = {"auto": f"best of {result.evaluated} slice counts scanned",
           "paper": "the paper's ν = ceil(sqrt L) slices of size ν",
           "given": "--slices"}[choice]
    slice_text = both(result.slice_size)
    if result.padded:
        slice_text += f", padded message {both(result.slices * result.slice_size)}"
    rows = [("platform", f"{platform.name or origin} ({len(platform.nodes)} nodes, "
                         f"{len(platform.links)} links, source {platform.source})"),
            ("size L", both(result.size)),
            ("slices", f"{result.slices} ({how})"),
            ("slice size", slice_text),
            ("makespan", both(result.makespan)),
            ("bound L·T*", f"{both(result.lower_bound)} (Lemma 7, Theorem 8)"),
            ("ratio", both(result.ratio)),
            ("schedule", f"{result.pattern} periodic pattern: M = "
                         f"{_digits(Fraction(result.messages_per_period))} slices per period, "
                         f"{result.batches} batches, "
                         f"{decimal_text(result.throughput_of_slices)} slices per time unit")]
    if result.scan_limit is not None:
        rows.append(("scan", f"k <= {result.scan_limit}; " + result.scan_proof))
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"{key:<{width}}  {value}")
    return 0


def _optional_platform(parser) -> None:
    parser.add_argument("platform", nargs="?", help="steady-platform v1 file "
                        "(default: the embedded platform of 002 Figure 1)")


def add_commands(sub) -> None:
    """Add the commands of seed 002's pipeline to the ``steady`` subparsers ``sub``."""
    tp = sub.add_parser("throughput", help="exact optimal steady-state throughput",
                        description="Exact optimal number of broadcasts per time unit "
                                    "(002 §5.2), with its certificate.")
    _optional_platform(tp)
    mode = tp.add_mutually_exclusive_group()
    mode.add_argument("--dag", action="store_true",
                      help="solve SSBPDAG (002 §4.1); the platform must be a DAG")
    mode.add_argument("--tree", metavar="TREEFILE",
                      help="throughput of this spanning tree (002 §3.1.2)")
    tp.add_argument("--method", choices=("cuts", "trees", "flow"), default="cuts",
                    help="LP formulation for the graph problem: min-cut cutting planes "
                         "(default, fastest), tree column generation, or the paper's "
                         "per-destination flow LP (reference; small platforms)")
    tp.add_argument("--json", action="store_true", help="machine-readable output")
    tp.set_defaults(run=_cmd_throughput)

    sc = sub.add_parser("schedule", help="optimal periodic schedule (002 §5.4.2), verified",
                        description="LP, weighted trees (Thm 5), matchings (Thm 6), the "
                                    "period of 002 §5.4.2; the independent verifier runs "
                                    "before anything is written.")
    _optional_platform(sc)
    sc.add_argument("-o", "--output", metavar="FILE", help="write the steady-schedule v1 file")
    sc.add_argument("--method", choices=("trees", "cuts", "flow"), default="trees",
                    help="throughput formulation: trees (default; its trees are reused), "
                         "or cuts / flow followed by the combinatorial Thm 5 construction")
    sc.add_argument("--dag", action="store_true",
                    help="the schedule of 002 §4.3 Theorem 2 for a DAG platform: SSBPDAG, "
                         "heights, layers of q time units, their trees (--method does not "
                         "apply); the platform must be a DAG")
    sc.add_argument("--json", action="store_true", help="machine-readable summary")
    sc.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    sc.set_defaults(run=_cmd_schedule)

    ve = sub.add_parser("verify", help="check a schedule file independently",
                        description="Check every rule of steady-schedule v1 and (unless "
                                    "--no-optimality) the optimality certificate. Exit 0 "
                                    "valid, 1 invalid, 2 unreadable input.")
    ve.add_argument("platform", help="steady-platform v1 file")
    ve.add_argument("schedule", help="steady-schedule v1 file")
    ve.add_argument("--no-optimality", action="store_true",
                    help="do not require the throughput to be the platform's optimum")
    ve.add_argument("--json", action="store_true", help="machine-readable report")
    ve.set_defaults(run=_cmd_verify)

    sh = sub.add_parser("show", help="print one period of a schedule, draw its Gantt chart")
    sh.add_argument("schedule", help="steady-schedule v1 file")
    sh.add_argument("--gantt", metavar="FILE", help="write a Gantt chart (.png or .svg; "
                    "needs the 'plot' extra: pip install 'steady[plot]')")
    sh.set_defaults(run=_cmd_show)

    pi = sub.add_parser("pipe", help="broadcast one message of size L in slices "
                        "(PIPE, 002 §6, Theorem 8)",
                        description="Cut a message of size L into slices (a slice of size m "
                                    "costs startup + m·cost on a link) and broadcast them "
                                    "with an unrolled periodic schedule; exact makespan "
                                    "against the lower bound L·T* (Lemma 7).")
    _optional_platform(pi)
    pi.add_argument("--size", required=True, metavar="L", help="message size L (exact: "
                    "integer, p/q or decimal; > 0)")
    pi.add_argument("--slices", default="auto", metavar="auto|paper|N",
                    help="auto (default): search the number of equal slices; paper: "
                         "ν = ceil(sqrt L) slices of size ν (002 §6); N: N equal slices")
    pi.add_argument("--json", action="store_true", help="machine-readable output")
    pi.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    pi.set_defaults(run=_cmd_pipe)

    si = sub.add_parser("simulate", help="finite horizon: warm-up, steady state, clean-up, "
                        "simulated message by message (002 §5.5)",
                        description="steady(G, K): messages every node holds by the horizon "
                                    "K, against Lemma 7's bound K·TP; the lengths I and J "
                                    "of warm-up and clean-up; a message-level simulation "
                                    "checking one-port and causality when it fits.")
    source = si.add_mutually_exclusive_group()
    source.add_argument("platform", nargs="?", help="steady-platform v1 file: simulate its "
                        "optimal schedule (default: the embedded platform of 002 Figure 1)")
    source.add_argument("--schedule", metavar="FILE", help="simulate this steady-schedule "
                        "v1 file (it is verified first, optimality not required)")
    si.add_argument("--horizon", required=True, metavar="K", help="time bound K (exact)")
    si.add_argument("--max-events", type=int, default=1_000_000, metavar="N",
                    help="budget of message transfers for the simulation (default 10^6)")
    si.add_argument("--plot", metavar="FILE", help="draw the ratio against K (.png or .svg; "
                    "needs the 'plot' extra)")
    si.add_argument("--json", action="store_true", help="machine-readable output")
    si.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    si.set_defaults(run=_cmd_simulate)
