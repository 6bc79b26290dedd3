"""Command-line commands of seed 001: ``steady grid schedule``, ``steady experiment grid``.

Only argparse wiring lives at the top of this module; each command imports the
computing modules when it runs, so that ``steady --help`` stays fast.
"""

from __future__ import annotations

import os

from ..errors import InputError, echo
from ..experiments.runner import check_workers
from . import options
from .options import add_campaign_options
from ..present.sheet import print_json


def add_commands(sub) -> None:
    """Add this package's top-level commands to the ``steady`` subparsers ``sub``."""
    grid = sub.add_parser("grid", help="grid-aware hierarchical broadcast (paper 001): "
                          "schedules of clusters in the pLogP model",
                          description="Broadcast over clusters (001 §3): coordinators "
                                      "exchange the message (latency L, gap g), then each "
                                      "cluster broadcasts inside in time T.")
    commands = grid.add_subparsers(dest="grid_command", required=True, metavar="COMMAND")
    sc = commands.add_parser("schedule", help="the schedule and makespan of each heuristic",
                             description="Schedule the broadcast with the heuristics of "
                                         "001 §4-§5 (and MPI's binomial tree): who sends "
                                         "to whom, when, and the exact makespan.")
    sc.add_argument("grid", metavar="CLUSTERS.json", type=options.input_file,
                    help="steady-grid v1 file "
                    "(e.g. samples/grid5000-6-clusters.json)")
    sc.add_argument("--heuristic", default="all", metavar="NAME|all",
                    help="flat, fef, ecef, ecef-la, ecef-lat-min (ECEF-LAt), ecef-lat-max "
                         "(ECEF-LAT), bottomup, binomial, the variants fef-transfer and "
                         "bottomup-ready, or all (default: the eight heuristics)")
    sc.add_argument("--root", metavar="CLUSTER", help="broadcast from this cluster "
                    "instead of the file's root")
    sc.add_argument("--optimum", action="store_true", help="also the exact optimal "
                    "makespan (branch and bound, up to 10 clusters)")
    sc.add_argument("--node-limit", type=options.integer(1, options.MAX_NODE_LIMIT),
                    default=2_000_000, metavar="N",
                    help="with --optimum: give up after N search nodes (default 2000000, "
                         "about a minute)")
    sc.add_argument("--json", action="store_true", help="machine-readable output")
    sc.add_argument("--quiet", action="store_true", help="no progress on stderr")
    sc.set_defaults(run=_cmd_schedule)


def add_experiments(experiments) -> None:
    """Add this package's campaigns to the ``steady experiment`` subparsers."""
    ex = experiments.add_parser("grid", help="paper 001 §6: heuristics on random grids "
                                "(Table 2), Figures 1-4, and the exact optimum",
                                description="Average makespan of each heuristic against "
                                            "the number of clusters (001 Figures 1-3), hit "
                                            "rates against the best heuristic (Figure 4) "
                                            "and against the exact optimum; CSV, plots and "
                                            "a comparison with the paper in --out.")
    ex.add_argument("--clusters", default="2..10", metavar="A..B",
                    help="numbers of clusters: a range A..B or a list 2,5,10 "
                         "(default 2..10; the paper also runs 2..50)")
    ex.add_argument("--iterations", type=options.integer(1, options.MAX_DRAWS), default=10000,
                    metavar="N",
                    help="random grids per number of clusters (default 10000, the paper's)")
    ex.add_argument("--seed", type=options.integer(0, options.MAX_SEED), default=0,
                    help="campaign seed (default 0)")
    ex.add_argument("--links", default="per-pair", choices=("per-pair", "per-grid"),
                    help="draw L and g once per pair of clusters (default) or once per "
                         "grid (a homogeneous wide area; the paper does not say)")
    ex.add_argument("--exact-max", type=options.integer(0, options.MAX_CLUSTERS), default=10,
                    metavar="N",
                    help="compute the exact optimum up to N clusters (default 10; 0: never)")
    ex.add_argument("--node-limit", type=options.integer(1, options.MAX_NODE_LIMIT),
                    default=200_000, metavar="N",
                    help="give up the exact optimum of a grid after N search nodes "
                         "(counted as unsolved; default 200000)")
    ex.add_argument("--variants", action="store_true",
                    help="also run our variants fef-transfer and bottomup-ready")
    ex.add_argument("--runs", action="store_true",
                    help="also write every draw's makespans (grid-runs.csv)")
    # all cores by default: 10000 grids per size is the paper's campaign
    add_campaign_options(ex, "grid-campaign", jobs=os.cpu_count() or 1)
    ex.add_argument("--json", action="store_true", help="print the summary as JSON")
    ex.set_defaults(run=_cmd_campaign)


