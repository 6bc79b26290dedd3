"""Issue 21 target: shrinking quality.  A toy broadcast scheduler, written as a user
would, with 6 injected bugs; for each, hypothesis (steady.strategies.platforms) finds a
platform that breaks it and shrinks it to at most 4 nodes, and steady.verify names the
broken rule."""

from fractions import Fraction

import pytest
from hypothesis import find, given, settings

from helpers import examples

from steady.schedule_file import Schedule, Step, Transfer, TreeEntry
from steady.strategies import platforms
from steady.testing import assert_valid_schedule
from steady.verify import verify


def hops(platform) -> dict:
    """Fewest hops from the source to every node (BFS)."""
    depth, layer = {platform.source: 0}, [platform.source]
    while layer:
        nxt = []
        for u in layer:
            for l in platform.out_links(u):
                if l.head not in depth:
                    depth[l.head] = depth[u] + 1
                    nxt.append(l.head)
        layer = nxt
    return depth


def toy_tree(platform, depth, bug=None) -> dict:
    """A BFS tree: each node hangs below the first in-neighbour one hop nearer the
    source (with the bug "any-parent": below its last in-neighbour, whatever its depth)."""
    parent = {}
    for v in platform.destinations:
        ins = [l.tail for l in platform.in_links(v)]
        parent[v] = ins[-1] if bug == "any-parent" else next(
            u for u in ins if depth[u] == depth[v] - 1)
    return parent


def toy_schedule(platform, bug=None) -> Schedule:
    """One tree of weight 1; its edges, nearest the source first, packed greedily into
    steps in which every node sends at most once; a step lasts its slowest transfer."""
    depth = hops(platform)
    parent = toy_tree(platform, depth, bug)
    edges = sorted(((p, c) for c, p in parent.items()), key=lambda e: depth[e[1]])
    if bug == "lost-grandchildren":
        edges = [e for e in edges if depth[e[1]] < 3]
    steps: list[list] = []
    for p, c in edges:
        free = next((s for s in steps if bug == "shared-sender"
                     or all(t != p for t, _ in s)), None)
        if free is None:
            steps.append(free := [])
        free.append((p, c))
    durations = []
    for s in steps:
        costs = [platform.cost(p, c) for p, c in s]
        d = min(costs) if bug == "short-step" else max(costs)
        durations.append(Fraction(float(d)) if bug == "float-duration" else d)
    period = (max(durations) if bug == "period-max"
              else sum(durations, Fraction(0)))
    return Schedule(platform, 1 / period, period, 1,
                    [TreeEntry.from_parent(parent, 1)],
                    [Step(d, [Transfer(p, c, 0, 1) for p, c in s])
                     for d, s in zip(durations, steps)])


@settings(max_examples=examples(60), deadline=None)
@given(platforms(max_nodes=8, density=0.3))
def test_the_toy_scheduler_without_bugs_is_valid(p):
    assert_valid_schedule(p, toy_schedule(p))


BUGS = {  # bug -> the rule verify reports
    "shared-sender": "one-port",
    "short-step": "capacity",
    "lost-grandchildren": "delivery",
    "any-parent": "tree",
    "period-max": "period",
    "float-duration": "capacity"}


@pytest.mark.slow
@pytest.mark.parametrize("bug", BUGS)
def test_injected_bugs_shrink_to_at_most_four_nodes(bug):
    def broken(p):
        return not verify(p, toy_schedule(p, bug), optimality=False).ok

    p = find(platforms(max_nodes=8, density=0.3), broken,
             settings=settings(database=None, derandomize=True, max_examples=1000))
    assert len(p.nodes) <= 4, repr(p)
    report = verify(p, toy_schedule(p, bug), optimality=False)
    assert BUGS[bug] in report.kinds()
    with pytest.raises(AssertionError, match=f"\\[{BUGS[bug]}\\]"):
        assert_valid_schedule(p, toy_schedule(p, bug))
