"""Command-line commands of seed 000: ``steady heuristics`` and ``steady experiment stp``.

Only argparse wiring lives at the top of this module; each command imports the
computing modules when it runs, so that ``steady --help`` stays fast.
"""

from __future__ import annotations

from fractions import Fraction

from ..errors import InputError
from . import options
from .options import add_campaign_options
from ..present.sheet import (IN_JSON, exact, number, per_time_unit, percent, platform_text,
                             print_json, written_line)

MODELS = ("one-port", "multi-port")


def add_commands(sub) -> None:
    """Add ``steady heuristics`` to the ``steady`` subparsers ``sub``."""
    he = sub.add_parser("heuristics", help="single-tree pipelined broadcast: every heuristic "
                        "of paper 000 against the exact optima",
                        description="Every heuristic's broadcast tree and its exact "
                                    "throughput (paper 000), the optimum with several "
                                    "trees at once (the paper's MTP, 002 §5.2) and the "
                                    "exact best single tree.")
    he.add_argument("platform", nargs="?", type=options.input_file,
                    help="steady-platform v1 file (default: the "
                    "embedded platform of 002 Figure 1)")
    he.add_argument("--model", choices=MODELS, default="one-port",
                    help="one-port (default) or multi-port (000 §3.2; needs the "
                         "platform's send_overhead)")
    he.add_argument("--best-tree", type=options.seconds(), default=10.0, metavar="SECONDS",
                    help="work bound of the exact best-tree search, in deterministic seconds "
                         "(about seconds on a quiet machine; default 10; 0: skip)")
    he.add_argument("--json", action="store_true", help="machine-readable output")
    he.add_argument("--quiet", action="store_true", help="no progress on stderr")
    he.set_defaults(run=_cmd_heuristics)


def add_experiments(experiments) -> None:
    """Add the ``stp`` campaign (seed 000 §5) to ``steady experiment``."""
    ex = experiments.add_parser("stp", help="paper 000 §5: heuristics on random (Table 2) "
                                "or Tiers-like (Table 3) platforms",
                                description="For every generated platform: every heuristic's "
                                            "throughput relative to the optimum with "
                                            "several trees (MTP) and to "
                                            "the exact best tree; CSV files, Figures 4(a), "
                                            "4(b), 5, Table 3 and a report in --out.")
    ex.add_argument("--platforms", choices=("random", "tiers"), default="random")
    ex.add_argument("--nodes", metavar="N,N,...", help="sizes (default: 10,20,30,40,50 "
                    "for random, 30,65 for tiers)")
    ex.add_argument("--density", metavar="D,D,...", help="densities (default: "
                    "0.04,0.08,0.12,0.16,0.20 for random; tiers: drawn in [0.05, 0.15])")
    ex.add_argument("--repeats", type=options.integer(1, options.MAX_DRAWS), metavar="R",
                    help="platforms per configuration "
                    "(default: 10 for random as in Table 2, 100 for tiers as in §5.1)")
    ex.add_argument("--seed", type=options.integer(0, options.MAX_SEED), default=0,
                    help="campaign seed (default 0)")
    ex.add_argument("--best-tree", type=options.seconds(), default=0.0, metavar="SECONDS",
                    help="also compute the exact best tree with this work bound (deterministic "
                         "seconds) per platform and model (default 0: skip)")
    ex.add_argument("--lan-redundancy", type=options.integer(1, 100), default=1, metavar="R",
                    help="tiers: links per LAN leaf (Tiers' RL; default 1, stars: the "
                         "hubs' out-ports then fix almost every optimum)")
    ex.add_argument("--one-port-only", action="store_true",
                    help="skip the multi-port model (Figure 5)")
    add_campaign_options(ex, "stp-campaign")
    ex.set_defaults(run=_cmd_experiment)


# -- steady heuristics ----------------------------------------------------------------------

