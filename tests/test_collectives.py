"""Collectives on switched, multi-port fabrics (issue 43; proofs/collectives.md): the
exact optimum, its certificate, the symmetry, the bounds."""

import json
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import networkx as nx
import pytest
from hypothesis import HealthCheck, assume, event, given, settings

from helpers import all_route_trees, every_tree_lp, examples, run
from hypothesis import strategies as st

from steady.certificate import check_collective
from steady.errors import InputError
from steady.platform import Link, Platform
from steady.strategies import (collectives, platforms, switched_platforms,
                               symmetric_fabrics)
from steady.throughput import collective_throughput, throughput
from steady.topologies import (a100_platform, fat_tree_platform, hetero_cluster_platform,
                               mi250_platform)

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
FEW = settings(max_examples=examples(40), deadline=None,
               suppress_health_check=[HealthCheck.too_slow])


# -- the optimum on the fabrics of the issue (ForestColl's k/U) ------------------------

@pytest.mark.parametrize("platform, rate", [
    (a100_platform(1), Fraction(300, 7)),      # ForestColl: U = 7/300, k = 1
    (a100_platform(2), Fraction(65, 3)),       # U = 3/5, k = 13
    (a100_platform(4), Fraction(25, 3)),       # U = 3/25, k = 1
    (mi250_platform(1), Fraction(150, 7)),     # U = 7/50, k = 3
    (mi250_platform(2), Fraction(166, 15)),    # U = 15/2, k = 83
])
def test_allgather_optimum_is_forestcoll_s(platform, rate):
    result = collective_throughput(platform, "allgather")
    assert result.rate == rate
    assert check_collective(platform, result).ok
    cut = result.certificate.cut  # ForestColl's optimum is this cut bound: it binds
    assert cut is not None and cut.bound == rate


def test_units_follow_nccl_tests():
    result = collective_throughput(a100_platform(2), "allgather")
    assert result.algorithmic_bandwidth == 16 * Fraction(65, 3)
    assert result.bus_bandwidth == 325            # algbw·(N-1)/N: a GPU's 300 + 25 GB/s
    assert result.time(1) == Fraction(3, 1040)
    ar = collective_throughput(a100_platform(2), "allreduce")
    assert ar.bus_bandwidth == ar.algorithmic_bandwidth * Fraction(30, 16)


def test_symmetry_changes_nothing_but_the_work():
    p = mi250_platform(1)
    with_group = collective_throughput(p, "allgather")
    without = collective_throughput(p, "allgather", symmetry=False)
    assert with_group.rate == without.rate == Fraction(150, 7)
    assert with_group.stats["representative_roots"] == 4
    assert without.stats["representative_roots"] == 16
    assert with_group.certificate.symmetry and not without.certificate.symmetry


@FEW
@given(symmetric_fabrics(), st.sampled_from(["allgather", "reduce-scatter", "allreduce"]))
def test_symmetric_solve_is_the_full_optimum(platform, kind):
    """Averaging over the group (proofs/collectives.md, Symmetry): the LP over one
    root per orbit has the full LP's optimum, and its expanded certificate checks."""
    reduced = collective_throughput(platform, kind)
    full = collective_throughput(platform, kind, symmetry=False)
    assert reduced.rate == full.rate
    assert reduced.stats["representative_roots"] < full.stats["representative_roots"]
    assert check_collective(platform, reduced).ok


# -- certificates -----------------------------------------------------------------------

@FEW
@given(st.data())
def test_every_certificate_checks(data):
    platform = data.draw(switched_platforms() | symmetric_fabrics(), label="platform")
    kind, sources, rates = data.draw(collectives(platform), label="collective")
    result = collective_throughput(platform, kind, sources, rates)
    report = check_collective(platform, result)
    assert report.ok, report.problems


