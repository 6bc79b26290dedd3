"""Benchmark: the full random campaign of seed 000 Table 2 (5 sizes x 5 densities x 10
platforms = 250 platforms; every heuristic in both models, the exact MTP optimum, the
multi-port bound), as ``steady experiment stp`` runs it.

Prints the wall time of the whole campaign for each run (target: <= 5 minutes on 2 cores
with ``--jobs 2``) and, per size, the median over its platforms of the time of each part
(exact LP, one-port heuristics, multi-port heuristics, multi-port bound) as measured
inside the workers.

    python benchmarks/stp_campaign.py [--jobs 2] [--runs 1] [--nodes 10 20 30 40 50]
"""

from __future__ import annotations

import argparse
import statistics
import time

from steady.experiments import stp
from steady.experiments.runner import parallel_map

PARTS = [("lp", "seconds_lp"), ("heur 1-port", "seconds_heuristics:one-port"),
         ("heur multi", "seconds_heuristics:multi-port"),
         ("mp bound", "seconds_multiport_bound")]


def campaign(nodes, jobs: int) -> tuple[float, list[dict]]:
    todo = stp.tasks("random", nodes, stp.TABLE2_DENSITIES, 10)
    start = time.perf_counter()
    rows = parallel_map(stp.evaluate, todo, jobs=jobs, quiet=True)
    return time.perf_counter() - start, rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--nodes", type=int, nargs="+", default=list(stp.TABLE2_NODES))
    args = ap.parse_args()
    totals = []
    for _ in range(args.runs):
        seconds, rows = campaign(args.nodes, args.jobs)
        totals.append(seconds)
        print(f"campaign: {len(rows)} platforms, jobs {args.jobs}: {seconds:.1f} s",
              flush=True)
    print(f"median over {args.runs} run(s): {statistics.median(totals):.1f} s "
          f"(target 300 s)\n")
    print(f"{'nodes':>5} " + " ".join(f"{label:>12}" for label, _ in PARTS)
          + "   (median seconds per platform)")
    for n, members in stp.group(rows, "nodes").items():
        cells = [statistics.median(r[key] for r in members) for _, key in PARTS]
        print(f"{n:>5} " + " ".join(f"{c:>12.3f}" for c in cells))


if __name__ == "__main__":
    main()
