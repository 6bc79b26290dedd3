"""Grid-aware hierarchical broadcast (seed 001): the pLogP cluster model and its
scheduling heuristics."""