def _tampered(result, what):
    cert = result.certificate
    if what == "rate":
        return replace(result, rate=result.rate * Fraction(101, 100))
    if what == "tree rate":
        (tree, rate), *rest = result.trees
        return replace(result, trees=((tree, rate * 2), *rest))
    if what == "price":
        key = next(k for k, p in cert.prices.items() if p)
        return replace(result, certificate=replace(
            cert, prices={**cert.prices, key: cert.prices[key] / 2}))
    if what == "root cost":
        root = next(iter(cert.root_costs))
        return replace(result, certificate=replace(
            cert, root_costs={**cert.root_costs, root: cert.root_costs[root] + 1}))
    if what == "tree bound":
        root, family = next(iter(cert.tree_bounds.items()))
        (members, z), *rest = family
        bigger = ((members, z * 3 + 1), *rest)
        return replace(result, certificate=replace(
            cert, tree_bounds={**cert.tree_bounds, root: bigger},
            root_costs={r: (w * 3 + 1 if r == root else w)
                        for r, w in cert.root_costs.items()}))
    if what == "cut":
        cut = cert.cut
        return replace(result, certificate=replace(cert, cut=replace(
            cut, side=cut.side - {sorted(cut.side)[0]})))
    if what == "symmetry":
        g = dict(cert.symmetry[0])
        a, b = list(g)[:2]
        g[a], g[b] = g[b], g[a]
        return replace(result, certificate=replace(cert, symmetry=(g,)))
    raise AssertionError(what)


@pytest.mark.parametrize("what", ["rate", "tree rate", "price", "root cost",
                                  "tree bound", "cut", "symmetry"])
def test_a_tampered_certificate_fails(what):
    platform = mi250_platform(1)
    result = collective_throughput(platform, "allgather")
    assert check_collective(platform, result).ok
    assert not check_collective(platform, _tampered(result, what)).ok


def test_a_route_through_a_compute_node_fails():
    platform = fat_tree_platform(4)
    result = collective_throughput(platform, "allgather")
    tree, rate = result.trees[0]
    child = next(c for c in tree.routes)
    route = tree.routes[child]
    other = next(v for v in platform.compute_nodes if v not in (route[0], route[-1]))
    bad = replace(tree, routes={**tree.routes, child: (route[0], other, route[-1])})
    report = check_collective(platform, replace(result, trees=((bad, rate),
                                                               *result.trees[1:])))
    assert not report.ok


# -- the classic problem, reversal, bounds -------------------------------------------------

@FEW
@given(platforms(max_nodes=6))
def test_one_source_one_port_is_todays_broadcast(platform):
    """One source on a one-port platform without switches is SSB(G) (002 §5.2)."""
    result = collective_throughput(platform, "broadcast")
    assert result.rate == throughput(platform).throughput
    assert check_collective(platform, result).ok


@FEW
@given(switched_platforms())
def test_reduce_scatter_is_allgather_on_the_reversal(platform):
    """proofs/collectives.md, Reduce-scatter: the in-tree LP on G is the out-tree LP on
    the reversed platform, row for row."""
    rs = collective_throughput(platform, "reduce-scatter")
    ag = collective_throughput(platform.reversed(), "allgather")
    assert rs.rate == ag.rate
    assert all(t.direction == "in" for t, _ in rs.trees)


def _in_capacity(platform, v):
    return sum((1 / l.cost for l in platform.in_links(v)), Fraction(0))


def _out_capacity(platform, v):
    return sum((1 / l.cost for l in platform.out_links(v)), Fraction(0))


@FEW
@given(switched_platforms(), st.sampled_from(["allgather", "reduce-scatter", "allreduce"]))
def test_never_above_the_simple_cut_bound(platform, kind):
    """Every compute node receives (allgather) or sends (reduce-scatter) every other
    root's stream: x·(N-1) <= its in- (out-) capacity, multi-port; one-port, each
    unit takes at least its cheapest link's time on the port; allreduce does both."""
    x = collective_throughput(platform, kind).rate
    n = len(platform.compute_nodes)
    for v in platform.compute_nodes:
        for side, links, capacity in (("in", platform.in_links(v), _in_capacity),
                                      ("out", platform.out_links(v), _out_capacity)):
            if kind == "allgather" and side == "out" or kind == "reduce-scatter" \
                    and side == "in":
                continue
            if platform.multi_port:
                assert x * (n - 1) <= capacity(platform, v)
            else:
                assert x * (n - 1) * min(l.cost for l in links) <= 1


