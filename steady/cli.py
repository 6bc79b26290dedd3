"""The ``steady`` command line (DESIGN.md, command line conventions).

Exit codes: 0 success, 1 a check failed, 2 bad input or usage.  A user error is one line
on stderr naming the file, the element and the reason, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from fractions import Fraction

from . import __version__
from .errors import InputError
from .fileio import load_json
from .numbers import decimal_text, format_exact
from .platform import FORMAT as PLATFORM_FORMAT
from .platform import Platform, default_platform


def _load_platform(path):
    if path is None:
        return default_platform(), "<embedded figure-1>"
    return Platform.from_file(path), str(path)


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
    from .throughput import dag_throughput, throughput, tree_throughput

    platform, origin = _load_platform(args.platform)
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
    from .numbers import many_digits

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
    from .schedule import optimal_schedule
    from .throughput import throughput
    from .verify import verify

    from .progress import StageBar

    platform, origin = _load_platform(args.platform)
    with StageBar(["exact throughput", "trees and matchings", "verifier", "file"],
                  args.quiet) as bar:
        bar.stage("exact throughput")
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
        from .fileio import atomic_write_text

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
    if args.json:
        from .numbers import many_digits

        with many_digits():
            print(json.dumps(summary, indent=1))
        return 0
    rows = [("platform", summary["platform"]),
            ("throughput", f"{format_exact(schedule.throughput)} = "
                           f"{decimal_text(schedule.throughput)} broadcasts per time unit"),
            ("period", _digits(schedule.period)),
            ("messages/period", _digits(Fraction(schedule.messages_per_period))),
            ("trees", f"{stats['trees']} (built {stats['trees_built']} by "
                      f"{stats['construction']}; paper's bound |V|^3+|E| = "
                      f"{stats['tree_bound']})"),
            ("matchings", f"{stats['matchings']} (bound |E| = {stats['matching_bound']})"),
            ("file", f"{args.output or '(not written: use -o FILE)'}, "
                     f"{summary['file_bytes']} bytes"),
            ("verified", "yes (steady verify: every rule, and optimality)")]
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"{key:<{width}}  {value}")
    return 0


def _cmd_verify(args) -> int:
    from .schedule_file import Schedule
    from .verify import verify

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
    from .schedule_file import Schedule
    from .show import gantt, period_table

    schedule = Schedule.from_file(args.schedule)
    print(period_table(schedule))
    if args.gantt:
        try:
            gantt(schedule, args.gantt)
        except OSError as exc:
            raise _write_error(args.gantt, exc) from None
        print(f"Gantt chart written to {args.gantt}")
    return 0


def _optional_platform(parser) -> None:
    parser.add_argument("platform", nargs="?", help="steady-platform v1 file "
                        "(default: the embedded platform of 002 Figure 1)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="steady", description="Optimal steady-state broadcast on heterogeneous "
                                   "platforms (one-port model): exact and certified.")
    parser.add_argument("--version", action="version", version=f"steady {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
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
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except InputError as exc:
        print(f"steady: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("steady: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `steady show FILE | head`: the reader left
        sys.stdout = open(os.devnull, "w")
        return 0
