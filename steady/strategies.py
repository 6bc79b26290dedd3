"""Public hypothesis strategies: platforms, broadcast trees, schedules and their
corruptions, for steady's tests and for users' own property-based test suites.

Use them in your own tests (docs/testing.md is a worked example)::

    from hypothesis import given
    from steady.strategies import platforms, schedules

    @given(platforms(max_nodes=6))
    def test_every_destination_is_reachable(platform):
        ...

    @given(schedules(platforms(max_nodes=5)))
    def test_my_checker_accepts_valid_schedules(schedule):
        ...

Every parameter may be a value or a strategy drawing such values (``min_nodes=
st.integers(2, 5)``); values are checked when the strategy is defined, drawn values when
they are drawn, and both raise hypothesis' ``InvalidArgument`` naming the parameter.
Exact numbers (costs, densities) are ints, Fractions, Decimals, text such as ``"1/3"``
or floats by their shortest decimal text, as in steady's file format.  Importing this
module registers :func:`platforms` and :func:`schedules` for ``st.from_type(Platform)``
and ``st.from_type(Schedule)`` (also done by hypothesis itself through the package's
``hypothesis`` entry point).

Every platform drawn is valid (002 §2: every node reachable from the source) because the
structure is built that way, never filtered: node by node, each hung below an earlier one,
with extra arcs to and from the earlier ones.  All choices are hypothesis draws (no
``random``), so failing examples shrink towards few nodes, a star from the source, no
extra arcs, cost 1, one tree of weight 1, the first rule of a list and identity
permutations.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from decimal import Decimal
from fractions import Fraction


def _hypothesis_setup_hook() -> None:
    """The ``hypothesis`` entry point (pyproject.toml): hypothesis calls it when it is
    imported, so the types are registered before any test module imports steady.

    Defined before this module imports hypothesis: when a user's first import is
    ``import steady.strategies``, that import of hypothesis runs the entry point while
    this module is still half loaded; the hook then finds no ``_register`` yet and does
    nothing (the module registers the types itself, at its end)."""
    register = globals().get("_register")
    if register is not None:
        register()


from hypothesis import event  # noqa: E402  (after the hook, see its docstring)
from hypothesis import strategies as st  # noqa: E402
from hypothesis.errors import InvalidArgument  # noqa: E402

from .inputs import as_platform
from .numbers import parse_exact
from .platform import Link, Platform
from .schedule_file import TIMED, Schedule, TreeEntry
from .strategy_checks import (boolean as _boolean, checked as _checked,
                              define as _define, fail as _fail, integer as _integer,
                              no_strategy as _no_strategy,
                              one_of as _one_of, positive as _positive,
                              probability as _probability, value_of as _value)

__all__ = ["exact_costs", "decimal_costs", "platforms", "multiport_platforms", "dags",
           "chains", "complete_platforms", "trees", "TREE_FAMILIES", "spanning_trees",
           "platforms_with_tree", "relabelings", "schedules", "schedule_corruptions",
           "Corruption", "CORRUPTIONS", "switched_platforms", "symmetric_fabrics",
           "collectives", "COLLECTIVE_KINDS", "collective_schedules"]

SearchStrategy = st.SearchStrategy


# -- values or strategies ---------------------------------------------------------------

# -- costs --------------------------------------------------------------------------------

def exact_costs(max_numerator: int = 12, max_denominator: int = 6) -> SearchStrategy:
    """Positive exact costs p/q with 1 <= p <= max_numerator, 1 <= q <= max_denominator.

    Small numbers keep the exact arithmetic of the code under test cheap and the
    counterexamples readable; shrinks towards ``Fraction(1)``, then small integers.

    Example: ``@given(exact_costs())`` draws values such as ``Fraction(7, 3)``.
    """
    _define(max_numerator=(max_numerator, _integer(1)),
            max_denominator=(max_denominator, _integer(1)))
    if isinstance(max_numerator, SearchStrategy) or isinstance(max_denominator,
                                                               SearchStrategy):
        return st.tuples(_drawn(max_numerator, "max_numerator", _integer(1)),
                         _drawn(max_denominator, "max_denominator", _integer(1))
                         ).flatmap(lambda nd: exact_costs(*nd))
    return st.sampled_from(_fractions(max_numerator, max_denominator))


def _drawn(x, name, check) -> SearchStrategy:
    """A strategy parameter whose draws are checked, or the value itself."""
    if not isinstance(x, SearchStrategy):
        return st.just(x)

    def checked(v):
        check(name, v, drawn=True)
        return v
    return x.map(checked)


@functools.lru_cache(maxsize=32)
def _fractions(max_numerator: int, max_denominator: int) -> tuple[Fraction, ...]:
    # One draw per cost (sampled_from) instead of two: generation speed.  Every (p, q)
    # pair once, as st.builds(Fraction, p, q) drew them; integers first, so that a cost
    # shrinks to 1, then to small integers.
    return tuple(Fraction(p, q) for q in range(1, max_denominator + 1)
                 for p in range(1, max_numerator + 1))


# ``platforms`` has a parameter named ``exact_costs``; it reaches the strategy by this name.
_exact_cost_strategy = exact_costs


def decimal_costs(max_units: int = 400, max_places: int = 2) -> SearchStrategy:
    """Positive costs written as decimal text, such as ``"0.25"`` or ``"3.5"``, returned as
    the exact Fraction of that text (``Fraction(1, 4)``) -- how a user's file spells costs.

    The value is ``k / 10**places`` with ``1 <= k <= max_units`` and
    ``0 <= places <= max_places``; shrinks towards ``Fraction(1)``.

    Example: ``@given(decimal_costs())`` draws values such as ``Fraction(37, 100)``.
    """
    _define(max_units=(max_units, _integer(1)), max_places=(max_places, _integer(0)))
    return st.builds(_from_decimal_text,
                     _integers_up_to(1, max_units, "max_units", _integer(1)),
                     _integers_up_to(0, max_places, "max_places", _integer(0)))


def _integers_up_to(lo, hi, name, check) -> SearchStrategy:
    if isinstance(hi, SearchStrategy):
        return _drawn(hi, name, check).flatmap(lambda h: st.integers(lo, h))
    return st.integers(lo, hi)


def _from_decimal_text(units: int, places: int) -> Fraction:
    text = str(Decimal(units).scaleb(-places))     # e.g. "0.25", "3.5", "120"
    return parse_exact(text)                       # read exactly as a user's file is


@functools.lru_cache(maxsize=256)
def _cost_strategy(cost, exact: bool) -> SearchStrategy:
    """The strategy of link costs: ``cost`` (a strategy or one exact number > 0), else
    the default small p/q or decimal costs.  Cached, like the strategies of
    :func:`_node`: hypothesis validates a strategy object once, and creating them
    anew for every draw took a third of the generation time."""
    if cost is None:
        return _exact_cost_strategy() if exact else decimal_costs()
    if isinstance(cost, SearchStrategy):
        return cost.map(_link_cost)
    return st.just(parse_exact(cost))


def _link_cost(v) -> Fraction:
    _positive("cost", v, drawn=True)
    return parse_exact(v)


# -- platforms ------------------------------------------------------------------------------

def _coin(draw, digits: tuple[int, ...]) -> bool:
    """True with probability ``density`` (up to 16**-8); shrinks to False (fewer arcs).
    ``digits`` = :func:`_threshold` (density).

    The drawn hexadecimal digits are those of a uniform U in [0, 1) and the coin is
    U >= 1 - density, compared digit by digit with the expansion of 1 - density (about
    1.07 draws per coin).  ``st.integers(0, 15)`` is uniform, unlike wider ranges, which
    hypothesis biases towards small values.  The all-zero shrink target (U = 0) means
    "no arc".
    """
    if not digits:
        return True          # density 1 (density 0 never gets here)
    for digit in digits:
        drawn = draw(_HEX)
        if drawn != digit:
            return drawn > digit
    return len(digits) < 8   # 1 - density ended exactly: U >= it


@functools.lru_cache(maxsize=256)
def _threshold(density: Fraction) -> tuple[int, ...]:
    """The hexadecimal digits of 1 - density, at most 8, without trailing zeros."""
    q, digits = 1 - density, []
    while q and len(digits) < 8:
        q *= 16
        digits.append(int(q))
        q -= int(q)
    return tuple(digits)


_HEX = st.integers(0, 15)
_DEFAULT_MAX_NODES = 7


def _bounds(draw, min_nodes, max_nodes) -> tuple[int, int]:
    lo = _checked(draw, "min_nodes", min_nodes, _integer(2))
    hi = _checked(draw, "max_nodes", max_nodes, _integer(2, none_ok=True))
    if hi is None:
        hi = lo + 5
    if hi < lo:
        raise InvalidArgument(f"max_nodes={hi} < min_nodes={lo}")
    return lo, hi


def _sizes(draw, min_nodes, max_nodes) -> int:
    return draw(st.integers(*_bounds(draw, min_nodes, max_nodes)))


def _check_sizes(min_nodes, max_nodes) -> None:
    _define(min_nodes=(min_nodes, _integer(2)),
            max_nodes=(max_nodes, _integer(2, none_ok=True)))
    if (isinstance(min_nodes, int) and isinstance(max_nodes, int)
            and max_nodes < min_nodes):
        raise InvalidArgument(f"max_nodes={max_nodes} < min_nodes={min_nodes}")


def platforms(min_nodes: int = 2, max_nodes: int | None = _DEFAULT_MAX_NODES,
              density=0.4, cost=None, dag: bool = False,
              exact_costs: bool = True) -> SearchStrategy:
    """Valid platforms with ``min_nodes`` to ``max_nodes`` nodes ``"P0" ..``, source ``"P0"``
    (``max_nodes=None``: ``min_nodes + 5``).

    Built node by node: each node hangs below a drawn earlier node (so the platform has
    a spanning arborescence from the source), and every other ordered pair with an
    earlier node gets an arc with probability ~``density`` (an exact number in [0, 1]).
    With ``dag=True`` only arcs from earlier to later nodes are added, so the platform
    is a DAG (the setting of 002 §4), and the names follow a drawn order.  Costs come
    from ``cost`` if given -- a strategy (``st.integers(1, 10)``, ``st.decimals(1, 10,
    places=2)``, ...) or one exact number > 0 -- else from :func:`exact_costs` (p/q) or,
    with ``exact_costs=False``, from :func:`decimal_costs` (decimal text such as "0.25",
    still exact Fractions).  Every parameter may be a strategy.

    Example::

        @given(platforms(max_nodes=5, dag=True))
        def test_dag_lp(platform):
            assert platform.is_dag()
    """
    _check_sizes(min_nodes, max_nodes)
    _define(density=(density, _probability), dag=(dag, _boolean),
            exact_costs=(exact_costs, _boolean))
    if cost is not None and not isinstance(cost, SearchStrategy):
        _positive("cost", cost)
    return _platforms(min_nodes, max_nodes, density, cost, dag, exact_costs)


@st.composite
def _platforms(draw, min_nodes, max_nodes, density, cost, dag, exact) -> Platform:
    density = parse_exact(_checked(draw, "density", density, _probability))
    dag = _checked(draw, "dag", dag, _boolean)
    exact = _checked(draw, "exact_costs", exact, _boolean)
    costs = _cost_strategy(cost, exact)
    lo, hi = _bounds(draw, min_nodes, max_nodes)
    n = draw(st.integers(lo, hi))
    digits = _threshold(density) if density > 0 else None
    up = [0]                       # each node's drawn parent
    present = [True]
    arcs: dict[tuple[int, int], Fraction] = {}   # ordered: node by node
    for j in range(1, n):
        here, parent, block = draw(_node_strategy(j, costs, digits, dag))
        up.append(parent)
        present.append(here or n - present.count(False) <= lo)
        if not present[j]:
            continue
        while not present[parent]:  # hung below an absent node: below its parent
            parent = up[parent]
        arcs.setdefault((parent, j), block[0])
        for i, k, c in block[1:]:
            if present[i] and present[k]:
                arcs.setdefault((i, k), c)
    index = {j: f"P{k}" for k, j in enumerate(j for j in range(n) if present[j])}
    names = list(index.values())
    if dag:  # nodes were built in a topological order; names them in a drawn one
        index = dict(zip(index, [names[0]] + draw(st.permutations(names[1:]))))
    links = [Link(index[i], index[j], c) for (i, j), c in arcs.items()]
    return Platform(names[0], links, names, origin="<strategies.platforms>")


@functools.lru_cache(maxsize=1024)
def _node_strategy(j: int, costs, digits, dag: bool) -> SearchStrategy:
    return _node(j, costs, digits, dag)


@st.composite
def _node(draw, j: int, costs, digits, dag: bool):
    """Node j of a platform: (present, drawn parent, [tree arc cost, (i, k, cost) of
    each extra arc]), one span per node.

    It hangs below a drawn earlier node (0, the source, first: shrinks to a star); each
    other pair with an earlier node gets an arc each way (forward only with ``dag``)
    with probability ~density.  ``present`` is false with probability 1/16: a shrink
    target that removes a node from the middle without moving anything else (its
    children then hang below its parent), where lowering the number of nodes can only
    remove the last one."""
    present = draw(_HEX) != 0
    parent = draw(st.integers(0, j - 1))
    block: list = [draw(costs)]
    if digits is not None:
        for i in range(j):
            if i != parent and _coin(draw, digits):
                block.append((i, j, draw(costs)))
            if not dag and _coin(draw, digits):
                block.append((j, i, draw(costs)))
    return present, parent, block


def dags(min_nodes: int = 2, max_nodes: int | None = _DEFAULT_MAX_NODES, density=0.4,
         cost=None, exact_costs: bool = True) -> SearchStrategy:
    """Acyclic platforms (002 §4): :func:`platforms` with ``dag=True``; nodes are
    numbered in a drawn order, so "P1" is not always the first after the source.

    Example: ``@given(dags(max_nodes=6))`` then ``assert platform.is_dag()``."""
    return platforms(min_nodes, max_nodes, density, cost, True, exact_costs)


def chains(min_nodes: int = 2, max_nodes: int | None = _DEFAULT_MAX_NODES, cost=None,
           both_ways: bool = False) -> SearchStrategy:
    """Paths ``P0 -> P1 -> ... -> Pn-1`` from the source P0 (with ``both_ways=True``
    also every arc back): the platforms where a broadcast is a pipeline and TP = 1 /
    the largest cost (002 §3.1.2).

    Example: ``@given(chains(max_nodes=5))``."""
    _check_sizes(min_nodes, max_nodes)
    _define(both_ways=(both_ways, _boolean))
    if cost is not None and not isinstance(cost, SearchStrategy):
        _positive("cost", cost)

    @st.composite
    def build(draw) -> Platform:
        back = _checked(draw, "both_ways", both_ways, _boolean)
        costs = _cost_strategy(cost, True)
        n = _sizes(draw, min_nodes, max_nodes)
        names = [f"P{i}" for i in range(n)]
        links = []
        for u, v in zip(names, names[1:]):
            links.append(Link(u, v, draw(costs)))
            if back:
                links.append(Link(v, u, draw(costs)))
        return Platform(names[0], links, names, origin="<strategies.chains>")

    return build()


def complete_platforms(min_nodes: int = 2, max_nodes: int | None = 5,
                       cost=None) -> SearchStrategy:
    """Complete platforms: an arc both ways between every two of the nodes P0 .. Pn-1,
    source P0 (the densest one-port instances; default at most 5 nodes, 20 arcs).

    Example: ``@given(complete_platforms(max_nodes=4))``."""
    _check_sizes(min_nodes, max_nodes)
    if cost is not None and not isinstance(cost, SearchStrategy):
        _positive("cost", cost)

    @st.composite
    def build(draw) -> Platform:
        costs = _cost_strategy(cost, True)
        n = _sizes(draw, min_nodes, max_nodes)
        names = [f"P{i}" for i in range(n)]
        links = [Link(u, v, draw(costs)) for u in names for v in names if u != v]
        return Platform(names[0], links, names, origin="<strategies.complete_platforms>")

    return build()


def multiport_platforms(*args, **kwargs) -> SearchStrategy:
    """Platforms from :func:`platforms` (same arguments) with a ``send_overhead`` for
    every node that has an out-link, as the multi-port model of seed 000 §2.2 / §3.2
    needs: send_u = k/5 of u's cheapest out-link, k drawn in 1..5 (000 §2.1 assumes the
    sender's overhead is at most the link's occupation; §5.1 uses k = 4).

    Example::

        @given(multiport_platforms(max_nodes=5))
        def test_multi_port_tree(platform):
            assert platform.send_overhead
    """
    base = platforms(*args, **kwargs)

    @st.composite
    def build(draw) -> Platform:
        p = draw(base)
        send = {u: Fraction(draw(st.integers(1, 5)), 5)
                * min(link.cost for link in p.out_links(u))
                for u in p.nodes if p.out_links(u)}
        return Platform(p.source, p.links, p.nodes, send_overhead=send,
                        origin="<strategies.multiport_platforms>")

    return build()


# -- fabrics and collectives (issue 43) ----------------------------------------------------

#: The collectives of :func:`steady.throughput.collective_throughput`.
COLLECTIVE_KINDS = ("broadcast", "allgather", "reduce-scatter", "allreduce")
_PORT_MODELS = ("one-port", "multi-port")


def _ports(name, v, drawn=False):
    if v is not None and v not in _PORT_MODELS:
        _fail(name, v, drawn, "must be 'one-port', 'multi-port' or None (drawn)")


def switched_platforms(min_compute: int = 2, max_compute: int = 5, max_switches: int = 3,
                       ports=None, density=0.3, cost=None) -> SearchStrategy:
    """Platforms with switches (issue 43): compute nodes ``"C0" ..`` (source ``"C0"``),
    0 to ``max_switches`` switches ``"S0" ..``, ``ports`` ``"one-port"``,
    ``"multi-port"`` or None (drawn).

    A ring through every node, both ways and in a drawn order, makes every node reach
    every other (so every collective is defined and every switch has links in and
    out); every other ordered pair gets an arc with probability ~``density``.  Costs as
    in :func:`platforms`.  Shrinks towards two compute nodes, no switch, the ring in
    name order, cost 1.

    Example::

        @given(switched_platforms(ports="multi-port"))
        def test_allgather(platform):
            collective_throughput(platform, "allgather")
    """
    _define(min_compute=(min_compute, _integer(2)), max_compute=(max_compute, _integer(2)),
            max_switches=(max_switches, _integer(0)), ports=(ports, _ports),
            density=(density, _probability))
    if isinstance(min_compute, int) and isinstance(max_compute, int) \
            and max_compute < min_compute:
        raise InvalidArgument(f"max_compute={max_compute} < min_compute={min_compute}")
    if cost is not None and not isinstance(cost, SearchStrategy):
        _positive("cost", cost)

    @st.composite
    def build(draw) -> Platform:
        lo = _checked(draw, "min_compute", min_compute, _integer(2))
        hi = _checked(draw, "max_compute", max_compute, _integer(2))
        if hi < lo:
            raise InvalidArgument(f"max_compute={hi} < min_compute={lo}")
        costs = _cost_strategy(cost, True)
        n = draw(st.integers(lo, hi))
        k = draw(st.integers(0, _checked(draw, "max_switches", max_switches, _integer(0))))
        model = _checked(draw, "ports", ports, _ports) or draw(st.sampled_from(_PORT_MODELS))
        p = parse_exact(_checked(draw, "density", density, _probability))
        compute = [f"C{i}" for i in range(n)]
        switches = [f"S{i}" for i in range(k)]
        order = [compute[0]] + draw(st.permutations(compute[1:] + switches))
        arcs: dict[tuple[str, str], Fraction] = {}
        for u, v in zip(order, order[1:] + order[:1]):
            if u != v:
                arcs.setdefault((u, v), draw(costs))
                arcs.setdefault((v, u), draw(costs))
        digits = _threshold(p) if p > 0 else None
        for u in compute + switches:
            for v in compute + switches:
                if u != v and (u, v) not in arcs and digits is not None \
                        and _coin(draw, digits):
                    arcs[(u, v)] = draw(costs)
        links = [Link(u, v, c) for (u, v), c in arcs.items()]
        return Platform(compute[0], links, compute + switches, ports=model,
                        switches=switches, origin="<strategies.switched_platforms>")

    return build()


def symmetric_fabrics(max_boxes: int = 3, max_per_box: int = 3, ports=None) -> SearchStrategy:
    """Switched fabrics with a symmetry (issue 43): 2 to ``max_boxes`` identical boxes
    ``b{box}.c{i}`` (1 to ``max_per_box`` compute nodes each, a drawn box: a ring both
    ways, perhaps a box switch ``b{box}.sw`` linked to every node), each compute node
    linked both ways to one network switch ``net`` at a drawn cost, and the shift of
    the boxes as the platform's ``symmetry`` (free on the compute nodes)."""
    _define(max_boxes=(max_boxes, _integer(2)), max_per_box=(max_per_box, _integer(1)),
            ports=(ports, _ports))

    @st.composite
    def build(draw) -> Platform:
        costs = _cost_strategy(None, True)
        boxes = draw(st.integers(2, _checked(draw, "max_boxes", max_boxes, _integer(2))))
        m = draw(st.integers(1, _checked(draw, "max_per_box", max_per_box, _integer(1))))
        model = _checked(draw, "ports", ports, _ports) or draw(st.sampled_from(_PORT_MODELS))
        ring = [(i, (i + 1) % m, draw(costs), draw(costs)) for i in range(m) if m > 1
                and (m > 2 or i == 0)]
        box_switch = [draw(costs) for _ in range(m)] if draw(st.booleans()) else None
        uplink = [(draw(costs), draw(costs)) for _ in range(m)]
        links, nodes, switches = [], [], ["net"]
        for b in range(boxes):
            c = [f"b{b}.c{i}" for i in range(m)]
            nodes += c
            for i, j, there, back in ring:
                links += [Link(c[i], c[j], there), Link(c[j], c[i], back)]
            if box_switch is not None:
                switches.append(f"b{b}.sw")
                for i, w in enumerate(box_switch):
                    links += [Link(c[i], f"b{b}.sw", w), Link(f"b{b}.sw", c[i], w)]
            for i, (up, down) in enumerate(uplink):
                links += [Link(c[i], "net", up), Link("net", c[i], down)]
        shift = {}
        for b in range(boxes):
            after = (b + 1) % boxes
            shift.update({f"b{b}.c{i}": f"b{after}.c{i}" for i in range(m)})
            if box_switch is not None:
                shift[f"b{b}.sw"] = f"b{after}.sw"
        return Platform(nodes[0], links, nodes + switches, ports=model, switches=switches,
                        symmetry=[shift], origin="<strategies.symmetric_fabrics>")

    return build()