@FEW
@given(switched_platforms(max_compute=4, max_switches=2))
def test_allreduce_between_the_compositions(platform):
    """Both at once is at least one after the other (1/x <= 1/x_RS + 1/x_AG) and at
    most either alone; multi-port, at most the information-theoretic bound."""
    ar = collective_throughput(platform, "allreduce")
    rs = collective_throughput(platform, "reduce-scatter").rate
    ag = collective_throughput(platform, "allgather").rate
    assert 1 / ar.rate <= 1 / rs + 1 / ag
    assert ar.rate <= min(rs, ag)
    if platform.multi_port:
        assert ar.rate <= ar.stats["information_bound"]


# -- an independent optimum: every tree of every route, one LP ------------------------------

@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(switched_platforms(max_compute=3, max_switches=2, density=0.2),
       st.sampled_from(["allgather", "reduce-scatter", "allreduce"]))
def test_column_generation_reaches_the_lp_over_every_tree(platform, kind):
    trees = sum(1 for _ in all_route_trees(platform, platform.compute_nodes[0], "out"))
    assume(trees <= 200)
    event(f"{len(platform.switches)} switches, {platform.ports}")
    assert collective_throughput(platform, kind).rate == every_tree_lp(platform, kind).solve_exact().value


# -- the model: one-port at switches, routes --------------------------------------------------

def test_one_port_route_holds_both_ports_for_its_slowest_link():
    """A -> S -> B (costs 1 and 3) is one route of time 3 per message on A's out-port
    and B's in-port; B -> S -> A back likewise: the allgather rate is 1/3."""
    p = Platform("A", [Link("A", "S", 1), Link("S", "B", 3), Link("B", "S", 1),
                       Link("S", "A", 3)], switches=["S"])
    result = collective_throughput(p, "allgather")
    assert result.rate == Fraction(1, 3)
    tree = next(t for t, _ in result.trees if t.root == "A")
    assert tree.route("B") == ("A", "S", "B")


def test_a_switch_does_not_replicate():
    """One source behind a switch with two destinations: multi-port, the link into
    the switch carries each destination's copy (rate 1/2 of its bandwidth), where a
    compute node in the middle would forward one copy twice (rate 1)."""
    links = [Link("A", "M", 1), Link("M", "B", 1), Link("M", "C", 1)]
    switched = Platform("A", links, ports="multi-port", switches=["M"])
    relay = Platform("A", links, ports="multi-port")
    result = collective_throughput(switched, "broadcast")
    assert result.rate == Fraction(1, 2)
    assert result.stats["cut_bound"] == 1 and result.certificate.cut is None
    assert check_collective(switched, result).ok
    assert collective_throughput(relay, "broadcast").rate == 1


def test_multi_source_rates():
    p = hetero_cluster_platform()
    equal = collective_throughput(p, "broadcast", ["a0", "b0"])
    weighted = collective_throughput(p, "broadcast", ["a0", "b0"], [1, 3])
    assert weighted.roots == {("a0", "out"): 1, ("b0", "out"): 3}
    for r in (equal, weighted):
        assert check_collective(p, r).ok
    # the storage node's 10 GB/s in-link carries every stream: x·(sum of ρ) <= 10
    assert (equal.rate, weighted.rate) == (5, Fraction(5, 2))
    assert equal.algorithmic_bandwidth == weighted.algorithmic_bandwidth == 10


