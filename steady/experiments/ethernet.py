"""Seed 004's campaigns: Figure 5 (heights of Algorithm 2 trees) and Table 3's Model
columns (the segment sizes the extended pLogP model predicts).

Figure 5 (004 §4.1.2): for every size and density, random clusters (20 per size in the
paper), Algorithm 2's tree on each, and the average height against the height of the
complete binary tree, floor(log2 P) — a lower bound for any binary tree.  The paper's
claim: "the average heights of the trees computed using Algorithm 2 are within a factor
of two of the heights of the complete binary tree"; :func:`height_summary` checks it
exactly per size.

Table 3 (004 §5.1): for P = 32 and message sizes 8KB..2MB, the best of Table 2's eight
segment sizes by formula (1) (linear tree, topology independent) and by formula (2)
(binary tree: Algorithm 2's tree on topology (4), whose drawing, Figure 9, is not in our
text; we assume four switches in a chain with 8 machines each, numbered switch by
switch), beside the paper's Model and Actual columns.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from pathlib import Path

from ..numbers import decimal_text
from .runner import deviation, mean, write_csv

#: 004 Figure 5: sizes up to 1024 machines, 8 and 16 machines per switch, 20 topologies.
FIGURE5_MACHINES = (16, 32, 64, 128, 256, 512, 1024)
FIGURE5_PER_SWITCH = (8, 16)
FIGURE5_TOPOLOGIES = 20

#: 004 Table 3, message sizes in KB and the printed columns (segment sizes in bytes):
#: (linear Model, linear Actual, binary Model, binary Actual) per network.
TABLE3_KB = (8, 16, 32, 64, 128, 256, 512, 1024, 2048)
PAPER_TABLE3 = {
    "100mbps": {"linear_model": (256, 256, 256, 256, 512, 512, 1024, 1024, 1024),
                "linear_actual": (256, 512, 512, 512, 512, 1024, 1024, 2048, 1024),
                "binary_model": (256, 512, 1024, 1024, 1024, 1024, 1024, 2048, 4096),
                "binary_actual": (512, 512, 1024, 1024, 1024, 2048, 4096, 4096, 4096)},
    "1000mbps": {"linear_model": (256, 256, 512, 1024, 1024, 2048, 4096, 4096, 4096),
                 "linear_actual": (512, 512, 2048, 2048, 2048, 2048, 2048, 4096, 4096),
                 "binary_model": (512, 1024, 2048, 4096, 4096, 4096, 8192, 8192, 8192),
                 "binary_actual": (1024, 2048, 2048, 4096, 8192, 8192, 8192, 16384,
                                   16384)},
}
TABLE3_MACHINES = 32
TOPOLOGY4 = (8, 8, 8, 8)


# -- Figure 5 ---------------------------------------------------------------------------

@dataclass(frozen=True)
class HeightTask:
    """One random cluster of the campaign and how to draw it."""

    machines: int
    per_switch: int
    topology: int
    seed: int
    switch_tree: str = "links"


def height_tasks(machines, per_switch, topologies: int, seed: int = 0,
                 switch_tree: str = "links") -> list[HeightTask]:
    """Densities, then sizes, then topologies; topology t of a configuration gets its
    own seed, :func:`topology_seed`, so that no two configurations share a random
    stream (the paper draws 20 topologies per size, independently)."""
    return [HeightTask(p, d, t, topology_seed(seed, p, d, t), switch_tree)
            for d in per_switch for p in machines for t in range(topologies)]


def topology_seed(seed: int, machines: int, per_switch, topology: int) -> int:
    """A 63-bit seed from (campaign seed, P, machines per switch, topology): the first
    8 bytes of a SHA-256, the same in every process and on every machine."""
    text = f"{seed}/{machines}/{per_switch}/{topology}".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big") >> 1


def complete_binary_height(machines: int) -> int:
    """floor(log2 P): the height (in edges) of the complete binary tree on P nodes, and
    the least height of any tree with at most two children per node."""
    return machines.bit_length() - 1


def evaluate_height(task: HeightTask) -> dict:
    """Draw the cluster, run Algorithm 2 (004 Figure 4) on it: one CSV row."""
    from ..ethernet.generators import random_cluster
    from ..ethernet.trees import contention_free_binary_tree

    cluster = random_cluster(task.machines, task.per_switch, task.seed, task.switch_tree)
    start = time.perf_counter()
    tree = contention_free_binary_tree(cluster)
    seconds = time.perf_counter() - start
    return {"per_switch": task.per_switch, "machines": task.machines,
            "topology": task.topology, "seed": task.seed,
            "switches": len(cluster.switches), "switch_depth": switch_depth(cluster),
            "height": tree.height,
            "complete_height": complete_binary_height(task.machines),
            "seconds": round(seconds, 4)}


def switch_depth(cluster) -> int:
    """Switch hops from the root machine's switch to the farthest switch: the depth of
    the switch tree as the broadcast sees it (it explains the heights: the report)."""
    start = cluster.switch_of(cluster.root)
    depth = {start: 0}
    queue = [start]
    for switch in queue:                      # breadth-first: the list grows as we go
        for other in cluster.switch_neighbours(switch):
            if other not in depth:
                depth[other] = depth[switch] + 1
                queue.append(other)
    return max(depth.values())


def height_summary(rows) -> list[dict]:
    """Per density and size: the exact mean height, its spread, the complete binary
    tree's height, their exact ratio and whether the mean is within a factor of two."""
    groups: dict[tuple[int, int], list[dict]] = {}
    for r in rows:
        groups.setdefault((r["per_switch"], r["machines"]), []).append(r)
    summary = []
    for (d, p), members in groups.items():
        heights = [r["height"] for r in members]
        complete = complete_binary_height(p)
        average = mean(heights)
        summary.append({"per_switch": d, "machines": p, "topologies": len(members),
                        "mean_height": average, "min_height": min(heights),
                        "max_height": max(heights), "deviation": deviation(heights),
                        "mean_switch_depth": mean([r["switch_depth"] for r in members]),
                        "complete_height": complete,
                        "ratio": average / complete if complete else None,
                        "within_factor_two": average <= 2 * complete})
    return summary