def collectives(platform, kinds=COLLECTIVE_KINDS) -> SearchStrategy:
    """(kind, sources, rates) for :func:`steady.throughput.collective_throughput` on
    ``platform``: a kind from ``kinds``; for a broadcast, a drawn non-empty list of
    compute nodes as sources (or None: the platform's source) and, sometimes, small
    integer relative rates."""
    _no_strategy("platform", platform, "draw it first, e.g. with st.data()")
    compute = list(platform.compute_nodes)

    @st.composite
    def build(draw):
        kind = draw(st.sampled_from(list(kinds)))
        if kind != "broadcast" or draw(st.booleans()):
            return kind, None, None
        sources = draw(st.lists(st.sampled_from(compute), min_size=1, unique=True))
        rates = draw(st.none() | st.lists(st.integers(1, 3), min_size=len(sources),
                                          max_size=len(sources)))
        return kind, sources, rates

    return build()


def collective_schedules(platform, kinds=COLLECTIVE_KINDS, max_chunks=8,
                         effort="fast") -> SearchStrategy:
    """Valid collective schedules (issue 43; a version 2 timetable with its trees'
    roots, directions and routes, the collective and the optimum's certificate) on
    ``platform`` -- a Platform or a strategy of platforms such as
    :func:`switched_platforms`: a collective drawn by :func:`collectives` from
    ``kinds``, 1 to ``max_chunks`` chunks per unit share and root per period, built by
    :func:`steady.schedule.collective.collective_schedule` at ``effort`` (its
    construction, so the schedule is as steady writes it, ratio <= 1 certified).

    Example::

        @given(collective_schedules(switched_platforms(max_compute=4)))
        def test_my_runtime_accepts(schedule):
            ...
    """
    if not isinstance(platform, SearchStrategy):
        platform = as_platform(platform)
    _define(max_chunks=(max_chunks, _integer(1)))
    for kind in kinds:
        if kind not in COLLECTIVE_KINDS:
            raise InvalidArgument(f"kinds={kinds!r}: {kind!r} is not one of "
                                  f"{', '.join(COLLECTIVE_KINDS)}")

    @st.composite
    def build(draw) -> Schedule:
        from .schedule.collective import collective_schedule, root_shares
        from .throughput import collective_throughput

        p = _value(draw, platform)
        if not isinstance(p, Platform):
            raise InvalidArgument(f"the platform strategy drew {type(p).__name__}, "
                                  "not a Platform")
        kind, sources, rates = draw(collectives(p, kinds))
        result = collective_throughput(p, kind, sources, rates)
        k = draw(st.integers(1, _checked(draw, "max_chunks", max_chunks, _integer(1))))
        most = k * max(root_shares(result.roots).values())
        event(f"collective: {kind}")
        return collective_schedule(p, result, most, effort)[0]

    return build()