@pytest.mark.parametrize("kwargs, element, reason", [
    ({"kind": "gossip"}, "collective", "unknown collective"),
    ({"kind": "allgather", "sources": ["a0"]}, "sources", "every compute node"),
    ({"kind": "broadcast", "sources": ["core"]}, "sources[0]", "is a switch"),
    ({"kind": "broadcast", "sources": ["zz"]}, "sources[0]", "unknown node"),
    ({"kind": "broadcast", "sources": ["a0", "a0"]}, "sources[1]", "twice"),
    ({"kind": "broadcast", "sources": ["a0"], "rates": [0]}, "rates['a0']", "> 0"),
    ({"kind": "broadcast", "sources": ["a0"], "rates": [1, 2]}, "rates", "2 rates"),
])
def test_bad_collectives_are_refused_in_one_line(kwargs, element, reason):
    with pytest.raises(InputError) as info:
        collective_throughput(hetero_cluster_platform(), **kwargs)
    assert info.value.element == element and reason in info.value.reason


def _tuple_named_box() -> Platform:
    """Two GPUs and a switch named as ForestColl's generators name them (tuples), read
    its way (every node not in ``compute_nodes`` a switch): names with commas."""
    g = nx.DiGraph(ports="multi-port")
    for b in range(3):
        g.add_edge((0, "GPU", b), (0, "NVSwitch", 0), capacity=300)
        g.add_edge((0, "NVSwitch", 0), (0, "GPU", b), capacity=300)
    return Platform.from_networkx(g, (0, "GPU", 0),
                                  compute_nodes=[(0, "GPU", b) for b in range(3)])


def test_sources_whose_names_hold_commas_are_found():
    # sweep43: `--sources "(0, 'GPU', 0),(0, 'GPU', 2)"` was split into four pieces
    # and refused as "unknown node '(0'"
    p = _tuple_named_box()
    joined = "(0, 'GPU', 0),(0, 'GPU', 2)"
    result = collective_throughput(p, "broadcast", joined.split(","), ["1", "2"])
    assert result.roots == {("(0, 'GPU', 0)", "out"): 1, ("(0, 'GPU', 2)", "out"): 2}
    with pytest.raises(InputError) as info:
        collective_throughput(p, "broadcast", "(0, 'GPU', 0),(0, 'GPU'".split(","))
    assert info.value.element == "sources[1]" and "unknown node" in info.value.reason


def test_sources_given_as_the_graphs_own_nodes():
    # qa43: sources=[(0, "GPU", 2)] -- the node as networkx holds it -- raised
    # TypeError ("sequence item 0: expected str instance, tuple found") from the
    # public door; the platform names it str(node), and so do the sources now
    p = _tuple_named_box()
    result = collective_throughput(p, "broadcast", [(0, "GPU", 0), (0, "GPU", 2)],
                                   {(0, "GPU", 0): 1, (0, "GPU", 2): 3})
    assert result.roots == {("(0, 'GPU', 0)", "out"): 1, ("(0, 'GPU', 2)", "out"): 3}
    assert check_collective(p, result).ok
    g = nx.DiGraph(ports="multi-port")
    g.add_edge(1, 2, capacity=1)
    g.add_edge(2, 1, capacity=1)
    assert collective_throughput(g, "broadcast", [2]).roots == {("2", "out"): 1}
    assert collective_throughput(g, "broadcast", 2).roots == {("2", "out"): 1}
    with pytest.raises(InputError) as info:
        collective_throughput(g, "broadcast", [2.0])
    assert info.value.element == "sources[0]" and "unknown node '2.0'" in info.value.reason


def test_sources_with_commas_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "box.json"
    path.write_text(json.dumps(_tuple_named_box().to_dict()))
    code, out, err = run(capsys, "throughput", path, "--sources",
                         "(0, 'GPU', 1),(0, 'GPU', 2)", "--json")
    assert code == 0, err
    assert [r["root"] for r in json.loads(out)["roots"]] == ["(0, 'GPU', 1)", "(0, 'GPU', 2)"]


@pytest.mark.parametrize("extra", [[], ["--collective", "broadcast"],
                                   ["--max-messages", "10"]])
