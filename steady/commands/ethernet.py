"""Command-line commands of seed 004: ``steady ethernet tree|segment`` and the campaigns
``steady experiment ethernet-height`` (Figure 5) and ``ethernet-table3`` (Table 3).

Only argparse wiring lives at the top of this module; each command imports the
computing modules when it runs, so that ``steady --help`` stays fast.
"""

from __future__ import annotations

import re

from ..errors import InputError
from . import options
from .options import add_campaign_options
from ..present.sheet import print_json, print_sheet, written_line

ALGORITHMS = ("linear", "binary", "k-ary")
# ASCII digits (\d alone takes any Unicode digit), at most 15 of them: < 10^15 bytes.
_SIZE = re.compile(r"([0-9]{1,15})(b|k|kb|m|mb)?", re.IGNORECASE | re.ASCII)
_UNITS = {"": 1, "b": 1, "k": 1024, "kb": 1024, "m": 1024 ** 2, "mb": 1024 ** 2}


def add_commands(sub) -> None:
    """Add ``steady ethernet`` to the ``steady`` subparsers ``sub``."""
    eth = sub.add_parser("ethernet", help="pipelined broadcast on Ethernet switched "
                         "clusters (paper 004): contention-free trees, segment sizes",
                         description="Contention-free broadcast trees on a tree of "
                                     "switches (004 §4.1) and the extended pLogP model "
                                     "of the segment size (004 §4.2).")
    commands = eth.add_subparsers(dest="ethernet_command", required=True,
                                  metavar="COMMAND")
    tr = commands.add_parser("tree", help="a contention-free broadcast tree "
                             "(Algorithm 1, Algorithm 2 or its k-ary extension)",
                             description="Algorithm 1 (linear), Algorithm 2 (binary, "
                                         "Figure 4) or its k-ary extension on a "
                                         "steady-ethernet-cluster v1 file; the tree is "
                                         "checked contention-free (Theorems 1, 2).")
    tr.add_argument("cluster", type=options.input_file,
                    help="steady-ethernet-cluster v1 file")
    tr.add_argument("--algorithm", choices=ALGORITHMS, default="binary",
                    help="linear (Algorithm 1), binary (Algorithm 2, default) or k-ary")
    tr.add_argument("--k", type=options.integer(2, options.MAX_SEGMENT_MACHINES), metavar="K",
                    help="arity of --algorithm k-ary, at most the machines "
                    "(default 3)")
    tr.add_argument("--compare", action="store_true", help="also the topology-unaware "
                    "trees of 004 §3.1 (flat, binomial, binary, k-ary, linear) and every "
                    "pair of their communications that contend")
    tr.add_argument("--json", action="store_true", help="machine-readable output")
    tr.add_argument("--quiet", action="store_true", help="no progress on stderr "
                    "(--compare on large clusters takes seconds)")
    tr.set_defaults(run=_cmd_tree)

    se = commands.add_parser("segment", help="the best segment size by the extended "
                             "pLogP model (004 §4.2, formulas (1) and (2))",
                             description="Predicted completion time of a pipelined "
                                         "broadcast for every tabulated segment size, "
                                         "and the best one.")
    se.add_argument("--params", default="100mbps", metavar="100mbps|1000mbps|FILE",
                    help="L(m), g(m) table: 004 Table 2 (built in) or a steady-plogp v1 "
                         "file (default 100mbps)")
    se.add_argument("--tree", choices=ALGORITHMS, default="linear",
                    help="linear (formula (1), default), binary (formula (2)) or k-ary")
    se.add_argument("--k", type=options.integer(2, options.MAX_SEGMENT_MACHINES), metavar="K",
                    help="arity of --tree k-ary, at most the machines "
                    "(default 3)")
    se.add_argument("--machines", type=options.integer(2, options.MAX_SEGMENT_MACHINES),
                    metavar="P", help="number of machines "
                    "(required unless --cluster gives them)")
    se.add_argument("--cluster", metavar="FILE", type=options.input_file,
                    help="steady-ethernet-cluster v1 file: "
                    "use Algorithm 2 (or its k-ary extension) on it; without it a "
                    "binary or k-ary tree is the complete one in heap order")
    se.add_argument("--size", required=True, metavar="BYTES", help="message size: "
                    "bytes, or with a KB / MB suffix (x1024)")
    se.add_argument("--json", action="store_true", help="machine-readable output")
    se.set_defaults(run=_cmd_segment)


