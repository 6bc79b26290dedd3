"""steady.strategies: the public hypothesis strategies produce what they promise."""

from fractions import Fraction

import networkx as nx
import pytest
from hypothesis import find, given, settings

from helpers import examples
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from steady import Platform, default_platform
from steady.strategies import (decimal_costs, exact_costs, platforms, platforms_with_tree,
                               relabelings, spanning_trees)

FAST = settings(max_examples=examples(50), deadline=None)


def reachable(p: Platform) -> set[str]:
    return nx.descendants(p.to_networkx(), p.source) | {p.source}


def assert_spanning_arborescence(p: Platform, parent: dict) -> None:
    """``parent`` is a spanning arborescence of ``p`` rooted at the source (002 §3)."""
    assert set(parent) == set(p.destinations)
    assert all(p.has_link(parent[v], v) for v in parent)
    for v in parent:                      # following parents reaches the source, no cycle
        seen = set()
        while v != p.source:
            assert v not in seen
            seen.add(v)
            v = parent[v]


# -- costs -----------------------------------------------------------------------------

@FAST
@given(exact_costs())
def test_exact_costs_are_small_positive_fractions(c):
    assert type(c) is Fraction and c > 0
    assert c.numerator <= 12 and c.denominator <= 6


@FAST
@given(decimal_costs())
def test_decimal_costs_are_exact_decimals(c):
    assert type(c) is Fraction and 0 < c <= 400
    assert 100 % c.denominator == 0            # at most two decimal places


def test_cost_strategies_shrink_to_one():
    assert find(exact_costs(), lambda c: True) == 1
    assert find(decimal_costs(), lambda c: True) == 1


# -- platforms -----------------------------------------------------------------------------

@FAST
@given(st.data())
def test_platforms_are_valid_and_of_the_requested_size(data):
    lo = data.draw(st.integers(2, 6), label="min_nodes")
    hi = data.draw(st.integers(lo, 8), label="max_nodes")
    p = data.draw(platforms(min_nodes=lo, max_nodes=hi))
    assert lo <= len(p.nodes) <= hi
    assert p.source == "P0" and p.nodes[0] == "P0"
    assert reachable(p) == set(p.nodes)
    assert all(c.numerator <= 12 and c.denominator <= 6 and c > 0
               for c in (l.cost for l in p.links))
    assert Platform.from_dict(p.to_dict()) == p


@FAST
@given(platforms(min_nodes=3, max_nodes=6, exact_costs=False))
def test_decimal_text_costs(p):
    assert all(type(l.cost) is Fraction and 100 % l.cost.denominator == 0 for l in p.links)


@FAST
@given(platforms(max_nodes=5, cost=st.just(Fraction(7, 3))))
def test_cost_strategy_is_used(p):
    assert {l.cost for l in p.links} == {Fraction(7, 3)}


@FAST
@given(platforms(min_nodes=2, max_nodes=8, density=0.6, dag=True))
def test_dag_platforms_are_dags(p):
    assert nx.is_directed_acyclic_graph(p.to_networkx())
    assert reachable(p) == set(p.nodes)
    assert not p.in_links(p.source)


