"""Float searches on costs near 1: the homogeneity of the broadcast LPs (ours).

GLOP works with absolute tolerances: with every cost ~10^30 the rates and TP are
~10^-30, below them, and GLOP ends without an optimum.  Every LP of steady is homogeneous
in the costs (002 §5.2: (n, TP, y) is optimal for costs c/a iff (n/a, TP/a, y/a) is for
costs c, with the same arborescence costs c·y), so a search may run on costs c/a, a = 2^e
near the geometric middle of the costs, and scale its exact answer back.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable, TypeVar

#: Costs whose magnitude is within 2^±_SPREAD of 1 are given to the solvers unchanged.
_SPREAD = 8

T = TypeVar("T")


def cost_scale(platform) -> Fraction:
    """A power of two a such that the costs c/a are near 1 (1 when they already are):
    the factor by which to divide costs before a float LP search."""
    bits = [l.cost.numerator.bit_length() - l.cost.denominator.bit_length()
            for l in platform.links]
    e = (min(bits) + max(bits)) // 2
    return Fraction(1) if abs(e) <= _SPREAD else Fraction(2) ** e


def solve_scaled(platform, solve: Callable[[object, Fraction], T]) -> T:
    """``solve(scaled, a)`` with ``scaled`` the platform whose link costs are divided by
    a = :func:`cost_scale` (the platform itself when a = 1).  ``solve`` scales its exact
    answer back: rates, throughput and prices are a times too large, times unchanged."""
    a = cost_scale(platform)
    return solve(platform if a == 1 else platform.scale_costs(1 / a), a)
