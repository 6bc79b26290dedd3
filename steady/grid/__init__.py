"""Grid-aware hierarchical broadcast (seed 001): the pLogP cluster model and its
scheduling heuristics."""

#: The package's modules (imported on use: importing the package imports none).
__all__ = ["check", "cpsat", "draws", "heuristics", "model", "optimum", "schedule", "strategies"]
