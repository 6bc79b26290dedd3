"""Running a periodic schedule over a finite time (002 §5.5, §6), after the schedule
stage:

- :mod:`.plan`: the finite-horizon plan (transfers with exact planned starts), its
  file, its independent check and its ideal execution;
- :mod:`.plan_grid`: a plan moved onto a coarse time grid (fewer digits, same count);
- :mod:`.unroll`: a timetable unrolled into a plan (warm-up, periods, clean-up) under a
  forwarding rule (002 §5.5's "one period later", or pipelined);
- :mod:`.rerouted`: a clean-up routed afresh, off the trees;
- :mod:`.list_run`: the broadcasts list scheduled over a timetable's trees (no periods);
- :mod:`.horizon`: delivered(K) against Lemma 7's bound K·TP* (Theorem 7), the phases;
- :mod:`.choose`: the candidate table and the plan that delivers the most by K;
- :mod:`.pipe`: one large message cut into slices with start-up costs (PIPE, Thm 8).
"""

from .choose import Candidate, Choice, broadcast_plan, horizon_choice
from .horizon import MAX_EVENTS, HorizonReport
from .plan import Plan, PlanError, TooLarge, Transfer, check_plan, execute

__all__ = ["MAX_EVENTS", "Candidate", "Choice", "HorizonReport", "Plan", "PlanError",
           "TooLarge", "Transfer", "broadcast_plan", "check_plan", "execute",
           "horizon_choice"]