def _cmd_schedule(args) -> int:
    from ..progress import StageBar
    from ..grid.heuristics import HEURISTICS, resolve, run
    from ..grid.model import Grid
    from ..fileio import load_json
    from ..grid.optimum import DEFAULT_MAX_CLUSTERS, SearchLimit, optimal_schedule
    from ..grid.schedule import lower_bound

    if args.node_limit < 1:
        raise InputError("<command line>", "--node-limit", f"must be >= 1, not "
                         f"{args.node_limit}")
    doc = load_json(args.grid)
    clusters = doc.get("clusters") if isinstance(doc, dict) else None
    if args.optimum and isinstance(clusters, list) and len(clusters) > DEFAULT_MAX_CLUSTERS:
        # before the grid's tables are read (a minute at 1000 clusters) and the
        # heuristics run: the exact search would refuse it anyway
        raise InputError(str(args.grid), "--optimum", f"{len(clusters)} clusters: the "
                         f"exact search takes at most {DEFAULT_MAX_CLUSTERS} (docs/limits.md); "
                         "drop --optimum for the heuristics alone")
    grid = Grid.from_dict(doc, str(args.grid))
    if args.root is not None:
        if args.root not in grid.names:
            raise InputError("<command line>", "--root", f"no cluster {args.root!r} in "
                             f"{args.grid}")
        grid = grid.with_root(grid.index(args.root))
    if args.heuristic == "all":
        keys = list(HEURISTICS)
    else:
        try:
            keys = [resolve(args.heuristic)]
        except ValueError as exc:
            raise InputError("<command line>", "--heuristic", str(exc)) from None
    schedules = [run(grid, k) for k in keys]
    optimum = None
    if args.optimum:
        try:
            # the search can take up to a minute at the default node limit
            with StageBar(["exact optimum (branch and bound)"], args.quiet) as bar:
                bar.stage("exact optimum (branch and bound)")
                optimum = optimal_schedule(grid, node_limit=args.node_limit).schedule
        except ValueError as exc:
            raise InputError(str(args.grid), "--optimum", str(exc)) from None
        except SearchLimit:
            raise InputError(str(args.grid), "--node-limit", f"the exact search explored "
                             f"{args.node_limit} nodes without proving the optimum; raise "
                             "--node-limit") from None
    bound = lower_bound(grid)
    if args.json:
        print_json(_schedule_doc(grid, args.grid, schedules, optimum, bound))
    else:
        _print_schedules(grid, args.grid, schedules, optimum, bound)
    return 0


def _label(key: str) -> str:
    from ..grid.heuristics import HEURISTICS, VARIANTS

    if key == "optimum":
        return "optimum (exact)"
    return {**HEURISTICS, **VARIANTS}[key][0]


def _schedule_doc(grid, path, schedules, optimum, bound) -> dict:
    from ..numbers import format_exact

    doc = {"grid": grid.name or str(path), "unit": grid.unit,
           "root": grid.names[grid.root], "clusters": grid.size,
           "lower_bound": format_exact(bound),
           "schedules": [dict(s.to_dict(), name=_label(s.heuristic)) for s in schedules]}
    if optimum is not None:
        doc["optimum"] = optimum.to_dict()
    return doc


