"""Public hypothesis strategies for grids of clusters (the model of seed 001 §3).

Use them in your own property-based tests::

    from hypothesis import given
    from steady.grid.strategies import grids

    @given(grids(max_clusters=5))
    def test_every_cluster_is_reached(grid):
        ...

Every grid drawn is valid by construction (gaps > 0, latencies and broadcast times
>= 0).  The default times are small integers, so that ties between candidate sends are
frequent (the hardest case for tie-breaking and for the exact search); pass
``steady.strategies.exact_costs()`` or ``decimal_costs()`` for rational times.  Failing
examples shrink towards two clusters, the first one as the root, and small times.
"""

from __future__ import annotations

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from .model import Cluster, Grid

__all__ = ["grids"]


def grids(min_clusters: int = 2, max_clusters: int = 5,
          latency: st.SearchStrategy | None = None, gap: st.SearchStrategy | None = None,
          broadcast_time: st.SearchStrategy | None = None, symmetric: bool = False,
          any_root: bool = True) -> st.SearchStrategy:
    """Grids of ``min_clusters`` to ``max_clusters`` clusters ``"C0" ..``.

    ``latency`` (default integers 0..2), ``gap`` (default 1..3, must draw values > 0) and
    ``broadcast_time`` (default 0..6) draw the times — narrow on purpose, so that two
    candidate sends often tie; with ``symmetric=True`` L and g are
    drawn once per unordered pair; with ``any_root=False`` the root is cluster C0.

    Example::

        @given(grids(max_clusters=4, symmetric=True))
        def test_flat_tree(grid):
            assert len(flat_tree(grid).sends) == grid.size - 1
    """
    if min_clusters < 2:
        raise InvalidArgument(f"min_clusters={min_clusters}: a broadcast needs a cluster "
                              "besides the root's")
    if max_clusters < min_clusters:
        raise InvalidArgument(f"max_clusters={max_clusters} < min_clusters={min_clusters}")
    latency = st.integers(0, 2) if latency is None else latency
    gap = st.integers(1, 3) if gap is None else gap
    broadcast_time = st.integers(0, 6) if broadcast_time is None else broadcast_time

    @st.composite
    def build(draw) -> Grid:
        n = draw(st.integers(min_clusters, max_clusters))
        L = [[0] * n for _ in range(n)]
        g = [[0] * n for _ in range(n)]
        for i in range(n):
            for j in range(n):
                if i != j and (not symmetric or i < j):
                    L[i][j], g[i][j] = draw(latency), draw(gap)
                    if symmetric:
                        L[j][i], g[j][i] = L[i][j], g[i][j]
        clusters = [Cluster(f"C{k}", draw(broadcast_time)) for k in range(n)]
        root = draw(st.integers(0, n - 1)) if any_root else 0
        return Grid(clusters, L, g, root, origin="<strategies.grids>")

    return build()
