"""Benchmark: short periods in synchronous steps (issue 24), `steady schedule --steps`.

For each platform and M (the platforms of benchmarks/timed.py): the timetable's certified
ratio and, on the same trees, the synchronous steps' (exact, printed rounded down), the
number of steps, the plan kept, the median wall time of the whole `steady schedule
--max-messages M --steps` command in a fresh process and of `steady verify` on its file.

    python benchmarks/steps.py [--runs 3] [--seeds 3]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import statistics
import tempfile
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _timed_benchmark():
    """benchmarks/timed.py (its platforms and its fresh-process timer)."""
    spec = importlib.util.spec_from_file_location("timed_benchmark", HERE / "timed.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _down(x: Fraction, places: int = 5) -> str:
    scaled = math.floor(x * 10 ** places)
    return f"{scaled // 10 ** places}.{scaled % 10 ** places:0{places}d}"


def main() -> None:
    from steady.platform import Platform
    from steady.schedule.steps import steps_schedule
    from steady.schedule.timed import timed_schedule
    from steady.throughput import throughput

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    bench = _timed_benchmark()
    out = Path(tempfile.mkdtemp(prefix="steady-steps-out-")) / "schedule.json"
    print("| platform | M | timetable ratio | steps ratio (same trees) | steps | plan | "
          "--steps ratio | schedule --steps s (median) | verify s (median) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for label, path, m, _ in bench.platforms(args.seeds):
        platform = Platform.from_file(path)
        result = throughput(platform, "trees")
        table, stats = timed_schedule(platform, result, m)
        trees = [(tree.parent, tree.weight) for tree in table.trees]
        steps, steps_stats = steps_schedule(platform, result, m, trees=trees)
        schedule_s, verify_s = [], []
        for _ in range(args.runs):
            s, text = bench.timed_run(["schedule", str(path), "--max-messages", str(m),
                                       "--steps", "-o", str(out), "--json", "--quiet"])
            schedule_s.append(s)
            summary = json.loads(text)
            v, _ = bench.timed_run(["verify", str(path), str(out), "--min-ratio",
                                    summary["ratio"]])
            verify_s.append(v)
        print(f"| {label} | {m} | {_down(stats['ratio'])} | {_down(steps_stats['ratio'])} | "
              f"{len(steps.steps)} | {steps_stats['plan']} | "
              f"{_down(Fraction(summary['ratio']))} | {statistics.median(schedule_s):.2f} | "
              f"{statistics.median(verify_s):.2f} |", flush=True)


if __name__ == "__main__":
    main()