def add_experiments(experiments) -> None:
    """Add the ``ethernet-height`` (Figure 5) and ``ethernet-table3`` campaigns."""
    ex = experiments.add_parser("ethernet-height", help="paper 004 Figure 5: heights of "
                                "Algorithm 2 trees on random clusters",
                                description="Average height of Algorithm 2's trees on "
                                            "random clusters (004 §4.1.2) against the "
                                            "complete binary tree; checks the paper's "
                                            "'within a factor of two' (exit 1 if not).")
    ex.add_argument("--machines", default="16..1024", metavar="P,P,...|A..B",
                    help="sizes: a comma list, or A..B for A, 2A, 4A, ... up to B "
                         "(default 16..1024)")
    ex.add_argument("--per-switch", default="8,16", metavar="D,D,...",
                    help="average machines per switch (default 8,16)")
    ex.add_argument("--topologies", type=options.integer(1, options.MAX_DRAWS), default=20,
                    metavar="N",
                    help="random clusters per size and density (default 20)")
    ex.add_argument("--switch-tree", choices=("links", "attach"), default="links",
                    help="links (default): add random links between switches, skipping "
                         "those that close a cycle (004 §4.1.2); attach: each new switch "
                         "links to a random earlier one")
    ex.add_argument("--seed", type=options.integer(0, options.MAX_SEED), default=0,
                    help="campaign seed (default 0)")
    add_campaign_options(ex, "ethernet-height")
    ex.set_defaults(run=_cmd_height)

    t3 = experiments.add_parser("ethernet-table3", help="paper 004 Table 3: the segment "
                                "sizes the pLogP model predicts, beside the paper's",
                                description="Formula (1) (linear tree, P = 32) and formula "
                                            "(2) (Algorithm 2 on an assumed topology (4)) "
                                            "with Table 2's parameters.")
    t3.add_argument("--out", default="ethernet-table3", metavar="DIR",
                    help="output folder (default ./ethernet-table3)")
    t3.add_argument("--force", action="store_true",
                    help="replace a campaign of other settings in --out")
    t3.set_defaults(run=_cmd_table3)


# -- steady ethernet tree ---------------------------------------------------------------

def _cmd_tree(args) -> int:
    from ..ethernet.cluster import Cluster
    from ..ethernet.trees import linear_order

    arity = _arity(args.algorithm, args.k)
    cluster = Cluster.from_file(args.cluster)
    if len(cluster.machines) > options.MAX_MACHINES:  # fail fast (issue 18 F15)
        raise InputError(args.cluster, "machines",
                         f"{len(cluster.machines)} machines, more than the "
                         f"{options.MAX_MACHINES} ethernet tree takes (its tables are "
                         f"machines x machines; docs/limits.md)")
    _arity_fits(arity, len(cluster.machines), args.cluster)
    tree = _contention_free_tree(cluster, args.algorithm, arity)
    doc = {"cluster": cluster.name or args.cluster, "root": cluster.root,
           "machines": len(cluster.machines), "switches": len(cluster.switches),
           "algorithm": args.algorithm, "k": arity, "order": linear_order(cluster),
           "height": tree.height, "complete_binary_height":
               len(cluster.machines).bit_length() - 1,
           "max_degree": tree.max_degree, "edges": [list(e) for e in tree.edges()],
           "contention_free": True}
    if args.compare:
        doc["unaware"] = _unaware(cluster, arity if arity > 2 else 3, args.quiet)
    if args.json:
        print_json(doc)
        return 0
    claim = {"linear": "Algorithm 1, Theorem 1", "binary": "Algorithm 2, Theorem 2",
             "k-ary": f"k-ary Algorithm 2, k = {arity}"}[args.algorithm]
    rows = [("cluster", f"{doc['cluster']} ({doc['switches']} switches, "
                        f"{doc['machines']} machines, root {cluster.root})"),
            ("algorithm", f"{args.algorithm} ({claim})"),
            ("height", f"{tree.height} (complete binary tree: "
                       f"{doc['complete_binary_height']})"),
            ("max degree", str(tree.max_degree)),
            ("contention", "none: no two communications from different machines share "
                           "a directed channel (checked)"),
            ("tree", _edges_text(tree.edges()))]
    print_sheet(rows)
    if args.compare:
        print("\ntopology-unaware trees (004 §3.1), pipelined:")
        width = max(len(n) for n in doc["unaware"])
        for name, info in doc["unaware"].items():
            pairs = info["contending_pairs"]
            first = "; ".join(_pair_text(p) for p in pairs[:3])
            more = f" … (+{len(pairs) - 3})" if len(pairs) > 3 else ""
            print(f"  {name:<{width}}  height {info['height']:>4}  "
                  f"{len(pairs):>6} contending pairs" + (f": {first}{more}" if pairs
                                                          else ""))
    return 0