# -- trees --------------------------------------------------------------------------------

#: The tree families of :func:`trees`.
TREE_FAMILIES = ("any", "bfs", "dfs", "cheapest-link", "shortest-path")


def trees(platform, family="any") -> SearchStrategy:
    """Spanning arborescences of ``platform`` rooted at its source, as ``{child: parent}``
    where every (parent, child) is a link of the platform.

    ``family`` (a name or a strategy of names, e.g. ``st.sampled_from(TREE_FAMILIES)``):

    * ``"any"``: grown from the source, each step one arc leaving the reached set drawn
      among the platform's links (file order), so every spanning arborescence can be
      drawn and shrinking prefers the first links;
    * ``"bfs"``: fewest hops: each node's parent is drawn among its in-neighbours one
      hop nearer the source;
    * ``"dfs"``: deep trees: grown from the most recently reached node that still has a
      link to an unreached node;
    * ``"cheapest-link"``: grown greedily along a cheapest arc leaving the reached set
      (ties drawn), the fastest-edge tree of 000 §3;
    * ``"shortest-path"``: each node's parent is drawn among its predecessors on a
      cheapest path from the source (exact distances).

    ``platform`` is a Platform (or a steady-platform dict or a networkx DiGraph), not a
    strategy: draw pairs with :func:`platforms_with_tree`.

    Example::

        @given(st.data())
        def test_tree(data):
            tree = data.draw(trees(default_platform(), family="bfs"))
            assert set(tree) == set(default_platform().destinations)
    """
    _no_strategy("platform", platform, "for (platform, tree) pairs use "
                 "platforms_with_tree(...), or draw the platform first with st.data()")
    platform = as_platform(platform)
    _define(family=(family, _one_of(TREE_FAMILIES)))

    @st.composite
    def build(draw) -> dict[str, str]:
        name = _checked(draw, "family", family, _one_of(TREE_FAMILIES))
        return _GROW[name](draw, platform)

    return build()


