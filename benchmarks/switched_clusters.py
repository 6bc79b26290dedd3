"""Benchmark: allgather timetables on the trial's small random switched clusters (issue
43; ``steady.topologies.switched_cluster``: 6 compute nodes, 3 switches, speeds 3-15),
seeds 1..N, one-port and multi-port: the certified ratio at <= M chunks per root, the
construction that won, the CPU seconds of the timetable, and the independent check's
ratio (asserted equal).  With ``--bound``, the whole-hold bound of the clusters below
the target (``steady.network.collective_bound``): a cap when below x*.

    python benchmarks/switched_clusters.py [--seeds 30] [--max-messages 64]
        [--ports multi-port one-port] [--effort default] [--bound]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from steady.network.collective_bound import whole_hold_rate_bound  # noqa: E402
from steady.schedule.collective import collective_timetable  # noqa: E402
from steady.throughput import collective_throughput  # noqa: E402
from steady.topologies import switched_cluster  # noqa: E402
from steady.verify import verify  # noqa: E402

TARGET = 0.99


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=30)
    ap.add_argument("--max-messages", type=int, default=64)
    ap.add_argument("--ports", nargs="+", default=["multi-port", "one-port"])
    ap.add_argument("--effort", default="default", choices=("fast", "default", "thorough"))
    ap.add_argument("--bound", action="store_true")
    args = ap.parse_args()
    print(f"allgather, M <= {args.max_messages}, effort {args.effort}, "
          f"load {os.getloadavg()[0]:.2f}")
    for ports in args.ports:
        ratios = []
        for seed in range(1, args.seeds + 1):
            platform = switched_cluster(seed, ports)
            result = collective_throughput(platform, "allgather")
            start = time.process_time()
            table, stats = collective_timetable(platform, result, args.max_messages,
                                                args.effort)
            cpu = time.process_time() - start
            report = verify(platform, table.schedule(result))
            if not report.ok or report.ratio != stats["ratio"]:   # pragma: no cover
                raise AssertionError(f"seed {seed}: the checker disagrees")
            ratio = stats["ratio"]
            ratios.append(float(ratio))
            capped = ""
            if args.bound and ratio < TARGET:
                found = whole_hold_rate_bound(platform, result.roots)
                if found is not None and found.bound < result.rate:
                    capped = f"  capped at {float(found.bound / result.rate):.4f}"
            print(f"{ports:>10} seed {seed:>2}  x* {str(result.rate):>8}  ratio "
                  f"{float(ratio):.4f} ({ratio})  chunks {stats['chunks_per_root']:>2}  "
                  f"{cpu:5.1f} CPU s  {stats['construction']}{capped}", flush=True)
        below = [r for r in ratios if r < TARGET]
        print(f"{ports}: {len(ratios) - len(below)}/{len(ratios)} at >= {TARGET}; "
              f"below: {', '.join(f'{r:.4f}' for r in sorted(below)) or 'none'}")


if __name__ == "__main__":
    main()
