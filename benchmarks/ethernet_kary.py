"""Benchmark: seed 004's k-ary extension (issue 22) on Figure 5's random clusters, timed.

For k = 3 and 4, 256 and 1024 machines, 8 and 16 machines per switch: ``--runs``
random clusters each (``random_cluster(P, per_switch, seed)``, seeds 0, 1, ...), the
median time of ``contention_free_kary_tree`` on one cluster (the bounds, the programme,
the rebuilt tree and its contention check), the median height, the median height of
Algorithm 2's tree on the same clusters, and the complete k-ary tree's height (a lower
bound for any tree of degree <= k).  Target (issue 22): fast at 1024 machines.

    python benchmarks/ethernet_kary.py [--runs 5] [--machines 256 1024] [--k 3 4]
"""

from __future__ import annotations

import argparse
import statistics
import time

from steady.ethernet.generators import random_cluster
from steady.ethernet.trees import contention_free_binary_tree, contention_free_kary_tree


def complete_height(machines: int, k: int) -> int:
    """The least height of a tree of degree <= k over ``machines`` nodes."""
    height, reach, level = 0, 1, 1
    while reach < machines:
        level *= k
        reach += level
        height += 1
    return height


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--machines", type=int, nargs="+", default=[256, 1024])
    ap.add_argument("--k", type=int, nargs="+", default=[3, 4])
    args = ap.parse_args()
    print(f"{'per_switch':>10} {'machines':>8} {'k':>2} {'median s':>9} {'max s':>7} "
          f"{'median h':>9} {'Alg. 2 h':>9} {'complete':>9}")
    for per_switch in (8, 16):
        for machines in args.machines:
            clusters = [random_cluster(machines, per_switch, seed)
                        for seed in range(args.runs)]
            binary = [contention_free_binary_tree(c).height for c in clusters]
            for k in args.k:
                seconds, heights = [], []
                for cluster in clusters:
                    start = time.perf_counter()
                    tree = contention_free_kary_tree(cluster, k)
                    seconds.append(time.perf_counter() - start)
                    heights.append(tree.height)
                print(f"{per_switch:>10} {machines:>8} {k:>2} "
                      f"{statistics.median(seconds):>9.2f} {max(seconds):>7.2f} "
                      f"{statistics.median(heights):>9} {statistics.median(binary):>9} "
                      f"{complete_height(machines, k):>9}", flush=True)


if __name__ == "__main__":
    main()
