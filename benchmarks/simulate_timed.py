"""Benchmark: finite horizons and PIPE with short timed schedules (issue 24, item 6).

1. `steady simulate PLATFORM --horizon 100000`: for every steady-platform sample (with
   samples/simgrid's) and for
   random platforms of 10 to 65 nodes (steady.generators), the timed schedule and
   forwarding rule picked (M, messages per period, certified ratio, rule; "listed" when
   the list run on the best trees wins; "+r" when the trees were regrown by earliest
   arrival, steady.schedule.regrow; "+c" when the clean-up was routed afresh), the
   messages delivered by K (exact, steady.simulate.choose.horizon_choice, as the
   command at its default effort) over Lemma 7's K·TP* (goal:
   >= 0.99), and the wall time of the choice (with the message-level check); with
   shared links whose k-rows bind, also the fixed-speed bound (no schedule whose
   transfers keep their speed delivers more; steady.network.fixed_speed).
2. `steady pipe PLATFORM --size 1000000`: makespan / (L·T*) on 10-node meshes (goal:
   <= 1.05; L·T* is the lower bound of Lemma 7, start-ups only add to it), on the
   10-node samples, and the pattern chosen; median over the meshes.

Times are single runs on a shared machine: read them as orders of magnitude.

    python benchmarks/simulate_timed.py [--horizon 100000] [--seeds 2] [--meshes 5]
        [--skip-simulate] [--skip-pipe]
"""

from __future__ import annotations

import argparse
import statistics
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def sample_platforms():
    from steady.errors import InputError
    from steady.platform import Platform

    paths = sorted((ROOT / "samples").glob("*.json"))
    paths += sorted((ROOT / "samples" / "simgrid").glob("*.json"))
    for path in paths:
        try:
            yield str(path.relative_to(ROOT)), Platform.from_file(path)
        except InputError:       # a grid, an Ethernet cluster: another format
            continue


def random_platforms(seeds: int):
    from steady.generators import mesh_platform, random_platform

    for seed in range(1, seeds + 1):
        for n in (10, 20, 30, 50, 65):
            yield f"random {n} (d 0.1) s{seed}", random_platform(n, 0.1, seed=seed)
        for n in (10, 30, 65):
            yield f"mesh {n} s{seed}", mesh_platform(n, seed=seed)


def simulate_row(label, platform, horizon, effort="default") -> Fraction:
    from steady.network.fixed_speed import fixed_speed_bound
    from steady.simulate.choose import horizon_choice
    from steady.throughput import throughput

    start = time.perf_counter()
    result = throughput(platform, "trees")
    choice = horizon_choice(platform, result, horizon, effort)
    best = choice.best
    seconds = time.perf_counter() - start
    ratio = Fraction(best.delivered) / (horizon * result.throughput)
    w = "-" if best.pattern is None else best.pattern.warmup
    speed = fixed_speed_bound(platform)
    rule = (best.forwarding + ("+r" if best.regrown else "")
            + ("+c" if best.routed_cleanup else ""))
    print(f"{label:<34} {len(platform.nodes):>3} {best.max_messages:>5} "
          f"{best.table.messages:>5} {float(best.ratio):>8.4f} "
          f"{rule:<12} {w:>3} {best.delivered:>7} {float(ratio):>8.4f} "
          f"{'yes' if ratio >= Fraction(99, 100) else 'NO':>4} {seconds:>7.1f}s"
          + ("" if speed is None or speed.bound >= result.throughput else
             f"  (fixed-speed bound {float(speed.bound / result.throughput):.4f} "
             f"of TP*: delivered / it "
             f"{float(best.delivered / (horizon * speed.bound)):.6f})"),
          flush=True)
    return ratio


def pipe_row(label, platform, size) -> Fraction:
    from steady.simulate.pipe import best_slices

    start = time.perf_counter()
    r = best_slices(platform, size)
    seconds = time.perf_counter() - start
    print(f"{label:<34} {r.slices:>8} {r.pattern:<22} {float(r.ratio):>9.5f} "
          f"{'yes' if r.ratio <= Fraction(105, 100) else 'NO':>4} {seconds:>7.1f}s",
          flush=True)
    return r.ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--horizon", type=int, default=100_000)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--meshes", type=int, default=5)
    parser.add_argument("--size", type=int, default=10 ** 6)
    parser.add_argument("--skip-simulate", action="store_true")
    parser.add_argument("--skip-pipe", action="store_true")
    args = parser.parse_args()
    if not args.skip_simulate:
        print(f"steady simulate PLATFORM --horizon {args.horizon}: delivered / (K·TP*), "
              "goal >= 0.99")
        print(f"{'platform':<34} {'|V|':>3} {'M<=':>5} {'M':>5} {'ratio':>8} "
              f"{'rule':<12} {'W':>3} {'deliv.':>7} {'d/KTP*':>8} {'ok':>4} {'time':>8}")
        ratios = [simulate_row(label, p, args.horizon) for label, p in sample_platforms()]
        ratios += [simulate_row(label, p, args.horizon)
                   for label, p in random_platforms(args.seeds)]
        print(f"median delivered / (K·TP*): {float(statistics.median(ratios)):.4f}; "
              f"minimum {float(min(ratios)):.4f}; "
              f"{sum(r >= Fraction(99, 100) for r in ratios)}/{len(ratios)} reach 0.99\n")
    if not args.skip_pipe:
        from steady.generators import mesh_platform

        print(f"steady pipe PLATFORM --size {args.size}: makespan / (L·T*), goal <= 1.05")
        print(f"{'platform':<34} {'slices':>8} {'pattern':<22} {'ratio':>9} {'ok':>4} "
              f"{'time':>8}")
        meshes = [pipe_row(f"mesh 10 s{seed}", mesh_platform(10, seed=seed), args.size)
                  for seed in range(args.meshes)]
        for name in ("random-10.json", "figure1-startup.json"):
            from steady.platform import Platform

            pipe_row(f"samples/{name}", Platform.from_file(ROOT / "samples" / name),
                     args.size)
        print(f"median over the 10-node meshes: {float(statistics.median(meshes)):.5f}; "
              f"worst {float(max(meshes)):.5f}")


if __name__ == "__main__":
    main()
