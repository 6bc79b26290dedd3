"""Integer trees for a short period: N messages shared among optimal trees (ours; steps 1
and 2 of the timed schedules of :mod:`.timed`, on 002 §5.3's trees and Thm 5).

1. **Integer counts.**  The optimum's trees T_l with rates λ_l (sum TP*) give every link
   the rate n_e = sum of λ_l over the trees through it.  With N messages per period the
   link carries n_e·N/TP* messages; rounding up keeps every cut >= N (every cut carries
   >= TP* in the optimum), so N arc-disjoint spanning arborescences fit (Edmonds'
   branching theorem, 002 Thm 5).  The ratio of a count vector is bounded by
   N / (TP*·largest load); among the top tenth of 1..M, the N with the best bounds are
   scored (:func:`message_counts`).
2. **Integer trees.**  Tree l gets floor(λ_l·N/TP*) messages; trees with the largest
   remainders then get one more while their links have room; what is still missing is
   packed into the remaining capacities by Thm 5's weighted branchings, as far as their
   root-connectivity allows (:func:`rounded_trees`).  A bounded Dinkelbach search over
   these trees and the optimum's (:mod:`.packing`) then improves the weights' ratio bound
   (:func:`best_packing`).

Within a period the order of messages is free (a node forwards in period p what it
received in period p - 1, 002 §5.4.2), so any timetable of these counts is valid when
repeated (proofs/timed-schedule.md).
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..numbers import lcm_of_denominators
from ..platform import Arc
from .branchings import root_connectivity, weighted_branchings
from .packing import dinkelbach_weights, exact_ratio
from .timetable import loads_of


def link_rates(trees) -> dict[Arc, Fraction]:
    """n_e = sum of the rates of the trees through each link (summed over a common
    denominator: Fraction additions dominated at 100 nodes)."""
    trees = list(trees)
    scale = lcm_of_denominators(rate for _, rate in trees)
    sums = usage([(parent, int(rate * scale)) for parent, rate in trees])
    return {arc: Fraction(k, scale) for arc, k in sums.items()}


def rounded_counts(rates, optimum: Fraction, messages: int) -> dict[Arc, int]:
    """ceil(n_e·N/TP*): every cut keeps >= N (proofs/timed-schedule.md)."""
    return {arc: math.ceil(rate * messages / optimum) for arc, rate in rates.items()}


#: Values of N that :func:`message_counts` scores at most (evenly spread over the top
#: tenth of 1..M): its work bound.
COUNT_CANDIDATES = 32


def message_counts(platform, trees, optimum: Fraction, most: int, keep: int = 8) -> list[int]:
    """The ``keep`` values N <= ``most`` whose rounded counts promise the best ratios
    N / (TP*·largest load), best first (larger N on ties); candidates: the top tenth of
    1..most, at most :data:`COUNT_CANDIDATES` of them."""
    rates = link_rates(trees)
    scored = []
    low = max(1, most - most // 10 - 1)
    step = max(1, (most - low) // COUNT_CANDIDATES)
    for n in range(most, low - 1, -step):
        load = max(loads_of(platform, rounded_counts(rates, optimum, n)).values())
        scored.append((-Fraction(n) / load, -n))
    scored.sort()
    return [-n for _, n in scored[:keep]]


def best_packing(platform, trees, optimum: Fraction, most: int, dinkelbach: bool = True):
    """(N, integer trees): the rounded counts' best packing among the promising N of
    :func:`message_counts` (by the ratio their trees reach at their own largest load:
    the rounding often leaves room), then improved by the bounded Dinkelbach search of
    :mod:`.packing` over the same trees and the optimum's (unless not ``dinkelbach``)."""
    packed = start_packing(platform, trees, optimum, most)
    if not dinkelbach:
        return sum(w for _, w in packed), packed
    weights = improved_packing(platform, trees, optimum, most, packed)
    return sum(w for _, w in weights), weights


