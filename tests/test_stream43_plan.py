"""sweep43b (issue 43, fluid43): the finite-horizon plan of a streamed timetable.

A streamed timetable (proofs/collectives.md §16) runs transfers at a share of their
route's speed, so two of them may share a link at once; ``verify`` accepts it.  The
plan of its first K time units (steady/simulate/collective.py, the plan format of
steady/simulate/plan.py) has a ``duration`` per transfer but no share: its checker
counts every transfer as holding its links whole, and ``collective_plan``'s own
postcondition fails ("link a0->tor-a over capacity from time 0 (transfer 1): 2 of it in
use"), as does ``steady simulate P --collective K --plan FILE`` (exit 1, a traceback).
Fails on fluid43 at e90014d, with 5 tests of tests/test_collective_plan.py (all 5
pass on main at 6a00a28, where this sample's reduce-scatter at 4 chunks was not
streamed)."""

from fractions import Fraction
from pathlib import Path

from steady.commands.collective import optimum
from steady.platform import Platform
from steady.schedule.collective import collective_schedule
from steady.simulate.collective import collective_plan
from steady.simulate.plan import check_plan
from steady.verify import verify

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "collectives" / "hetero-cluster.json"


def test_the_plan_of_a_streamed_timetable_passes_its_checker():
    platform = Platform.from_file(SAMPLE)
    result = optimum(platform, "hetero-cluster", "reduce-scatter", None, None)
    schedule = collective_schedule(platform, result, 4, "fast")[0]
    assert verify(platform, schedule).ok
    assert any(t.duration is not None for t in schedule.transfers)   # streamed
    plan = collective_plan(schedule, Fraction(40))
    assert check_plan(plan) == []