@FAST
@given(st.data())
def test_density_extremes(data):
    dag = data.draw(st.booleans(), label="dag")
    p = data.draw(platforms(min_nodes=2, max_nodes=7, density=0, dag=dag))
    n = len(p.nodes)
    assert len(p.links) == n - 1                   # just the arborescence
    assert nx.is_arborescence(p.to_networkx())
    q = data.draw(platforms(min_nodes=2, max_nodes=7, density=1, dag=dag))
    m = len(q.nodes)
    assert len(q.links) == (m * (m - 1) // 2 if dag else m * (m - 1))


def test_density_is_roughly_respected():
    counts = []

    @settings(max_examples=200, deadline=None, database=None)
    @given(platforms(min_nodes=7, max_nodes=7, density=0.5))
    def collect(p):
        counts.append(len(p.links) - 6)           # extra arcs beyond the arborescence

    collect()
    mean = sum(counts) / len(counts)
    assert 0.3 * 36 < mean < 0.6 * 36              # expected 0.5 * 36 = 18


def test_platforms_shrink_to_a_star_of_unit_costs():
    p = find(platforms(min_nodes=4), lambda p: True)
    assert p.arcs == (("P0", "P1"), ("P0", "P2"), ("P0", "P3"))
    assert {l.cost for l in p.links} == {1}


def test_invalid_arguments():
    with pytest.raises(InvalidArgument):
        platforms(min_nodes=1)
    with pytest.raises(InvalidArgument):
        platforms(min_nodes=5, max_nodes=4)
    with pytest.raises(InvalidArgument):
        platforms(density=1.5)


# -- spanning trees -------------------------------------------------------------------------

@FAST
@given(platforms_with_tree(max_nodes=7, density=0.5))
def test_spanning_trees_are_spanning_arborescences(pair):
    p, parent = pair
    assert_spanning_arborescence(p, parent)


@FAST
@given(platforms_with_tree(max_nodes=7, dag=True))
def test_spanning_trees_of_dags(pair):
    p, parent = pair
    assert_spanning_arborescence(p, parent)


@FAST
@given(st.data())
def test_spanning_trees_of_figure_1(data):
    p = default_platform()
    parent = data.draw(spanning_trees(p))
    assert_spanning_arborescence(p, parent)
    assert parent["P3"] == "P1" and parent["P4"] == "P2"   # their only in-links


def test_every_spanning_tree_of_figure_1_can_be_drawn():
    # Figure 1 has exactly 3 spanning arborescences: P1 and P2 each hang below the
    # source or below each other, but not both below each other (a cycle).
    drawn = set()

    @settings(max_examples=200, deadline=None, database=None)
    @given(spanning_trees(default_platform()))
    def collect(parent):
        drawn.add((parent["P1"], parent["P2"]))

    collect()
    assert drawn == {("Ps", "Ps"), ("Ps", "P1"), ("P2", "Ps")}


# -- relabelings ---------------------------------------------------------------------------

@FAST
@given(st.data())
def test_relabelings_are_bijections(data):
    p = data.draw(platforms(max_nodes=6))
    mapping = data.draw(relabelings(p))
    assert set(mapping) == set(p.nodes)
    assert set(mapping.values()) == set(p.nodes)
    q = p.relabel(mapping)
    assert q.source == mapping[p.source]
    assert sorted(q.cost(mapping[l.tail], mapping[l.head]) for l in p.links) \
        == sorted(l.cost for l in q.links)
    inverse = {new: old for old, new in mapping.items()}
    assert q.relabel(inverse) == p


@FAST
@given(st.data())
def test_relabelings_with_fresh_names(data):
    p = data.draw(platforms(max_nodes=6))
    mapping = data.draw(relabelings(p, names=st.text("abcxyz", min_size=1, max_size=3)))
    assert set(mapping) == set(p.nodes)
    assert len(set(mapping.values())) == len(p.nodes)
    assert p.relabel(mapping).relabel({v: k for k, v in mapping.items()}) == p


# == issue 21: values or strategies, new strategies, schedules and corruptions ==========

from decimal import Decimal  # noqa: E402

from hypothesis import HealthCheck, assume  # noqa: E402

from steady.schedule_file import Schedule  # noqa: E402
from steady.strategies import (CORRUPTIONS, TREE_FAMILIES, chains,  # noqa: E402
                               complete_platforms, dags, multiport_platforms,
                               schedule_corruptions, schedules, trees)
from steady.testing import assert_valid_schedule  # noqa: E402
from steady.throughput import throughput  # noqa: E402
from steady.verify import verify  # noqa: E402


@FAST
@given(platforms(max_nodes=5, cost=st.integers(1, 10)))
def test_integer_cost_strategy(p):
    assert all(type(l.cost) is Fraction and l.cost.denominator == 1
               and 1 <= l.cost <= 10 for l in p.links)


@FAST
@given(platforms(max_nodes=5, cost=st.decimals(1, 10, places=2)))
def test_decimal_cost_strategy_is_read_exactly(p):
    assert all(type(l.cost) is Fraction and 100 % l.cost.denominator == 0
               and 1 <= l.cost <= 10 for l in p.links)


@FAST
@given(platforms(max_nodes=4, cost=st.floats(0.1, 10)))
def test_float_costs_are_read_by_their_decimal_text(p):
    assert all(l.cost == Fraction(repr(float(l.cost))) for l in p.links)


@pytest.mark.parametrize("cost", [1, "1/3", Decimal("0.25"), 0.5, Fraction(7, 3)])
def test_a_constant_cost(cost):
    @settings(max_examples=10, deadline=None)
    @given(platforms(min_nodes=3, max_nodes=5, density=1, cost=cost))
    def check(p):
        assert {l.cost for l in p.links} == {Fraction(str(cost))}

    check()


@FAST
@given(st.data())
def test_parameters_may_be_strategies(data):
    p = data.draw(platforms(min_nodes=st.integers(2, 5), max_nodes=st.just(6),
                            density=st.floats(0, 1), dag=st.booleans(),
                            exact_costs=st.booleans()))
    assert 2 <= len(p.nodes) <= 6
    q = data.draw(platforms(min_nodes=3, max_nodes=None, density="1/2"))
    assert 3 <= len(q.nodes) <= 8                    # None: min_nodes + 5
    r = data.draw(platforms(max_nodes=st.integers(2, 3), density=Decimal("0.3")))
    assert len(r.nodes) <= 3


@pytest.mark.parametrize("density, links", [
    ("1", 12), (Fraction(1), 12), (Decimal(1), 12), (1.0, 12), ("0", 3), (0, 3), (0.0, 3)])
def test_strings_and_fractions_set_the_density(density, links):
    @settings(max_examples=5, deadline=None)
    @given(platforms(min_nodes=4, max_nodes=4, density=density))
    def check(p):
        assert len(p.links) == links

    check()


@pytest.mark.parametrize("make, says", [
    (lambda: platforms(min_nodes="2"), "min_nodes = '2': must be an int"),
    (lambda: platforms(min_nodes=True), "must be an int"),
    (lambda: platforms(max_nodes=4.0), "max_nodes = 4.0: must be an int or None"),
    (lambda: platforms(density="x"), "density = 'x': must be an exact number"),
    (lambda: platforms(density=-0.1), "must be a probability"),
    (lambda: platforms(cost=0), "cost = 0: must be > 0"),
    (lambda: platforms(cost="-1/2"), "must be > 0"),
    (lambda: platforms(dag="yes"), "dag = 'yes': must be True or False"),
    (lambda: platforms(exact_costs=None), "exact_costs = None"),
    (lambda: dags(min_nodes=0), "min_nodes = 0: must be >= 2"),
    (lambda: chains(max_nodes=1), "max_nodes = 1: must be >= 2"),
    (lambda: chains(both_ways=1), "both_ways = 1"),
    (lambda: complete_platforms(min_nodes=6, max_nodes=5), "max_nodes=5 < min_nodes=6"),
    (lambda: complete_platforms(cost=-1), "cost = -1"),
    (lambda: exact_costs(max_numerator=0), "max_numerator = 0: must be >= 1"),
    (lambda: decimal_costs(max_places=-1), "max_places = -1: must be >= 0"),
    (lambda: trees(default_platform(), family="wide"), "family = 'wide': must be one of"),
    (lambda: trees(platforms()), "must be a Platform, not a strategy: for (platform, tree)"),
    (lambda: spanning_trees(platforms()), "platforms_with_tree"),
    (lambda: relabelings(platforms()), "not a strategy"),
    (lambda: relabelings(default_platform(), names=["a"]), "a strategy of strings"),
    (lambda: platforms_with_tree(family="x"), "family = 'x'"),
    (lambda: schedules(default_platform(), version=3), "version = 3: must be one of"),
    (lambda: schedules(default_platform(), optimal="yes"), "optimal = 'yes'"),
    (lambda: schedules(default_platform(), max_trees=0), "max_trees = 0: must be >= 1"),
    (lambda: schedules(default_platform(), max_weight=1.5), "max_weight = 1.5"),
    (lambda: schedule_corruptions(42), "must be a Schedule or a strategy"),
    (lambda: schedule_corruptions(schedules(default_platform()), rules=["nope"]),
     "choose among drop-transfer"),
    (lambda: schedule_corruptions(schedules(default_platform()), rules=[]), "rules=()")])
def test_invalid_arguments_fail_at_definition_time(make, says):
    with pytest.raises(InvalidArgument) as info:
        make()                                   # no draw: the definition itself fails
    assert says in str(info.value)


@pytest.mark.parametrize("strategy, says", [
    (platforms(min_nodes=st.just(1)), "min_nodes drew 1: must be >= 2"),
    (platforms(min_nodes=st.just(4), max_nodes=st.just(3)), "max_nodes=3 < min_nodes=4"),
    (platforms(density=st.just(2)), "density drew 2: must be a probability"),
    (platforms(cost=st.just(0)), "cost drew 0: must be > 0"),
    (platforms(cost=st.just(float("nan"))), "cost drew nan: must be an exact number"),
    (trees(default_platform(), family=st.just("x")), "family drew 'x'"),
    (schedules(st.just(3)), "the platform strategy drew int"),
    (schedule_corruptions(st.just("s")), "the schedule strategy drew str")])
def test_bad_draws_are_invalid_arguments_naming_the_parameter(strategy, says):
    with pytest.raises(InvalidArgument, match=re_escape(says)):
        find(strategy, lambda x: True)


def re_escape(text):
    import re
    return re.escape(text)


# -- st.from_type -------------------------------------------------------------------------

@FAST
@given(st.from_type(Platform), st.from_type(Schedule))
def test_from_type(p, s):
    assert isinstance(p, Platform) and reachable(p) == set(p.nodes)
    assert verify(None, s, optimality=False).ok


@FAST
@given(p=..., s=...)
def test_type_hints(p: Platform, s: Schedule):
    assert isinstance(p, Platform) and isinstance(s, Schedule)


def test_the_hypothesis_entry_point_is_declared():
    import tomllib
    from pathlib import Path

    import steady.strategies as module
    doc = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())
    target = doc["project"]["entry-points"]["hypothesis"]["steady"]
    name, _, attr = target.partition(":")
    assert name == "steady.strategies" and getattr(module, attr) is \
        module._hypothesis_setup_hook
    module._hypothesis_setup_hook()            # idempotent
    test_from_type()


