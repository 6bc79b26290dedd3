"""The ``steady`` command line (DESIGN.md, command line conventions).

Exit codes: 0 success, 1 a check failed, 2 bad input or usage.  A user error is one line
on stderr naming the file, the element and the reason, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys

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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="steady", description="Optimal steady-state broadcast on heterogeneous "
                                   "platforms (one-port model): exact and certified.")
    parser.add_argument("--version", action="version", version=f"steady {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    tp = sub.add_parser("throughput", help="exact optimal steady-state throughput",
                        description="Exact optimal number of broadcasts per time unit "
                                    "(002 §5.2), with its certificate.")
    tp.add_argument("platform", nargs="?", help="steady-platform v1 file "
                    "(default: the embedded platform of 002 Figure 1)")
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
