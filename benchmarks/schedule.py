"""Benchmark: the whole `steady schedule` pipeline (verified) on the platforms of
benchmarks/throughput.py.

For each platform: exact throughput (tree column generation, whose trees are reused),
integer trees, weighted edge colouring, the period, the independent verifier, and the
JSON text of the file.  Prints per (kind, size) the median wall time of the whole
command ``steady schedule PLATFORM -o FILE --quiet`` in a fresh process (start-up,
imports and the atomic, fsynced write included), of the pipeline in process and of
each stage, the number of trees against |V|^3+|E| (002 Thm 5) and 2|V|-1 (basis),
the number of matchings against |E| (Thm 6), the period's digits and the file size.

    python benchmarks/schedule.py [--sizes 30 65] [--seeds 5] [--kinds random mesh]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from throughput import make_platform  # noqa: E402  (same platforms as the LP benchmark)


def measure(platform, method: str) -> dict:
    from steady.numbers import many_digits
    from steady.schedule.periodic import optimal_schedule
    from steady.throughput import throughput
    from steady.verify import verify

    t0 = time.perf_counter()
    result = throughput(platform, method)
    t1 = time.perf_counter()
    schedule, stats = optimal_schedule(platform, result)
    t2 = time.perf_counter()
    report = verify(platform, schedule)
    t3 = time.perf_counter()
    text = schedule.to_json()
    t4 = time.perf_counter()
    assert report.ok, report.violations[:3]
    with many_digits():
        digits = len(str(schedule.period.numerator))
    return {"total": t4 - t0, "lp": t1 - t0, "build": t2 - t1, "verify": t3 - t2,
            "write": t4 - t3, "trees": stats["trees"], "tree_bound": stats["tree_bound"],
            "basis_bound": stats["basis_bound"], "matchings": stats["matchings"],
            "edges": stats["matching_bound"], "digits": digits, "bytes": len(text)}


def command_seconds(platform) -> float:
    """Wall time of the whole command, as a user runs it."""
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "platform.json"
        platform.write(source)
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "steady", "schedule", str(source), "-o",
                        str(Path(tmp) / "schedule.json"), "--quiet"], check=True,
                       stdout=subprocess.DEVNULL)
        return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[30, 65])
    parser.add_argument("--kinds", nargs="+", default=["random", "mesh"])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--method", default="trees")
    args = parser.parse_args()
    cols = ("kind", "nodes", "command s", "total s", "lp s", "build s", "verify s", "write s",
            "trees", "|V|^3+|E|", "2|V|-1", "matchings", "|E|", "period digits", "MB")
    print("  ".join(cols))
    for kind in args.kinds:
        for nodes in args.sizes:
            runs = []
            for seed in range(args.seeds):
                platform = make_platform(kind, nodes, seed)
                runs.append({**measure(platform, args.method),
                             "command": command_seconds(platform)})
            med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
            print(f"{kind}  {nodes}  {med['command']:.2f}  {med['total']:.2f}  {med['lp']:.2f}  {med['build']:.2f}  "
                  f"{med['verify']:.2f}  {med['write']:.2f}  {med['trees']:.0f}  "
                  f"{med['tree_bound']:.0f}  {med['basis_bound']:.0f}  {med['matchings']:.0f}  "
                  f"{med['edges']:.0f}  {med['digits']:.0f}  {med['bytes'] / 1e6:.2f}",
                  flush=True)


if __name__ == "__main__":
    main()
