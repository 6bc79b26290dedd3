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

from ..strategy_checks import boolean as _boolean, checked as _checked, define as _define
from ..strategy_checks import fail as _fail, integer as _integer, number as _number
from .model import Cluster, Grid

__all__ = ["grids"]


def _at_least_zero(name, v, drawn=False):
    if _number(name, v, drawn) < 0:
        _fail(name, v, drawn, "must be >= 0")


def _positive(name, v, drawn=False):
    if _number(name, v, drawn) <= 0:
        _fail(name, v, drawn, "must be > 0")


def _times(value, default, check) -> st.SearchStrategy:
    """The strategy of one kind of time: the default, a strategy (its draws checked)
    or one constant."""
    if value is None:
        return default
    if isinstance(value, st.SearchStrategy):
        def checked(v):
            check("", v, drawn=True)
            return v
        return value.map(checked)
    return st.just(value)


def grids(min_clusters: int = 2, max_clusters: int | None = 5, latency=None, gap=None,
          broadcast_time=None, symmetric: bool = False,
          any_root: bool = True) -> st.SearchStrategy:
    """Grids of ``min_clusters`` to ``max_clusters`` clusters ``"C0" ..`` (``None``:
    ``min_clusters + 3``).

    ``latency`` (default integers 0..2), ``gap`` (default 1..3, must draw values > 0) and
    ``broadcast_time`` (default 0..6) draw the times -- narrow on purpose, so that two
    candidate sends often tie; each may also be one constant (an exact number, or a
    float by its decimal text).  With ``symmetric=True`` L and g are drawn once per
    unordered pair; with ``any_root=False`` the root is cluster C0.  Every parameter
    may be a strategy; bad values raise hypothesis' InvalidArgument naming the
    parameter, when the strategy is defined (values) or drawn (strategies).

    Example::

        @given(grids(max_clusters=4, symmetric=True))
        def test_flat_tree(grid):
            assert len(flat_tree(grid).sends) == grid.size - 1
    """
    _define(min_clusters=(min_clusters, _integer(2)),
            max_clusters=(max_clusters, _integer(2, none_ok=True)),
            symmetric=(symmetric, _boolean), any_root=(any_root, _boolean))
    for name, value, check in (("latency", latency, _at_least_zero), ("gap", gap, _positive),
                               ("broadcast_time", broadcast_time, _at_least_zero)):
        if value is not None and not isinstance(value, st.SearchStrategy):
            check(name, value)
    if (isinstance(min_clusters, int) and isinstance(max_clusters, int)
            and max_clusters < min_clusters):
        _fail("max_clusters", max_clusters, False, f"must be >= min_clusters ({min_clusters})")
    latencies = _times(latency, st.integers(0, 2), _named("latency", _at_least_zero))
    gaps = _times(gap, st.integers(1, 3), _named("gap", _positive))
    times = _times(broadcast_time, st.integers(0, 6),
                   _named("broadcast_time", _at_least_zero))

    @st.composite
    def build(draw) -> Grid:
        lo = _checked(draw, "min_clusters", min_clusters, _integer(2))
        hi = _checked(draw, "max_clusters", max_clusters, _integer(2, none_ok=True))
        hi = lo + 3 if hi is None else hi
        if hi < lo:
            _fail("max_clusters", hi, True, f"must be >= min_clusters ({lo})")
        same = _checked(draw, "symmetric", symmetric, _boolean)
        anywhere = _checked(draw, "any_root", any_root, _boolean)
        n = draw(st.integers(lo, hi))
        L = [[0] * n for _ in range(n)]
        g = [[0] * n for _ in range(n)]
        for i in range(n):
            for j in range(n):
                if i != j and (not same or i < j):
                    L[i][j], g[i][j] = draw(latencies), draw(gaps)
                    if same:
                        L[j][i], g[j][i] = L[i][j], g[i][j]
        clusters = [Cluster(f"C{k}", draw(times)) for k in range(n)]
        root = draw(st.integers(0, n - 1)) if anywhere else 0
        return Grid(clusters, L, g, root, origin="<strategies.grids>")

    return build()


def _named(name, check):
    return lambda _, v, drawn=False: check(name, v, drawn)