def spanning_trees(platform) -> SearchStrategy:
    """Any spanning arborescence of ``platform``: :func:`trees` of family ``"any"``."""
    return trees(platform, "any")


def _grow_any(draw, platform: Platform) -> dict[str, str]:
    parent: dict[str, str] = {}
    reached = {platform.source}
    while len(reached) < len(platform.nodes):
        frontier = [l for l in platform.links if l.tail in reached and l.head not in reached]
        link = draw(st.sampled_from(frontier))
        parent[link.head] = link.tail
        reached.add(link.head)
    return parent


def _grow_cheapest(draw, platform: Platform) -> dict[str, str]:
    parent: dict[str, str] = {}
    reached = {platform.source}
    while len(reached) < len(platform.nodes):
        frontier = [l for l in platform.links if l.tail in reached and l.head not in reached]
        cheapest = min(l.cost for l in frontier)
        link = draw(st.sampled_from([l for l in frontier if l.cost == cheapest]))
        parent[link.head] = link.tail
        reached.add(link.head)
    return parent


def _grow_dfs(draw, platform: Platform) -> dict[str, str]:
    parent: dict[str, str] = {}
    reached = {platform.source}
    path = [platform.source]
    while len(reached) < len(platform.nodes):
        onward = [l for l in platform.out_links(path[-1]) if l.head not in reached]
        if not onward:
            path.pop()  # nonempty: every node is reachable from the source
            continue
        link = draw(st.sampled_from(onward))
        parent[link.head] = link.tail
        reached.add(link.head)
        path.append(link.head)
    return parent