HEIGHT_COLUMNS = ("per_switch", "machines", "topology", "seed", "switches",
                  "switch_depth", "height", "complete_height", "seconds")
SUMMARY_COLUMNS = ("per_switch", "machines", "topologies", "mean_height", "min_height",
                   "max_height", "deviation", "mean_switch_depth", "complete_height",
                   "ratio", "within_factor_two")


def height_report(summary, switch_tree: str) -> str:
    """The Figure 5 table and the verdict on the factor-of-two claim (markdown)."""
    lines = ["# Figure 5 (seed 004 §4.1.2): heights of Algorithm 2 trees", "",
             f"Random clusters (switch trees: {switch_tree}); height in edges; complete "
             "binary tree height floor(log2 P).", "",
             "| machines/switch | machines | topologies | mean height | min | max | "
             "switch depth | complete | ratio | within 2x |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for s in summary:
        ratio = "-" if s["ratio"] is None else decimal_text(s["ratio"], 3)
        lines.append(f"| {s['per_switch']} | {s['machines']} | {s['topologies']} | "
                     f"{decimal_text(s['mean_height'], 2)} | {s['min_height']} | "
                     f"{s['max_height']} | {decimal_text(s['mean_switch_depth'], 2)} | "
                     f"{s['complete_height']} | {ratio} | "
                     f"{'yes' if s['within_factor_two'] else 'NO'} |")
    failed = [s for s in summary if not s["within_factor_two"]]
    lines.append("")
    if failed:
        where = ", ".join(f"{s['machines']} machines at {s['per_switch']}/switch"
                          for s in failed)
        lines += [f"Claim 'within a factor of two of the complete binary tree': "
                  f"FAILS for {where}.", "",
                  "Switch depth is the mean number of switch hops from the root's switch "
                  "to the farthest switch. Algorithm 2 numbers the machines switch by "
                  "switch in depth-first order and only joins contention-free "
                  "sub-ranges, so its trees deepen with the switch tree; the paper does "
                  "not say how deep its random switch trees were. Compare with "
                  "`--switch-tree attach` (each new switch joins a random earlier one: "
                  "shallower trees)."]
    else:
        lines.append("Claim 'within a factor of two of the complete binary tree': holds "
                     "for every size.")
    return "\n".join(lines) + "\n"


def figure5_plot(summary, path) -> None:
    """Average Algorithm 2 height per density and the complete binary tree, against P."""
    from ..present.plots import pyplot, save

    plt = pyplot(path, "--out")
    fig, ax = plt.subplots(figsize=(7, 4))
    for d in sorted({s["per_switch"] for s in summary}):
        points = [s for s in summary if s["per_switch"] == d]
        ax.plot([s["machines"] for s in points], [float(s["mean_height"]) for s in points],
                marker="o", label=f"Algorithm 2, {d} machines/switch")
    sizes = sorted({s["machines"] for s in summary})
    ax.plot(sizes, [complete_binary_height(p) for p in sizes], marker="s", color="0.3",
            label="complete binary tree")
    ax.plot(sizes, [2 * complete_binary_height(p) for p in sizes], linestyle="--",
            color="0.6", label="twice the complete binary tree")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("machines")
    ax.set_ylabel("tree height")
    ax.set_title("004 Figure 5: contention-free binary trees (Algorithm 2)")
    ax.legend(loc="upper left")
    fig.tight_layout()
    save(plt, fig, path)


def write_height_outputs(rows, summary, out: Path, switch_tree: str,
                         plots: bool = True) -> list[Path]:
    """heights.csv, summary.csv, report.md and (with ``plots``) figure5.png in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "heights.csv", out / "summary.csv", out / "report.md"]
    write_csv(written[0], HEIGHT_COLUMNS, ([r[c] for c in HEIGHT_COLUMNS] for r in rows))
    write_csv(written[1], SUMMARY_COLUMNS, ([s[c] for c in SUMMARY_COLUMNS]
                                            for s in summary))
    from ..fileio import atomic_write_text

    atomic_write_text(written[2], height_report(summary, switch_tree))
    if plots:
        written.append(out / "figure5.png")
        figure5_plot(summary, written[-1])
    return written


# -- Table 3 ----------------------------------------------------------------------------

def table3_rows() -> list[dict]:
    """For each network and message size: our Model choices (formula (1) with P = 32;
    formula (2) on Algorithm 2's tree for the assumed topology (4)) beside the paper's."""
    from ..ethernet.generators import switch_chain
    from ..ethernet.plogp import load_table
    from ..ethernet.segments import best_segment, choose, linear_time
    from ..ethernet.trees import contention_free_binary_tree

    tree = contention_free_binary_tree(switch_chain(TOPOLOGY4, "assumed topology (4)"))
    rows = []
    for network, paper in PAPER_TABLE3.items():
        table = load_table(network)
        for n, kb in enumerate(TABLE3_KB):
            msize = kb * 1024
            linear = choose(lambda m: linear_time(TABLE3_MACHINES, table, msize, m),
                            table, msize).best
            binary = best_segment(tree, table, msize).best
            rows.append({"network": network, "message_kb": kb,
                         "linear_model": linear.segment,
                         "paper_linear_model": paper["linear_model"][n],
                         "paper_linear_actual": paper["linear_actual"][n],
                         "binary_model": binary.segment, "binary_A": binary.A,
                         "binary_B": binary.B,
                         "paper_binary_model": paper["binary_model"][n],
                         "paper_binary_actual": paper["binary_actual"][n],
                         "linear_time": linear.time, "binary_time": binary.time})
    return rows


TABLE3_COLUMNS = ("network", "message_kb", "linear_model", "paper_linear_model",
                  "paper_linear_actual", "binary_model", "binary_A", "binary_B",
                  "paper_binary_model", "paper_binary_actual", "linear_time",
                  "binary_time")


def table3_report(rows) -> str:
    """Table 3 with our Model columns beside the paper's (markdown)."""
    lines = ["| network | message | linear: ours | paper model | paper actual | "
             "binary: ours (A, B) | paper model | paper actual |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        def mark(ours, paper):
            return f"**{ours}**" if ours != paper else str(ours)
        size = f"{r['message_kb'] // 1024}MB" if r["message_kb"] >= 1024 else \
            f"{r['message_kb']}KB"
        lines.append(f"| {r['network']} | {size} | "
                     f"{mark(r['linear_model'], r['paper_linear_model'])} | "
                     f"{r['paper_linear_model']} | {r['paper_linear_actual']} | "
                     f"{mark(r['binary_model'], r['paper_binary_model'])} "
                     f"({r['binary_A']}, {r['binary_B']}) | {r['paper_binary_model']} | "
                     f"{r['paper_binary_actual']} |")
    same_linear = sum(r["linear_model"] == r["paper_linear_model"] for r in rows)
    same_binary = sum(r["binary_model"] == r["paper_binary_model"] for r in rows)
    lines += ["", f"Linear tree, formula (1), P = {TABLE3_MACHINES}: {same_linear} of "
              f"{len(rows)} Model entries equal the paper's.",
              f"Binary tree, formula (2) on Algorithm 2's tree for the assumed topology (4) "
              f"(4 switches in a chain, 8 machines each): {same_binary} of {len(rows)}.",
              "Bold: differs from the paper's Model column."]
    return "\n".join(lines) + "\n"


def write_table3_outputs(rows, out: Path) -> list[Path]:
    """table3.csv (exact predicted times in ms, p/q) and table3.md in ``out``."""
    from ..fileio import atomic_write_text

    out.mkdir(parents=True, exist_ok=True)
    written = [out / "table3.csv", out / "table3.md"]
    write_csv(written[0], TABLE3_COLUMNS, ([r[c] for c in TABLE3_COLUMNS] for r in rows))
    atomic_write_text(written[1], "# Table 3 (seed 004 §5.1): predicted segment sizes\n\n"
                      + table3_report(rows))
    return written

