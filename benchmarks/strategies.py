"""Benchmark: generation speed of the public hypothesis strategies (issue 21 targets:
200 platforms of <= 10 nodes in <= 1 s; 100 valid schedules on <= 8-node platforms in
<= 2 s).

Each row runs a hypothesis test that draws ``count`` examples and does nothing with them
(generation phase only, no database, no deadline), ``--repeats`` times; it prints the
median wall and CPU (process) time, the ratio of the median wall time to the target,
and the peak memory of one more run (tracemalloc; Python objects only).  On a loaded machine
quote the CPU time too: wall time counts the other processes' share of the cores.

    python benchmarks/strategies.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc

from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from steady.strategies import (TREE_FAMILIES, platforms, platforms_with_tree,
                               schedule_corruptions, schedules)

#: (what, strategy, examples, target seconds or None)
ROWS = [
    ("platforms(max_nodes=10)", platforms(max_nodes=10), 200, 1.0),
    ("schedules(platforms(max_nodes=8))", schedules(platforms(max_nodes=8)), 100, 2.0),
    ("platforms(max_nodes=10, dag=True)", platforms(max_nodes=10, dag=True), 200, None),
    ("platforms_with_tree(max_nodes=10), any family",
     platforms_with_tree(max_nodes=10, family=st.sampled_from(TREE_FAMILIES)), 200, None),
    ("schedules(platforms(max_nodes=8), version=2)",
     schedules(platforms(max_nodes=8), version=2), 100, None),
    ("schedule_corruptions(schedules(platforms(max_nodes=8)))",
     schedule_corruptions(schedules(platforms(max_nodes=8))), 100, None),
]


def run_once(strategy, count: int) -> tuple[float, float]:
    @settings(max_examples=count, database=None, deadline=None, phases=[Phase.generate])
    @given(strategy)
    def draw(x):
        pass

    wall, cpu = time.perf_counter(), time.process_time()
    draw()
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    print(f"{'strategy':<58} {'n':>4} {'median s':>9} {'cpu s':>7} {'target':>7} "
          f"{'ratio':>6} {'peak MB':>8}")
    for what, strategy, count, target in ROWS:
        run_once(strategy, 5)                      # warm up: imports, caches
        times = [run_once(strategy, count) for _ in range(args.repeats)]
        tracemalloc.start()                        # a separate run: it slows Python down
        run_once(strategy, count)
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        wall = statistics.median(t for t, _ in times)
        cpu = statistics.median(c for _, c in times)
        goal = f"{target:.1f}" if target else "-"
        ratio = f"{wall / target:.2f}" if target else "-"
        print(f"{what:<58} {count:>4} {wall:>9.3f} {cpu:>7.3f} {goal:>7} {ratio:>6} "
              f"{peak:>8.1f}")


if __name__ == "__main__":
    main()
