"""Benchmark: `steady simulate P --horizon K --effort thorough` in process, per platform:
messages delivered by K, their ratio to K·TP*, what the floor level (`default`) alone
delivers, the CPU seconds (process time, solver threads included: the machine may be
shared, wall time would measure the others too), and where they go, per stage (CPU
seconds / calls, outermost stage only): the cut-count MILP, CP-SAT's port-order search,
list schedules, searched counts, packing, regrowth, routed clean-ups, the list run.

    python benchmarks/thorough.py P.json [P.json ...] [--effort thorough]
                                  [--horizon 100000] [--change '{"deep": 0}']

One process per platform keeps the caches of one from helping the next.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

#: (module, function, stage) wrapped to measure.
STAGES = [("steady.schedule.timed", "searched", "port-order search"),
          ("steady.simulate.choose", "neighbourhood_searched", "port-order LNS"),
          ("steady.schedule.timed", "cut_counts", "cut-count MILP"),
          ("steady.schedule.timed", "list_schedule", "list schedule"),
          ("steady.schedule.timed", "_searched_counts_of", "searched counts"),
          ("steady.schedule.timed", "best_packing", "packing"),
          ("steady.simulate.choose", "regrown", "regrowth"),
          ("steady.simulate.choose", "routed_count", "routed clean-up"),
          ("steady.simulate.choose", "list_plan", "list run")]


def instrumented():
    """{stage: [CPU s, calls]}, filled as the wrapped functions run."""
    import importlib

    spent: dict = defaultdict(lambda: [0.0, 0])
    inside = [0]

    def wrap(module, name, stage):
        f = getattr(module, name)

        def timed(*args, **kwargs):
            if inside[0]:
                return f(*args, **kwargs)
            inside[0] += 1
            start = time.process_time()
            try:
                return f(*args, **kwargs)
            finally:
                spent[stage][0] += time.process_time() - start
                spent[stage][1] += 1
                inside[0] -= 1
        setattr(module, name, timed)

    for module, name, stage in STAGES:
        wrap(importlib.import_module(module), name, stage)
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("platforms", nargs="+")
    parser.add_argument("--effort", default="thorough")
    parser.add_argument("--horizon", default="100000")
    parser.add_argument("--change", default="{}", help="bounds changed, as JSON")
    args = parser.parse_args()
    if len(args.platforms) > 1:
        import subprocess

        for path in args.platforms:
            subprocess.run([sys.executable, __file__, path, "--effort", args.effort,
                            "--horizon", args.horizon, "--change", args.change],
                           check=True)
        return
    spent = instrumented()
    import steady.simulate.choose as choose
    from steady.platform import load_platform
    from steady.schedule.effort import effort as effort_of
    from steady.throughput import throughput

    inner = choose.horizon_choice
    floors = []

    def counted(*a, **k):
        choice = inner(*a, **k)
        floors.append(choice.best.delivered)
        return choice
    choose.horizon_choice = counted
    platform = load_platform(args.platforms[0])[0]
    level = effort_of(args.effort).but(**json.loads(args.change))
    horizon = Fraction(args.horizon)
    start = time.process_time()
    result = throughput(platform, "trees")
    choice = choose.horizon_choice(platform, result, horizon, level)
    seconds = time.process_time() - start
    best = choice.best
    floor = floors[0] if len(floors) > 1 else None
    print(f"{args.platforms[0]}: {best.delivered} "
          f"({float(best.delivered / (horizon * result.throughput)):.5f}), "
          f"floor {floor}, M = {best.max_messages} {best.forwarding} "
          f"regrown {best.regrown or 'no'}, {seconds:.1f} CPU s")
    print("  " + ", ".join(f"{stage} {s:.1f}/{n}" for stage, (s, n) in
                           sorted(spent.items(), key=lambda kv: -kv[1][0])), flush=True)


if __name__ == "__main__":
    main()
