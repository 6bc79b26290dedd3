"""Benchmark: the collective LP's exact way out (proofs/collective-exact-way-out.md) on
fabrics whose costs are far apart, and the way out forced on the samples.

Each case is a sample of samples/collectives/ with one link (both ways) given a
bandwidth, or made 10^k times faster or slower (its symmetry dropped), a collective
and its sources.  For each: the route taken (the float search, or the exact way out
and why), the exact optimum, the rounds, the trees of the master, the masters the
exact simplex solved, the CPU seconds of ``collective_throughput``
(time.process_time, median of ``--repeats``) and whether the certificate checks
(``check_collective``).  ``--forced`` runs every sample's
allgather with the way out from the start (``solve_rooted(search=False)``).

    python benchmarks/exactcol43.py [--repeats 3] [--forced]
"""

from __future__ import annotations

import argparse
import statistics
import time
from fractions import Fraction
from functools import partial
from pathlib import Path
from unittest import mock

from steady.certificate import check_collective
from steady.errors import InputError
from steady.inputs import as_platform
from steady.platform import Link
from steady.throughput import collective, trees

SAMPLES = Path(__file__).resolve().parent.parent / "samples" / "collectives"

#: (sample, link (tail, head) changed both ways, its new bandwidth: ("=", B) or ("x",
#: factor on its own), collective, sources)
CASES = [
    ("hetero-cluster", ("c0", "c1"), ("=", Fraction(10**14)), "allgather", None),
    ("hetero-cluster", ("c0", "c1"), ("=", Fraction(10**16)), "allgather", None),
    ("hetero-cluster", ("c0", "c1"), ("=", Fraction(10**20)), "allgather", None),
    ("hetero-cluster", ("c0", "c1"), ("=", Fraction(1, 10**20)), "allgather", None),
    ("hetero-cluster", ("c0", "c1"), ("=", Fraction(1, 10**12)), "allgather", None),
    ("hetero-cluster", ("a0", "tor-a"), ("=", Fraction(10**16)), "allgather", None),
    ("hetero-cluster", ("a0", "tor-a"), ("=", Fraction(10**20)), "allgather", None),
    ("hetero-cluster", ("tor-c", "core"), ("=", Fraction(10**16)), "allgather", None),
    ("hetero-cluster", ("tor-c", "core"), ("=", Fraction(10**14)), "allgather", None),
    ("hetero-cluster", ("c0", "c1"), ("=", Fraction(10**16)), "broadcast",
     "a0,b0,c0,storage"),
    ("hetero-cluster", ("c0", "c1"), ("=", Fraction(10**20)), "broadcast", "a0,b0,c0"),
    ("hetero-cluster", ("c0", "c1"), ("=", Fraction(10**16)), "reduce-scatter", None),
    ("hetero-cluster", ("c0", "c1"), ("=", Fraction(10**16)), "allreduce", None),
    ("fat-tree-4", ("p0.e0.h0", "p0.edge0"), ("x", Fraction(10**16)), "allgather", None),
    ("fat-tree-4", ("p0.e0.h0", "p0.edge0"), ("x", Fraction(1, 10**16)), "allgather", None),
    ("a100-2", ("b0.gpu0", "b0.nvswitch"), ("x", Fraction(10**16)), "allgather", None),
    ("a100-2", ("b0.gpu0", "b0.nvswitch"), ("x", Fraction(1, 10**16)), "allgather", None),
    ("a100-2", ("b0.gpu0", "b0.nic0"), ("x", Fraction(10**16)), "allgather", None),
    ("mi250-1", ("b0.gcd0", "b0.gcd1"), ("x", Fraction(10**16)), "allgather", None),
]


def changed(sample: str, arc, speed) -> object:
    """The sample with the link ``arc`` and its reverse at bandwidth ``speed[1]``
    (``"="``) or ``speed[1]`` times faster (``"x"``)."""
    p = as_platform(SAMPLES / f"{sample}.json")
    arcs = {arc, arc[::-1]}
    how, value = speed
    return p.replace_links(Link(l.tail, l.head, (1 / value if how == "=" else l.cost / value)
                                if l.arc in arcs else l.cost) for l in p.links)


def measure(platform, kind, sources, repeats: int, forced: bool = False) -> dict:
    seconds, result = [], None
    for _ in range(repeats):
        solve = partial(trees.solve_rooted, search=False) if forced else trees.solve_rooted
        with mock.patch.object(collective, "solve_rooted", solve):
            start = time.process_time()
            try:
                result = collective.collective_throughput(platform, kind, sources=sources)
            except InputError as exc:
                return {"refused": str(exc)}
            seconds.append(time.process_time() - start)
    s = result.stats
    return {"route": s.get("route", "float search"), "rate": result.rate,
            "rounds": f"{s['pricing_rounds']} float + {s['exact_rounds']} exact",
            "trees": s["columns"], "simplex": s.get("exact_simplex_rounds", "-"),
            "cpu": statistics.median(seconds),
            "checked": check_collective(platform, result).ok}


def _power(x: Fraction) -> str:
    """10^k for a power of ten, else the number."""
    for k in range(-40, 41):
        if x == Fraction(10) ** k:
            return f"10^{k}"
    return str(x)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--forced", action="store_true")
    args = parser.parse_args()
    print("| platform | collective | route | optimum | rounds | master trees | "
          "simplex masters | CPU s | checked |")
    print("|---|---|---|---|---|---|---|---|---|")
    if args.forced:
        cases = [(p.stem, None, None, "allgather", None) for p in sorted(SAMPLES.glob("*.json"))]
    else:
        cases = CASES
    for sample, arc, speed, kind, sources in cases:
        if arc is None:
            platform, name = as_platform(SAMPLES / f"{sample}.json"), f"{sample} (forced)"
        else:
            platform = changed(sample, arc, speed)
            name = (f"{sample}, {arc[0]}<->{arc[1]} " + ("at " if speed[0] == "=" else "x ")
                    + _power(speed[1]))
        row = measure(platform, kind, sources, args.repeats, args.forced)
        what = kind + (f" {sources}" if sources else "")
        if "refused" in row:
            print(f"| {name} | {what} | refused: {row['refused']} | | | | | | |")
            continue
        print(f"| {name} | {what} | {row['route']} | {row['rate']} | {row['rounds']} | "
              f"{row['trees']} | {row['simplex']} | {row['cpu']:.2f} | {row['checked']} |",
              flush=True)


if __name__ == "__main__":
    main()