def _print_schedules(grid, path, schedules, optimum, bound) -> None:
    from ..grid.schedule import time_text

    names = grid.names
    everything = schedules + ([optimum] if optimum is not None else [])
    best = min(s.makespan for s in everything)
    print(f"grid         {grid.name or path}: {grid.size} clusters, root {names[grid.root]}, "
          f"times in {grid.unit}")
    print(f"lower bound  {time_text(bound)} (max over clusters of shortest arrival + T)")
    print()
    width = max(len(_label(s.heuristic)) for s in everything)
    print(f"{'heuristic':<{width}}  makespan ({grid.unit})")
    for s in everything:
        mark = "  <- best" if s.makespan == best and len(everything) > 1 else ""
        print(f"{_label(s.heuristic):<{width}}  {time_text(s.makespan)}{mark}")
    for s in everything:
        print()
        print(f"{_label(s.heuristic)}: makespan {time_text(s.makespan)}")
        for send in s.chronological():
            print(f"  {names[send.sender]} -> {names[send.receiver]}  start "
                  f"{time_text(send.start)}  end {time_text(send.end)}  arrival "
                  f"{time_text(send.arrival)}")
        print("  finish: " + ", ".join(f"{names[k]} {time_text(s.finish[k])}"
                                       for k in range(grid.size)))


def _cmd_campaign(args) -> int:
    """``steady experiment grid``: check the options, run, write, print a summary."""
    from ..experiments.grid import run_campaign
    from ..experiments.grid_report import summary_doc, summary_text, write_outputs

    sizes = parse_clusters(args.clusters)
    out = _campaign_folder(args)
    keys, summaries, rows, seconds = run_campaign(
        sizes, args.iterations, args.seed, args.exact_max, args.node_limit, args.variants,
        args.jobs, args.backend, args.scheduler, args.quiet, args.links)
    setup = {"sizes": sizes, "iterations": args.iterations, "seed": args.seed,
             "links": args.links,
             "exact_max": args.exact_max, "node_limit": args.node_limit,
             "jobs": args.jobs, "seconds": seconds}
    files = out.publish(lambda folder: write_outputs(
        folder, keys, summaries, rows if args.runs else None, setup,
        plots=not args.no_plots))
    if args.json:
        print_json(summary_doc(keys, summaries, setup, files))
    else:
        print(summary_text(keys, summaries, setup, files))
    return 0


def _campaign_folder(args):
    """Check the campaign's options and its --out folder before the long run (a
    missing matplotlib fails now, not after an hour of computing); the folder is
    written when the campaign completes (:class:`CampaignFolder`)."""
    from ..experiments.runner import CampaignFolder

    for option, value, low in (("--iterations", args.iterations, 1),
                               ("--exact-max", args.exact_max, 0),
                               ("--node-limit", args.node_limit, 1)):
        if value < low:
            raise InputError("<command line>", option, f"must be >= {low}, not {value}")
    out = args.out if args.out is not None else (
        "grid-campaign" if args.links == "per-pair" else f"grid-{args.links}-campaign")
    folder = CampaignFolder(out, plots=not args.no_plots,
                            settings=options.campaign_settings(args), force=args.force)
    check_workers(args.jobs, args.backend, args.scheduler)
    return folder


def parse_clusters(text: str) -> list[int]:
    """``"2..10"`` or ``"2,5,10"`` -> the numbers of clusters (each >= 2, at most
    options.MAX_CLUSTERS)."""
    if ".." in text:
        bounds = text.split("..")
        if len(bounds) != 2 or not all(bounds):
            raise InputError("<command line>", "--clusters", f"expected A..B or a list "
                             f"like 2,5,10, not {echo(text)}")
        low, high = (options.check_integer(x, "--clusters", 0, options.MAX_CLUSTERS)
                     for x in bounds)
        sizes = list(range(low, high + 1))
    else:
        sizes = options.integer_list(text, "--clusters", 0, options.MAX_CLUSTERS, "2,5,10")
    if not sizes:
        raise InputError("<command line>", "--clusters", f"{text!r} is an empty range")
    if min(sizes) < 2:
        raise InputError("<command line>", "--clusters", "a grid has at least 2 clusters")
    return sorted(set(sizes))