def start_packing(platform, trees, optimum: Fraction, most: int) -> list[tuple[dict, int]]:
    """The integer trees of :func:`best_packing` before its Dinkelbach search."""
    best = None
    for n in message_counts(platform, trees, optimum, most):
        weights = rounded_trees(platform, trees, optimum, n, residual=False)
        ratio = exact_ratio(platform, weights, optimum)
        if best is None or ratio > best[0]:
            best = (ratio, n)
    # the residual packing (max-flows) only for the best N: it is the costly part
    return rounded_trees(platform, trees, optimum, best[1])


def improved_packing(platform, trees, optimum: Fraction, most: int, packed,
                     proven: bool = False) -> list[tuple[dict, int]] | None:
    """``packed`` (:func:`start_packing`) improved by the bounded Dinkelbach search of
    :mod:`.packing` over the same trees and the optimum's: the weights of
    :func:`best_packing`.  With ``proven``, the same when each of the search's MILPs
    proves its optimum within a few nodes (:data:`.packing.PROVEN_NODES`), None
    otherwise."""
    pool = merged([(parent, 0) for parent, _ in trees] + packed)
    parents = [parent for parent, _ in pool]
    improved = dinkelbach_weights(platform, parents, optimum, most, [w for _, w in pool],
                                  proven=proven)
    if improved is None:
        return None
    return [(parent, w) for parent, w in zip(parents, improved) if w > 0]


def rounded_trees(platform, trees, optimum: Fraction, messages: int,
                  residual: bool = True, capacity=None) -> list[tuple[dict, int]]:
    """Trees with positive integer weights summing to at most ``messages`` whose link
    usage fits ``capacity`` (default: the rounded counts; step 2 of the module
    docstring); without ``residual``, the optimum's trees only (no packing of the
    remaining capacities)."""
    if capacity is None:
        capacity = rounded_counts(link_rates(trees), optimum, messages)
    shares = [(parent, rate * messages / optimum) for parent, rate in trees]
    weights = [math.floor(share) for _, share in shares]
    used = usage([(parent, w) for (parent, _), w in zip(shares, weights)])
    for arc in sorted(a for a in used if used[a] > capacity.get(a, 0)):
        # given counts below the floors: the trees through the arc give back messages,
        # the heaviest first
        while used[arc] > capacity.get(arc, 0):
            l = max((l for l, (parent, _) in enumerate(shares)
                     if weights[l] and parent.get(arc[1]) == arc[0]),
                    key=lambda l: (weights[l], -l))
            weights[l] -= 1
            for child, par in shares[l][0].items():
                used[(par, child)] -= 1
    missing = messages - sum(weights)
    by_remainder = sorted(range(len(shares)), key=lambda l: shares[l][1] - weights[l],
                          reverse=True)
    for l in by_remainder:
        if missing == 0:
            break
        arcs = [(p, c) for c, p in shares[l][0].items()]
        if all(used.get(a, 0) < capacity.get(a, 0) for a in arcs):
            weights[l] += 1
            missing -= 1
            for a in arcs:
                used[a] = used.get(a, 0) + 1
    packed = [(dict(parent), w) for (parent, _), w in zip(shares, weights) if w > 0]
    if missing and residual:
        left = {a: capacity[a] - used.get(a, 0) for a in capacity}
        extra = min(missing, root_connectivity(platform, left))
        if extra:
            packed += weighted_branchings(platform, left, extra)
    return merged(packed)


def merged(trees) -> list[tuple[dict, int]]:
    """Identical trees joined, weights added; first appearance order."""
    index: dict[frozenset, int] = {}
    out: list[tuple[dict, int]] = []
    for parent, w in trees:
        key = frozenset(parent.items())
        if key in index:
            p, old = out[index[key]]
            out[index[key]] = (p, old + w)
        else:
            index[key] = len(out)
            out.append((parent, w))
    return out


def usage(trees) -> dict[Arc, int]:
    """Messages per period on every link the weighted ``trees`` use."""
    used: dict[Arc, int] = {}
    for parent, w in trees:
        for child, par in parent.items():
            used[(par, child)] = used.get((par, child), 0) + w
    return used
