"""The compact optimal periodic schedule of 002 §5.4.2.

From an exact optimum of SSB(G): weighted broadcast trees (Thm 5, :mod:`steady.schedule.branchings`
or the trees of the column generation), the per-link message counts m_{j,k} = sum of
the weights of the trees through (j,k) (eq. (17)), a weighted edge colouring of the
bipartite graph of communication times m_{j,k} c_{j,k} (Thm 6, :mod:`steady.schedule.matchings`),
and the period:

    s = lcm over links of sum_{i in M(j,k)} μ_i        (eq. (20))
    step i lasts μ_i·s (scaled back to time units) and sends, on each link (j,k) of
    matching M_i, μ_i·s·λ_l / sum_{i in M(j,k)} μ_i messages of every tree l through it.

Per period every tree edge carries s·λ_l messages, every node receives s·sum λ_l new
messages, and the steps add up to the period: throughput = TP (proofs/periodic-schedule.md).
All numbers are int / Fraction; the file lists counts, never individual messages, so
its size is polynomial in the platform whatever the period.
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..inputs import as_platform
from ..network.rows import has_link_rows
from ..throughput import compact_trees
from .branchings import weighted_branchings
from .counts import usage
from .matchings import pour, weighted_edge_coloring
from ..numbers import lcm_of_denominators
from ..schedule_file import PriceCertificate, Schedule, Step, TreeEntry, Transfer


def scaled_trees(platform, result) -> tuple[list[tuple[dict, int]], int, dict]:
    """Trees with integer weights λ_l at scale N (sum λ_l = N·TP) and statistics.

    Reuses the trees of a tree-producing throughput result; otherwise runs the
    combinatorial construction of Thm 5 on the capacities N·n and compacts the family
    to a basic solution (<= 2|V| - 1 trees)."""
    if result.trees:
        rates = [rate for _, rate in result.trees]
        scale = lcm_of_denominators(rates)
        trees = [(dict(parent), int(rate * scale)) for parent, rate in result.trees]
        return trees, scale, {"trees_built": len(trees), "construction": "column generation"}
    scale = lcm_of_denominators(list(result.n.values()) + [result.throughput])
    capacities = {arc: int(x * scale) for arc, x in result.n.items()}
    built = weighted_branchings(platform, capacities, int(result.throughput * scale))
    trees, scale = compact_trees(platform, built, scale)
    return trees, scale, {"trees_built": len(built), "construction": "weighted branchings"}


def periodic_schedule(platform, trees, scale: int, certificate=None) -> Schedule:
    """The schedule of 002 §5.4.2 for integer tree weights at scale N = ``scale``."""
    platform = as_platform(platform)
    m = usage(trees)   # m_{j,k}, eq. (17)
    times = {arc: count * platform.cost(*arc) for arc, count in m.items()}
    unit = lcm_of_denominators(times.values())  # time is counted in 1/unit
    w = {arc: int(t * unit) for arc, t in times.items()}
    matchings = weighted_edge_coloring(w)
    through = {arc: [(l, weight) for l, (parent, weight) in enumerate(trees)
                     if parent.get(arc[1]) == arc[0]] for arc in w}
    steps_of = {arc: [] for arc in w}  # M(j,k): the matchings containing each link
    for i, matching in enumerate(matchings):
        for arc in matching.edges:
            steps_of[arc].append(i)
    s = _period_multiplier(matchings, w, m, steps_of)
    slots: dict[int, list[Transfer]] = {i: [] for i in range(len(matchings))}
    for arc in w:
        # Step i gives link (j,k) room for exactly μ_i·s·m_jk / w_jk messages; the
        # trees' s·λ_l messages are poured into those slots in order, so each slot is
        # full and each tree gets its total (a tree may straddle two slots).
        per_time = Fraction(s * m[arc], w[arc])  # its denominator divides every μ_i
        capacities = [(i, matchings[i].weight // per_time.denominator * per_time.numerator)
                      for i in steps_of[arc]]
        demands = [(l, s * weight) for l, weight in through[arc]]
        for i, l, count in pour(capacities, demands):
            slots[i].append(Transfer(arc[0], arc[1], l, count))
    steps = [Step(Fraction(matching.weight * s, unit), tuple(slots[i]))
             for i, matching in enumerate(matchings)]
    period = sum((step.duration for step in steps), Fraction(0))
    messages = s * sum(weight for _, weight in trees)
    entries = tuple(TreeEntry.from_parent(parent, s * weight) for parent, weight in trees)
    return Schedule(platform, Fraction(messages) / period, period, messages, entries,
                    tuple(steps), certificate=certificate)


def _period_multiplier(matchings, w, m, steps_of) -> int:
    """The smallest s making every slot μ_i·s·m_jk / w_jk an integer (message counts).
    It divides the paper's s = lcm_jk w_jk (eq. (20); w_jk = sum of μ over M(j,k) by
    Thm 6), so the paper's proof applies, with a shorter period (fewer digits).
    Per link, lcm_i w/gcd(w, μ_i·m) = w/gcd(w, m·gcd_i μ_i): one big gcd per link."""
    s = 1
    for arc, steps in steps_of.items():
        g = math.gcd(*(matchings[i].weight for i in steps))
        s = math.lcm(s, w[arc] // math.gcd(w[arc], m[arc] * g))
    return s


def short_optimum(platform, trees, result, most: int) -> Schedule | None:
    """The exact optimal schedule of 002 §5.4.2 on ``trees`` [(parent, rate)], when its
    period holds at most ``most`` messages; None otherwise.  Cheap to rule out first:
    its messages per period are a multiple of N·TP* (N: the rates' common denominator)."""
    scale = lcm_of_denominators(rate for _, rate in trees)
    weights = [(parent, int(rate * scale)) for parent, rate in trees]
    if sum(w for _, w in weights) > most:
        return None
    exact = periodic_schedule(platform, weights, scale,
                              PriceCertificate.of(result.certificate))
    return exact if exact.messages_per_period <= most else None


def optimal_schedule(platform, result) -> tuple[Schedule, dict]:
    """The optimal periodic schedule for an exact throughput result, with statistics
    (trees built and kept, matchings, the paper's bounds).  On a platform with shared
    network links the steps must fit them too (issue 19): :mod:`.link_steps` builds them,
    and the throughput is then a certified ratio of the optimum."""
    if has_link_rows(platform):
        from .link_steps import network_schedule

        return network_schedule(platform, result, periodic_schedule)
    platform = as_platform(platform)
    trees, scale, stats = scaled_trees(platform, result)
    cert = PriceCertificate.of(result.certificate)
    schedule = periodic_schedule(platform, trees, scale, cert)
    if schedule.throughput != result.throughput:
        raise AssertionError(f"postcondition: schedule throughput {schedule.throughput} "
                             f"!= optimum {result.throughput}")
    v, e = len(platform.nodes), len(platform.links)
    stats.update({"trees": len(trees), "tree_bound": v ** 3 + e, "basis_bound": 2 * v - 1,
                  "matchings": len(schedule.steps), "matching_bound": e, "scale": scale})
    return schedule, stats
