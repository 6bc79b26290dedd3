"""Random grids with the parameters of seed 001 §6, Table 2, drawn exactly.

Table 2 gives ranges measured on GRID5000: L from 1 to 15 ms, g from 100 to 600 ms, T
from 20 to 3000 ms, "randomly chosen" at each iteration.  The paper does not say whether
L and g are drawn per pair of clusters or once per iteration; we offer both:

* ``links="per-pair"`` (the default): L and g once per unordered pair of clusters
  (symmetric, as measured latencies are: 001 Table 3), a heterogeneous wide area;
* ``links="per-grid"``: one L and one g for every pair, a homogeneous wide area in which
  only the clusters' broadcast times T differ.

Each value is uniform among the integers of microseconds in its range (so every time is
an exact int, in ``us``); T is drawn once per cluster.  The root is the first cluster
(the order of the clusters is itself random).  A draw is a function of (seed, clusters,
iteration, links) only, so a campaign's results do not depend on how its draws are
spread over processes.
"""

from __future__ import annotations

import random

from .model import Cluster, Grid

#: 001 Table 2 in microseconds: (minimum, maximum) of L, g and T.
TABLE2_US = {"latency": (1_000, 15_000), "gap": (100_000, 600_000),
             "broadcast_time": (20_000, 3_000_000)}

#: How L and g are drawn (see the module docstring).
LINKS = ("per-pair", "per-grid")


def table2_grid(clusters: int, seed: int = 0, iteration: int = 0,
                links: str = "per-pair") -> Grid:
    """The ``iteration``-th random grid of ``clusters`` clusters of campaign ``seed``."""
    if links not in LINKS:
        raise ValueError(f"links={links!r}: choose one of {', '.join(LINKS)}")
    # A str seed is hashed with SHA-512 by random.Random: the same draws in every process
    # and every Python run (PYTHONHASHSEED does not matter).
    suffix = "" if links == "per-pair" else f":{links}"
    rng = random.Random(f"steady-grid:{seed}:{clusters}:{iteration}{suffix}")
    lo_l, hi_l = TABLE2_US["latency"]
    lo_g, hi_g = TABLE2_US["gap"]
    lo_t, hi_t = TABLE2_US["broadcast_time"]
    latency = [[0] * clusters for _ in range(clusters)]
    gap = [[0] * clusters for _ in range(clusters)]
    if links == "per-grid":
        one_l, one_g = rng.randint(lo_l, hi_l), rng.randint(lo_g, hi_g)
    for i in range(clusters):
        for j in range(i + 1, clusters):
            if links == "per-grid":
                latency[i][j] = latency[j][i] = one_l
                gap[i][j] = gap[j][i] = one_g
            else:
                latency[i][j] = latency[j][i] = rng.randint(lo_l, hi_l)
                gap[i][j] = gap[j][i] = rng.randint(lo_g, hi_g)
    members = [Cluster(f"C{k}", rng.randint(lo_t, hi_t)) for k in range(clusters)]
    return Grid(members, latency, gap, root=0, name=f"table2-{seed}-{clusters}-{iteration}",
                unit="us", origin="<table2_grid>")
