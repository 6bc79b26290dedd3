"""Benchmark: what each layer of the finite-horizon choice buys, and what it costs
(issue 41: "keep a layer only where it pays for its time at that level").

For generated random and mesh platforms (and the samples named), ``steady simulate P
--horizon K`` is run in-process at an effort level with one layer switched off at a
time (steady.schedule.effort.Effort.but), and the table gives, per platform and
variant, the messages delivered by K, their ratio to K·TP*, and the CPU seconds
(process time: the machine may be shared, wall time would measure the others too).
The last rows give, per variant, the median CPU time and the median and smallest
change in delivered messages against the level as it is.

    python benchmarks/layers.py [--effort default] [--seeds 3] [--sizes 50,65]
                                [--horizon 100000] [--variants all] [--samples]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

#: The layers switched off, one at a time: name -> the bounds changed.
VARIANTS = {
    "as is": {},
    "with the list run": {"list_run": True},
    "no counts searched": {"count_kicks": None},
    "no regrown trees": {"regrown": 0},
    "regrown: 1 timetable": {"regrown": 1},
    "no routed clean-up": {"routed": 0},
    "no Dinkelbach": {"dinkelbach": False},
    "MILP counts": {"cut_counts": True},
    "port orders searched": {"order_search": 2.0},
    "no order search of the chosen": {"order_lns": 0.0},
    "second tree family": {"families": 2},
}


def platforms(seeds: int, sizes, samples: bool):
    from steady.generators import mesh_platform, random_platform

    out = []
    for n in sizes:
        for seed in range(1, seeds + 1):
            out.append((f"random {n} s{seed}", random_platform(n, 0.1, seed=seed)))
            out.append((f"mesh {n} s{seed}", mesh_platform(n, seed=seed)))
    if samples:
        from steady.platform import load_platform

        for name in ("random-50", "mesh-65", "random-30"):
            out.append((f"samples/{name}", load_platform(ROOT / "samples" / f"{name}.json")[0]))
    return out


def measure(platform, horizon: Fraction, effort):
    """(delivered, ratio to K·TP*, CPU seconds) of the choice at ``effort``."""
    from steady.simulate.choose import horizon_choice
    from steady.throughput import throughput

    start = time.process_time()
    result = throughput(platform, "trees")
    choice = horizon_choice(platform, result, horizon, effort)
    seconds = time.process_time() - start
    best = choice.best
    return best.delivered, best.delivered / (horizon * result.throughput), seconds


def main() -> None:
    from steady.schedule.effort import effort as effort_of

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--effort", default="default")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--sizes", default="50,65")
    parser.add_argument("--horizon", default="100000")
    parser.add_argument("--variants", default="all",
                        help="comma-separated names of VARIANTS, or all")
    parser.add_argument("--samples", action="store_true")
    parser.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    args = parser.parse_args()
    level = effort_of(args.effort)
    names = list(VARIANTS) if args.variants == "all" else args.variants.split(",")
    horizon = Fraction(args.horizon)
    rows = []
    print(f"effort {level.name}, K = {horizon}")
    print(f"{'platform':<18} {'variant':<22} {'delivered':>9} {'/ K·TP*':>8} {'CPU s':>7}")
    for label, platform in platforms(args.seeds, [int(x) for x in args.sizes.split(",")],
                                     args.samples):
        for name in names:
            changes = {k: v for k, v in VARIANTS[name].items() if hasattr(level, k)}
            if changes != VARIANTS[name]:
                continue   # a bound this level does not have
            delivered, ratio, seconds = measure(platform, horizon, level.but(**changes))
            rows.append({"platform": label, "variant": name, "delivered": delivered,
                         "ratio": float(ratio), "seconds": seconds})
            print(f"{label:<18} {name:<22} {delivered:>9} {float(ratio):>8.5f} "
                  f"{seconds:>7.1f}", flush=True)
    print()
    print(f"{'variant':<22} {'median CPU s':>12} {'median Δ':>9} {'worst Δ':>8} "
          f"{'>= 0.99':>8}")
    base = {r["platform"]: r["delivered"] for r in rows if r["variant"] == "as is"}
    for name in names:
        mine = [r for r in rows if r["variant"] == name]
        if not mine:
            continue
        deltas = [r["delivered"] - base[r["platform"]] for r in mine if r["platform"] in base]
        print(f"{name:<22} {statistics.median(r['seconds'] for r in mine):>12.1f} "
              f"{statistics.median(deltas) if deltas else 0:>9} "
              f"{min(deltas) if deltas else 0:>8} "
              f"{sum(r['ratio'] >= 0.99 for r in mine):>4}/{len(mine)}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
