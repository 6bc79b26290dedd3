"""The bound on the work of every float LP solve (GLOP), shared by
:mod:`steady.exact.lp` and :mod:`steady.exact.floatlp`, and the largest platform the
exact optimum takes (ours).

GLOP can cycle on badly scaled data (issue 18 F01: one cost 1e16 among costs 1 hung
inside ``Solve``); each solve therefore gets an iteration budget growing with the
LP's size, a bound in GLOP's deterministic time (the same on a loaded machine) and,
last, a wall-clock bound.  A solve that hits one ends without an optimum, and its
caller takes an exact way out."""

#: Wall-clock bound of one GLOP solve, in seconds (the last resort).
TIME_LIMIT = 600.0
#: Bound of one solve in GLOP's deterministic time units (about seconds, unloaded).
WORK_LIMIT = 120.0
#: Iteration budget of one solve: this many per row and column, plus a constant.
ITERATIONS_PER_ENTRY = 50
ITERATIONS_BASE = 10_000


def glop_limits(columns: int, rows: int) -> str:
    """GLOP parameters (text format) bounding one solve of an LP of this size."""
    budget = ITERATIONS_BASE + ITERATIONS_PER_ENTRY * (columns + rows)
    return (f"max_time_in_seconds: {TIME_LIMIT} max_deterministic_time: {WORK_LIMIT} "
            f"max_number_of_iterations: {budget}")


#: The most nodes the exact optimum is computed for (docs/limits.md): its exact
#: reconstruction solves a dense rational basis, about one row per node and cut, whose
#: memory grows as its square (a 2000-node line: 20 s, 0.8 GB; 20000 nodes would need
#: tens of GB).  Beyond it a platform is refused in one line before any work.
MAX_EXACT_NODES = 5000
