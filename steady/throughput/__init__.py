"""Exact optimal steady-state throughput (002 §3.1.2, §4.1, §5.2), certified.

``throughput(platform)`` solves SSB(G) by min-cut cutting planes (the default);
``method="trees"`` by tree column generation, ``method="flow"`` with the paper's
per-destination flow LP (the reference).
``dag_throughput`` solves SSBPDAG on a DAG, ``tree_throughput`` gives TP(T).
Every result is a :class:`ThroughputResult` whose certificate was checked exactly.
"""

from .cuts import solve_cuts
from .dag import solve_dag
from .exactlp import CertificationError
from .flow import solve_flow
from .result import Certificate, ThroughputResult
from .tree import solve_tree, tree_formula
from .trees import solve_trees

METHODS = {"trees": solve_trees, "cuts": solve_cuts, "flow": solve_flow}


def throughput(platform, method: str = "cuts") -> ThroughputResult:
    """Optimal throughput of SSB(G) (002 §5.2): broadcasts per time unit, exact."""
    try:
        solver = METHODS[method]
    except KeyError:
        raise ValueError(f"unknown method {method!r}; choose from {sorted(METHODS)}") from None
    return solver(platform)


def dag_throughput(platform, origin: str = "<platform>") -> ThroughputResult:
    """Optimal throughput of SSBPDAG(G) (002 §4.1) for a DAG platform."""
    return solve_dag(platform, origin)


def tree_throughput(platform, parent: dict, origin: str = "<tree>") -> ThroughputResult:
    """TP(T) of the spanning tree given as child -> parent (002 §3.1.2)."""
    return solve_tree(platform, parent, origin)


__all__ = ["throughput", "dag_throughput", "tree_throughput", "ThroughputResult",
           "Certificate", "CertificationError", "tree_formula"]
