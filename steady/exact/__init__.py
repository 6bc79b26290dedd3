"""The exact toolbox under every LP of steady: float search, exact end (docs/formats.md,
exact numbers).

- :mod:`.lp`: LinearProgram (GLOP search, exact rational re-solve of the basis);
- :mod:`.floatlp`: FloatLP, a float-only GLOP LP for large searches;
- :mod:`.limits`: the bound on every GLOP solve's work;
- :mod:`.maxflow`: exact (integer) and float max-flows and min cuts;
- :mod:`.connectivity`: does every destination receive a level? (propagation rule,
  then max-flows; float or exact);
- :mod:`.arborescence`: cheapest spanning arborescences (Edmonds), exact or float;
- :mod:`.cutplanes`: LPs over per-link rates (n, TP) with lazily separated min cuts;
- :mod:`.scaling`: float searches on costs near 1 (homogeneity).

It knows platforms only as nodes, links and costs; it imports nothing above it.
"""

from .lp import EQ, GE, LE, CertificationError, LinearProgram
from .scaling import cost_scale, solve_scaled

__all__ = ["EQ", "GE", "LE", "CertificationError", "LinearProgram", "cost_scale",
           "solve_scaled"]