def _nearest_parents(draw, platform: Platform, distance) -> dict[str, str]:
    """Each destination's parent drawn among its in-neighbours u with
    d(u) + length(u, v) = d(v): a tree of shortest paths (lengths > 0, so no cycle)."""
    d = distance(platform)
    return {v: draw(st.sampled_from([l.tail for l in platform.in_links(v)
                                     if d[l.tail] + _length(distance, l) == d[v]]))
            for v in platform.destinations}


def _length(distance, link):
    return 1 if distance is _hops else link.cost


def _hops(platform: Platform) -> dict[str, int]:
    d = {platform.source: 0}
    layer = [platform.source]
    while layer:
        nxt = []
        for u in layer:
            for l in platform.out_links(u):
                if l.head not in d:
                    d[l.head] = d[u] + 1
                    nxt.append(l.head)
        layer = nxt
    return d


def _costs(platform: Platform) -> dict[str, Fraction]:
    """Exact Dijkstra distances from the source (small platforms: a linear scan)."""
    d = {platform.source: Fraction(0)}
    done: set[str] = set()
    while len(done) < len(platform.nodes):
        u = min((v for v in d if v not in done), key=d.__getitem__)
        done.add(u)
        for l in platform.out_links(u):
            if l.head not in d or d[u] + l.cost < d[l.head]:
                d[l.head] = d[u] + l.cost
    return d


_GROW = {"any": _grow_any, "dfs": _grow_dfs, "cheapest-link": _grow_cheapest,
         "bfs": lambda draw, p: _nearest_parents(draw, p, _hops),
         "shortest-path": lambda draw, p: _nearest_parents(draw, p, _costs)}