def test_schedule_refuses_a_size_it_would_ignore(tmp_path, capsys, extra):
    # qa43: `steady schedule samples/random-10.json [--collective broadcast] --size 5`
    # ran today's broadcast schedule and printed no time, exit 0 (`throughput` refuses
    # --size there); nothing is written
    target = tmp_path / "s.json"
    code, out, err = run(capsys, "schedule", SAMPLES / "random-10.json", *extra,
                         "--size", "5", "-o", target)
    assert (code, out) == (2, "")
    assert err.startswith("steady: <command line>: --size: applies to a collective's "
                          "schedule only") and len(err.splitlines()) == 1
    assert not target.exists()


def test_an_unreachable_compute_node_is_named():
    p = Platform("A", [Link("A", "B", 1), Link("B", "A", 1), Link("A", "C", 1)],
                 ports="multi-port")
    with pytest.raises(InputError, match="root C: cannot reach A"):
        collective_throughput(p, "allgather")


@pytest.mark.parametrize("name, kind, rate", [
    ("a100-1", "allgather", Fraction(300, 7)), ("a100-2", "allgather", Fraction(65, 3)),
    ("a100-4", "allgather", Fraction(25, 3)), ("mi250-1", "allgather", Fraction(150, 7)),
    ("mi250-2", "allgather", Fraction(166, 15)), ("fat-tree-4", "allgather", Fraction(5, 6)),
    ("hetero-cluster", "allgather", 1),
    ("simgrid-data_center-6", "broadcast", Fraction(1, 8)),  # 125 MB/s links, in GB/s
    ("simgrid-data_center-6", "allgather", Fraction(1, 40)),
])
def test_samples(name, kind, rate):
    p = Platform.from_file(SAMPLES / "collectives" / f"{name}.json")
    result = collective_throughput(p, kind)
    assert result.rate == rate
    assert check_collective(p, result).ok


def test_strategy_arguments_are_checked():
    from hypothesis.errors import InvalidArgument

    for build in (lambda: switched_platforms(min_compute=1), lambda: switched_platforms(
            ports="two-port"), lambda: symmetric_fabrics(max_boxes=1),
            lambda: switched_platforms(min_compute=4, max_compute=3)):
        with pytest.raises(InvalidArgument):
            build()


@FEW
@given(switched_platforms(ports="one-port", max_switches=2))
def test_one_port_fabrics_keep_ports_and_switch_links(platform):
    """One-port with switches: the certificate prices port rows and the links between
    two switches only (proofs/collectives.md, the model)."""
    result = collective_throughput(platform, "allgather")
    kinds = {key[0] for key in result.certificate.prices}
    assert kinds <= {"out", "in", "arc"}
    assert all(a in platform.switches and b in platform.switches
               for kind, (a, b) in (k for k in result.certificate.prices if k[0] == "arc"))


@pytest.mark.parametrize("kind", ["allgather", "reduce-scatter", "allreduce"])
def test_a_cut_s_prices_prove_its_bound(kind):
    """proofs/collectives.md §7: 1/(c·share) on the links crossing the cut sum to its
    bound, and every tree of a root the cut separates costs >= 1/share under them."""
    from steady.throughput.collective import collective_roots, cut_bound, cut_prices
    from steady.throughput.fabric import Fabric
    from steady.throughput.trees import RoutePricing

    platform = mi250_platform(1)
    roots = collective_roots(platform, kind)
    cut = cut_bound(platform, kind, roots)
    fabric = Fabric(platform, roots)
    prices = cut_prices(fabric, cut)
    assert sum(prices.values()) == cut.bound
    row = [Fraction(0)] * len(fabric.rows)
    for key, y in prices.items():
        row[fabric.row_index[key]] = y
    pricing = RoutePricing(fabric)
    closure = pricing.closure(row)
    for (r, d) in roots:
        separated = (r in cut.side) == (d == "out") if kind == "allreduce" else r in cut.side
        if separated:
            assert pricing.cheapest(closure, (r, d))[0] >= 1 / cut.share
