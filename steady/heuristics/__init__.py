"""Single-tree pipelined broadcast (seed 000): platform and LP heuristics, the exact best
tree, the multi-port model."""

#: The package's modules (imported on use: importing the package imports none).
__all__ = ["best_tree", "lp_based", "models", "multi_port", "multiport_bound", "one_port", "reduction", "registry"]
