"""The simulation campaign of seed 001 §6: grid heuristics on random grids, and the optimum.

For every number of clusters n and every iteration, one random grid is drawn from 001
Table 2 (:func:`steady.grid.draws.table2_grid`: integer microseconds, symmetric L and g
drawn per pair of clusters or, with ``--links per-grid``, once per grid)
and every heuristic's makespan is computed exactly.  Per n the campaign reports:

* the average completion time of each heuristic (001 Figures 1-3), exact (Fractions of
  milliseconds), with the standard deviation;
* the hit rate against the "global minimum", the best makespan of the paper's seven
  simulated heuristics on the same grid (001 Figure 4); a heuristic outside those seven
  hits when it is at least as good;
* beyond the paper, for n <= --exact-max: the hit rate against the exact optimum
  (:mod:`steady.grid.optimum`), the average excess sum(makespan) / sum(optimum) - 1 and
  the worst ratio makespan / optimum - 1 (exact), and how often the global minimum is
  itself optimal.

This module runs the campaign; :mod:`.grid_report` writes its CSV files, figures and
``grid-report.md`` (the comparison with the paper's findings).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction

from ..grid.draws import table2_grid
from ..grid.heuristics import HEURISTICS, PAPER_SIMULATED, VARIANTS
from ..grid.heuristics import run as run_heuristic
from ..grid.optimum import SearchLimit, optimal_schedule
from .runner import deviation, mean, parallel_map

#: Iterations per task: large enough to hide the process pool's per-task cost.
BLOCK = 250


@dataclass(frozen=True)
class Block:
    """Iterations ``first .. first + count - 1`` of n = ``clusters`` (one task)."""

    clusters: int
    first: int
    count: int
    seed: int
    keys: tuple[str, ...]
    exact: bool
    node_limit: int
    links: str = "per-pair"


def run_block(block: Block) -> list[tuple]:
    """Per iteration: (makespans in the order of ``keys``, optimum or None, search nodes),
    all times in integer microseconds.  A top-level function: it runs in workers."""
    rows = []
    for iteration in range(block.first, block.first + block.count):
        grid = table2_grid(block.clusters, block.seed, iteration, block.links)
        makespans = tuple(run_heuristic(grid, k).makespan for k in block.keys)
        optimum, nodes = None, 0
        if block.exact:
            try:
                found = optimal_schedule(grid, upper=min(makespans),
                                         node_limit=block.node_limit,
                                         max_clusters=block.clusters)
                optimum, nodes = found.makespan, found.nodes
            except SearchLimit:
                nodes = block.node_limit
        rows.append((makespans, optimum, nodes))
    return rows


@dataclass
class SizeSummary:
    """Everything the campaign reports for one number of clusters."""

    clusters: int
    iterations: int
    mean_us: dict            # key -> Fraction (microseconds)
    deviation_us: dict       # key -> float
    hits: dict               # key -> hits of the global minimum
    solved: int = 0          # grids whose optimum was computed
    unsolved: int = 0        # grids where the search hit --node-limit
    optimal_hits: dict | None = None   # key -> makespan == optimum
    excess: dict | None = None         # key -> sum(makespan) / sum(optimum) - 1
    worst: dict | None = None          # key -> max makespan / optimum - 1
    best_of_seven_optimal: int = 0
    best_of_seven_excess: Fraction | None = None   # sum(global min) / sum(optimum) - 1
    mean_optimum_us: Fraction | None = None
    max_nodes: int = 0


def summarise(clusters: int, keys, rows) -> SizeSummary:
    """The per-size figures of ``rows`` (as returned by :func:`run_block`)."""
    seven = [keys.index(k) for k in PAPER_SIMULATED]
    columns = {k: [r[0][x] for r in rows] for x, k in enumerate(keys)}
    global_min = [min(r[0][x] for x in seven) for r in rows]
    s = SizeSummary(clusters, len(rows),
                    {k: mean(v) for k, v in columns.items()},
                    {k: deviation(v) for k, v in columns.items()},
                    {k: sum(m <= b for m, b in zip(v, global_min)) for k, v in columns.items()})
    solved = [(r, b) for r, b in zip(rows, global_min) if r[1] is not None]
    s.unsolved = sum(1 for r in rows if r[1] is None and r[2] > 0)
    s.max_nodes = max((r[2] for r in rows), default=0)
    if solved:
        s.solved = len(solved)
        total = sum(r[1] for r, _ in solved)
        s.mean_optimum_us = Fraction(total, len(solved))
        s.optimal_hits, s.excess, s.worst = {}, {}, {}
        for x, k in enumerate(keys):
            s.optimal_hits[k] = sum(r[0][x] == r[1] for r, _ in solved)
            s.excess[k] = Fraction(sum(r[0][x] for r, _ in solved), total) - 1
            s.worst[k] = max(Fraction(r[0][x], r[1]) for r, _ in solved) - 1
        s.best_of_seven_optimal = sum(b == r[1] for r, b in solved)
        s.best_of_seven_excess = Fraction(sum(b for _, b in solved), total) - 1
    return s


def run_campaign(sizes, iterations: int, seed: int = 0, exact_max: int = 10,
                 node_limit: int = 200_000, variants: bool = False, jobs: int = 1,
                 backend: str = "loky", scheduler=None, quiet: bool = True,
                 links: str = "per-pair"):
    """(keys, {n: SizeSummary}, {n: rows}, seconds) for the sizes ``sizes``; ``links``
    is how L and g are drawn (:data:`steady.grid.draws.LINKS`)."""
    keys = tuple(HEURISTICS) + (tuple(VARIANTS) if variants else ())
    # the largest grids first: the slowest tasks start early and the pool stays busy
    blocks = [Block(n, first, min(BLOCK, iterations - first), seed, keys,
                    n <= exact_max, node_limit, links)
              for n in sorted(sizes, reverse=True) for first in range(0, iterations, BLOCK)]
    start = time.perf_counter()
    results = parallel_map(run_block, blocks, jobs=jobs, backend=backend,
                           scheduler=scheduler, quiet=quiet,
                           label=f"blocks of up to {min(BLOCK, iterations)} grids")
    seconds = time.perf_counter() - start
    rows: dict[int, list] = {n: [] for n in sorted(sizes)}
    for block, block_rows in zip(blocks, results):
        rows[block.clusters].extend(block_rows)
    summaries = {n: summarise(n, keys, r) for n, r in rows.items()}
    return keys, summaries, rows, seconds

