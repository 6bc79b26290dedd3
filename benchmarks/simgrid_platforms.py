"""Benchmark: SimGrid platforms (issue 19) -- import, and schedules replayed in SimGrid.

1. ``import``: every platform file of a directory (default: SimGrid's examples/platforms
   when given, else samples/simgrid), ``steady import simgrid --size 1MB`` in a fresh
   process, median wall time of ``--runs``; big platforms with the ``--hosts`` of HOSTS.
   Target: <= 10 s each, or refused in one line naming the feature.
2. ``replay``: for each imported sample, the network-aware schedule (steady schedule)
   and the schedule that ignores the network (the same platform without its network
   section), both replayed in SimGrid (2 periods): the certified ratio of the
   network-aware throughput to the LP bound, simulated / predicted throughput of each,
   and the factor network-aware / one-port (simulated throughputs).
   Targets: simulated / predicted >= 0.99; factor > 1 where the one-port schedule is
   not already optimal in SimGrid.

    python benchmarks/simgrid_platforms.py [import|replay|both] [--dir DIR] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples" / "simgrid"
#: --hosts for the platforms too big to import whole (> 128 hosts).
HOSTS = {"cloud.xml": r"^cb1-",
         "cluster_crossbar.xml": r"^node-([0-9]|[1-9][0-9])\.",
         "g5k.xml": r"^(graphene-(1|2|3|40|41|42|75|76|77|105|106|107)|griffon-(1|2|3|30|"
                    r"31|32|61|62|63))\.nancy"}
#: (sample json, its xml)
REPLAYS = [("small_platform", "small_platform"), ("dogbone", "dogbone"),
           ("cluster_backbone-20", "cluster_backbone"),
           ("data_center-24", "data_center"),
           ("g5k-nancy-21", "g5k"), ("cluster_dragonfly-24", "cluster_dragonfly")]


def import_table(directory: Path, runs: int) -> None:
    print(f"{'platform':<48} {'median s':>8}  result")
    for xml in sorted(directory.glob("*.xml")):
        cmd = [sys.executable, "-m", "steady", "import", "simgrid", str(xml), "--size",
               "1MB", "--json", "--quiet", "-o", str(Path(tempfile.mkdtemp()) / "p.json")]
        if xml.name in HOSTS:
            cmd += ["--hosts", HOSTS[xml.name]]
        times, out = [], None
        for _ in range(runs):
            start = time.perf_counter()
            out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
            times.append(time.perf_counter() - start)
        if out.returncode == 0:
            doc = json.loads(out.stdout)
            result = (f"{doc['nodes']} hosts, {doc['arcs']} arcs, {doc['shared_links']} "
                      f"shared links, dropped {len(doc['dropped_unreachable'])}, "
                      f"inexact {doc['inexact_numbers']}")
        else:
            lines = out.stderr.strip().splitlines()
            result = f"REFUSED ({len(lines)} line): " + (lines[-1][:150] if lines else "")
        name = xml.name + (" (--hosts)" if xml.name in HOSTS else "")
        print(f"{name:<48} {statistics.median(times):8.2f}  {result}", flush=True)


def replay_table() -> None:
    from steady.platform import Platform
    from steady.schedule.periodic import optimal_schedule
    from steady.simgrid.replay import replay
    from steady.simgrid.units import parse_size
    from steady.throughput import throughput

    size = parse_size("1MB")
    print(f"{'platform':<22} {'hosts':>5} {'cert. ratio':>11} {'aware sim/pred':>14} "
          f"{'one-port sim/pred':>17} {'factor':>7} {'schedule s':>10}")
    for name, xml in REPLAYS:
        p = Platform.from_file(SAMPLES / f"{name}.json")
        start = time.perf_counter()
        aware, stats = optimal_schedule(p, throughput(p, "trees"))
        seconds = time.perf_counter() - start
        plain = Platform(p.source, p.links, p.nodes, p.name)
        blind, _ = optimal_schedule(plain, throughput(plain, "trees"))
        a = replay(SAMPLES / f"{xml}.xml", aware, size, periods=2)
        b = replay(SAMPLES / f"{xml}.xml", replace(blind, platform=p), size, periods=2)
        factor = a.simulated_throughput / b.simulated_throughput
        print(f"{name:<22} {len(p.nodes):>5} {float(stats['ratio']):>11.6f} "
              f"{a.ratio:>14.8f} {b.ratio:>17.6f} {factor:>7.3f} {seconds:>10.1f}",
              flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("table", nargs="?", default="both",
                        choices=("import", "replay", "both"))
    parser.add_argument("--dir", type=Path, default=SAMPLES,
                        help="directory of SimGrid platform files (default samples/simgrid)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if args.table in ("import", "both"):
        import_table(args.dir, args.runs)
    if args.table in ("replay", "both"):
        replay_table()


if __name__ == "__main__":
    main()
