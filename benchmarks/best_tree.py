"""Benchmark: the exact best single tree (STP optimum, steady.heuristics.best_tree) per
platform size, in both models, on the campaign's platforms (seed 000 Table 2 random
platforms, Tiers-like platforms of 30 and 65 nodes with 2 links per LAN leaf).

For each size: the median and largest wall time of the search over the platforms of all
densities, how many were proven optimal within the limit, the largest proven gap left,
and the method "auto" chose (exhaustive branch-and-bound for few parent choices, CP-SAT
otherwise).  Also the peak memory of the whole run (tracemalloc; Python objects only).

    python benchmarks/best_tree.py [--limit 10] [--repeats 3] [--nodes 10 20 30 40 50]
"""

from __future__ import annotations

import argparse
import statistics
import tracemalloc
from collections import Counter

from steady.experiments.stp import TABLE2_DENSITIES, platform_of, tasks
from steady.heuristics.best_tree import best_tree


def measure(task, limit: float) -> dict:
    platform = platform_of(task)
    out = {}
    for model in ("one-port", "multi-port"):
        best = best_tree(platform, model, time_limit=limit)
        out[model] = (best.seconds, best.optimal, best.gap, best.method)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=float, default=10.0, help="seconds per search")
    ap.add_argument("--repeats", type=int, default=3, help="platforms per configuration")
    ap.add_argument("--nodes", type=int, nargs="+", default=[10, 20, 30, 40, 50])
    ap.add_argument("--tiers", type=int, nargs="*", default=[30, 65])
    ap.add_argument("--lan-redundancy", type=int, default=2,
                    help="Tiers' RL for the tiers platforms (1: stars, trivially easy)")
    args = ap.parse_args()
    todo = [("random", n, tasks("random", [n], TABLE2_DENSITIES, args.repeats))
            for n in args.nodes]
    todo += [("tiers", n, tasks("tiers", [n], [None], args.repeats * 5,
                                lan_redundancy=args.lan_redundancy))
             for n in args.tiers]
    tracemalloc.start()
    print(f"{'kind':>6} {'nodes':>5} {'model':>10} {'platforms':>9} {'median s':>9} "
          f"{'max s':>7} {'optimal':>8} {'max gap':>8}  method")
    for kind, n, group in todo:
        results = [measure(t, args.limit) for t in group]
        for model in ("one-port", "multi-port"):
            rows = [r[model] for r in results]
            seconds = [s for s, _, _, _ in rows]
            optimal = sum(o for _, o, _, _ in rows)
            gap = max(float(g) for _, _, g, _ in rows)
            methods = Counter(m for _, _, _, m in rows)
            print(f"{kind:>6} {n:>5} {model:>10} {len(rows):>9} "
                  f"{statistics.median(seconds):>9.3f} {max(seconds):>7.2f} "
                  f"{optimal:>4}/{len(rows):<3} {gap:>8.2%}  "
                  + ", ".join(f"{m} {c}" for m, c in methods.most_common()), flush=True)
    print(f"peak traced memory: {tracemalloc.get_traced_memory()[1] / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()
