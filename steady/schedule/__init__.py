"""From an exact optimum to a periodic schedule (002 §4.3, §5.3-§5.4), in pipeline order:

- :mod:`.branchings`: weighted broadcast trees (Thm 5, weighted Edmonds branchings);
- :mod:`.matchings`: weighted bipartite edge colouring into matchings (Lemma 1, Thm 6);
- :mod:`.periodic`: the compact optimal periodic schedule (§5.4.2);
- :mod:`.dag`: the schedule of a DAG platform by layers (§4.3, Thm 2);
- :mod:`.link_steps`: the periodic schedule's steps on shared network links (named apart
  from the :mod:`steady.network` package, the links themselves);
- :mod:`.timetable`: one period in exact ticks, the vocabulary of everything below;
- :mod:`.effort`: the deterministic work bounds of the searches (fast, default, thorough);
- :mod:`.counts`: integer trees for a short period (rounded counts, packing);
- :mod:`.count_search`: link counts by a local search over the cuts;
- :mod:`.cut_counts`: link counts chosen over the cuts by a bounded MILP;
- :mod:`.packing`: tree weights improved by a bounded Dinkelbach search;
- :mod:`.list_schedule`: a period's timetable by list scheduling;
- :mod:`.rounds`: timetables in rounds that fit shared links;
- :mod:`.port_clock`: the event clock of greedy one-port placements;
- :mod:`.order_search`: improver, port orders searched by CP-SAT;
- :mod:`.idle_slots`, :mod:`.regrow`: improver, trees regrown by earliest arrival;
- :mod:`.timed`: short-period timetables (version 2 files), the above put together;
- :mod:`.steps`: short periods in synchronous steps (version 1 files).

Collectives (issue 43: several roots, switches, multi-port), on the same timetable:

- :mod:`.route_rounds`: rounds for routes of one cost;
- :mod:`.clos_phases`, :mod:`.rail_phases`, :mod:`.nic_rounds`: timetables built by
  hand on Clos, rail and DGX-like fabrics;
- :mod:`.reversal`: reduce-scatter and allreduce timetables mirrored from allgather ones;
- :mod:`.config_blocks`: trees and blocks of concurrent transfers chosen together;
- :mod:`.collective`: the chooser of a collective's short-period timetable.

Every construction writes the steady-schedule document of :mod:`steady.schedule_file`,
which the independent checker :mod:`steady.verify` reads without importing this package.
"""

from .periodic import optimal_schedule, periodic_schedule, scaled_trees
from .timed import timed_schedule, timed_timetable
from .timetable import Timetable

#: The former name of :func:`scaled_trees` (kept: it was public).
integer_trees = scaled_trees

__all__ = ["Timetable", "integer_trees", "optimal_schedule", "periodic_schedule",
           "scaled_trees", "timed_schedule", "timed_timetable"]
