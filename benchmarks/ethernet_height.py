"""Benchmark: the Figure 5 campaign of seed 004 (280 runs of Algorithm 2), timed.

Sizes 16..1024 machines, 8 and 16 machines per switch, 20 random clusters each, as
``steady experiment ethernet-height --jobs 2`` runs it.  Target (issue 7): <= 10 minutes
on 2 cores.

Prints the wall time of each campaign run and their median; then, per size and density,
the median time of Algorithm 2 on one cluster (measured inside the workers), the
median height, and the peak memory of Algorithm 2 on the first cluster (tracemalloc,
in this process).  The baseline is Figure 4 as written (O(P^4), explicit trees):
``algorithm2_reference`` on the first cluster of the small sizes (skipped above 64
machines), and the ratio of its time to the fast version's on that same cluster.

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


def baseline(machines: int, per_switch: int) -> tuple[str, str]:
    """(seconds of Figure 4 as written, its ratio to the fast version) on one cluster."""
    if machines > 64:
        return "-", "-"
    cluster = random_cluster(machines, per_switch, 0)
    start = time.perf_counter()
    algorithm2_reference(cluster)
    reference = time.perf_counter() - start
    start = time.perf_counter()
    contention_free_binary_tree(cluster)
    fast = time.perf_counter() - start
    return f"{reference:.2f}", f"{reference / fast:.0f}x"


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
          f"{'peak MiB':>9} {'Figure 4 s':>10} {'ratio':>7}")
    for d in ethernet.FIGURE5_PER_SWITCH:
        for p in ethernet.FIGURE5_MACHINES:
            mine = [r for r in rows if (r["per_switch"], r["machines"]) == (d, p)]
            reference, ratio = baseline(p, d)
            print(f"{d:>10} {p:>8} {statistics.median(r['seconds'] for r in mine):>9.3f} "
                  f"{statistics.median(r['height'] for r in mine):>9} "
                  f"{peak_mib(p, d):>9.1f} {reference:>10} {ratio:>7}", flush=True)


if __name__ == "__main__":
    main()
