"""Benchmark: the targets of issue 41 for the finite horizon and the short periods.

1. `steady simulate P --horizon 100000 --json --quiet` at an effort level, run as the
   command (a fresh process each time), on samples/random-50.json, samples/mesh-65.json
   and generated random and mesh platforms of 50 and 65 nodes (seeds 1..S), and with
   `--big` on 200-node ones: messages delivered by K over Lemma 7's K·TP* (goal >= 0.99),
   what was chosen, the wall time (median of R runs; goal: <= 20 s at 50-65 nodes and
   <= 120 s at 200 at the default effort, <= 5 min thorough) and the CPU time of the
   process (wall time on a shared machine measures the others too).
2. `steady schedule P --max-messages 1000` on 65-node meshes and random platforms (goal:
   certified ratio >= 0.999 in <= 3 s).

    python benchmarks/horizon.py [--effort default] [--seeds 3] [--runs 3] [--big]
                                 [--skip-simulate] [--skip-schedule]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def platforms(seeds: int, sizes, samples: bool = True):
    """(label, path) of the platforms measured, written to a temporary folder."""
    from steady.generators import mesh_platform, random_platform

    out = []
    if samples:
        out += [("samples/random-50", ROOT / "samples" / "random-50.json"),
                ("samples/mesh-65", ROOT / "samples" / "mesh-65.json")]
    folder = Path(tempfile.mkdtemp(prefix="steady-horizon-"))
    for n in sizes:
        for seed in range(1, seeds + 1):
            for kind, make in (("random", lambda: random_platform(n, 0.1, seed=seed)),
                               ("mesh", lambda: mesh_platform(n, seed=seed))):
                path = folder / f"{kind}-{n}-s{seed}.json"
                path.write_text(json.dumps(make().to_dict()))
                out.append((f"{kind} {n} s{seed}", path))
    return out


def timed(argv) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, stdout) of ``steady argv`` in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "steady", *map(str, argv)],
                          capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"steady {' '.join(map(str, argv))} failed: {done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def simulate(args) -> None:
    sizes = [50, 65] + ([200] if args.big else [])
    print(f"steady simulate P --horizon {args.horizon} --effort {args.effort}: "
          f"delivered / (K·TP*), goal >= 0.99 (load average {os.getloadavg()[0]:.1f})")
    print(f"{'platform':<20} {'delivered':>9} {'/ K·TP*':>8} {'M':>5} {'chosen':<34} "
          f"{'wall s':>7} {'CPU s':>7}")
    ratios, walls, cpus = {}, {}, {}
    for label, path in platforms(args.seeds, sizes):
        runs = [timed(["simulate", path, "--horizon", args.horizon, "--effort",
                       args.effort, "--json", "--quiet"]) for _ in range(args.runs)]
        doc = json.loads(runs[0][2])
        assert all(json.loads(r[2])["delivered"] == doc["delivered"] for r in runs)
        ratio = Fraction(doc["delivered"]) / Fraction(doc["bound"])
        c = doc["choice"]
        chosen = (f"{c['forwarding']}" + (" regrown" if c["regrown"] else "")
                  + (" routed" if c["routed_cleanup"] else "")
                  + (f" W={c['warmup_periods']}" if c.get("warmup_periods") is not None
                     else ""))
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        size = label.split()[1] if label[0] != "s" else "samples"
        ratios.setdefault(size, []).append(ratio)
        walls.setdefault(size, []).append(wall)
        cpus.setdefault(size, []).append(cpu)
        print(f"{label:<20} {doc['delivered']:>9} {float(ratio):>8.5f} "
              f"{c['messages_per_period']:>5} {chosen:<34} {wall:>7.1f} {cpu:>7.1f}",
              flush=True)
    for size in ratios:
        print(f"{size}: median {float(statistics.median(ratios[size])):.5f}, smallest "
              f"{float(min(ratios[size])):.5f}, "
              f"{sum(r >= Fraction(99, 100) for r in ratios[size])}/{len(ratios[size])} "
              f">= 0.99; median wall {statistics.median(walls[size]):.1f} s, median CPU "
              f"{statistics.median(cpus[size]):.1f} s")
    print()


def schedule(args) -> None:
    print(f"steady schedule P --max-messages 1000 --effort {args.effort}: certified "
          f"ratio, goal >= 0.999 in <= 3 s (load average {os.getloadavg()[0]:.1f})")
    print(f"{'platform':<20} {'ratio':>10} {'M':>5} {'wall s':>7} {'CPU s':>7}")
    rows = []
    for label, path in platforms(args.seeds, [65], samples=False):
        out = Path(tempfile.mkdtemp()) / "s.json"
        runs = [timed(["schedule", path, "--max-messages", 1000, "--effort", args.effort,
                       "-o", out, "--json", "--quiet"]) for _ in range(args.runs)]
        doc = json.loads(runs[0][2])
        ratio = Fraction(doc["ratio"])
        wall = statistics.median(r[0] for r in runs)
        rows.append((ratio, wall, statistics.median(r[1] for r in runs)))
        print(f"{label:<20} {float(ratio):>10.6f} {doc['messages_per_period']:>5} "
              f"{wall:>7.1f} {statistics.median(r[1] for r in runs):>7.1f}", flush=True)
    print(f"median ratio {float(statistics.median(r for r, _, _ in rows)):.6f}, smallest "
          f"{float(min(r for r, _, _ in rows)):.6f}; median wall "
          f"{statistics.median(w for _, w, _ in rows):.1f} s, median CPU "
          f"{statistics.median(c for _, _, c in rows):.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--effort", default="default")
    parser.add_argument("--horizon", default="100000")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--big", action="store_true", help="also 200-node platforms")
    parser.add_argument("--skip-simulate", action="store_true")
    parser.add_argument("--skip-schedule", action="store_true")
    args = parser.parse_args()
    if not args.skip_simulate:
        simulate(args)
    if not args.skip_schedule:
        schedule(args)


if __name__ == "__main__":
    main()
