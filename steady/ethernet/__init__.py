"""Pipelined broadcast on Ethernet switched clusters (seed 004): contention-free trees and
the segment-size model."""
