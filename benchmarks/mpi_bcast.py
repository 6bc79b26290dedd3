"""Benchmark: ``steady.mpi.bcast`` (issue 44, item 4) against the library's ``comm.Bcast``
and a pipelined chain, under ``mpiexec`` on this machine.

Platforms: 002 Figure 1 (samples/figure1.json, 5 ranks, its exact schedule, M = 2),
random-10 (samples/random-10.json, 10 ranks, ``steady schedule --max-messages 3``) and a
16-node mesh (``mesh_platform(16, seed=0)``, 16 ranks, ``--max-messages 1``).  Buffer
sizes 64 KB .. 64 MB of random bytes from rank 0 (the source).  For each algorithm and
size: one call to warm up (plans built, pages touched, the bytes checked on every rank),
then ``--runs`` timed calls, each from a barrier to a barrier (rank 0's clock); printed:
the median in milliseconds, and K, the slices the call chose.

* ``steady``: ``steady.mpi.bcast`` with a prepared schedule, its agreement check on, its
  fallback off (``fallback_bytes=0``: the pipelined path at every size);
* ``Bcast``: ``comm.Bcast`` (MPICH's own algorithm for the size and the ranks);
* ``chain``: the pipelined chain of :func:`steady.run.baselines.chain_plan` (every slice
  down a depth-first path of the platform's cheapest links) run by the same engine and
  the same choice of K.

What this measures and what it cannot: all ranks run on one 2-core machine (5 to 16
ranks: several ranks per core, MPICH's shared-memory transport,
``MPIR_CVAR_ENABLE_HEAVY_YIELD=1`` when the ranks outnumber the cores).  There is no
network: every pair of ranks is as fast as every other, and the platform's link costs
are *not* emulated (the call has no clock), so the optimality of a schedule for its
platform cannot show here.  What shows is the cost of the execution itself: the order of
the transfers, the pipelining in slices, the Python loop and MPI's per-message overhead,
and the copies (n bytes into each of P - 1 ranks, on 2 cores).  The load of the
machine (printed) moves every figure: quote it with them.

``--sweep``: the time of the steady call on Figure 1 at each K = M·2^j, for the choice of
:data:`steady.run.bcast.STARTUP_BYTES` (the start-up A in bytes of seed 004's model:
the A whose chosen K are the fastest measured) and ``--small``: steady (with and without its
agreement check) against Bcast from 1 KB, for :data:`steady.run.bcast.FALLBACK_BYTES`
(the crossover, if this machine has one).

    python benchmarks/mpi_bcast.py [--runs 5] [--sizes 64KB,...] [--platforms figure1,...]
    python benchmarks/mpi_bcast.py --sweep | --small
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KB = 1024
SIZES = [64 * KB, 256 * KB, KB * KB, 4 * KB * KB, 16 * KB * KB, 64 * KB * KB]
SMALL = [KB, 4 * KB, 16 * KB, 64 * KB, 256 * KB, KB * KB]
SWEEP = [256 * KB, 4 * KB * KB, 64 * KB * KB]
PLATFORMS = {"figure1": 5, "random-10": 10, "mesh-16": 16}


# -- the driver (no MPI) -------------------------------------------------------------

def schedule_file(label: str, folder: Path) -> Path:
    """The schedule of the module docstring for ``label``, written in ``folder``."""
    from steady.generators import mesh_platform
    from steady.platform import Platform
    from steady.schedule.periodic import optimal_schedule
    from steady.schedule.timed import timed_schedule
    from steady.throughput import throughput

    path = folder / f"{label}.json"
    if label == "figure1":
        platform = Platform.from_file(ROOT / "samples" / "figure1.json")
        optimal_schedule(platform, throughput(platform, "trees"))[0].write(path)
        return path
    platform, m = ((Platform.from_file(ROOT / "samples" / "random-10.json"), 3)
                   if label == "random-10" else (mesh_platform(16, seed=0), 1))
    timed_schedule(platform, throughput(platform, "trees"), m)[0].write(path)
    return path


def launch(ranks: int, argv: list[str]) -> dict:
    from steady.run.launch import OVERSUBSCRIBED, cores, mpiexec_path

    env = dict(os.environ)
    if ranks > cores():
        env.update(OVERSUBSCRIBED)
    done = subprocess.run([mpiexec_path(), "-n", str(ranks), sys.executable, __file__,
                           "--worker", *argv], capture_output=True, text=True, env=env,
                          cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"mpiexec -n {ranks} failed ({done.returncode}): {done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def table(args, folder: Path) -> None:
    print(f"runs {args.runs} (medians, ms, barrier to barrier); load average at start "
          f"{load()}")
    print("| platform | ranks | size | comm.Bcast | steady.mpi.bcast (K) | pipelined chain"
          " (K) | steady / Bcast |")
    print("|---|---|---|---|---|---|---|")
    for label in args.platforms.split(","):
        path = schedule_file(label, folder)
        out = launch(PLATFORMS[label], [str(path), "--runs", str(args.runs), "--sizes",
                                        ",".join(map(str, args.size_list)),
                                        "--algorithms", "Bcast,steady,chain"])
        for n in args.size_list:
            row = out[str(n)]
            b, s, c = (row[a]["median_ms"] for a in ("Bcast", "steady", "chain"))
            print(f"| {label} | {PLATFORMS[label]} | {_size(n)} | {b:.2f} | {s:.2f} "
                  f"({row['steady']['slices']}) | {c:.2f} ({row['chain']['slices']}) | "
                  f"{s / b:.2f} |")
        print(f"<!-- {label}: delivered exactly on every rank: {out['exact']} -->")
    print(f"load average at end {load()}")


def sweep(args, folder: Path) -> None:
    from steady.run.bcast import prepare

    path = schedule_file("figure1", folder)
    prepared = prepare(path)
    ks = [2 << j for j in range(10)]
    out = launch(5, [str(path), "--runs", str(args.runs), "--sizes",
                     ",".join(map(str, SWEEP)), "--algorithms", "steady",
                     "--slices", ",".join(map(str, ks))])
    print(f"Figure 1, 5 ranks: steady.mpi.bcast at fixed K, median ms of {args.runs}; "
          f"load {load()}")
    print("| K | " + " | ".join(_size(n) for n in SWEEP) + " |")
    print("|---|" + "---|" * len(SWEEP))
    times = {n: {k: out[str(n)][f"steady@{k}"]["median_ms"] for k in ks} for n in SWEEP}
    for k in ks:
        print(f"| {k} | " + " | ".join(f"{times[n][k]:.2f}" for n in SWEEP) + " |")
    print("start-up A (bytes) -> chosen K per size, time / the best measured time:")
    for a in [16 * KB << j for j in range(12)]:
        prepared.startup_bytes, prepared._chosen = a, {}
        chosen = [min(prepared.slices_for(n), ks[-1]) for n in SWEEP]
        ratios = [times[n][k] / min(times[n].values()) for n, k in zip(SWEEP, chosen)]
        print(f"  A = {_size(a)}: K = {chosen}, ratios {[f'{r:.2f}' for r in ratios]}, "
              f"mean {statistics.fmean(ratios):.3f}")


def small(args, folder: Path) -> None:
    print(f"steady (no fallback) against comm.Bcast, median ms of {args.runs}; load "
          f"{load()}")
    print("| platform | size | comm.Bcast | steady.mpi.bcast (K) | the same, check=False |")
    print("|---|---|---|---|---|")
    for label in args.platforms.split(","):
        path = schedule_file(label, folder)
        out = launch(PLATFORMS[label], [str(path), "--runs", str(args.runs), "--sizes",
                                        ",".join(map(str, SMALL)), "--algorithms",
                                        "Bcast,steady,unchecked"])
        for n in SMALL:
            row = out[str(n)]
            print(f"| {label} | {_size(n)} | {row['Bcast']['median_ms']:.3f} | "
                  f"{row['steady']['median_ms']:.3f} ({row['steady']['slices']}) | "
                  f"{row['unchecked']['median_ms']:.3f} |")


def _size(n: int) -> str:
    return f"{n // (KB * KB)} MB" if n >= KB * KB else f"{n // KB} KB"


# -- the worker (every rank) -----------------------------------------------------------

def worker(argv: list[str]) -> None:
    import hashlib
    import time

    import numpy as np
    from mpi4py import MPI

    from steady.run.baselines import chain_plan
    from steady.run.bcast import PreparedBcast, prepare
    from steady.schedule_file import Schedule

    p = argparse.ArgumentParser()
    p.add_argument("schedule")
    p.add_argument("--runs", type=int)
    p.add_argument("--sizes")
    p.add_argument("--algorithms")
    p.add_argument("--slices", default="")
    a = p.parse_args(argv)
    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    steady = prepare(a.schedule, fallback_bytes=0)
    platform = Schedule.from_file(a.schedule).platform
    chain = PreparedBcast.from_planner(lambda k: chain_plan(platform, k), steady.nodes,
                                       steady.source, "pipelined chain", fallback_bytes=0)
    root = steady.rank_of[steady.source]
    calls = {"Bcast": lambda buf, k: comm.Bcast(buf, root=root),
             "steady": lambda buf, k: steady.bcast(comm, buf, root, slices=k),
             "chain": lambda buf, k: chain.bcast(comm, buf, root, slices=k),
             "unchecked": lambda buf, k: steady.bcast(comm, buf, root, slices=k,
                                                      check=False)}
    results, exact = {}, True
    for n in map(int, a.sizes.split(",")):
        want = np.random.default_rng(n).integers(0, 256, n, dtype=np.uint8)
        digest = hashlib.blake2b(want).hexdigest()
        buf = np.empty(n, dtype=np.uint8)
        row = results[str(n)] = {}
        tasks = [(name, None) for name in a.algorithms.split(",")]
        if a.slices:
            tasks = [(name, int(k)) for name, _ in tasks for k in a.slices.split(",")
                     if int(k) <= n]
        for name, k in tasks:
            times = []
            for run in range(a.runs + 1):
                if rank == root:
                    buf[:] = want
                else:
                    buf[:] = 0
                comm.Barrier()
                t0 = time.perf_counter()
                calls[name](buf, k)
                comm.Barrier()
                times.append(time.perf_counter() - t0)
                if run in (0, a.runs):   # the warm-up and the last: every byte checked
                    exact &= all(comm.allgather(hashlib.blake2b(buf).hexdigest() == digest))
            chosen = {"steady": steady, "chain": chain, "unchecked": steady}.get(name)
            row[name if k is None else f"{name}@{k}"] = {
                "median_ms": statistics.median(times[1:]) * 1e3,
                "slices": k or (chosen.slices_for(n) if chosen else None)}
        del want, buf
    if rank == 0:
        results["exact"] = exact
        print(json.dumps(results))


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        return worker(sys.argv[2:])
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--sizes", default=",".join(map(str, SIZES)))
    p.add_argument("--platforms", default=",".join(PLATFORMS))
    p.add_argument("--sweep", action="store_true")
    p.add_argument("--small", action="store_true")
    args = p.parse_args()
    args.size_list = [int(s) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if args.sweep:
            sweep(args, folder)
        elif args.small:
            small(args, folder)
        else:
            table(args, folder)


if __name__ == "__main__":
    main()
