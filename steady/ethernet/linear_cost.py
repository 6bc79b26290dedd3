"""Completion times of seed 004 §3.1 (Table 1) under the cost T(n) = α + n·β.

004 §3.1 ignores contention and compares broadcast algorithms for P machines and an
msize-byte message:

* flat tree: the root sends the whole message to each receiver in turn, (P - 1)·T(msize);
* binomial tree: ceil(log2 P) rounds of whole messages, ceil(log2 P)·T(msize) (the paper
  writes log(P), exact when P is a power of two);
* scatter + all-gather: at least 2·T((P - 1)/P · msize), a *lower bound* (the paper:
  "in practice, the all-gather operation may not be completed in" that time);
* a pipelined broadcast over a tree of H levels and largest nodal degree D with X
  segments: (X + H - 1)·D·T(msize / X) — X + H - 1 pipeline stages of D segment sends.
  H counts levels (nodes on the longest root-to-leaf path): the paper's linear tree has
  H = P, D = 1.  For the complete binary tree the paper writes H = log2 P, which counts
  edges instead (a complete binary tree on P = 2^k nodes has k + 1 levels); we keep one
  definition, levels, for every tree, so our binary value is one stage (2·T(msize/X))
  above the paper's (2X + 2·log2 P − 2)·T(msize/X).

Every value is exact (α, β, msize are ints or Fractions).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .broadcast_tree import BroadcastTree


@dataclass(frozen=True)
class LinearCost:
    """T(n) = alpha + n·beta (004 §3.1): start-up and per-byte time."""

    alpha: Fraction
    beta: Fraction

    def T(self, n) -> Fraction:
        return Fraction(self.alpha) + Fraction(n) * Fraction(self.beta)


def binomial_rounds(machines: int) -> int:
    """ceil(log2 P): the rounds of the hypercube pattern (and the root's sends)."""
    return (machines - 1).bit_length()


def flat_time(cost: LinearCost, machines: int, msize) -> Fraction:
    """(P - 1)·T(msize)."""
    return (machines - 1) * cost.T(msize)


def binomial_time(cost: LinearCost, machines: int, msize) -> Fraction:
    """ceil(log2 P)·T(msize)."""
    return binomial_rounds(machines) * cost.T(msize)


def scatter_allgather_bound(cost: LinearCost, machines: int, msize) -> Fraction:
    """2·T((P - 1)/P · msize): scatter, then all-gather, each moving (P-1)/P of the
    message through one port."""
    return 2 * cost.T(Fraction(machines - 1, machines) * Fraction(msize))


def pipelined_stage_time(cost: LinearCost, tree: BroadcastTree, msize, segments: int
                         ) -> Fraction:
    """(X + H - 1)·D·T(msize / X) for the tree's levels H and largest degree D."""
    if segments < 1:
        raise ValueError(f"at least one segment, got {segments}")
    levels = tree.height + 1
    return (segments + levels - 1) * tree.max_degree * cost.T(Fraction(msize) / segments)
