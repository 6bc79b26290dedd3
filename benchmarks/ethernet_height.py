"""Benchmark: the whole Figure 5 campaign of seed 004 (sizes 16..1024 machines, 8 and 16
machines per switch, 20 random clusters each = 280 runs of Algorithm 2), as
``steady experiment ethernet-height --jobs 2`` runs it.  Target (issue 7): <= 10 minutes
on 2 cores.

Prints the wall time of each campaign run and their median; then, per size and density,
the median time of Algorithm 2 on one cluster (measured inside the workers), the
median height, and the peak memory of Algorithm 2 on the first cluster (tracemalloc,
in this process).  For scale: Figure 4 as written is O(P^4) with explicit trees;
``algorithm2_reference`` takes the time printed in the last column at the small sizes
(skipped above 64 machines).

    python benchmarks/ethernet_height.py [--jobs 2] [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc

from steady.ethernet.generators import random_cluster
from steady.ethernet.trees import algorithm2_reference, contention_free_binary_tree
from steady.experiments import ethernet
from steady.experiments.runner import parallel_map


def campaign(jobs: int) -> tuple[float, list[dict]]:
    todo = ethernet.height_tasks(ethernet.FIGURE5_MACHINES, ethernet.FIGURE5_PER_SWITCH,
                                 ethernet.FIGURE5_TOPOLOGIES)
    start = time.perf_counter()
    rows = parallel_map(ethernet.evaluate_height, todo, jobs=jobs, quiet=True)
    return time.perf_counter() - start, rows


def peak_mib(machines: int, per_switch: int) -> float:
    cluster = random_cluster(machines, per_switch, 0)
    tracemalloc.start()
    contention_free_binary_tree(cluster)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2 ** 20


def reference_seconds(machines: int, per_switch: int) -> str:
    if machines > 64:
        return "-"
    cluster = random_cluster(machines, per_switch, 0)
    start = time.perf_counter()
    algorithm2_reference(cluster)
    return f"{time.perf_counter() - start:.2f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    totals = []
    for _ in range(args.runs):
        seconds, rows = campaign(args.jobs)
        totals.append(seconds)
        print(f"campaign: {len(rows)} clusters, jobs {args.jobs}: {seconds:.1f} s",
              flush=True)
    print(f"median over {args.runs} run(s): {statistics.median(totals):.1f} s "
          f"(target 600 s)\n")
    print(f"{'per_switch':>10} {'machines':>8} {'median s':>9} {'median h':>9} "
          f"{'peak MiB':>9} {'Figure 4 s':>10}")
    for d in ethernet.FIGURE5_PER_SWITCH:
        for p in ethernet.FIGURE5_MACHINES:
            mine = [r for r in rows if (r["per_switch"], r["machines"]) == (d, p)]
            print(f"{d:>10} {p:>8} {statistics.median(r['seconds'] for r in mine):>9.3f} "
                  f"{statistics.median(r['height'] for r in mine):>9} "
                  f"{peak_mib(p, d):>9.1f} {reference_seconds(p, d):>10}", flush=True)


if __name__ == "__main__":
    main()
