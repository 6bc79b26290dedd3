"""Public hypothesis strategies for platforms, spanning trees and relabelings.

Use them in your own property-based tests::

    from hypothesis import given
    from steady.strategies import platforms

    @given(platforms(max_nodes=6))
    def test_every_destination_is_reachable(platform):
        ...

Every platform drawn is valid (002 §2: every node reachable from the source) because the
structure is built that way, never filtered: a spanning arborescence rooted at the source
first, then extra arcs.  All choices are hypothesis draws (no ``random``), so failing
examples shrink towards few nodes, a star from the source, no extra arcs, cost 1 and
identity permutations.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from .numbers import parse_exact
from .platform import Link, Platform

__all__ = ["exact_costs", "decimal_costs", "platforms", "multiport_platforms",
           "spanning_trees", "platforms_with_tree", "relabelings"]


def exact_costs(max_numerator: int = 12, max_denominator: int = 6) -> st.SearchStrategy:
    """Positive exact costs p/q with 1 <= p <= max_numerator, 1 <= q <= max_denominator.

    Small numbers keep the exact arithmetic of the code under test cheap and the
    counterexamples readable; shrinks towards ``Fraction(1)``.

    Example: ``@given(exact_costs())`` draws values such as ``Fraction(7, 3)``.
    """
    if max_numerator < 1 or max_denominator < 1:
        raise InvalidArgument("max_numerator and max_denominator must be >= 1")
    return st.builds(Fraction, st.integers(1, max_numerator), st.integers(1, max_denominator))


# ``platforms`` has a parameter named ``exact_costs``; it reaches the strategy by this name.
_exact_cost_strategy = exact_costs


def decimal_costs(max_units: int = 400, max_places: int = 2) -> st.SearchStrategy:
    """Positive costs written as decimal text, such as ``"0.25"`` or ``"3.5"``, returned as
    the exact Fraction of that text (``Fraction(1, 4)``) -- how a user's file spells costs.

    The value is ``k / 10**places`` with ``1 <= k <= max_units`` and
    ``0 <= places <= max_places``; shrinks towards ``Fraction(1)``.

    Example: ``@given(decimal_costs())`` draws values such as ``Fraction(37, 100)``.
    """
    if max_units < 1 or max_places < 0:
        raise InvalidArgument("max_units must be >= 1 and max_places >= 0")
    return st.builds(_from_decimal_text, st.integers(1, max_units),
                     st.integers(0, max_places))


def _from_decimal_text(units: int, places: int) -> Fraction:
    text = str(Decimal(units).scaleb(-places))     # e.g. "0.25", "3.5", "120"
    return parse_exact(text)                       # read exactly as a user's file is


def _coin(draw, density: Fraction) -> bool:
    """True with probability ``density`` (up to 2**-32); shrinks to False (fewer arcs).

    ``st.integers`` is deliberately biased towards small values, so a threshold on it
    would not give the requested density; fair ``st.booleans`` are compared instead, bit
    by bit, with the binary expansion of ``1 - density`` (about two draws per coin).
    The drawn bits are those of a uniform U and the coin is U >= 1 - density, so the
    all-False shrink target (U = 0) means "no arc".
    """
    if density <= 0 or density >= 1:
        return density >= 1
    q = 1 - density
    for _ in range(32):
        q *= 2
        bit = int(q >= 1)
        q -= bit
        drawn = int(draw(st.booleans()))
        if drawn != bit:
            return drawn > bit
        if q == 0:
            return True
    return False


def _check(min_nodes, max_nodes, density) -> None:
    if min_nodes < 2:
        raise InvalidArgument(f"min_nodes={min_nodes}: a platform needs a source and a "
                              "destination")
    if max_nodes < min_nodes:
        raise InvalidArgument(f"max_nodes={max_nodes} < min_nodes={min_nodes}")
    if not 0 <= density <= 1:
        raise InvalidArgument(f"density={density} is not a probability")


def platforms(min_nodes: int = 2, max_nodes: int = 7, density: float = 0.4,
              cost: st.SearchStrategy | None = None, dag: bool = False,
              exact_costs: bool = True) -> st.SearchStrategy:
    """Valid platforms with ``min_nodes`` to ``max_nodes`` nodes ``"P0" ..``, source ``"P0"``.

    Built as: a spanning arborescence (each node hangs below an earlier node of an order),
    then every other ordered pair gets an arc with probability ~``density``.  With
    ``dag=True`` the order is a drawn permutation and only forward arcs are added, so the
    platform is a DAG (the setting of 002 §4).  Costs come from ``cost`` if given, else
    from :func:`exact_costs` (p/q) or, with ``exact_costs=False``, from
    :func:`decimal_costs` (decimal text such as "0.25", still exact Fractions).

    Example::

        @given(platforms(max_nodes=5, dag=True))
        def test_dag_lp(platform):
            assert platform.is_dag()
    """
    _check(min_nodes, max_nodes, density)
    density = Fraction(str(density)) if isinstance(density, float) else Fraction(density)
    if cost is None:
        cost = _exact_cost_strategy() if exact_costs else decimal_costs()

    @st.composite
    def build(draw) -> Platform:
        n = draw(st.integers(min_nodes, max_nodes))
        names = [f"P{i}" for i in range(n)]
        order = [names[0]] + (draw(st.permutations(names[1:])) if dag else names[1:])
        arcs = [(order[draw(st.integers(0, j - 1))], order[j]) for j in range(1, n)]
        in_tree = set(arcs)
        for i, u in enumerate(order):
            for j, v in enumerate(order):
                forward = j > i if dag else j != i
                if forward and (u, v) not in in_tree and _coin(draw, density):
                    arcs.append((u, v))
        links = [Link(u, v, draw(cost)) for u, v in arcs]
        return Platform(names[0], links, names, origin="<strategies.platforms>")

    return build()


def multiport_platforms(*args, **kwargs) -> st.SearchStrategy:
    """Platforms from :func:`platforms` (same arguments) with a ``send_overhead`` for
    every node that has an out-link, as the multi-port model of seed 000 §2.2 / §3.2
    needs: send_u = k/5 of u's cheapest out-link, k drawn in 1..5 (000 §2.1 assumes the
    sender's overhead is at most the link's occupation; §5.1 uses k = 4).

    Example::

        @given(multiport_platforms(max_nodes=5))
        def test_multi_port_tree(platform):
            assert platform.send_overhead
    """

    @st.composite
    def build(draw) -> Platform:
        p = draw(platforms(*args, **kwargs))
        send = {u: Fraction(draw(st.integers(1, 5)), 5)
                * min(link.cost for link in p.out_links(u))
                for u in p.nodes if p.out_links(u)}
        return Platform(p.source, p.links, p.nodes, send_overhead=send,
                        origin="<strategies.multiport_platforms>")

    return build()


def spanning_trees(platform: Platform) -> st.SearchStrategy:
    """Spanning arborescences of ``platform`` rooted at its source, as ``{child: parent}``
    where every (parent, child) is a link of the platform.

    Grown from the source: at each step one arc leaving the reached set is drawn among
    the platform's links (in file order), so every spanning arborescence can be drawn and
    shrinking prefers the first links.

    Example::

        @given(st.data())
        def test_tree(data):
            tree = data.draw(spanning_trees(default_platform()))
            assert set(tree) == set(default_platform().destinations)
    """

    @st.composite
    def build(draw) -> dict[str, str]:
        parent: dict[str, str] = {}
        reached = {platform.source}
        while len(reached) < len(platform.nodes):
            frontier = [l for l in platform.links
                        if l.tail in reached and l.head not in reached]
            link = draw(st.sampled_from(frontier))
            parent[link.head] = link.tail
            reached.add(link.head)
        return parent

    return build()


def platforms_with_tree(*args, **kwargs) -> st.SearchStrategy:
    """Pairs ``(platform, tree)``: a platform from :func:`platforms` (same arguments) and a
    spanning arborescence of it from :func:`spanning_trees`.

    Example::

        @given(platforms_with_tree(max_nodes=6))
        def test_tree_throughput(pair):
            platform, tree = pair
    """
    return platforms(*args, **kwargs).flatmap(
        lambda p: st.tuples(st.just(p), spanning_trees(p)))


def relabelings(platform: Platform, names: st.SearchStrategy | None = None
                ) -> st.SearchStrategy:
    """Bijections ``{old name: new name}`` of the nodes of ``platform``.

    By default the new names are a permutation of the old ones (the source may get a
    destination's name: the harshest test of name-independence); with ``names``, a
    strategy for strings, they are distinct fresh names drawn from it.  Apply one with
    ``platform.relabel(mapping)``.  Shrinks towards the identity.

    Example::

        @given(st.data())
        def test_name_independent(data):
            p = default_platform()
            q = p.relabel(data.draw(relabelings(p)))
            assert len(q.links) == len(p.links)
    """
    nodes = list(platform.nodes)
    if names is None:
        new = st.permutations(nodes)
    else:
        new = st.lists(names, min_size=len(nodes), max_size=len(nodes), unique=True)
    return new.map(lambda images: dict(zip(nodes, images)))