def platforms_with_tree(*args, family="any", **kwargs) -> SearchStrategy:
    """Pairs ``(platform, tree)``: a platform from :func:`platforms` (same arguments) and a
    spanning arborescence of it from :func:`trees` of the given ``family``.

    Example::

        @given(platforms_with_tree(max_nodes=6))
        def test_tree_throughput(pair):
            platform, tree = pair
    """
    _define(family=(family, _one_of(TREE_FAMILIES)))
    return platforms(*args, **kwargs).flatmap(
        lambda p: st.tuples(st.just(p), _trees_of(p, family)))


def relabelings(platform, names: SearchStrategy | None = None) -> SearchStrategy:
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
    _no_strategy("platform", platform, "draw the platform first with st.data()")
    if names is not None and not isinstance(names, SearchStrategy):
        raise InvalidArgument(f"names={names!r} must be a strategy of strings")
    nodes = list(as_platform(platform).nodes)
    if names is None:
        new = st.permutations(nodes)
    else:
        new = st.lists(names, min_size=len(nodes), max_size=len(nodes), unique=True)
    return new.map(lambda images: dict(zip(nodes, images)))


# -- schedules --------------------------------------------------------------------------

def schedules(platform, optimal=False, version=None, max_trees=3, max_weight=4,
              family="any") -> SearchStrategy:
    """Valid steady-schedule objects (docs/formats.md) on ``platform`` -- a Platform (or
    a dict or networkx DiGraph) or a strategy of platforms such as ``platforms()``.

    With ``optimal=False`` (the default) the schedule carries 1 to ``max_trees`` trees
    of :func:`trees` (of ``family``) with weights 1 to ``max_weight``, not the optimum's:
    valid, with no certificate, to check with ``verify(..., optimality=False)``.  A
    version 1 schedule is the weighted colouring of 002 §5.4.2 (Thm 6) on those trees,
    its steps in a drawn order, some stretched (idle time is valid); a version 2
    (timed) one is that schedule's timetable or a greedy list schedule
    (:mod:`steady.schedule.timed`), its period sometimes longer than its last transfer.
    With ``optimal=True`` it is steady's optimal schedule, with its certificate (version
    2: the timed form of it, ratio 1).  ``version``: 1, 2 or None (either, drawn).

    Example::

        @given(schedules(platforms(max_nodes=5), version=2))
        def test_my_checker(schedule):
            assert my_checker(schedule)
    """
    if not isinstance(platform, SearchStrategy):
        platform = as_platform(platform)
    _define(optimal=(optimal, _boolean), version=(version, _one_of((1, 2, None))),
            max_trees=(max_trees, _integer(1)), max_weight=(max_weight, _integer(1)),
            family=(family, _one_of(TREE_FAMILIES)))

    @st.composite
    def build(draw) -> Schedule:
        p = _value(draw, platform)
        if not isinstance(p, Platform):
            raise InvalidArgument(f"the platform strategy drew {type(p).__name__}, "
                                  "not a Platform")
        best = _checked(draw, "optimal", optimal, _boolean)
        v = _checked(draw, "version", version, _one_of((1, 2, None)))
        if v is None:
            v = draw(st.sampled_from((1, 2)))
        if best:
            return _optimal_schedule(p, v)
        k = draw(st.integers(1, _checked(draw, "max_trees", max_trees, _integer(1))))
        most = _checked(draw, "max_weight", max_weight, _integer(1))
        tree_strategy = _trees_of(p, family)
        weighted = [(draw(tree_strategy), draw(st.integers(1, most))) for _ in range(k)]
        return _any_v1(draw, p, weighted) if v == 1 else _any_v2(draw, p, weighted)

    return build()


@functools.lru_cache(maxsize=256)
def _trees_of(platform: Platform, family) -> SearchStrategy:
    return trees(platform, family)  # cached: a new strategy object costs its validation


def _any_v1(draw, platform: Platform, weighted) -> Schedule:
    from .schedule import periodic_schedule

    s = periodic_schedule(platform, weighted, 1)
    order = draw(st.permutations(range(len(s.steps))))
    steps = [s.steps[i] for i in order]
    # Stretch some steps by half or all of their duration: idle time keeps it valid.
    steps = [replace(step, duration=step.duration * (2 + draw(st.integers(0, 2))) / 2)
             for step in steps]
    period = sum((step.duration for step in steps), Fraction(0))
    return replace(s, steps=tuple(steps), period=period,
                   throughput=Fraction(s.messages_per_period) / period)


def _any_v2(draw, platform: Platform, weighted) -> Schedule:
    from .schedule.effort import FAST
    from .schedule.list_schedule import list_schedule
    from .schedule_file import timed

    if draw(st.booleans()):
        s = timed(_any_v1(draw, platform, weighted))
    else:
        table = list_schedule(platform, weighted, FAST)
        period, messages = table.period_time, table.messages
        s = Schedule(platform, Fraction(messages) / period, period, messages,
                     tuple(TreeEntry.from_parent(t, w) for t, w in weighted),
                     transfers=tuple(table.transfers()), version=TIMED)
    period = s.period * (4 + draw(st.integers(0, 2))) / 4  # sometimes idle at the end
    return replace(s, period=period, throughput=Fraction(s.messages_per_period) / period)


@functools.lru_cache(maxsize=64)
def _optimal_schedule(platform: Platform, version: int) -> Schedule:
    # Cached: a test drawing several schedules of one platform solves its LP once.
    from .schedule import optimal_schedule
    from .schedule_file import timed
    from .throughput import throughput

    s, _ = optimal_schedule(platform, throughput(platform))
    return s if version == 1 else timed(s)


# -- corruptions ------------------------------------------------------------------------

@dataclass(frozen=True)
class Corruption:
    """A valid schedule broken by one named ``rule`` (see :data:`CORRUPTIONS`):
    ``schedule`` is the broken one, ``kind`` the :mod:`steady.verify` violation kind
    that it must be reported with, ``where`` the element changed."""

    rule: str
    kind: str
    where: str
    schedule: Schedule
    original: Schedule = field(repr=False)


