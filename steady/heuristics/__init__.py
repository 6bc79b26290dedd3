"""Single-tree pipelined broadcast (seed 000): platform and LP heuristics, the exact best
tree, the multi-port model."""
