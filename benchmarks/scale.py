"""Benchmark (issue 17): the exact certified throughput, the exact optimal schedule and
the single-tree heuristics on large sparse platforms.

Platforms: :func:`steady.generators.scale_platform` (a random spanning tree plus each
pair of nodes linked with probability 0.1 up to 100 nodes and 6/n beyond, both
directions, integer bandwidths round(N(100, 20)) >= 10, cost 1000/bandwidth), seed 0.

Each measurement runs in a fresh subprocess (its peak RSS is its own) under a time cap.
Prints one row per (size, what): nodes, arcs, what was run (``cuts`` / ``trees``: the
exact throughput by that method; ``schedule``: the exact optimal schedule, verified;
``heuristics``: seed 000's heuristics without the exact best tree), the median wall time
of 3 runs when a run takes < 60 s (else 1 run), peak RSS, trees (of the result or of the
schedule), steps (of the schedule), LP iterations (GLOP), and the share of the time per
phase: float LP, separation / pricing, exact reconstruction, certificate check,
branching, colouring.  Issue 17's targets: throughput 200 nodes <= 5 s, 500 <= 20 s,
1000 <= 60 s, peak RSS <= 2 GB; schedule at 200 nodes <= 60 s; heuristics at 200 nodes
<= 30 s.  Timings depend on the machine's load: quote medians, say the load.

    python benchmarks/scale.py [--sizes 50 65 100 200 500 1000] [--cap 300]
        [--what cuts trees schedule heuristics] [--seed 0] [--schedule-max 200]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time

PHASES = ("float LP", "separation/pricing", "exact", "check", "branching", "colouring")


def _throughput(platform, method):
    from steady.throughput import throughput

    start = time.perf_counter()
    result = throughput(platform, method)
    seconds = time.perf_counter() - start
    assert result.certified and result.certificate.min_tree_cost >= 1
    s = result.stats
    phases = {"float LP": s.get("float_lp_seconds", s.get("float_seconds", 0.0)),
              "separation/pricing": (s.get("separation_seconds", 0.0)
                                     + s.get("pricing_seconds", 0.0)),
              "exact": s.get("exact_seconds", s.get("reconstruct_seconds", 0.0)),
              "check": s.get("check_seconds", 0.0)}
    return seconds, result, phases, s.get("lp_iterations", "")


def run_one(what: str, nodes: int, seed: int) -> dict:
    from steady.generators import scale_platform

    platform = scale_platform(nodes, seed)
    row = {"arcs": len(platform.links), "trees": "", "steps": "", "iterations": ""}
    if what in ("cuts", "trees"):
        seconds, result, phases, iterations = _throughput(platform, what)
        row.update(seconds=seconds, phases=phases, iterations=iterations,
                   trees=len(result.trees) if result.trees else "",
                   throughput=str(result.throughput))
    elif what == "schedule":
        from steady.schedule.periodic import integer_trees, periodic_schedule
        from steady.schedule_file import PriceCertificate
        from steady.verify import verify

        start = time.perf_counter()
        _, result, phases, iterations = _throughput(platform, "trees")
        mark = time.perf_counter()
        trees, scale, _ = integer_trees(platform, result)
        phases["branching"] = time.perf_counter() - mark
        mark = time.perf_counter()
        schedule = periodic_schedule(platform, trees, scale,
                                     PriceCertificate.of(result.certificate))
        phases["colouring"] = time.perf_counter() - mark
        assert schedule.throughput == result.throughput
        mark = time.perf_counter()
        report = verify(platform, schedule)
        assert report.ok, report.violations[:3]
        phases["check"] = phases.get("check", 0.0) + time.perf_counter() - mark
        row.update(seconds=time.perf_counter() - start, phases=phases,
                   iterations=iterations, trees=len(trees), steps=len(schedule.steps))
    elif what == "heuristics":
        from steady.heuristics.registry import run_heuristics
        from steady.throughput import throughput

        start = time.perf_counter()   # what `steady heuristics --best-tree 0` computes
        run_heuristics(platform, "one-port", lp=throughput(platform))
        row.update(seconds=time.perf_counter() - start, phases={})
    else:
        raise SystemExit(f"unknown measurement {what!r}")
    row["maxrss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return row


def measure(what: str, nodes: int, seed: int, cap: float) -> dict | None:
    cmd = [sys.executable, __file__, "--one", what, str(nodes), str(seed)]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=cap)
    except subprocess.TimeoutExpired:
        return None
    if done.returncode != 0:
        raise SystemExit(f"{what} at {nodes} nodes failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 65, 100, 200, 500, 1000])
    parser.add_argument("--what", nargs="+", default=["cuts", "trees", "schedule", "heuristics"])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cap", type=float, default=300.0, help="seconds per run")
    parser.add_argument("--schedule-max", type=int, default=200,
                        help="largest size for the trees and schedule rows")
    parser.add_argument("--one", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        what, nodes, seed = args.one
        print(json.dumps(run_one(what, int(nodes), int(seed)), default=str))
        return
    header = (f"{'nodes':>5} {'arcs':>5} {'method':<11}{'seconds':>9}{'RSS MB':>8}"
              f"{'trees':>6}{'steps':>6}{'LP it':>8}  share: " + " / ".join(PHASES))
    print(header)
    print("-" * len(header))
    for nodes in args.sizes:
        for what in args.what:
            if what in ("trees", "schedule") and nodes > args.schedule_max:
                continue
            runs = []
            first = measure(what, nodes, args.seed, args.cap)
            if first is not None:
                runs.append(first)
                if first["seconds"] < 60:
                    runs += [r for r in (measure(what, nodes, args.seed, args.cap)
                                         for _ in range(2)) if r is not None]
            if not runs:
                print(f"{nodes:>5} {'':>5} {what:<11}{'> ' + str(int(args.cap)):>9}",
                      flush=True)
                continue
            seconds = statistics.median(r["seconds"] for r in runs)
            last = runs[-1]
            total = last["seconds"] or 1.0
            shares = " / ".join(f"{100 * last['phases'][p] / total:.0f}%"
                                if p in last["phases"] else "-" for p in PHASES)
            print(f"{nodes:>5} {last['arcs']:>5} {what:<11}{seconds:>9.2f}"
                  f"{max(r['maxrss_mb'] for r in runs):>8.0f}{last['trees']!s:>6}"
                  f"{last['steps']!s:>6}{last['iterations']!s:>8}  {shares}", flush=True)


if __name__ == "__main__":
    main()
