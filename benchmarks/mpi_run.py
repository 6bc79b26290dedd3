"""Benchmark: steady's schedule run as an MPI program (issue 20) against K x MPI_Bcast and
a pipelined chain, under the same emulation (`steady run --compare`), on this machine.

Platforms: 002 Figure 1 (its exact optimal schedule, 2 messages per period), random-10
(samples/random-10.json) and a 20-node mesh (mesh_platform(20, seed=0)); for the last
two, the short period (`steady schedule --max-messages M`) among M in --periods whose
plan for K broadcasts ends first (computed exactly beforehand: the plan's predicted
throughput).  K = 1000 broadcasts of 64 KB, 1 time unit = 1 ms: every rank sleeps until
its transfers' emulated times, so a run lasts about K / throughput milliseconds (the
binomial tree on the mesh: minutes).  Printed: measured throughput (broadcasts per time
unit, the median of --runs runs), the plan's prediction, and the ratio to TP*, for each
algorithm; whether every run delivered every broadcast exactly once, in order.

The machine is shared: with 2 cores and other work running, the ranks' wake-ups take
milliseconds and a 1 ms time unit is the least at which the emulation keeps up; quote
the load (printed) with the numbers.

    python benchmarks/mpi_run.py [--broadcasts 1000] [--runs 1] [--periods 1,2,3,5,10,30]
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


def schedules(tmp: Path, broadcasts: int, periods: list[int]):
    """(label, schedule file, note) for the three platforms."""
    from steady import default_platform
    from steady.generators import mesh_platform
    from steady.platform import Platform
    from steady.simulate.choose import broadcast_plan
    from steady.schedule.periodic import optimal_schedule
    from steady.schedule.timed import timed_schedule
    from steady.throughput import throughput

    figure1 = default_platform()
    path = tmp / "figure1.json"
    optimal_schedule(figure1, throughput(figure1, "trees"))[0].write(path)
    yield "figure1", path, "exact v1, M = 2"
    for label, platform in (("random-10", Platform.from_file(ROOT / "samples/random-10.json")),
                            ("mesh-20", mesh_platform(20, seed=0))):
        result = throughput(platform, "trees")
        best = None
        for m in periods:
            schedule = timed_schedule(platform, result, m)[0]
            if schedule.messages_per_period > broadcasts:
                continue
            predicted = broadcast_plan(schedule, broadcasts).throughput
            if best is None or predicted > best[0]:
                best = (predicted, m, schedule)
        path = tmp / f"{label}.json"
        best[2].write(path)
        yield label, path, (f"v2, --max-messages {best[1]} (M = "
                            f"{best[2].messages_per_period}, ratio "
                            f"{float(best[2].throughput / result.throughput):.4f})")


def run(path: Path, broadcasts: int, ranks: int) -> dict:
    from steady.run.launch import OVERSUBSCRIBED, cores, mpiexec_path

    env = dict(os.environ)
    if ranks > cores():
        env.update(OVERSUBSCRIBED)
    done = subprocess.run([mpiexec_path(), "-n", str(ranks), sys.executable, "-m",
                           "steady", "run", str(path), "--broadcasts", str(broadcasts),
                           "--time-unit", "1ms", "--compare", "--json"],
                          capture_output=True, text=True, cwd=ROOT, env=env)
    if done.returncode != 0:
        raise SystemExit(f"steady run {path} failed ({done.returncode}): {done.stderr}")
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--broadcasts", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--periods", default="1,2,3,5,10,30")
    args = parser.parse_args()
    periods = [int(m) for m in args.periods.split(",")]
    tmp = Path(tempfile.mkdtemp(prefix="steady-mpi-bench-"))
    print(f"K = {args.broadcasts}, 64 KB messages, 1 time unit = 1 ms, {args.runs} run(s) "
          f"each (median); load average at start {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores")
    print("| platform | schedule | algorithm | delivered | measured /unit | predicted "
          "/unit | measured / TP* | measured / predicted | run s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for label, path, note in schedules(tmp, args.broadcasts, periods):
        from steady.schedule_file import Schedule

        ranks = len(Schedule.from_file(path).platform.nodes)
        docs, seconds = [], []
        for _ in range(args.runs):
            began = time.monotonic()
            docs.append(run(path, args.broadcasts, ranks))
            seconds.append(time.monotonic() - began)
        optimum = Fraction(docs[0]["optimum"])
        for k, first in enumerate(docs[0]["compare"]):
            rows = [d["compare"][k] for d in docs]
            measured = statistics.median(Fraction(r["measured_throughput"]) for r in rows)
            predicted = Fraction(first["predicted_throughput"])
            delivered = "yes" if all(r["delivered_ok"] for r in rows) else "NO"
            print(f"| {label} ({ranks} ranks) | {note} | {first['algorithm']} | "
                  f"{delivered} | {float(measured):.5f} | {float(predicted):.5f} | "
                  f"{float(measured / optimum):.4f} | {float(measured / predicted):.4f} | "
                  f"{statistics.median(seconds):.0f} |", flush=True)
        for name, why in docs[0].get("compare_skipped", {}).items():
            print(f"| {label} | {note} | {name} | not run: {why} | | | | | |")


if __name__ == "__main__":
    main()
