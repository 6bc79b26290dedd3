"""Benchmark: short-period allgather timetables on every collective sample (issue 43's
target: certified ratio >= 0.99 at <= 64 chunks per root per period).

For each ``samples/collectives/*.json`` (or ``--only``): the exact optimum x* (optimum +
certificate + trees, then the independent check), the timetable of at most M chunks
per root per period (``steady schedule --collective allgather --max-messages M`` at an
effort level: its construction, then ``steady verify``'s independent check), its
certified ratio, chunks per root, transfers, and whether ``steady export msccl`` fits
the executor's limits (and passes ``steady verify --msccl``).  Times are medians over
``--repeats`` runs, each in a fresh process; the ratio is the same at every run (no
clock in the construction: asserted).  The load average is printed beside.

    python benchmarks/collective_timetables.py [--repeats 3] [--max-messages 64]
        [--effort default] [--only hetero-cluster mi250-2 ...]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

SAMPLES = Path(__file__).resolve().parent.parent / "samples" / "collectives"

_CHILD = r"""
import json, time
from steady.platform import Platform
from steady.throughput import collective_throughput
from steady.certificate import check_collective
from steady.schedule.collective import collective_schedule
from steady.verify import verify
from steady.runtimes.msccl.export import Refused, export_collective
from steady.runtimes.msccl.check import check_bytes
platform = Platform.from_file({path!r})
t0 = time.perf_counter()
result = collective_throughput(platform, "allgather")
t1 = time.perf_counter()
assert check_collective(platform, result).ok
t2 = time.perf_counter()
schedule, stats = collective_schedule(platform, result, {most}, {effort!r})
t3 = time.perf_counter()
report = verify(platform, schedule)
t4 = time.perf_counter()
assert report.ok and report.ratio == stats["ratio"]
try:
    e = export_collective(schedule)
    msccl = "ok" if check_bytes(e.text.encode(), "b.xml", platform).ok else "REJECTED"
    msccl += f" ({{e.most_steps}} steps max)"
except Refused as exc:
    msccl = "refused: " + str(exc).split(": ", 2)[-1].split(";")[0]
print(json.dumps({{"rate": str(result.rate), "optimum_s": t1 - t0, "check_s": t2 - t1,
                  "timetable_s": t3 - t2, "verify_s": t4 - t3,
                  "ratio": str(report.ratio), "ratio_float": float(report.ratio),
                  "chunks": stats["chunks_per_root"], "transfers": stats["transfers"],
                  "compute": len(result.compute), "msccl": msccl}}))
"""


def run_once(path: Path, most: int, effort: str) -> dict:
    code = _CHILD.format(path=str(path), most=most, effort=effort)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--max-messages", type=int, default=64)
    ap.add_argument("--effort", default="default", choices=("fast", "default", "thorough"))
    ap.add_argument("--only", nargs="+", default=None)
    args = ap.parse_args()
    names = args.only or sorted(p.stem for p in SAMPLES.glob("*.json"))
    print(f"allgather timetables, M <= {args.max_messages} chunks per root, effort "
          f"{args.effort}, medians of {args.repeats} runs (fresh process each)")
    print(f"{'sample':>22} {'N':>3} {'x*':>10} {'opt s':>6} {'chk s':>6} {'table s':>7} "
          f"{'verify s':>8} {'chunks':>6} {'ratio':>9} {'exact ratio':>12} "
          f"{'transfers':>9} {'load':>5}  msccl")
    for name in names:
        load = os.getloadavg()[0]
        runs = [run_once(SAMPLES / f"{name}.json", args.max_messages, args.effort)
                for _ in range(args.repeats)]
        load = (load + os.getloadavg()[0]) / 2
        if len({r["ratio"] for r in runs}) != 1:   # pragma: no cover - deterministic
            raise AssertionError(f"{name}: ratios differ between runs")
        r = runs[0]
        med = {k: statistics.median(x[k] for x in runs)
               for k in ("optimum_s", "check_s", "timetable_s", "verify_s")}
        print(f"{name:>22} {r['compute']:>3} {r['rate']:>10} {med['optimum_s']:>6.2f} "
              f"{med['check_s']:>6.2f} {med['timetable_s']:>7.2f} {med['verify_s']:>8.2f} "
              f"{r['chunks']:>6} {r['ratio_float']:>9.6f} {r['ratio']:>12} "
              f"{r['transfers']:>9} {load:>5.2f}  {r['msccl']}", flush=True)


if __name__ == "__main__":
    main()
