"""Benchmark: `steady schedule P --max-messages 1000` (default effort) on generated
65-node platforms (issue 41's target: certified ratio >= 0.999 on every one, <= 3 s
median wall on a quiet 2-core machine).

For each platform (benchmarks/throughput.py's make_platform: random of density 0.1 and
meshes, seeds FIRST..LAST): the certified ratio (exact, printed rounded down), messages
per period, the wall and CPU seconds (user + system, of the child) of the whole command
in a fresh process (start-up, exact throughput, construction, verifier, atomic write);
then the medians and the platforms below the goal.  ``--keep DIR`` keeps the schedule
files (to compare bytes before and after a change).

    python benchmarks/timed_m1000.py [--seeds 1-10] [--kinds random,mesh] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

GOAL = Fraction(999, 1000)


def run(platform_file: Path, out: Path, m: int) -> tuple[float, float, dict]:
    """(wall s, CPU s, the command's --json summary)."""
    before = os.times()
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "steady", "schedule", str(platform_file),
                           "--max-messages", str(m), "-o", str(out), "--json", "--quiet"],
                          capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - start
    after = os.times()
    if done.returncode != 0:
        raise SystemExit(f"steady schedule {platform_file} failed: {done.stderr}")
    cpu = (after.children_user - before.children_user
           + after.children_system - before.children_system)
    return wall, cpu, json.loads(done.stdout)


def main() -> None:
    from throughput import make_platform

    from steady.numbers import floor_decimal

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1-10", help="FIRST-LAST (default 1-10)")
    parser.add_argument("--kinds", default="random,mesh")
    parser.add_argument("--nodes", type=int, default=65)
    parser.add_argument("--max-messages", type=int, default=1000)
    parser.add_argument("--keep", type=Path, help="keep the schedule files here")
    args = parser.parse_args()
    first, last = (int(x) for x in args.seeds.split("-"))
    work = Path(tempfile.mkdtemp(prefix="steady-m1000-"))
    keep = args.keep or work
    keep.mkdir(parents=True, exist_ok=True)
    print(f"steady schedule P --max-messages {args.max_messages} (default effort), "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'platform':18s} {'ratio':>9s} {'M':>5s} {'wall s':>7s} {'CPU s':>6s}")
    walls, cpus, below = [], [], []
    for seed in range(first, last + 1):
        for kind in args.kinds.split(","):
            name = f"{kind}-{args.nodes}-s{seed}"
            path = work / f"{name}.json"
            path.write_text(json.dumps(make_platform(kind, args.nodes, seed).to_dict()))
            wall, cpu, summary = run(path, keep / f"{name}.schedule.json",
                                     args.max_messages)
            ratio = Fraction(summary["ratio"])
            walls.append(wall)
            cpus.append(cpu)
            if ratio < GOAL:
                below.append(name)
            print(f"{name:18s} {floor_decimal(ratio, 6):>9s} "
                  f"{summary['messages_per_period']:5d} {wall:7.2f} {cpu:6.2f}", flush=True)
    print(f"median wall {statistics.median(walls):.2f} s, median CPU "
          f"{statistics.median(cpus):.2f} s; below {float(GOAL)}: "
          f"{', '.join(below) if below else 'none'} ({len(below)}/{len(walls)})")


if __name__ == "__main__":
    main()
