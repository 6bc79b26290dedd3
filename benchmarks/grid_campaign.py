"""Benchmark: the grid campaign of seed 001 §6 (`steady experiment grid`).

Two tables.

1. Per grid of 001 Table 2 (integer microseconds, L and g per pair): the time of the eight
   heuristics together (Flat Tree ... binomial, each with its postconditions) and of the
   exact optimum (branch and bound started from the best heuristic), median over
   ``--repeats`` runs of the same ``--grids`` grids, the search nodes, and the peak
   memory of one pass over the grids (tracemalloc: Python objects only).
2. The campaign itself (`steady.experiments.grid.run_campaign`, what the command runs, without
   writing files): median wall time over ``--repeats`` runs, and its projection to the
   paper's 10000 iterations (the time is linear in the iterations).

    python benchmarks/grid_campaign.py [--sizes 2 5 8 10 20 50] [--grids 40] [--repeats 3]
        [--campaign 2..10] [--iterations 500] [--jobs 2]
"""

from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc


def per_grid(n: int, grids: int, repeats: int, exact_max: int) -> dict:
    from steady.grid.draws import table2_grid
    from steady.grid.heuristics import HEURISTICS
    from steady.grid.optimum import optimal_schedule

    batch = [table2_grid(n, seed=99, iteration=i) for i in range(grids)]
    heuristic_runs, exact_runs, nodes = [], [], []
    tracemalloc.start()
    for g in batch:     # one untimed pass, for the peak memory only
        upper = min(f(g).makespan for _, f in HEURISTICS.values())
        if n <= exact_max:
            optimal_schedule(g, upper=upper, max_clusters=n)
    peak = tracemalloc.get_traced_memory()[1] / 2 ** 10
    tracemalloc.stop()
    for _ in range(repeats):
        start = time.perf_counter()
        uppers = [min(f(g).makespan for _, f in HEURISTICS.values()) for g in batch]
        heuristic_runs.append((time.perf_counter() - start) / grids)
        if n <= exact_max:
            start = time.perf_counter()
            nodes = [optimal_schedule(g, upper=u, max_clusters=n).nodes
                     for g, u in zip(batch, uppers)]
            exact_runs.append((time.perf_counter() - start) / grids)
    return {"heuristics": statistics.median(heuristic_runs),
            "exact": statistics.median(exact_runs) if exact_runs else None,
            "nodes": (statistics.median(nodes), max(nodes)) if nodes else None,
            "peak_kib": peak}


def campaign_seconds(sizes, iterations: int, jobs: int, repeats: int) -> float:
    from steady.experiments.grid import run_campaign

    runs = []
    for _ in range(repeats):
        runs.append(run_campaign(sizes, iterations, seed=0, jobs=jobs, quiet=True)[3])
    return statistics.median(runs)


def main() -> None:
    from steady.experiments.grid import parse_clusters

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2, 5, 8, 10, 20, 50])
    parser.add_argument("--grids", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--exact-max", type=int, default=10)
    parser.add_argument("--campaign", default="2..10")
    parser.add_argument("--iterations", type=int, default=500)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()

    print(f"per grid (001 Table 2), median of {args.repeats} runs over {args.grids} grids")
    print(f"{'clusters':>8}  {'8 heuristics':>13}  {'exact optimum':>13}  "
          f"{'nodes median/max':>16}  {'peak KiB':>8}")
    for n in args.sizes:
        r = per_grid(n, args.grids, args.repeats, args.exact_max)
        exact = f"{1000 * r['exact']:10.2f} ms" if r["exact"] is not None else f"{'-':>13}"
        nodes = f"{r['nodes'][0]:g}/{r['nodes'][1]}" if r["nodes"] else "-"
        print(f"{n:>8}  {1000 * r['heuristics']:10.2f} ms  {exact}  {nodes:>16}  "
              f"{r['peak_kib']:>8.0f}", flush=True)

    sizes = parse_clusters(args.campaign)
    seconds = campaign_seconds(sizes, args.iterations, args.jobs, args.repeats)
    print()
    print(f"campaign --clusters {args.campaign} --iterations {args.iterations} "
          f"--jobs {args.jobs} (exact optimum up to 10 clusters): median "
          f"{seconds:.1f} s of {args.repeats} runs; projected to 10000 iterations: "
          f"{seconds * 10000 / args.iterations / 60:.1f} min")


if __name__ == "__main__":
    main()
