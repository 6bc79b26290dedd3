"""Placing a collective's timetable where the list schedule lost (issue 43, the
new-user trial): routings repaired by minimum conflicts (steady.schedule.route_rounds
.repaired_routing) and the topologies the trial found."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings, strategies as st

from steady.network.resources import alternative_routes, transfer_model
from steady.schedule.route_rounds import repaired_routing
from steady.topologies import fat_tree_platform


@st.composite
def routing_cases(draw):
    """Pairs of ends, each with 1-4 routes through 0-3 of 1-5 inner resources."""
    inner = [f"l{i}" for i in range(draw(st.integers(1, 5)))]
    pairs = [(f"a{i}", f"b{i}") for i in range(draw(st.integers(1, 6)))]
    choices = {}
    for e in pairs:
        routes = draw(st.lists(st.lists(st.sampled_from(inner), max_size=3, unique=True),
                               min_size=1, max_size=4))
        choices[e] = [((e[0], *r, e[1]), frozenset(r)) for r in routes]
    return pairs, choices


@given(routing_cases(), st.integers(0, 2 ** 32 - 1))
@settings(max_examples=200)
def test_a_repaired_routing_holds_no_inner_resource_twice(case, seed):
    """Whatever the repair returns takes one of each pair's own routes, in the pairs'
    order, and holds no inner resource twice; pairs whose routes share nothing are
    always routed."""
    pairs, choices = case
    found = repaired_routing(pairs, choices, seed)
    if found is None:
        assert any(choices[e][i][1] & choices[f][j][1]
                   for e in pairs for f in pairs if e != f
                   for i in range(len(choices[e])) for j in range(len(choices[f])))
        return
    assert len(found) == len(pairs)
    seen: set = set()
    for e, route in zip(pairs, found):
        inner = dict(choices[e])[route]
        assert seen.isdisjoint(inner)
        seen |= inner


def test_a_fat_tree_s_host_permutations_are_routed():
    """A 3-level fat tree of k = 6 is rearrangeable: any matching of its 54 hosts has a
    routing through distinct links (a host pair has 1, 3 or 9 routes); the repair finds
    one for random permutations where the depth-first search ran out of nodes."""
    platform = fat_tree_platform(6)
    model = transfer_model(platform)
    hosts = sorted(platform.compute_nodes)
    rng = random.Random(1)
    for _ in range(3):
        image = hosts[:]
        rng.shuffle(image)
        pairs = [(a, b) for a, b in zip(hosts, image) if a != b]
        choices = {}
        for a, b in pairs:
            choices[(a, b)] = [
                (route, frozenset(res for res, _ in model.holds(route)[1][1:-1]))
                for route in alternative_routes(platform, _shortest(platform, a, b),
                                                model, longer=0)]
        found = repaired_routing(pairs, choices)
        assert found is not None
        seen: set = set()
        for (a, b), route in zip(pairs, found):
            assert route[0] == a and route[-1] == b
            inner = dict(choices[(a, b)])[route]
            assert seen.isdisjoint(inner)
            seen |= inner


def _shortest(platform, a, b) -> tuple:
    import networkx as nx

    return tuple(nx.shortest_path(platform.to_networkx(), a, b))