def schedule_corruptions(schedule, rules=None) -> SearchStrategy:
    """:class:`Corruption` objects: ``schedule`` (a valid Schedule, or a strategy of them
    such as :func:`schedules`) broken by one rule of :data:`CORRUPTIONS` that applies
    to it (``rules``: a subset of their names), which ``verify`` must reject with the
    corruption's ``kind``.  Each draw is labelled with hypothesis' ``event()``
    (``corruption: <rule>``), so ``--hypothesis-show-statistics`` shows which rules ran.

    Example::

        @given(schedule_corruptions(schedules(platforms(max_nodes=5))))
        def test_my_checker_rejects(corruption):
            assert not my_checker(corruption.schedule), corruption.rule
    """
    if rules is not None:
        rules = tuple(rules)
        unknown = [r for r in rules if r not in CORRUPTIONS]
        if unknown or not rules:
            raise InvalidArgument(f"rules={rules!r}: choose among " + ", ".join(CORRUPTIONS))
    if not isinstance(schedule, SearchStrategy) and not isinstance(schedule, Schedule):
        raise InvalidArgument(f"schedule must be a Schedule or a strategy of them, got "
                              f"{type(schedule).__name__}")

    @st.composite
    def build(draw) -> Corruption:
        s = _value(draw, schedule)
        if not isinstance(s, Schedule):
            raise InvalidArgument(f"the schedule strategy drew {type(s).__name__}")
        timed = s.version == TIMED
        usable = [name for name, (v1, v2, applies, _) in CORRUPTIONS.items()
                  if (rules is None or name in rules) and (v2 if timed else v1)
                  and applies(s)]
        if not usable:
            raise InvalidArgument(f"none of the rules {rules!r} applies to this schedule")
        rule = draw(st.sampled_from(usable))
        kind, where, broken = CORRUPTIONS[rule][3](draw, s)
        event(f"corruption: {rule}")
        return Corruption(rule, kind, where, broken, s)

    return build()


def _timeline(s: Schedule) -> list[tuple[str, object]]:
    """(where, transfer) of every transfer, in file order."""
    if s.version == TIMED:
        return [(f"transfers[{j}]", t) for j, t in enumerate(s.transfers)]
    return [(f"steps[{i}].transfers[{j}]", t) for i, step in enumerate(s.steps)
            for j, t in enumerate(step.transfers)]


def _with_transfer(s: Schedule, index: int, new) -> Schedule:
    """``s`` with its ``index``-th transfer (file order) replaced by the list ``new``."""
    if s.version == TIMED:
        ts = list(s.transfers)
        return replace(s, transfers=tuple(ts[:index] + list(new) + ts[index + 1:]))
    steps, seen = [], 0
    for step in s.steps:
        n = len(step.transfers)
        if seen <= index < seen + n:
            ts = list(step.transfers)
            k = index - seen
            step = replace(step, transfers=tuple(ts[:k] + list(new) + ts[k + 1:]))
        steps.append(step)
        seen += n
    return replace(s, steps=tuple(steps))


def _pick_transfer(draw, s: Schedule):
    timeline = _timeline(s)
    j = draw(st.integers(0, len(timeline) - 1))
    return j, timeline[j][0], timeline[j][1]


def _drop_transfer(draw, s):
    j, where, _ = _pick_transfer(draw, s)
    return "delivery", where, _with_transfer(s, j, [])


def _extra_message(draw, s):
    j, where, t = _pick_transfer(draw, s)
    return "delivery", f"{where}.messages", _with_transfer(
        s, j, [replace(t, messages=t.messages + 1)])


def _zero_messages(draw, s):
    j, where, t = _pick_transfer(draw, s)
    return "messages", f"{where}.messages", _with_transfer(s, j, [replace(t, messages=0)])


def _wrong_tree_index(draw, s):
    j, where, t = _pick_transfer(draw, s)
    return "tree-index", f"{where}.tree", _with_transfer(
        s, j, [replace(t, tree=len(s.trees))])


def _non_links(s: Schedule) -> list[tuple[str, str]]:
    p = s.platform
    return [(u, v) for u in p.nodes for v in p.nodes if u != v and not p.has_link(u, v)]


def _off_the_links(draw, s):
    j, where, t = _pick_transfer(draw, s)
    u, v = draw(st.sampled_from(_non_links(s)))
    return "link", where, _with_transfer(s, j, [replace(t, tail=u, head=v)])


def _step_loads(s: Schedule, step) -> dict[tuple[str, str], Fraction]:
    load: dict[tuple[str, str], Fraction] = {}
    for t in step.transfers:
        load[t.arc] = load.get(t.arc, Fraction(0)) + t.messages * s.platform.cost(*t.arc)
    return load


def _busy_steps(s: Schedule) -> list[int]:
    return [i for i, step in enumerate(s.steps) if step.transfers]


def _duplicate_step(draw, s):
    i = draw(st.sampled_from(_busy_steps(s)))
    steps = list(s.steps)
    return "period", f"steps[{i}]", replace(s, steps=tuple(steps[:i + 1] + steps[i:]))


def _shorter_step(draw, s):
    i = draw(st.sampled_from(_busy_steps(s)))
    step = s.steps[i]
    busiest = max(_step_loads(s, step).values())
    steps = list(s.steps)
    steps[i] = replace(step, duration=busiest / 2)
    return "capacity", f"steps[{i}].duration", replace(s, steps=tuple(steps))


def _zero_duration(draw, s):
    i = draw(st.integers(0, len(s.steps) - 1))
    steps = list(s.steps)
    steps[i] = replace(steps[i], duration=Fraction(0))
    return "duration", f"steps[{i}].duration", replace(s, steps=tuple(steps))


def _port_clashes_v1(s: Schedule) -> list[tuple[int, int, int]]:
    """(i, j, k): moving transfer k of step j into step i makes a node of step i send
    or receive over two links."""
    out = []
    for i, a in enumerate(s.steps):
        tails = {t.tail: t.arc for t in a.transfers}
        heads = {t.head: t.arc for t in a.transfers}
        for j, b in enumerate(s.steps):
            if i != j:
                out += [(i, j, k) for k, t in enumerate(b.transfers)
                        if tails.get(t.tail, t.arc) != t.arc
                        or heads.get(t.head, t.arc) != t.arc]
    return out


