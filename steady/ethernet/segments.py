"""Completion time of a pipelined broadcast and the best segment size (seed 004 §4.2).

An msize-byte message is cut into X segments of m = msize / X bytes.  A node forwards
each segment to its children in send order, the c-th child (c = 1, 2, ...) receiving it
L(m) + c·g(m) after the node had it (004 §4.2: "L(m) + g(m)" for the left child,
"L(m) + 2g(m)" for the right one).  A receiver at the end of the path
m'_0 -> ... -> m'_x thus gets the first segment after A·L(m) + B·g(m), A = x hops and
B = the sum of the children ranks along the path; the first segment reaches the last
receiver after max over receivers, and the X - 1 other segments follow at the pace of the
busiest node, D·g(m) for a node with D children:

    time = max_x (A_x·L(m) + B_x·g(m)) + D·(X - 1)·g(m)

This is formula (1) for the linear tree (A = B = P - 1, D = 1), formula (2) for a binary
tree (D = 2) and its natural generalisation for k-ary trees (D = k).  The receiver that
achieves the max may depend on m; :class:`SegmentTime` names it with its A and B.

If m does not divide msize, X = ceil(msize / m) and the last, shorter segment is costed
as a full one (004 assumes divisibility "for easy exposition").  All times are exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..numbers import format_exact
from .broadcast_tree import BroadcastTree
from .plogp import PLogPTable


@dataclass(frozen=True)
class SegmentTime:
    """The model's completion time for one candidate segment size."""

    segment: int          # m, bytes
    segments: int         # X
    A: int                # hops to the last receiver of the first segment
    B: int                # its g(m) count
    degree: int           # D: the pipeline pace is D·g(m)
    time: Fraction

    def to_dict(self) -> dict:
        return {"segment": self.segment, "segments": self.segments, "A": self.A,
                "B": self.B, "degree": self.degree, "time": format_exact(self.time)}


@dataclass(frozen=True)
class SegmentChoice:
    """Every candidate's time and the best one (the smallest segment among ties)."""

    candidates: tuple[SegmentTime, ...]
    best: SegmentTime

    @property
    def best_segment(self) -> int:
        return self.best.segment


def hop_counts(tree: BroadcastTree) -> dict[str, tuple[int, int]]:
    """(A_x, B_x) for every receiver x: hops from the root, and the sum over those hops of
    the child's rank in its parent's send order (1 for the left child, 2 for the right)."""
    counts = {tree.root: (0, 0)}
    for u in tree.nodes():                  # a parent comes before its children
        a, b = counts[u]
        for rank, v in enumerate(tree.children.get(u, ()), start=1):
            counts[v] = (a + 1, b + rank)
    del counts[tree.root]
    return counts


def segment_count(msize: int, m: int) -> int:
    """X = ceil(msize / m)."""
    return -(-msize // m)


def first_segment(counts: dict, L: Fraction, g: Fraction) -> tuple[Fraction, int, int]:
    """max over receivers of A·L + B·g, with the A and B achieving it (the first receiver
    in the given order among ties)."""
    best = None
    for a, b in counts.values():
        t = a * L + b * g
        if best is None or t > best[0]:
            best = (t, a, b)
    return best if best is not None else (Fraction(0), 0, 0)


def tree_time(tree: BroadcastTree, table: PLogPTable, msize: int, m: int) -> SegmentTime:
    """The model's completion time of an msize-byte pipelined broadcast over ``tree`` with
    segments of m bytes (module docstring: formulas (1), (2) and the k-ary case).

    Postcondition: on a linear tree it is formula (1) term by term."""
    counts = hop_counts(tree)
    result = _time(counts, tree.max_degree, table, msize, m)
    if tree.max_degree <= 1 and result != linear_time(len(counts) + 1, table, msize, m):
        raise AssertionError("postcondition: a linear tree's time is not formula (1)")
    return result


def _time(counts, degree: int, table: PLogPTable, msize: int, m: int) -> SegmentTime:
    X = segment_count(msize, m)
    L, g = table.L(m), table.g(m)
    first, a, b = first_segment(counts, L, g)
    return SegmentTime(m, X, a, b, degree, first + degree * (X - 1) * g)


def linear_time(machines: int, table: PLogPTable, msize: int, m: int) -> SegmentTime:
    """Formula (1) of 004 §4.2, for P = ``machines``:
    (P - 1)(L(m) + g(m)) + (X - 1) g(m)."""
    X = segment_count(msize, m)
    L, g = table.L(m), table.g(m)
    hops = machines - 1
    degree = 1 if hops else 0
    return SegmentTime(m, X, hops, hops, degree, hops * (L + g) + degree * (X - 1) * g)


def binary_time(A: int, B: int, table: PLogPTable, msize: int, m: int) -> SegmentTime:
    """Formula (2) of 004 §4.2 for given A and B: A·L(m) + B·g(m) + 2(X - 1)g(m)."""
    X = segment_count(msize, m)
    L, g = table.L(m), table.g(m)
    return SegmentTime(m, X, A, B, 2, A * L + B * g + 2 * (X - 1) * g)


def best_segment(tree: BroadcastTree, table: PLogPTable, msize: int,
                 candidates=None) -> SegmentChoice:
    """The candidate segment size (default: the table's sizes up to msize) of least
    predicted time for ``tree`` (004 §5.1, Table 3)."""
    counts, degree = hop_counts(tree), tree.max_degree
    return choose(lambda m: _time(counts, degree, table, msize, m), table, msize,
                  candidates)


def choose(time_of, table: PLogPTable, msize: int, candidates=None) -> SegmentChoice:
    """Evaluate ``time_of(m)`` for every candidate m and keep the fastest (the smallest
    m among equal times).  Candidates must be tabulated sizes <= msize."""
    if msize < 1:
        raise ValueError(f"the message size must be >= 1 byte, got {msize}")
    sizes = [m for m in (candidates or table.sizes) if m <= msize]
    missing = [m for m in sizes if m not in table.gap]
    if missing:
        raise ValueError(f"segment size {missing[0]} is not in the L/g table")
    if not sizes:
        raise ValueError(f"no tabulated segment size <= {msize} bytes (smallest: "
                         f"{min(table.sizes)})")
    rows = tuple(time_of(m) for m in sorted(sizes))
    return SegmentChoice(rows, min(rows, key=lambda r: (r.time, r.segment)))
