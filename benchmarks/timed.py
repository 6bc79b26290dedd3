"""Benchmark: timed short-period schedules (issue 24), `steady schedule --max-messages M`.

For each platform and M: the certified ratio to the optimum (exact, printed rounded
down), messages per period, transfers, file size, the median wall time of the whole
command in a fresh process (start-up, exact throughput, construction, the independent
verifier, the atomic write) and of `steady verify` on the file it wrote.

    python benchmarks/timed.py [--runs 3] [--seeds 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def platforms(seeds: int):
    """(label, platform file, M, goal): the issue's table."""
    from steady.generators import mesh_platform, random_platform

    tmp = Path(tempfile.mkdtemp(prefix="steady-timed-"))
    rows = [("samples/mesh-65.json", ROOT / "samples/mesh-65.json", 1000, "0.999"),
            ("samples/random-50.json", ROOT / "samples/random-50.json", 1000, "0.997"),
            ("samples/random-50.json", ROOT / "samples/random-50.json", 10000, "0.9998")]
    for seed in range(1, seeds + 1):
        for label, platform, m, goal in (
                (f"random 65 (d 0.1) s{seed}", random_platform(65, 0.1, seed=seed), 1000,
                 "0.997"),
                (f"random 50 (d 0.1) s{seed}", random_platform(50, 0.1, seed=seed), 1000,
                 "0.997"),
                (f"mesh 8 (decimal bw) s{seed}", mesh_platform(8, seed=seed), 100, "0.99")):
            path = tmp / f"{label.replace(' ', '_')}.json"
            path.write_text(json.dumps(platform.to_dict()))
            rows.append((label, path, m, goal))
    return rows


def timed_run(argv) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "steady", *argv], capture_output=True,
                          text=True, cwd=ROOT)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"steady {' '.join(map(str, argv))} failed: {done.stderr}")
    return seconds, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    out = Path(tempfile.mkdtemp(prefix="steady-timed-out-")) / "schedule.json"
    print("| platform | M | goal | certified ratio | messages | transfers | file KB | "
          "schedule s (median) | verify s (median) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for label, path, m, goal in platforms(args.seeds):
        schedule_s, verify_s = [], []
        for _ in range(args.runs):
            s, text = timed_run(["schedule", str(path), "--max-messages", str(m), "-o",
                                 str(out), "--json", "--quiet"])
            schedule_s.append(s)
            summary = json.loads(text)
            v, _ = timed_run(["verify", str(path), str(out), "--min-ratio",
                              summary["ratio"]])
            verify_s.append(v)
        ratio = Fraction(summary["ratio"])
        print(f"| {label} | {m} | {goal} | {float(ratio):.5f} | "
              f"{summary['messages_per_period']} | {summary['transfers']} | "
              f"{summary['file_bytes'] / 1024:.0f} | {statistics.median(schedule_s):.2f} | "
              f"{statistics.median(verify_s):.2f} |", flush=True)


if __name__ == "__main__":
    main()
