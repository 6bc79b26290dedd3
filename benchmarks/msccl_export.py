"""Benchmark: every sample's schedules as MSCCL programs (steady export msccl), checked by
steady verify --msccl (issue 44).

For each sample platform and each schedule steady writes for it (the exact optimum,
``--max-messages 4, 16, 64`` timetables, ``--max-messages 4 --steps``): messages per
period, exported or refused (the limit named), threadblocks, steps (and the most in
one threadblock), the first loop's causal makespan and the busiest port per loop as
multiples of the schedule's period, the checker's verdict, and the median time of the
export and of the check over ``--repeats`` runs.  Schedules are built once with
``steady schedule`` (not timed here).

    python benchmarks/msccl_export.py [--samples figure1 mesh-65 ...] [--repeats 3]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import tempfile
import time
from pathlib import Path

from steady.cli import main as steady
from steady.errors import InputError
from steady.runtimes.msccl.check import check_bytes
from steady.runtimes.msccl.export import export_broadcast
from steady.schedule_file import Schedule

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
PLATFORMS = ["figure1", "figure5-dag", "figure1-startup", "figure4-tree", "random-10",
             "random-20-multiport", "random-30", "tiers-30", "mesh-65", "random-50"]
VARIANTS = [(), ("--max-messages", "4"), ("--max-messages", "16"),
            ("--max-messages", "64"), ("--max-messages", "4", "--steps")]


def median_time(f, repeats: int):
    times, value = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        value = f()
        times.append(time.perf_counter() - start)
    return statistics.median(times), value


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", nargs="+", default=PLATFORMS)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    print(f"{'platform':<20} {'schedule':<16} {'M':>4} {'result':<9} {'tbs':>5} "
          f"{'steps':>6} {'max':>4} {'loop/T':>7} {'port/T':>7} {'export s':>9} "
          f"{'check s':>8}")
    with tempfile.TemporaryDirectory() as folder:
        for sample in args.samples:
            for options in VARIANTS:
                path = os.path.join(folder, f"{sample}-{len(options)}-{'-'.join(options)}.json")
                with contextlib.redirect_stdout(io.StringIO()):
                    code = steady(["schedule", str(SAMPLES / f"{sample}.json"), *options,
                                   "-o", path, "--quiet"])
                label = " ".join(o.replace("--max-messages", "M<=") for o in options) or "exact"
                if code != 0:
                    print(f"{sample:<20} {label:<16} schedule failed ({code})")
                    continue
                schedule = Schedule.from_file(path)
                m = schedule.messages_per_period
                shown = m if m < 10 ** 4 else f"{len(str(m))}dg"
                try:
                    t_export, e = median_time(lambda: export_broadcast(schedule, path),
                                              args.repeats)
                except InputError as exc:
                    print(f"{sample:<20} {label:<16} {shown:>4} refused   {exc.reason[:60]}")
                    continue
                t_check, report = median_time(
                    lambda: check_bytes(e.text.encode(), path, schedule.platform),
                    args.repeats)
                verdict = "valid" if report.ok else f"INVALID {len(report.violations)}"
                print(f"{sample:<20} {label:<16} {shown:>4} {verdict:<9} {e.threadblocks:>5} "
                      f"{e.steps:>6} {e.most_steps:>4} "
                      f"{float(e.timing.makespan / e.period):>7.2f} "
                      f"{float(e.timing.busiest_port / e.period):>7.3f} "
                      f"{t_export:>9.3f} {t_check:>8.3f}")


if __name__ == "__main__":
    main()
