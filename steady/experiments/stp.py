"""The experiment campaign of seed 000 §5: single-tree heuristics against the exact optima.

For every generated platform (Table 2 random platforms, or Tiers-like platforms for
Table 3) one task computes, exactly:

* the MTP optimum (several trees, one-port): the certified LP of 002 §5.2 / 000 §4.1;
* every one-port heuristic's tree throughput (000 Alg 1-4, 6, 7), and the ratio to it;
* the exact best single tree (STP optimum, never computed in seed 000) when a work bound
  is given: its throughput, its proven upper bound and whether it was proven optimal;
* in the multi-port model (000 §3.2, §5.2.2): the heuristics the paper's Figure 5
  compares, their throughputs, and steady's multi-port steady-state bound — the paper
  could only compare to the one-port LP, which a multi-port tree may exceed;
* whether the optimum is fixed by a single port (the source's out-port, a node's
  in-port, or the out-port of a node that must feed single-homed nodes):
  on such platforms most sensible trees are optimal, which inflates averages, so the
  share is reported beside every table.

Ratios are exact Fractions per platform; a summary reports their exact mean, and the
standard deviation (a float, the one irrational figure) as the paper does.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction

from ..generators import random_platform, tiers_platform
from ..heuristics.best_tree import best_tree
from ..heuristics.multiport_bound import multiport_bound
from ..heuristics.registry import run_heuristics
from ..numbers import format_exact
from ..throughput import throughput
from .runner import deviation, mean

KINDS = ("random", "tiers")
#: Seed 000 Table 2: 10..50 nodes, density 0.04..0.20, 10 platforms per configuration.
TABLE2_NODES = (10, 20, 30, 40, 50)
TABLE2_DENSITIES = (0.04, 0.08, 0.12, 0.16, 0.20)
#: Seed 000 §5.1: 100 Tiers platforms of 30 nodes and 100 of 65.
TIERS_NODES = (30, 65)
DEFAULT_REPEATS = {"random": 10, "tiers": 100}


@dataclass(frozen=True)
class PlatformTask:
    """One platform of the campaign: how to generate it, what to compute on it."""

    kind: str
    nodes: int
    density: float | None
    seed: int
    multiport: bool = True
    best_tree_limit: float = 0.0   # seconds per model; 0 = no exact best tree
    lan_redundancy: int = 1        # Tiers' RL (tiers platforms only)


def tasks(kind: str, nodes, densities, repeats: int, seed: int = 0, multiport=True,
          best_tree_limit: float = 0.0, lan_redundancy: int = 1) -> list[PlatformTask]:
    """The campaign's platforms in a fixed order (sizes, then densities, then repeats);
    platform r of a configuration has seed ``1000 * seed + r``."""
    return [PlatformTask(kind, n, d, 1000 * seed + r, multiport, best_tree_limit,
                         lan_redundancy)
            for n in nodes for d in densities for r in range(repeats)]


def platform_of(task: PlatformTask):
    """The task's platform, with the send overheads of 000 §5.1 (the one-port
    computations ignore them)."""
    if task.kind == "random":
        return random_platform(task.nodes, task.density, task.seed, multiport=True)
    return tiers_platform(task.nodes, task.seed, task.density, multiport=True,
                          lan_redundancy=task.lan_redundancy)


def single_port_bound(platform) -> Fraction:
    """The best throughput one port allows alone (the port rows of 002 §5.2 with
    everything else free): the source sends each message at least once over its
    cheapest out-link; every destination receives each message over at least its
    cheapest in-link; and a node u sends each message over every *forced* arc u -> v,
    the only in-link of v (a single-homed host below its hub), so its out-port carries
    at least the sum of their costs whatever the trees.  When the optimum equals this
    bound, one port fixes it, and every tree that loads that port minimally may be
    optimal."""
    cheapest_out = min(l.cost for l in platform.out_links(platform.source))
    cheapest_in = max(min(l.cost for l in platform.in_links(v))
                      for v in platform.destinations)
    forced: dict[str, Fraction] = {}
    for v in platform.destinations:
        (only, *others) = platform.in_links(v)
        if not others:
            forced[only.tail] = forced.get(only.tail, Fraction(0)) + only.cost
    return 1 / max(cheapest_out, cheapest_in, *forced.values())


def evaluate(task: PlatformTask) -> dict:
    """Every number of one platform (a top-level function: it runs in worker processes)."""
    platform = platform_of(task)
    pairs = len({frozenset(a) for a in platform.arcs})
    row = {"platform": platform.name, "kind": task.kind, "nodes": task.nodes,
           "density_target": task.density, "seed": task.seed,
           "density": Fraction(pairs, task.nodes * (task.nodes - 1) // 2),
           "arcs": len(platform.arcs)}
    start = time.perf_counter()
    lp = throughput(platform)
    row["optimum"] = lp.throughput
    row["trivial"] = lp.throughput == single_port_bound(platform)
    row["seconds_lp"] = time.perf_counter() - start
    for model in ("one-port", "multi-port") if task.multiport else ("one-port",):
        start = time.perf_counter()
        for name, result in run_heuristics(platform, model, lp=lp).items():
            row[f"{model}:{name}"] = result.throughput
        row[f"seconds_heuristics:{model}"] = time.perf_counter() - start
        if task.best_tree_limit > 0:
            _add_best_tree(row, platform, model, task.best_tree_limit)
    if task.multiport:
        start = time.perf_counter()
        row["multi-port:bound"] = multiport_bound(platform).throughput
        row["seconds_multiport_bound"] = time.perf_counter() - start
    return row


def _add_best_tree(row: dict, platform, model: str, limit: float) -> None:
    best = best_tree(platform, model, time_limit=limit)
    row[f"{model}:best-tree"] = best.throughput
    row[f"{model}:best-tree-bound"] = best.upper_bound
    row[f"{model}:best-tree-optimal"] = best.optimal
    row[f"seconds_best_tree:{model}"] = best.seconds


# -- summaries --------------------------------------------------------------------------

def heuristic_columns(rows: list[dict], model: str) -> list[str]:
    """The heuristic names present for ``model``, in the order of the first row."""
    prefix = f"{model}:"
    skip = {"best-tree-bound", "best-tree-optimal", "bound"}
    return [k[len(prefix):] for k in rows[0] if k.startswith(prefix)
            and k[len(prefix):] not in skip]


@dataclass(frozen=True)
class Cell:
    """Mean and deviation of the ratios of one heuristic over one group of platforms."""

    mean: Fraction
    deviation: float
    count: int

    def text(self) -> str:
        return f"{float(self.mean):.0%} (±{self.deviation:.0%})"


def ratio_cell(rows: list[dict], column: str, reference: str) -> Cell | None:
    """Mean (exact) and deviation of ``row[column] / row[reference]`` over ``rows``
    that have both (the best tree may be missing)."""
    ratios = [Fraction(r[column]) / Fraction(r[reference]) for r in rows
              if r.get(column) is not None and r.get(reference) is not None]
    if not ratios:
        return None
    return Cell(mean(ratios), deviation(ratios), len(ratios))


def group(rows: list[dict], key: str) -> dict:
    """Rows by ``row[key]``, keys sorted."""
    groups: dict = {}
    for r in rows:
        groups.setdefault(r[key], []).append(r)
    return dict(sorted(groups.items(), key=lambda kv: (kv[0] is None, kv[0] or 0)))


def summary_rows(rows: list[dict], by: str) -> list[list]:
    """CSV rows: group value, model, heuristic, reference, mean ratio (exact and
    decimal), deviation, count, share of trivial-bottleneck platforms."""
    out = []
    for value, members in group(rows, by).items():
        trivial = Fraction(sum(r["trivial"] for r in members), len(members))
        for model in ("one-port", "multi-port"):
            if f"seconds_heuristics:{model}" not in members[0]:
                continue
            for name in heuristic_columns(members, model):
                for reference in _references(members, model, name):
                    cell = ratio_cell(members, f"{model}:{name}", reference)
                    if cell is not None:
                        out.append([value, model, name, reference, cell.mean,
                                    f"{float(cell.mean):.4f}", f"{cell.deviation:.4f}",
                                    cell.count, trivial])
    return out


SUMMARY_HEADER = ["group", "model", "heuristic", "reference", "mean_ratio",
                  "mean_ratio_decimal", "deviation", "platforms", "trivial_share"]


def _references(members, model: str, name: str) -> list[str]:
    refs = ["optimum"]              # the one-port MTP LP: the paper's basis in every figure
    if model == "multi-port" and "multi-port:bound" in members[0]:
        refs.append("multi-port:bound")
    if f"{model}:best-tree" in members[0] and name != "best-tree":
        refs.append(f"{model}:best-tree")
    return refs


def csv_cell(value):
    """Exact numbers as p/q text, floats (timings) with 4 decimals."""
    if isinstance(value, Fraction):
        return format_exact(value)
    if isinstance(value, float):
        return f"{value:.4f}"
    return value
