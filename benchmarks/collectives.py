"""Benchmark: the exact allgather optimum (optimum + certificate + trees) on today's GPU
fabrics, beside ForestColl (issue 43).

For each topology (``steady.topologies``: our generator, from the published link
speeds): the exact optimal rate per root x* (GB/s), whether a cut binds, the symmetry
used, the median time of ``collective_throughput`` (the exact optimum, its certificate
and every root's trees) and of the independent check ``check_collective``, the peak
memory (RSS of a fresh process per topology), the load average at the time, and
ForestColl's per-root rate k/U and time: the issue's measurements, and this machine's
when ``--forestcoll FILE`` gives the JSON lines of a ForestColl run (ForestColl's own
code, run outside this repository: it is never imported here).

    python benchmarks/collectives.py [--repeats 3] [--only a100-2 mi250-1 ...]
        [--forestcoll /work/forestcoll-run/batch1.log]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from fractions import Fraction

#: name -> (builder expression, GPUs, the issue's ForestColl time in s (None: did not
#: finish in 10 min), ForestColl's optimum as (U, k) when known: rate k/U)
TOPOLOGIES = {
    "a100-1": ("a100_platform(1)", 8, 0.21, ("7/300", 1)),
    "a100-2": ("a100_platform(2)", 16, 6.2, ("3/5", 13)),
    "a100-4": ("a100_platform(4)", 32, 48.0, ("3/25", 1)),
    "mi250-1": ("mi250_platform(1)", 16, 0.73, ("7/50", 3)),
    "mi250-2": ("mi250_platform(2)", 32, 37.0, ("15/2", 83)),
    "mi250-4": ("mi250_platform(4)", 64, None, ("3/2", 8)),
    "a100-8": ("a100_platform(8)", 64, None, None),
    "a100-32": ("a100_platform(32)", 256, None, None),
    "a100-128": ("a100_platform(128)", 1024, None, None),
    "fat-tree-16": ("fat_tree_platform(16)", 1024, None, None),
    "hetero": ("hetero_cluster_platform()", 11, None, None),
}

_CHILD = r"""
import json, resource, sys, time
from steady.topologies import *
from steady.throughput import collective_throughput
from steady.certificate import check_collective
platform = {builder}
solve, check = [], []
for _ in range({repeats}):
    start = time.perf_counter()
    result = collective_throughput(platform, "allgather")
    solve.append(time.perf_counter() - start)
    start = time.perf_counter()
    report = check_collective(platform, result)
    check.append(time.perf_counter() - start)
    assert report.ok, report.problems[:3]
print(json.dumps({{"rate": str(result.rate), "solve": solve, "check": check,
                  "trees": len(result.trees), "cut": result.certificate.cut is not None,
                  "symmetry": result.stats["symmetry"], "nodes": len(platform.nodes),
                  "links": len(platform.links),
                  "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""


def forestcoll_runs(path) -> dict:
    """{name: (rate, seconds)} from the JSON lines of a ForestColl run."""
    found = {}
    if not path:
        return found
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            if line.startswith("{") and '"total_s"' in line:
                doc = json.loads(line)
                name = f"{doc['kind']}-{doc['boxes']}"
                found[name] = (Fraction(doc["per_root"]), doc["total_s"])
    return found


def measure(name: str, repeats: int) -> dict:
    builder = TOPOLOGIES[name][0]
    load = os.getloadavg()[0]
    out = subprocess.run([sys.executable, "-c", _CHILD.format(builder=builder,
                                                              repeats=repeats)],
                         capture_output=True, text=True, check=True).stdout
    doc = json.loads(out.strip().splitlines()[-1])
    doc["load"] = (load + os.getloadavg()[0]) / 2
    return doc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--only", nargs="+", choices=list(TOPOLOGIES), default=None)
    ap.add_argument("--forestcoll", help="JSON lines of a ForestColl run on this machine")
    args = ap.parse_args()
    theirs = forestcoll_runs(args.forestcoll)
    print(f"{'topology':>11} {'GPUs':>5} {'nodes':>5} {'x* (GB/s)':>10} {'FC k/U':>8} "
          f"{'same':>4} {'cut':>3} {'solve s':>8} {'check s':>8} {'total s':>8} "
          f"{'FC issue s':>10} {'FC here s':>9} {'ratio':>7} {'MB':>5} {'load':>5}  symmetry")
    for name in args.only or TOPOLOGIES:
        _, gpus, issue, optimum = TOPOLOGIES[name]
        m = measure(name, args.repeats)
        rate = Fraction(m["rate"])
        theirs_rate = Fraction(optimum[1]) / Fraction(optimum[0]) if optimum else None
        here = theirs.get(name)
        solve, check = statistics.median(m["solve"]), statistics.median(m["check"])
        total = solve + check
        reference = here[1] if here else issue
        ratio = f"{total / reference:.4f}" if reference else "-"
        same = "-" if theirs_rate is None else ("yes" if theirs_rate == rate else "NO")
        print(f"{name:>11} {gpus:>5} {m['nodes']:>5} {str(rate):>10} "
              f"{str(theirs_rate or '-'):>8} {same:>4} {'yes' if m['cut'] else 'no':>3} "
              f"{solve:>8.3f} {check:>8.3f} {total:>8.3f} "
              f"{(f'{issue:.2f}' if issue else '-'):>10} "
              f"{(f'{here[1]:.2f}' if here else '-'):>9} {ratio:>7} "
              f"{m['maxrss_mb']:>5.0f} {m['load']:>5.2f}  {m['symmetry']}", flush=True)


if __name__ == "__main__":
    main()
