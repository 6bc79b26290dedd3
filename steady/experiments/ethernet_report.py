"""The outputs of seed 004's campaigns (:mod:`.ethernet`): Figure 5's heights.csv,
summary.csv, report.md and figure5.png; Table 3's table3.csv and table3.md."""

from __future__ import annotations

from pathlib import Path

from ..fileio import atomic_write_text
from ..numbers import decimal_text
from ..present.plots import pyplot, save
from .ethernet import TABLE3_MACHINES, complete_binary_height
from .runner import write_csv


# -- Figure 5 ---------------------------------------------------------------------------

HEIGHT_COLUMNS = ("per_switch", "machines", "topology", "seed", "switches",
                  "switch_depth", "height", "complete_height", "seconds")
SUMMARY_COLUMNS = ("per_switch", "machines", "topologies", "mean_height", "min_height",
                   "max_height", "deviation", "mean_switch_depth", "complete_height",
                   "ratio", "within_factor_two")


def height_report(summary, switch_tree: str) -> str:
    """The Figure 5 table and the verdict on the factor-of-two claim (markdown)."""
    lines = ["# Figure 5 (seed 004 §4.1.2): heights of Algorithm 2 trees", "",
             f"Random clusters (switch trees: {switch_tree}); height in edges; complete "
             "binary tree height floor(log2 P).", "",
             "| machines/switch | machines | topologies | mean height | min | max | "
             "switch depth | complete | ratio | within 2x |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for s in summary:
        ratio = "-" if s["ratio"] is None else decimal_text(s["ratio"], 3)
        lines.append(f"| {s['per_switch']} | {s['machines']} | {s['topologies']} | "
                     f"{decimal_text(s['mean_height'], 2)} | {s['min_height']} | "
                     f"{s['max_height']} | {decimal_text(s['mean_switch_depth'], 2)} | "
                     f"{s['complete_height']} | {ratio} | "
                     f"{'yes' if s['within_factor_two'] else 'NO'} |")
    failed = [s for s in summary if not s["within_factor_two"]]
    lines.append("")
    if failed:
        where = ", ".join(f"{s['machines']} machines at {s['per_switch']}/switch"
                          for s in failed)
        lines += [f"Claim 'within a factor of two of the complete binary tree': "
                  f"FAILS for {where}.", "",
                  "Switch depth is the mean number of switch hops from the root's switch "
                  "to the farthest switch. Algorithm 2 numbers the machines switch by "
                  "switch in depth-first order and only joins contention-free "
                  "sub-ranges, so its trees deepen with the switch tree; the paper does "
                  "not say how deep its random switch trees were. Compare with "
                  "`--switch-tree attach` (each new switch joins a random earlier one: "
                  "shallower trees)."]
    else:
        lines.append("Claim 'within a factor of two of the complete binary tree': holds "
                     "for every size.")
    return "\n".join(lines) + "\n"


def figure5_plot(summary, path) -> None:
    """Average Algorithm 2 height per density and the complete binary tree, against P."""
    plt = pyplot(path, "--out")
    fig, ax = plt.subplots(figsize=(7, 4))
    for d in sorted({s["per_switch"] for s in summary}):
        points = [s for s in summary if s["per_switch"] == d]
        ax.plot([s["machines"] for s in points], [float(s["mean_height"]) for s in points],
                marker="o", label=f"Algorithm 2, {d} machines/switch")
    sizes = sorted({s["machines"] for s in summary})
    ax.plot(sizes, [complete_binary_height(p) for p in sizes], marker="s", color="0.3",
            label="complete binary tree")
    ax.plot(sizes, [2 * complete_binary_height(p) for p in sizes], linestyle="--",
            color="0.6", label="twice the complete binary tree")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("machines")
    ax.set_ylabel("tree height")
    ax.set_title("004 Figure 5: contention-free binary trees (Algorithm 2)")
    ax.legend(loc="upper left")
    fig.tight_layout()
    save(plt, fig, path)


def write_height_outputs(rows, summary, out: Path, switch_tree: str,
                         plots: bool = True) -> list[Path]:
    """heights.csv, summary.csv, report.md and (with ``plots``) figure5.png in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "heights.csv", out / "summary.csv", out / "report.md"]
    write_csv(written[0], HEIGHT_COLUMNS, ([r[c] for c in HEIGHT_COLUMNS] for r in rows))
    write_csv(written[1], SUMMARY_COLUMNS, ([s[c] for c in SUMMARY_COLUMNS]
                                            for s in summary))
    atomic_write_text(written[2], height_report(summary, switch_tree))
    if plots:
        written.append(out / "figure5.png")
        figure5_plot(summary, written[-1])
    return written


# -- Table 3 ----------------------------------------------------------------------------

TABLE3_COLUMNS = ("network", "message_kb", "linear_model", "paper_linear_model",
                  "paper_linear_actual", "binary_model", "binary_A", "binary_B",
                  "paper_binary_model", "paper_binary_actual", "linear_time",
                  "binary_time")


def table3_report(rows) -> str:
    """Table 3 with our Model columns beside the paper's (markdown)."""
    lines = ["| network | message | linear: ours | paper model | paper actual | "
             "binary: ours (A, B) | paper model | paper actual |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        def mark(ours, paper):
            return f"**{ours}**" if ours != paper else str(ours)
        size = f"{r['message_kb'] // 1024}MB" if r["message_kb"] >= 1024 else \
            f"{r['message_kb']}KB"
        lines.append(f"| {r['network']} | {size} | "
                     f"{mark(r['linear_model'], r['paper_linear_model'])} | "
                     f"{r['paper_linear_model']} | {r['paper_linear_actual']} | "
                     f"{mark(r['binary_model'], r['paper_binary_model'])} "
                     f"({r['binary_A']}, {r['binary_B']}) | {r['paper_binary_model']} | "
                     f"{r['paper_binary_actual']} |")
    same_linear = sum(r["linear_model"] == r["paper_linear_model"] for r in rows)
    same_binary = sum(r["binary_model"] == r["paper_binary_model"] for r in rows)
    lines += ["", f"Linear tree, formula (1), P = {TABLE3_MACHINES}: {same_linear} of "
              f"{len(rows)} Model entries equal the paper's.",
              f"Binary tree, formula (2) on Algorithm 2's tree for the assumed topology (4) "
              f"(4 switches in a chain, 8 machines each): {same_binary} of {len(rows)}.",
              "Bold: differs from the paper's Model column."]
    return "\n".join(lines) + "\n"


def write_table3_outputs(rows, out: Path) -> list[Path]:
    """table3.csv (exact predicted times in ms, p/q) and table3.md in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "table3.csv", out / "table3.md"]
    write_csv(written[0], TABLE3_COLUMNS, ([r[c] for c in TABLE3_COLUMNS] for r in rows))
    atomic_write_text(written[1], "# Table 3 (seed 004 §5.1): predicted segment sizes\n\n"
                      + table3_report(rows))
    return written
