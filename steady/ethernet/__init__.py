"""Pipelined broadcast on Ethernet switched clusters (seed 004): contention-free trees and
the segment-size model."""

#: The package's modules (imported on use: importing the package imports none).
__all__ = ["broadcast_tree", "cluster", "contention", "formats", "generators", "linear_cost", "plogp", "segments", "strategies", "trees", "unaware"]