def _cmd_heuristics(args) -> int:
    from ..numbers import format_exact
    from ..platform import load_platform
    from ..throughput import throughput
    from ..heuristics.models import send_overheads
    from ..heuristics.registry import heuristics_for, run_heuristics
    from ..progress import StageBar

    platform, origin = load_platform(args.platform)
    if args.model == "multi-port":
        send_overheads(platform, origin)
    if args.best_tree < 0:
        raise InputError("<command line>", "--best-tree", "a time limit is >= 0 seconds")
    stages = ["exact optimum", "heuristics", "reference"] + (
        ["exact best tree"] if args.best_tree else [])
    with StageBar(stages, args.quiet) as bar:
        bar.stage("exact optimum")
        lp = throughput(platform)
        bar.stage("heuristics")
        names = heuristics_for(args.model)
        results = {}
        for i, name in enumerate(names):
            bar.item(i, len(names), name)
            results.update(run_heuristics(platform, args.model, lp=lp, names=[name]))
        bar.stage("reference")
        optimum = _optimum(platform, args.model, lp)
        if args.best_tree:
            bar.stage("exact best tree")
            bar.note(f"at most {args.best_tree:g} s")
        best = _best(platform, args.model, args.best_tree)
    if args.json:
        doc = {name: {"throughput": format_exact(r.throughput), "ratio":
                      format_exact(r.throughput / optimum), "tree": _edges(r.parent)}
               for name, r in results.items()}
        for name, r in results.items():
            if r.routes:    # logical edges that are no link: the paths their copies take
                doc[name]["routes"] = [list(path) for path in r.routes.values()]
        doc["model"] = args.model
        doc["optimum"] = format_exact(optimum)
        if args.model == "multi-port":   # seed 000 Figure 5 divides by this one
            doc["one_port_optimum"] = format_exact(lp.throughput)
        if best is not None:
            doc["best_tree"] = {"throughput": format_exact(best.throughput),
                                "upper_bound": format_exact(best.upper_bound),
                                "optimal": best.optimal, "method": best.method,
                                "tree": _edges(best.parent)}
        print_json(doc)
        return 0
    _print_heuristics(platform, origin, args.model, optimum, lp, best, results)
    return 0


#: A throughput longer than this is shown rounded in the table (--json has it exact):
#: 40-digit fractions would push the trees off the screen.
_CELL = 24


def _print_heuristics(platform, origin, model, optimum, lp, best, results) -> None:
    reference = ("the optimum with several trees at once (the paper's MTP, one-port)"
                 if model == "one-port" else
                 "our multi-port bound: no multi-port schedule, even with several trees, "
                 "does better")
    print(f"platform   {platform_text(platform, origin)}, model {model}")
    print(f"optimum    {per_time_unit(optimum, where=IN_JSON)}: {reference}")
    if model == "multi-port":
        print(f"one-port   {number(lp.throughput, IN_JSON)}: the one-port optimum with "
              "several trees (the reference of paper 000's Figure 5)")
    if best is not None:
        status = "proven optimal" if best.optimal else \
            f"work bound reached; proven <= {exact(best.upper_bound, IN_JSON)}"
        print(f"best tree  {percent(best.throughput / optimum)} of the optimum, "
              f"{number(best.throughput, IN_JSON)}: {status} ({best.method})")
    print()
    _print_table(results, optimum)


def _print_table(results, optimum) -> None:
    """One row per heuristic: the share of the optimum people compare first, then the
    exact throughput (rounded when long), then the tree."""
    from ..numbers import decimal_text, format_exact

    cells = {name: format_exact(r.throughput) for name, r in results.items()}
    rounded = any(len(cell) > _CELL for cell in cells.values())
    cells = {name: cell if len(cell) <= _CELL else f"~{decimal_text(results[name].throughput)}"
             for name, cell in cells.items()}
    width = max(len(n) for n in results)
    column = max(len("throughput"), *(len(c) for c in cells.values()))
    print(f"{'heuristic':<{width}}  {'of optimum':>10}  {'throughput':<{column}}  tree")
    for name, r in results.items():
        print(f"{name:<{width}}  {percent(r.throughput / optimum):>10}  "
              f"{cells[name]:<{column}}  {_tree_text(r.parent, r.routes)}")
    if rounded:
        print("(~: rounded; --json gives every throughput exactly)")