def _arity(algorithm: str, k) -> int:
    if k is not None and algorithm != "k-ary":
        raise InputError("<command line>", "--k", f"applies to k-ary trees, not "
                         f"{algorithm}")
    if algorithm == "k-ary":
        k = 3 if k is None else k
        if k < 2:
            raise InputError("<command line>", "--k", f"a k-ary tree needs k >= 2, not {k}")
        return k
    return {"linear": 1, "binary": 2}[algorithm]


def _arity_fits(arity: int, machines: int, where: str) -> None:
    """k is bounded by the machine count (a k-ary tree with k >= P - 1 is flat)."""
    if arity > machines:
        raise InputError("<command line>", "--k", f"must be <= {machines}, the machines "
                         f"of {where}, got {arity}")


def _contention_free_tree(cluster, algorithm: str, arity: int):
    from ..ethernet.trees import (contention_free_binary_tree, contention_free_kary_tree,
                        contention_free_linear_tree)

    if algorithm == "linear":
        return contention_free_linear_tree(cluster)
    if algorithm == "binary":
        return contention_free_binary_tree(cluster)
    return contention_free_kary_tree(cluster, arity)


def _unaware(cluster, k: int, quiet: bool) -> dict:
    from ..progress import StageBar
    from ..ethernet.unaware import SHAPES, contention_report, unaware_tree

    out = {}
    with StageBar([f"{shape} contention" for shape in SHAPES], quiet) as bar:
        for shape in SHAPES:
            bar.stage(f"{shape} contention")
            tree = unaware_tree(cluster, shape, k)
            name = f"{k}-ary" if shape == "k-ary" else shape
            out[name] = {"height": tree.height, "max_degree": tree.max_degree,
                         "edges": [list(e) for e in tree.edges()],
                         "contending_pairs": [c.to_dict()
                                              for c in contention_report(cluster, tree)]}
    return out


def _pair_text(pair: dict) -> str:
    (a, b), (c, d) = pair["first"], pair["second"]
    return f"{a}->{b} / {c}->{d}"


def _edges_text(edges, most: int = 12) -> str:
    shown = " ".join(f"{u}->{v}" for u, v in edges[:most])
    return shown + (f" … (+{len(edges) - most}; --json lists them)"
                    if len(edges) > most else "")


# -- steady ethernet segment --------------------------------------------------------------

def _cmd_segment(args) -> int:
    from ..numbers import decimal_text, format_exact
    from ..ethernet.plogp import load_table
    from ..ethernet.segments import best_segment, choose, linear_time

    arity = _arity(args.tree, args.k)
    msize = _size(args.size)
    table = load_table(args.params)
    cluster, machines = _machines(args.cluster, args.machines)
    _arity_fits(arity, machines, args.cluster or "--machines")
    try:
        if args.tree == "linear":   # formula (1): the time depends on P only
            choice = choose(lambda m: linear_time(machines, table, msize, m), table, msize)
        else:
            choice = best_segment(_segment_tree(cluster, machines, arity), table, msize)
    except ValueError as exc:
        raise InputError("<command line>", "--size", str(exc)) from None
    formula = {"linear": "(1)", "binary": "(2)", "k-ary": "(2) generalised, D = k"}
    doc = {"params": table.name or args.params, "unit": table.unit, "tree": args.tree,
           "k": arity, "machines": machines, "cluster": args.cluster, "size": msize,
           "formula": formula[args.tree],
           "candidates": [c.to_dict() for c in choice.candidates],
           "best_segment": choice.best_segment, "best_time": format_exact(choice.best.time)}
    if args.json:
        print_json(doc)
        return 0
    if cluster is not None and arity > 1:
        algorithm = "Algorithm 2" if arity == 2 else f"{arity}-ary Algorithm 2"
        shape = f"{algorithm} on {args.cluster}"
    else:
        shape = {1: "linear", 2: "complete binary"}.get(arity, f"complete {arity}-ary")
    print_sheet([("model", f"extended pLogP (004 §4.2), formula {doc['formula']}; "
                           f"L, g: {doc['params']}"),
                 ("tree", f"{shape}, P = {machines}"),
                 ("message", f"{msize} bytes")])
    unit = f" ({table.unit})" if table.unit else ""
    print(f"\n{'segment':>8} {'X':>6} {'A':>4} {'B':>4}  time{unit}")
    for c in choice.candidates:
        best = "  <- best" if c is choice.best else ""
        print(f"{c.segment:>8} {c.segments:>6} {c.A:>4} {c.B:>4}  "
              f"{decimal_text(c.time, 4)} = {format_exact(c.time)}{best}")
    print(f"\nbest segment size: {choice.best_segment} bytes")
    return 0


