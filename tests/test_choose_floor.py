"""An effort's floor level (Effort.floor_level): horizon_choice also counts that level's
candidates, so it never delivers less by the horizon (steady.simulate.choose)."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from helpers import examples

from steady.generators import mesh_platform, random_platform
from steady.schedule.effort import DEFAULT, FAST, LEVELS
from steady.simulate.choose import horizon_choice, with_trees
from steady.throughput import throughput


def _key(c):
    return (c.max_messages, c.table.messages, c.ratio, c.forwarding, c.regrown,
            c.routed_cleanup, c.delivered)


@settings(max_examples=examples(4), deadline=None)
@given(kind=st.sampled_from(["mesh", "random"]), nodes=st.integers(6, 9),
       seed=st.integers(1, 40), horizon=st.integers(200, 3000))
def test_a_level_with_a_floor_delivers_at_least_the_floor_and_keeps_its_candidates(
        kind, nodes, seed, horizon):
    platform = (mesh_platform(nodes, seed=seed) if kind == "mesh"
                else random_platform(nodes, 0.3, seed=seed))
    result = with_trees(platform, throughput(platform, "trees"))
    floor = horizon_choice(platform, result, horizon, DEFAULT)
    alone = horizon_choice(platform, result, horizon, FAST)
    both = horizon_choice(platform, result, horizon, FAST.but(floor_level="default"))
    assert both.best.delivered == max(floor.best.delivered, alone.best.delivered)
    keys = [_key(c) for c in both.candidates]
    assert keys == [_key(c) for c in alone.candidates + floor.candidates]


def test_fast_alone_can_deliver_less_than_default():
    """The property above is not empty: here fast alone delivers less than default
    (fast: ladder 2, 5, 10, 20, 40; default also tries 1, 4, 8)."""
    platform = mesh_platform(8, seed=3)
    result = with_trees(platform, throughput(platform, "trees"))
    alone = horizon_choice(platform, result, 1000, FAST)
    floor = horizon_choice(platform, result, 1000, DEFAULT)
    both = horizon_choice(platform, result, 1000, FAST.but(floor_level="default"))
    assert alone.best.delivered < floor.best.delivered == both.best.delivered


def test_floor_levels_name_a_level_and_end():
    for level in LEVELS.values():
        seen = {level.name}
        while level.floor_level is not None:
            assert level.floor_level in LEVELS
            level = LEVELS[level.floor_level]
            assert level.name not in seen
            seen.add(level.name)
