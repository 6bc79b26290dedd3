"""Benchmark: exact certified steady-state throughput vs GLOP on the paper's flow LP.

Platforms as in seed 000 Table 2 (bandwidth ~ N(100, 20), cost = 1000/bandwidth, density
0.1, every node reachable: steady.generators.random_platform) and "mesh" platforms where
every destination has >= 3 in-links (steady.generators.mesh_platform).

Each measurement runs in a fresh subprocess, so the peak memory (max RSS) is its own.
Prints one row per (kind, size): median wall time of the exact certified solve (default
formulation, cutting planes), its peak memory, the median GLOP time (float, build+solve)
on 002 §5.2's flow LP with |V||E| variables for the same platforms, and the ratio.

    python benchmarks/throughput.py [--sizes 50 65 200] [--seeds 5] [--flow-max 65]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time


def make_platform(kind: str, nodes: int, seed: int):
    from steady.generators import mesh_platform, random_platform

    if kind == "random":
        return random_platform(nodes, density=0.1, seed=seed)
    return mesh_platform(nodes, seed=seed)


def exact_seconds(platform, method: str) -> dict:
    from steady.throughput import throughput

    start = time.perf_counter()
    result = throughput(platform, method)
    seconds = time.perf_counter() - start
    assert result.certified and result.certificate.min_tree_cost >= 1
    return {"seconds": seconds, "throughput": str(result.throughput)}


def glop_flow_seconds(platform) -> dict:
    """GLOP alone (floats, no exactness) on the per-destination flow LP of 002 §5.2."""
    from ortools.linear_solver import pywraplp

    start = time.perf_counter()
    solver = pywraplp.Solver.CreateSolver("GLOP")
    inf = solver.infinity()
    arcs = platform.arcs
    n = {a: solver.NumVar(0, inf, "") for a in arcs}
    tp = solver.NumVar(0, inf, "TP")
    for v in platform.nodes:
        out = [(n[l.arc], float(l.cost)) for l in platform.out_links(v)]
        if out:
            c = solver.Constraint(-inf, 1)
            for var, cost in out:
                c.SetCoefficient(var, cost)
        inn = [(n[l.arc], float(l.cost)) for l in platform.in_links(v)]
        if inn and v != platform.source:
            c = solver.Constraint(-inf, 1)
            for var, cost in inn:
                c.SetCoefficient(var, cost)
    for i in platform.destinations:
        x = {a: solver.NumVar(0, inf, "") for a in arcs}
        for v in platform.destinations:
            c = solver.Constraint(0, 0)
            for l in platform.in_links(v):
                c.SetCoefficient(x[l.arc], 1)
            for l in platform.out_links(v):
                c.SetCoefficient(x[l.arc], -1)
            if v == i:
                c.SetCoefficient(tp, -1)
        for a in arcs:
            c = solver.Constraint(-inf, 0)
            c.SetCoefficient(x[a], 1)
            c.SetCoefficient(n[a], -1)
    solver.Maximize(tp)
    status = solver.Solve()
    assert status == pywraplp.Solver.OPTIMAL
    return {"seconds": time.perf_counter() - start, "throughput": tp.solution_value()}


def one(kind, nodes, seed, what, method):
    platform = make_platform(kind, nodes, seed)
    out = exact_seconds(platform, method) if what == "exact" else glop_flow_seconds(platform)
    out["maxrss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))


def measure(kind, nodes, seed, what, method="cuts") -> dict:
    cmd = [sys.executable, __file__, "--one", kind, str(nodes), str(seed), what, method]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 65, 200])
    parser.add_argument("--kinds", nargs="+", default=["random", "mesh"])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--method", default="cuts")
    parser.add_argument("--flow-max", type=int, default=65,
                        help="largest size for which the flow LP is timed")
    parser.add_argument("--one", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        kind, nodes, seed, what, method = args.one
        return one(kind, int(nodes), int(seed), what, method)
    header = (f"{'kind':<7}{'nodes':>6}{'links':>7}{'exact median s':>16}{'peak MB':>9}"
              f"{'GLOP flow LP s':>16}{'peak MB':>9}{'ratio':>8}")
    print(header)
    print("-" * len(header))
    for kind in args.kinds:
        for nodes in args.sizes:
            links = [len(make_platform(kind, nodes, s).links) for s in range(args.seeds)]
            exact = [measure(kind, nodes, s, "exact", args.method) for s in range(args.seeds)]
            t_exact = statistics.median(r["seconds"] for r in exact)
            m_exact = max(r["maxrss_mb"] for r in exact)
            if nodes <= args.flow_max:
                flow = [measure(kind, nodes, s, "flow") for s in range(args.seeds)]
                t_flow = statistics.median(r["seconds"] for r in flow)
                m_flow = max(r["maxrss_mb"] for r in flow)
                tail = f"{t_flow:>16.3f}{m_flow:>9.0f}{t_exact / t_flow:>8.2f}"
            else:
                tail = f"{'(skipped)':>16}{'':>9}{'':>8}"
            print(f"{kind:<7}{nodes:>6}{statistics.median(links):>7.0f}"
                  f"{t_exact:>16.3f}{m_exact:>9.0f}{tail}", flush=True)


if __name__ == "__main__":
    main()