def test_strategies_as_the_first_import_of_a_fresh_interpreter():
    """``import steady.strategies`` first: hypothesis, which it imports, runs steady's
    entry point while the module is half loaded (it used to fail with a circular-import
    AttributeError); and hypothesis first: the entry point registers the types."""
    import subprocess
    import sys

    for code in ("import steady.strategies; from steady import Platform; "
                 "from hypothesis import strategies as st; "
                 "print(type(st.from_type(Platform).example()).__name__)",
                 "from hypothesis import strategies as st; from steady import Platform; "
                 "print(type(st.from_type(Platform).example()).__name__)"):
        done = subprocess.run([sys.executable, "-c", code], capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "Platform"


# -- new platform families -------------------------------------------------------------

@FAST
@given(dags(max_nodes=7, density=0.5))
def test_dags(p):
    assert p.is_dag() and reachable(p) == set(p.nodes)


@FAST
@given(chains(max_nodes=6, both_ways=st.booleans()))
def test_chains_pipeline_at_the_slowest_forward_link(p):
    n = len(p.nodes)
    forward = [p.cost(f"P{i}", f"P{i + 1}") for i in range(n - 1)]
    assert len(p.links) in (n - 1, 2 * (n - 1))
    assert throughput(p).throughput == 1 / max(forward)      # 002 §3.1.2, one tree


@FAST
@given(complete_platforms(max_nodes=5))
def test_complete_platforms(p):
    n = len(p.nodes)
    assert len(p.links) == n * (n - 1) and 2 <= n <= 5


def test_new_families_shrink_small():
    assert find(chains(), lambda p: True).arcs == (("P0", "P1"),)
    assert find(complete_platforms(min_nodes=3), lambda p: True).arcs == (
        ("P0", "P1"), ("P0", "P2"), ("P1", "P0"), ("P1", "P2"), ("P2", "P0"), ("P2", "P1"))


# -- tree families -------------------------------------------------------------------------

def depths(p, parent):
    def depth(v):
        return 0 if v == p.source else 1 + depth(parent[v])
    return {v: depth(v) for v in p.nodes}


@FAST
@given(platforms(max_nodes=7, density=0.5), st.data())
def test_every_family_draws_spanning_arborescences(p, data):
    family = data.draw(st.sampled_from(TREE_FAMILIES), label="family")
    assert_spanning_arborescence(p, data.draw(trees(p, family)))
    assert_spanning_arborescence(p, data.draw(trees(p, st.sampled_from(TREE_FAMILIES))))


@FAST
@given(platforms(max_nodes=7, density=0.4), st.data())
def test_bfs_trees_have_fewest_hops(p, data):
    hops = nx.single_source_shortest_path_length(p.to_networkx(), p.source)
    assert depths(p, data.draw(trees(p, "bfs"))) == hops


@FAST
@given(platforms(max_nodes=7, density=0.4), st.data())
def test_shortest_path_trees(p, data):
    parent = data.draw(trees(p, "shortest-path"))
    far = nx.single_source_dijkstra_path_length(p.to_networkx(), p.source, weight="cost")

    def length(v):
        return 0 if v == p.source else length(parent[v]) + p.cost(parent[v], v)
    assert {v: length(v) for v in p.nodes} == far


@FAST
@given(platforms(max_nodes=7, density=0.5, cost=st.integers(1, 10**9)), st.data())
def test_cheapest_link_trees_are_prims(p, data):
    assume(len({l.cost for l in p.links}) == len(p.links))    # no ties: one answer
    reached, expected = {p.source}, {}
    while len(reached) < len(p.nodes):
        l = min((l for l in p.links if l.tail in reached and l.head not in reached),
                key=lambda l: l.cost)
        expected[l.head] = l.tail
        reached.add(l.head)
    assert data.draw(trees(p, "cheapest-link")) == expected


@FAST
@given(complete_platforms(max_nodes=6), st.data())
def test_dfs_trees_of_complete_platforms_are_paths(p, data):
    parent = data.draw(trees(p, "dfs"))
    assert sorted(depths(p, parent).values()) == list(range(len(p.nodes)))


def test_tree_families_accept_documents_and_graphs():
    p = default_platform()
    g = p.to_networkx()
    g.graph["source"] = "Ps"
    for family in TREE_FAMILIES:
        assert_spanning_arborescence(p, find(trees(p.to_dict(), family), lambda t: True))
        assert_spanning_arborescence(p, find(trees(g, family), lambda t: True))


@FAST
@given(platforms_with_tree(max_nodes=6, family="bfs"))
def test_platforms_with_a_tree_of_a_family(pair):
    p, parent = pair
    assert depths(p, parent) == nx.single_source_shortest_path_length(p.to_networkx(),
                                                                      p.source)


# -- schedules -------------------------------------------------------------------------

@FAST
@given(schedules(platforms(max_nodes=6), version=st.sampled_from([1, 2, None]),
                 family=st.sampled_from(TREE_FAMILIES)))
def test_drawn_schedules_are_valid_and_not_above_the_optimum(s):
    report = verify(None, s, optimality=False)
    assert report.ok, [str(v) for v in report.violations]
    assert s.certificate is None
    assert s.throughput <= throughput(s.platform).throughput   # weak duality
    assert 1 <= len(s.trees) <= 3 and all(1 <= t.weight for t in s.trees)


@FAST
@given(st.data())
def test_schedules_of_a_given_version(data):
    p = data.draw(platforms(max_nodes=5))
    for version in (1, 2):
        s = data.draw(schedules(p, version=version))
        assert s.version == version and s.platform is p
        assert (s.steps and not s.transfers) if version == 1 else (s.transfers and not s.steps)


@settings(max_examples=examples(20), deadline=None)
@given(schedules(platforms(max_nodes=6), optimal=True, version=st.sampled_from([1, 2])))
def test_optimal_schedules_are_certified_optima(s):
    report = verify(None, s)
    assert report.ok, [str(v) for v in report.violations]
    assert s.throughput == throughput(s.platform).throughput
    assert s.version == 1 or report.ratio == 1


def test_schedules_shrink_to_one_transfer():
    s = find(schedules(platforms(max_nodes=4)), lambda s: True)
    assert s.platform.arcs == (("P0", "P1"),) and s.version == 1
    assert len(s.trees) == 1 and s.trees[0].weight == 1 and len(s.steps) == 1
    assert s.throughput == 1


def test_schedules_of_non_trivial_trees():
    """Not only the optimum: some drawn schedules are strictly below it (Figure 1's
    optimum is 1)."""
    below = []

    @settings(max_examples=30, deadline=None, database=None, derandomize=True)
    @given(schedules(default_platform()))
    def collect(s):
        below.append(s.throughput < 1)

    collect()
    assert any(below)


# -- corruptions -------------------------------------------------------------------------

def versions_of(rule):
    v1, v2, _, _ = CORRUPTIONS[rule]
    return [v for v, ok in ((1, v1), (2, v2)) if ok]


@pytest.mark.parametrize("rule, version", [(rule, v) for rule in CORRUPTIONS
                                           for v in versions_of(rule)])
def test_every_corruption_is_rejected_by_verify_with_its_kind(rule, version):
    applies = CORRUPTIONS[rule][2]

    @settings(max_examples=10, deadline=None, database=None,
              suppress_health_check=[HealthCheck.filter_too_much])
    @given(st.data())
    def check(data):
        s = data.draw(schedules(platforms(min_nodes=3, max_nodes=6, density=0.5),
                                optimal=data.draw(st.booleans(), label="optimal"),
                                version=version), label="valid")
        assume(applies(s))
        c = data.draw(schedule_corruptions(s, rules=[rule]), label="corruption")
        assert c.rule == rule and c.original is s and c.schedule != s
        assert c.schedule.version == version
        report = verify(None, c.schedule, optimality=False)
        assert c.kind in report.kinds(), (c.where, [str(v) for v in report.violations])
        with pytest.raises(AssertionError, match=re_escape(f"[{c.kind}]")):
            assert_valid_schedule(None, c.schedule)

    check()


def test_corruptions_are_labelled_with_events(monkeypatch):
    import steady.strategies as module
    labels = []
    monkeypatch.setattr(module, "event", labels.append)

    @settings(max_examples=60, deadline=None, database=None)
    @given(schedule_corruptions(schedules(platforms(max_nodes=5))))
    def run(c):
        assert labels[-1] == f"corruption: {c.rule}"

    run()
    assert len({label for label in labels}) >= 8      # many rules, not one


def test_corruptions_of_a_fixed_schedule_and_inapplicable_rules():
    from steady.schedule import optimal_schedule
    p = default_platform()
    s, _ = optimal_schedule(p, throughput(p))
    c = find(schedule_corruptions(s), lambda c: True)
    assert c.rule == "drop-transfer" and c.kind == "delivery"
    assert c.where == "steps[0].transfers[0]"
    with pytest.raises(InvalidArgument, match="none of the rules"):
        find(schedule_corruptions(s, rules=["port-overlap"]), lambda c: True)  # v2 only


# -- health checks at default settings (issue 21 target) -----------------------------------

PUBLIC = {
    "exact_costs": exact_costs(), "decimal_costs": decimal_costs(),
    "platforms": platforms(), "multiport_platforms": multiport_platforms(),
    "dags": dags(), "chains": chains(), "complete_platforms": complete_platforms(),
    "trees": trees(default_platform(), st.sampled_from(TREE_FAMILIES)),
    "platforms_with_tree": platforms_with_tree(),
    "relabelings": relabelings(default_platform()),
    "schedules": schedules(platforms()),
    "optimal schedules": schedules(platforms(), optimal=True),
    "schedule_corruptions": schedule_corruptions(schedules(platforms())),
    "from_type(Platform)": st.from_type(Platform),
    "from_type(Schedule)": st.from_type(Schedule)}


@pytest.mark.parametrize("name", PUBLIC)
def test_health_checks_pass_at_default_settings(name):
    # Default settings (health checks on, default deadline); 10 examples are the ones
    # hypothesis' health checks look at.
    @settings(max_examples=10)
    @given(PUBLIC[name])
    def draw(x):
        pass

    draw()
