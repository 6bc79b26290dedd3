"""From an exact optimum to a periodic schedule (002 §4.3, §5.3-§5.4), in pipeline order:

- :mod:`.branchings`: weighted broadcast trees (Thm 5, weighted Edmonds branchings);
- :mod:`.matchings`: weighted bipartite edge colouring into matchings (Lemma 1, Thm 6);
- :mod:`.periodic`: the compact optimal periodic schedule (§5.4.2);
- :mod:`.dag`: the schedule of a DAG platform by layers (§4.3, Thm 2).

Every construction writes the steady-schedule document of :mod:`steady.schedule_file`,
which the independent checker :mod:`steady.verify` reads without importing this package.
"""

from .periodic import integer_trees, optimal_schedule, periodic_schedule

__all__ = ["integer_trees", "optimal_schedule", "periodic_schedule"]
