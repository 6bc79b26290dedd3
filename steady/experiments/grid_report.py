"""The report of the grid campaign (:mod:`.grid`): CSV files, figures and grid-report.md.

Outputs in --out: ``grid-completion.csv``, ``grid-hit-rate.csv``, ``grid-optimum.csv``
(optionally ``grid-runs.csv``, every draw), four figures (001 Figures 1-4 and the hit
rates against the exact optimum) and ``grid-report.md``, the comparison with the paper's
findings; and the summary ``steady experiment grid`` prints (text or --json).
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from ..fileio import atomic_write_text
from ..grid.draws import TABLE2_US
from ..grid.heuristics import HEURISTICS, PAPER_SIMULATED, VARIANTS
from ..numbers import decimal_text, format_exact
from ..present.plots import pyplot, save
from ..present.sheet import written_line
from .runner import write_csv

ECEF_FAMILY = ("ecef", "ecef-la", "ecef-lat-min", "ecef-lat-max")

#: Heuristic key -> the name the paper gives it.
LABELS = {k: v[0] for k, v in {**HEURISTICS, **VARIANTS}.items()}


# -- the summary printed ----------------------------------------------------------------

def summary_doc(keys, summaries, setup, files) -> dict:
    """The machine-readable summary (exact numbers as p/q text, times in ms)."""
    def opt(x):
        return None if x is None else format_exact(x)

    sizes = []
    for n, s in summaries.items():
        sizes.append({"clusters": n, "iterations": s.iterations, "solved": s.solved,
                      "unsolved": s.unsolved, "heuristics": {
                          k: {"mean_ms": format_exact(s.mean_us[k] / 1000),
                              "hit_rate_global_min": format_exact(
                                  Fraction(s.hits[k], s.iterations)),
                              "hit_rate_optimum": None if not s.solved else format_exact(
                                  Fraction(s.optimal_hits[k], s.solved)),
                              "excess_over_optimum": opt(s.excess and s.excess[k]),
                              "worst_over_optimum": opt(s.worst and s.worst[k])}
                          for k in keys}})
    return {"campaign": "grid", **{k: v for k, v in setup.items() if k != "seconds"},
            "seconds": round(setup["seconds"], 1), "sizes": sizes,
            "files": [str(f) for f in files]}


def summary_text(keys, summaries, setup, files) -> str:
    lines = [f"001 §6 campaign: {setup['iterations']} grids per size, seed {setup['seed']}, "
             f"{setup['seconds']:.1f} s on {setup['jobs']} worker(s)",
             "mean makespan (ms) / hit rate of the global minimum"
             + (" / hit rate of the exact optimum" if setup["exact_max"] else "")]
    header = ["n"] + [LABELS[k] for k in keys]
    table = [header]
    for n, s in summaries.items():
        row = [str(n)]
        for k in keys:
            cell = f"{float(s.mean_us[k]) / 1000:.0f} / {_percent(s.hits[k], s.iterations)}"
            if s.solved:
                cell += f" / {_percent(s.optimal_hits[k], s.solved)}"
            row.append(cell)
        table.append(row)
    widths = [max(len(r[c]) for r in table) for c in range(len(header))]
    lines += ["  ".join(x.rjust(w) for x, w in zip(r, widths)) for r in table]
    unsolved = sum(s.unsolved for s in summaries.values())
    lines.append(_exact_scope(summaries, setup) + (f"; {unsolved} grids unsolved at "
                                                   f"--node-limit" if unsolved else ""))
    lines.append(written_line(files))
    return "\n".join(lines)


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def _exact_scope(summaries, setup) -> str:
    exact = [n for n, s in summaries.items() if s.solved]
    if not exact:
        return "Exact optimum not computed (--exact-max 0 or all sizes above it)"
    skipped = [n for n in summaries if n > setup["exact_max"]]
    text = f"Exact optimum computed for n = {_ranges(exact)}"
    if skipped:
        text += f", not for n = {_ranges(skipped)} (above --exact-max {setup['exact_max']})"
    return text


def _ranges(sizes) -> str:
    sizes = sorted(sizes)
    if sizes == list(range(sizes[0], sizes[-1] + 1)) and len(sizes) > 2:
        return f"{sizes[0]}..{sizes[-1]}"
    return ", ".join(map(str, sizes))


# -- files ----------------------------------------------------------------------------

def write_outputs(out: Path, keys, summaries, rows, setup, plots: bool = True) -> list[Path]:
    """CSV files, figures and the report in ``out``; returns the paths written."""
    files = [_completion_csv(out / "grid-completion.csv", keys, summaries),
             _hits_csv(out / "grid-hit-rate.csv", keys, summaries),
             _optimum_csv(out / "grid-optimum.csv", summaries)]
    if rows is not None:
        files.append(_runs_csv(out / "grid-runs.csv", keys, rows))
    if plots:
        files += figures(out, keys, summaries)
    report = out / "grid-report.md"
    atomic_write_text(report, report_text(keys, summaries, setup))
    files.append(report)
    return files


def _completion_csv(path, keys, summaries) -> Path:
    rows = [[n, k, s.iterations, s.mean_us[k] / 1000, decimal_text(s.mean_us[k] / 1000, 3),
             f"{s.deviation_us[k] / 1000:.3f}"]
            for n, s in summaries.items() for k in keys]
    write_csv(path, ["clusters", "heuristic", "iterations", "mean_ms", "mean_ms_decimal",
                     "deviation_ms"], rows)
    return path


def _hits_csv(path, keys, summaries) -> Path:
    rows = []
    for n, s in summaries.items():
        for k in keys:
            row = [n, k, s.iterations, s.hits[k], Fraction(s.hits[k], s.iterations), s.solved]
            if s.solved:
                row += [s.optimal_hits[k], Fraction(s.optimal_hits[k], s.solved),
                        s.excess[k], decimal_text(s.excess[k], 6), s.worst[k],
                        decimal_text(s.worst[k], 6)]
            else:
                row += [""] * 6
            rows.append(row)
    write_csv(path, ["clusters", "heuristic", "iterations", "hits_global_min",
                     "hit_rate_global_min", "exact_iterations", "hits_optimum",
                     "hit_rate_optimum", "excess", "excess_decimal", "worst",
                     "worst_decimal"], rows)
    return path


def _optimum_csv(path, summaries) -> Path:
    rows = [[n, s.iterations, s.solved, s.unsolved,
             "" if s.mean_optimum_us is None else s.mean_optimum_us / 1000,
             s.best_of_seven_optimal,
             "" if s.best_of_seven_excess is None else s.best_of_seven_excess,
             s.max_nodes] for n, s in summaries.items()]
    write_csv(path, ["clusters", "iterations", "solved", "unsolved_node_limit",
                     "mean_optimum_ms", "global_min_is_optimal", "global_min_excess",
                     "max_search_nodes"], rows)
    return path


def _runs_csv(path, keys, rows) -> Path:
    table = [[n, i, *r[0], "" if r[1] is None else r[1], r[2]]
             for n, block in rows.items() for i, r in enumerate(block)]
    write_csv(path, ["clusters", "iteration", *(f"{k}_us" for k in keys), "optimum_us",
                     "search_nodes"], table)
    return path


def figures(out: Path, keys, summaries) -> list[Path]:
    """001 Figures 1/2 (every heuristic), 3 (the ECEF family), 4 (hit rates), and the
    hit rates against the exact optimum."""
    sizes = list(summaries)
    solved = [n for n in sizes if summaries[n].solved]
    specs = [("grid-completion.png", keys, "average completion time (s)", sizes,
              lambda s, k: float(s.mean_us[k]) / 1e6, "001 Figures 1-2"),
             ("grid-ecef.png", ECEF_FAMILY, "average completion time (s)", sizes,
              lambda s, k: float(s.mean_us[k]) / 1e6, "001 Figure 3: the ECEF family"),
             ("grid-hit-rate.png", [k for k in keys if k != "binomial"],
              "hit rate of the global minimum (%)", sizes,
              lambda s, k: 100 * s.hits[k] / s.iterations, "001 Figure 4")]
    if solved:
        specs.append(("grid-optimality.png", [k for k in keys if k != "binomial"],
                      "hit rate of the exact optimum (%)", solved,
                      lambda s, k: 100 * s.optimal_hits[k] / s.solved,
                      "beyond 001: against the exact optimum"))
    return [_line_figure(out / name, shown, ylabel, xs, value, title, summaries)
            for name, shown, ylabel, xs, value, title in specs]


def _line_figure(path, keys, ylabel, sizes, value, title, summaries) -> Path:
    plt = pyplot(path, "--out")
    fig, ax = plt.subplots(figsize=(8, 5))
    for k in keys:
        ax.plot(sizes, [value(summaries[n], k) for n in sizes], marker="o", markersize=3,
                label=LABELS[k])
    from matplotlib.ticker import MaxNLocator   # matplotlib: the optional plot extra

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("number of clusters")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    save(plt, fig, path)
    return path


# -- the report -----------------------------------------------------------------------

def findings(keys, summaries) -> list[tuple[str, str, str]]:
    """The paper's qualitative findings (001 §6), each with what our campaign measured
    and a verdict: (finding, measured, "agrees" / "differs" / "partly")."""
    big = {n: s for n, s in summaries.items() if n >= 3}   # n = 2: one possible schedule
    if not big:
        return []
    sizes = list(big)
    result = []

    worst = [n for n, s in big.items()
             if max(PAPER_SIMULATED, key=lambda k: s.mean_us[k]) == "flat"]
    result.append(("Flat Tree has the worst average completion time",
                   f"worst at n = {_ranges(worst) if worst else 'none'} of {_ranges(sizes)}",
                   _verdict(len(worst), len(sizes))))
    better = [n for n, s in big.items() if s.mean_us["bottomup"] < s.mean_us["fef"]]
    result.append(("BottomUp is better than FEF on average",
                   f"better at n = {_ranges(better) if better else 'none'}",
                   _verdict(len(better), len(sizes))))
    best = {n: min(PAPER_SIMULATED, key=lambda k: s.mean_us[k]) for n, s in big.items()}
    family = [n for n, k in best.items() if k in ECEF_FAMILY]
    names = sorted({LABELS[k] for k in best.values()})
    result.append(("the ECEF family has the best average completion times",
                   f"best heuristic in the family at n = "
                   f"{_ranges(family) if family else 'none'} (best: {', '.join(names)})",
                   _verdict(len(family), len(sizes))))
    # exact rates: a float 0.55 - 0.45 is 0.10000000000000009, which would flip a verdict
    rates = {n: Fraction(s.hits["ecef-lat-max"], s.iterations) for n, s in big.items()}
    spread = max(rates.values()) - min(rates.values())
    near = all(Fraction(35, 100) <= r <= Fraction(55, 100) for r in rates.values())
    result.append(("ECEF-LAT hits the global minimum about 45% of the time, flat in n",
                   f"{_pct(min(rates.values()))}..{_pct(max(rates.values()))} "
                   f"(n = {sizes[0]}: {_pct(rates[sizes[0]])}, n = {sizes[-1]}: "
                   f"{_pct(rates[sizes[-1]])})",
                   "agrees" if near and spread <= Fraction(1, 10) else
                   "partly" if near or spread <= Fraction(1, 10) else "differs"))
    largest = big[sizes[-1]]
    family_order = sorted(ECEF_FAMILY, key=lambda k: largest.mean_us[k])
    result.append(("ECEF-LAT has the smallest average completion time of the ECEF family "
                   "when the number of clusters is high (Figure 3)",
                   f"at n = {sizes[-1]}: " + " < ".join(
                       f"{LABELS[k]} {decimal_text(largest.mean_us[k] / 1000, 0)} ms"
                       for k in family_order),
                   "agrees" if family_order[0] == "ecef-lat-max" else "differs"))
    falling = []
    for k in ("ecef", "ecef-la", "ecef-lat-min"):
        first = Fraction(big[sizes[0]].hits[k], big[sizes[0]].iterations)
        last = Fraction(big[sizes[-1]].hits[k], big[sizes[-1]].iterations)
        falling.append((k, first, last))
    down = sum(last < first for _, first, last in falling)
    result.append(("the hit rates of ECEF, ECEF-LA and ECEF-LAt fall as n grows",
                   "; ".join(f"{LABELS[k]} {_pct(a)} -> {_pct(b)}"
                             for k, a, b in falling),
                   _verdict(down, len(falling))))
    top = {n: max((k for k in keys), key=lambda k: s.hits[k]) for n, s in big.items()}
    leaders = sorted(set(top.values()))
    result.append(("(ours) the heuristic that most often finds the global minimum",
                   ", ".join(f"{LABELS[k]} at n = "
                             f"{_ranges([n for n, t in top.items() if t == k])}"
                             for k in leaders), "-"))
    exact = [n for n in sizes if big[n].solved]
    if exact:
        first, last = big[exact[0]], big[exact[-1]]
        result.append(("(ours) how often the global minimum is the exact optimum",
                       f"n = {exact[0]}: {_percent(first.best_of_seven_optimal, first.solved)}"
                       f", n = {exact[-1]}: {_percent(last.best_of_seven_optimal, last.solved)}"
                       f" (then {100 * float(last.best_of_seven_excess):.1f}% above it on "
                       f"average)", "-"))
    return result


def _pct(rate: Fraction) -> str:
    """A rate as a whole percentage, for display only."""
    return f"{float(100 * rate):.0f}%"


def _verdict(holds: int, total: int) -> str:
    return "agrees" if holds == total else "differs" if holds == 0 else "partly"


_LINKS_TEXT = {"per-pair": "L and g drawn once per unordered pair of clusters (symmetric)",
               "per-grid": "one L and one g for every pair of clusters (a homogeneous "
                           "wide area, --links per-grid)"}

#: What the numbers depend on besides the paper (proofs/grid-model.md has the details).
CHOICES = (
    "FEF weighs an edge by its latency L_ij (001 §4.2: the weight \"usually corresponds "
    "to the communication latency\"); a sender chosen before it is ready waits for it.",
    "ECEF-LA/LAt/LAT: F_j ranges over k in B other than j; the pair minimises "
    "RT_i + g_ij + L_ij + F_j, for ECEF-LAT too (its formula puts the max in F_j only).",
    "BottomUp follows its formula: no ready times in max_j min_i (g_ij + L_ij + T_j).",
    "Ties: the receiver listed first, then the sender listed first.",
    "A coordinator starts its own broadcast when it has the message and its last send "
    "ends (the gap; the latency is network time).",
    "Global minimum = the best of the paper's seven heuristics on the grid (the binomial "
    "tree of 001 §7 is shown but not part of it).",
)


#: What the paper does not pin down and our numbers depend on: read before comparing.
SENSITIVITIES = (
    "The paper gives no tie rule, no random generator and no per-iteration protocol "
    "beyond \"the parameters L, g and T are randomly chosen among the values presented "
    "in Table 2\": whether L and g are drawn per pair of clusters (our default) or once "
    "per grid (--links per-grid) is our choice, and hit rates count ties as hits.",
    "With one L for every pair (--links per-grid), FEF's smallest-latency edge always "
    "ties and the sender listed first, the root, wins: FEF is then the Flat Tree.",
    "The global minimum is only the best of seven heuristics: its hit rates say nothing "
    "of optimality (see the exact optimum below, where computed).",
)


def report_text(keys, summaries, setup) -> str:
    """grid-report.md: the setup, the tables, and the comparison with 001 §6."""
    lo = {k: f"{a // 1000}-{b // 1000} ms" for k, (a, b) in TABLE2_US.items()}
    lines = ["# Grid-aware broadcast heuristics: the campaign of seed 001 §6", "",
             f"{setup['iterations']} random grids per number of clusters "
             f"(n = {_ranges(list(summaries))}), seed {setup['seed']}; parameters drawn "
             f"uniformly among integer microseconds from 001 Table 2 (L {lo['latency']}, "
             f"g {lo['gap']}, T {lo['broadcast_time']}), {_LINKS_TEXT[setup['links']]}; "
             f"root = first cluster. Every makespan is exact. "
             f"{_exact_scope(summaries, setup)}. "
             f"Run time {setup['seconds']:.0f} s on {setup['jobs']} worker(s).", "",
             "## Comparison with the paper's findings", "",
             "| finding of 001 §6 | measured here | verdict |", "|---|---|---|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in findings(keys, summaries)]
    lines += ["", "## Our readings where the paper leaves a choice open", ""]
    lines += [f"- {x}" for x in CHOICES]
    lines += ["", "## Before comparing numbers with the paper's figures", ""]
    lines += [f"- {x}" for x in SENSITIVITIES]
    lines += ["", "## Average completion time (ms), 001 Figures 1-3", ""]
    lines += _table(keys, summaries,
                    lambda s, k: decimal_text(s.mean_us[k] / 1000, 0))
    lines += ["", "## Hit rate of the global minimum (best of the paper's seven), "
              "001 Figure 4", ""]
    lines += _table(keys, summaries,
                    lambda s, k: _percent(s.hits[k], s.iterations))
    exact = {n: s for n, s in summaries.items() if s.solved}
    if exact:
        lines += ["", "## Against the exact optimum (not in the paper)", "",
                  "Hit rate of the optimum, then the average excess "
                  "sum(makespan)/sum(optimum) - 1 in %.", ""]
        lines += _table(keys, exact, lambda s, k: (
            f"{_percent(s.optimal_hits[k], s.solved)} / "
            f"{100 * float(s.excess[k]):.1f}%"))
        lines += ["", "| n | solved | global minimum optimal | global minimum excess | "
                  "mean optimum (ms) |", "|---|---|---|---|---|"]
        lines += [f"| {n} | {s.solved} | {_percent(s.best_of_seven_optimal, s.solved)} | "
                  f"{100 * float(s.best_of_seven_excess):.1f}% | "
                  f"{decimal_text(s.mean_optimum_us / 1000, 0)} |" for n, s in exact.items()]
    return "\n".join(lines) + "\n"


def _table(keys, summaries, cell) -> list[str]:
    lines = ["| n | " + " | ".join(LABELS[k] for k in keys) + " |",
             "|---|" + "---|" * len(keys)]
    lines += [f"| {n} | " + " | ".join(cell(s, k) for k in keys) + " |"
              for n, s in summaries.items()]
    return lines