def _port_clash_v1(draw, s):
    i, j, k = draw(st.sampled_from(_port_clashes_v1(s)))
    steps = [list(step.transfers) for step in s.steps]
    moved = steps[j].pop(k)
    steps[i].append(moved)
    return "one-port", f"steps[{j}].transfers[{k}] moved into steps[{i}]", replace(
        s, steps=tuple(replace(step, transfers=tuple(ts))
                       for step, ts in zip(s.steps, steps)))


def _shared_ports(s: Schedule) -> list[tuple[int, int]]:
    """(a, b): timed transfers a != b that share a port (a sender or a receiver)."""
    ts = s.transfers
    return [(a, b) for a in range(len(ts)) for b in range(len(ts))
            if a != b and (ts[a].tail == ts[b].tail or ts[a].head == ts[b].head)]


def _port_overlap(draw, s):
    a, b = draw(st.sampled_from(_shared_ports(s)))
    moved = replace(s.transfers[b], start=s.transfers[a].start)
    return "one-port", f"transfers[{b}].start", _with_transfer(s, b, [moved])


def _duplicate_transfer(draw, s):
    j, where, t = _pick_transfer(draw, s)
    return "one-port", where, _with_transfer(s, j, [t, t])


def _start_after_window(draw, s):
    j, where, t = _pick_transfer(draw, s)
    late = s.period + Fraction(draw(st.integers(0, 2)), 2)
    return "window", f"{where}.start", _with_transfer(s, j, [replace(t, start=late)])


def _negative_start(draw, s):
    j, where, t = _pick_transfer(draw, s)
    early = -Fraction(draw(st.integers(1, 4)), 2)
    return "start", f"{where}.start", _with_transfer(s, j, [replace(t, start=early)])


def _wrong_throughput(draw, s):
    wrong = s.throughput + Fraction(draw(st.integers(1, 4)), 2)
    return "throughput", "throughput", replace(s, throughput=wrong)


def _wrong_period(draw, s):
    later = s.period + Fraction(draw(st.integers(1, 4)), 2)
    return ("throughput" if s.version == TIMED else "period"), "period", replace(
        s, period=later)


def _wrong_messages_per_period(draw, s):
    delta = draw(st.sampled_from((1, -1)))
    return "messages-per-period", "messages_per_period", replace(
        s, messages_per_period=s.messages_per_period + delta)


def _wrong_weight(draw, s):
    l = draw(st.integers(0, len(s.trees) - 1))
    trees_ = list(s.trees)
    trees_[l] = replace(trees_[l], weight=trees_[l].weight + 1)
    return "delivery", f"trees[{l}].weight", replace(s, trees=tuple(trees_))


def _swappable_edges(s: Schedule) -> list[tuple[int, int, str]]:
    """(tree, edge index, new parent): another in-neighbour of the edge's child."""
    p = s.platform
    return [(l, e, link.tail) for l, tree in enumerate(s.trees)
            for e, (par, child) in enumerate(tree.edges)
            for link in p.in_links(child) if link.tail != par]


def _swap_tree_edge(draw, s):
    l, e, new = draw(st.sampled_from(_swappable_edges(s)))
    edges = list(s.trees[l].edges)
    old, child = edges[e]
    edges[e] = (new, child)
    trees_ = list(s.trees)
    trees_[l] = replace(trees_[l], edges=tuple(edges))
    return "tree-edge", f"trees[{l}].edges[{e}] {old}->{child} now {new}->{child}", \
        replace(s, trees=tuple(trees_))


def _not_spanning(draw, s):
    l = draw(st.integers(0, len(s.trees) - 1))
    edges = list(s.trees[l].edges)
    e = draw(st.integers(0, len(edges) - 1))
    trees_ = list(s.trees)
    trees_[l] = replace(trees_[l], edges=tuple(edges[:e] + edges[e + 1:]))
    return "tree", f"trees[{l}].edges[{e}] removed", replace(s, trees=tuple(trees_))


def _always(s):
    return True


#: rule -> (applies to version 1, to version 2, applies(schedule), corrupt(draw, s)):
#: every rule breaks a valid schedule in a way :func:`steady.verify.verify` must report
#: with the kind the corruption names (the test suite checks it on drawn schedules).
CORRUPTIONS = {
    "drop-transfer": (True, True, _always, _drop_transfer),
    "extra-message": (True, True, _always, _extra_message),
    "zero-messages": (True, True, _always, _zero_messages),
    "wrong-tree-index": (True, True, _always, _wrong_tree_index),
    "off-the-links": (True, True, lambda s: bool(_non_links(s)), _off_the_links),
    "duplicate-step": (True, False, lambda s: bool(_busy_steps(s)), _duplicate_step),
    "shorter-step": (True, False, lambda s: bool(_busy_steps(s)), _shorter_step),
    "zero-duration": (True, False, lambda s: bool(s.steps), _zero_duration),
    "one-port-clash": (True, False, lambda s: bool(_port_clashes_v1(s)), _port_clash_v1),
    "port-overlap": (False, True, lambda s: bool(_shared_ports(s)), _port_overlap),
    "duplicate-transfer": (False, True, _always, _duplicate_transfer),
    "start-after-window": (False, True, _always, _start_after_window),
    "negative-start": (False, True, _always, _negative_start),
    "wrong-throughput": (True, True, _always, _wrong_throughput),
    "wrong-period": (True, True, _always, _wrong_period),
    "wrong-messages-per-period": (True, True, _always, _wrong_messages_per_period),
    "wrong-weight": (True, True, _always, _wrong_weight),
    "swap-tree-edge": (True, True, lambda s: bool(_swappable_edges(s)), _swap_tree_edge),
    "not-spanning": (True, True, _always, _not_spanning),
}


# -- st.from_type ----------------------------------------------------------------------

def _register() -> None:
    """``st.from_type(Platform)`` and ``st.from_type(Schedule)`` (and ``@given(p=...)``
    on type hints) draw from :func:`platforms` and :func:`schedules`."""
    st.register_type_strategy(Platform, platforms())
    st.register_type_strategy(Schedule, schedules(platforms(max_nodes=5)))


_register()
