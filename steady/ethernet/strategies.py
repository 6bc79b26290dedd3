"""Public hypothesis strategies for switched clusters (seed 004 §3).

Use them in your own property-based tests::

    from hypothesis import given
    from steady.ethernet.strategies import switched_clusters

    @given(switched_clusters(max_machines=12))
    def test_my_tree_spans(cluster):
        ...

Every cluster drawn is valid by construction (never filtered): switch ``s_t`` (t >= 1)
links to a drawn earlier switch, which gives every tree shape; each machine attaches to
a drawn switch; the root is a drawn machine, and the links are listed in a drawn order
(which changes Algorithm 1's depth-first order).  Shrinks towards one switch, few
machines, root ``n0`` and the links in their natural order.
"""

from __future__ import annotations

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from ..strategy_checks import checked as _checked, define as _define, integer as _integer
from .cluster import Cluster

__all__ = ["switched_clusters"]


@st.composite
def _clusters(draw, max_machines, max_switches, min_machines):
    max_machines = _checked(draw, "max_machines", max_machines, _integer(1))
    max_switches = _checked(draw, "max_switches", max_switches, _integer(1))
    min_machines = _checked(draw, "min_machines", min_machines, _integer(1))
    if max_machines < min_machines:
        raise InvalidArgument(f"max_machines={max_machines} < min_machines={min_machines}")
    switches = draw(st.integers(1, max_switches))
    machines = draw(st.integers(min_machines, max_machines))
    names_s = [f"s{t}" for t in range(switches)]
    names_m = [f"n{v}" for v in range(machines)]
    links = [(names_s[draw(st.integers(0, t - 1))], names_s[t]) for t in range(1, switches)]
    links += [(names_m[v], names_s[draw(st.integers(0, switches - 1))])
              for v in range(machines)]
    order = draw(st.permutations(range(len(links))))
    root = names_m[draw(st.integers(0, machines - 1))]
    return Cluster(names_s, names_m, [links[p] for p in order], root)


def switched_clusters(max_machines: int = 16, max_switches: int = 6,
                      min_machines: int = 1) -> st.SearchStrategy:
    """Valid :class:`~steady.ethernet.cluster.Cluster` objects with
    ``min_machines..max_machines`` machines and ``1..max_switches`` switches.  Every
    parameter may be a strategy; bad values raise hypothesis' InvalidArgument naming
    the parameter, when the strategy is defined (values) or drawn (strategies).

    Example: ``@given(switched_clusters(max_machines=8, max_switches=4))``."""
    _define(max_machines=(max_machines, _integer(1)), max_switches=(max_switches, _integer(1)),
            min_machines=(min_machines, _integer(1)))
    if (isinstance(max_machines, int) and isinstance(min_machines, int)
            and max_machines < min_machines):
        raise InvalidArgument(f"max_machines={max_machines} < min_machines={min_machines}")
    return _clusters(max_machines, max_switches, min_machines)