def _optimum(platform, model: str, lp) -> Fraction:
    if model == "one-port":
        return lp.throughput
    from ..heuristics.multiport_bound import multiport_bound

    return multiport_bound(platform).throughput


def _best(platform, model: str, limit: float):
    if limit == 0:
        return None
    from ..heuristics.best_tree import best_tree

    return best_tree(platform, model, time_limit=limit)


def _edges(parent: dict) -> list[list[str]]:
    return [[p, c] for c, p in parent.items()]


def _tree_text(parent: dict, routes: dict, most: int = 8) -> str:
    edges = [f"{p}->{c}" + (f" (via {','.join(routes[(p, c)][1:-1])})"
                            if (p, c) in routes else "") for c, p in parent.items()]
    more = f" … (+{len(edges) - most})" if len(edges) > most else ""
    return " ".join(edges[:most]) + more


# -- steady experiment stp -----------------------------------------------------------------

def _cmd_experiment(args) -> int:
    from ..experiments import stp
    from ..experiments.runner import CampaignFolder, parallel_map
    from ..experiments.stp_report import write_outputs
    from ..heuristics.registry import PAPER_LABELS

    kind = args.platforms
    nodes = _int_list(args.nodes, "--nodes") if args.nodes else (
        stp.TABLE2_NODES if kind == "random" else stp.TIERS_NODES)
    densities = _float_list(args.density, "--density") if args.density else (
        stp.TABLE2_DENSITIES if kind == "random" else (None,))
    repeats = args.repeats if args.repeats is not None else stp.DEFAULT_REPEATS[kind]
    if repeats < 1:
        raise InputError("<command line>", "--repeats", f"{repeats}: need at least 1")
    if args.best_tree < 0:
        raise InputError("<command line>", "--best-tree", "a time limit is >= 0 seconds")
    if kind == "tiers" and min(nodes) < 8:
        raise InputError("<command line>", "--nodes", "Tiers-like platforms need >= 8 nodes")
    if args.lan_redundancy < 1 or (args.lan_redundancy > 1 and kind != "tiers"):
        raise InputError("<command line>", "--lan-redundancy", "links per LAN leaf, >= 1, "
                         "for --platforms tiers")
    # before the work; the two kinds of platforms default to two folders
    out = args.out if args.out is not None else (
        "stp-campaign" if kind == "random" else "stp-tiers-campaign")
    folder = CampaignFolder(out, plots=not args.no_plots,
                            settings=options.campaign_settings(args), force=args.force)
    todo = stp.tasks(kind, nodes, densities, repeats, args.seed,
                     multiport=not args.one_port_only, best_tree_limit=args.best_tree,
                     lan_redundancy=args.lan_redundancy)
    rows = parallel_map(stp.evaluate, todo, jobs=args.jobs, backend=args.backend,
                        scheduler=args.scheduler, quiet=args.quiet, label="platforms")
    written = folder.publish(lambda out: write_outputs(rows, kind, out, PAPER_LABELS,
                                                       plots=not args.no_plots))
    print((folder.path / "report.md").read_text(encoding="utf-8"), end="")
    print(written_line(written))
    return 0


def _int_list(text: str, option: str) -> list[int]:
    # a platform needs >= 2 nodes
    return options.integer_list(text, option, 2, options.MAX_NODES, "10,20,30")


def _float_list(text: str, option: str) -> list[float]:
    return options.real_list(text, option, 0, 1, "0.04,0.12")   # densities
