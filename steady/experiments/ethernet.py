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

This module runs the campaigns; :mod:`.ethernet_report` writes their CSV files,
figures and reports.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass

from ..ethernet.generators import random_cluster, switch_chain
from ..ethernet.plogp import load_table
from ..ethernet.segments import best_segment, choose, linear_time
from ..ethernet.trees import contention_free_binary_tree
from .runner import deviation, mean

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


# -- Table 3 ----------------------------------------------------------------------------

def table3_rows() -> list[dict]:
    """For each network and message size: our Model choices (formula (1) with P = 32;
    formula (2) on Algorithm 2's tree for the assumed topology (4)) beside the paper's."""
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