def _size(text: str) -> int:
    match = _SIZE.fullmatch(text)
    if not match or int(match.group(1)) < 1:
        raise InputError("<command line>", "--size", f"{text!r}: expected a positive "
                         "number of bytes, optionally with a KB or MB suffix")
    return int(match.group(1)) * _UNITS[(match.group(2) or "").lower()]


def _machines(path, machines):
    cluster = None
    if path is not None:
        from ..ethernet.cluster import Cluster

        cluster = Cluster.from_file(path)
        if machines is not None and machines != len(cluster.machines):
            raise InputError("<command line>", "--machines", f"{machines}, but {path} has "
                             f"{len(cluster.machines)} machines")
        machines = len(cluster.machines)
    if machines is None:
        raise InputError("<command line>", "--machines", "required (or give --cluster)")
    if machines < 2:
        raise InputError("<command line>", "--machines", f"a broadcast needs >= 2 "
                         f"machines, not {machines}")
    return cluster, machines


def _segment_tree(cluster, machines: int, arity: int):
    if cluster is not None:
        return _contention_free_tree(cluster, "binary" if arity == 2 else "k-ary", arity)
    from ..ethernet.unaware import complete_kary_tree

    return complete_kary_tree([f"n{r}" for r in range(machines)], arity)


# -- steady experiment ethernet-height / ethernet-table3 ----------------------------------

def _cmd_height(args) -> int:
    from ..experiments import ethernet
    from ..experiments.ethernet_report import height_report, write_height_outputs
    from ..experiments.runner import CampaignFolder, parallel_map

    machines = _machine_sizes(args.machines)
    per_switch = _int_list(args.per_switch, "--per-switch", 1)
    if args.topologies < 1:
        raise InputError("<command line>", "--topologies", f"{args.topologies}: need "
                         "at least 1")
    # before the work; the two kinds of switch trees default to two folders
    out = args.out if args.out is not None else (
        "ethernet-height" if args.switch_tree == "links"
        else f"ethernet-height-{args.switch_tree}")
    folder = CampaignFolder(out, plots=not args.no_plots,
                            settings=options.campaign_settings(args), force=args.force)
    todo = ethernet.height_tasks(machines, per_switch, args.topologies, args.seed,
                                 args.switch_tree)
    rows = parallel_map(ethernet.evaluate_height, todo, jobs=args.jobs,
                        backend=args.backend, scheduler=args.scheduler, quiet=args.quiet,
                        label="clusters")
    summary = ethernet.height_summary(rows)
    written = folder.publish(lambda out: write_height_outputs(
        rows, summary, out, args.switch_tree, plots=not args.no_plots))
    print(height_report(summary, args.switch_tree), end="")
    print(written_line(written))
    return 0 if all(s["within_factor_two"] for s in summary) else 1


def _machine_sizes(text: str) -> list[int]:
    if ".." in text:
        low, _, high = text.partition("..")
        low_high = _int_list(f"{low},{high}", "--machines", 2)
        sizes, p = [], low_high[0]
        while p <= low_high[1]:
            sizes.append(p)
            p *= 2
        if not sizes:
            raise InputError("<command line>", "--machines", f"{text!r}: empty range")
        return sizes
    return _int_list(text, "--machines", 2)


def _int_list(text: str, option: str, least: int) -> list[int]:
    return options.integer_list(text, option, least, options.MAX_MACHINES, "8,16")


def _cmd_table3(args) -> int:
    from ..experiments.ethernet import table3_rows
    from ..experiments.ethernet_report import table3_report, write_table3_outputs
    from ..experiments.runner import CampaignFolder

    folder = CampaignFolder(args.out, settings=options.campaign_settings(args),
                            force=args.force)
    rows = table3_rows()
    written = folder.publish(lambda out: write_table3_outputs(rows, out))
    print(table3_report(rows), end="")
    print(written_line(written))   # the default folder is relative: say where it is
    return 0
