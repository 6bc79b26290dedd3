"""Showing one period of a schedule: the table of 002 §4.4 and a Gantt chart.

The table has a row per link and a column per step (a matching of Thm 6), each cell
listing the messages sent per tree (``T0x3`` = three messages of tree 0).  The Gantt
chart draws, for every node, its send port and its receive port over one period,
coloured by tree; it needs matplotlib (the ``plot`` extra).  Times are drawn as floats:
a picture, never a result.
"""

from __future__ import annotations

from fractions import Fraction

from ..numbers import format_exact, many_digits
from .plots import pyplot, save

_WIDE = 12  # more steps than this: one block per step instead of a grid

# The cells and column heads are terse so that a period fits a terminal: say once how
# to read them.
_LEGEND = "legend: Tkxm = m messages of tree k sent over the link in that step"
_COLUMNS = '        column "i (d)" = step i, lasting d time units; "." = link idle'


def _cell(transfers) -> str:
    return " ".join(f"T{t.tree}x{t.messages}" for t in transfers)


def period_table(schedule) -> str:
    """One period as text (002 §4.4 style)."""
    with many_digits():
        head = (f"period {format_exact(schedule.period)}, "
                f"{schedule.messages_per_period} messages per period, "
                f"throughput {format_exact(schedule.throughput)}, "
                f"{len(schedule.trees)} trees, {len(schedule.steps)} steps")
        if len(schedule.steps) > _WIDE:
            return "\n".join([head] + _blocks(schedule) + ["", _LEGEND])
        return "\n".join([head] + _grid(schedule) + ["", _LEGEND, _COLUMNS])


def _blocks(schedule) -> list[str]:
    lines = []
    for i, step in enumerate(schedule.steps):
        lines.append(f"step {i}  duration {format_exact(step.duration)}")
        by_link: dict[tuple[str, str], list] = {}
        for t in step.transfers:
            by_link.setdefault(t.arc, []).append(t)
        for (u, v), transfers in by_link.items():
            lines.append(f"  {u}->{v}: {_cell(transfers)}")
    return lines


def _grid(schedule) -> list[str]:
    links = []
    for step in schedule.steps:
        for t in step.transfers:
            if t.arc not in links:
                links.append(t.arc)
    header = ["link \\ step"] + [f"{i} ({format_exact(s.duration)})"
                                 for i, s in enumerate(schedule.steps)]
    rows = [header]
    for arc in links:
        row = [f"{arc[0]}->{arc[1]}"]
        for step in schedule.steps:
            row.append(_cell([t for t in step.transfers if t.arc == arc]) or ".")
        rows.append(row)
    widths = [max(len(r[c]) for r in rows) for c in range(len(header))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]


def gantt(schedule, path) -> None:
    """Draw the send and receive ports of every node over one period (png or svg)."""
    plt = pyplot(path, "--gantt")
    nodes = list(schedule.platform.nodes)
    rows = {}
    for k, v in enumerate(nodes):
        rows[(v, "send")] = 2 * k
        rows[(v, "recv")] = 2 * k + 1
    colours = plt.get_cmap("tab20")
    fig, ax = plt.subplots(figsize=(10, max(3, 0.35 * len(rows))))
    start = Fraction(0)
    for step in schedule.steps:
        clock: dict[tuple[str, str], Fraction] = {}
        for t in step.transfers:
            begin = clock.get(t.arc, start)
            length = t.messages * schedule.platform.cost(t.tail, t.head)
            # Periods can have thousands of digits: draw fractions of the period.
            bar = (float(begin / schedule.period), float(length / schedule.period))
            for row in (rows[(t.tail, "send")], rows[(t.head, "recv")]):
                ax.broken_barh([bar], (row - 0.4, 0.8),
                               facecolors=colours(t.tree % 20))
            clock[t.arc] = begin + length
        start += step.duration
        ax.axvline(float(start / schedule.period), color="0.8", linewidth=0.5)
    ax.set_yticks(list(rows.values()))
    ax.set_yticklabels([f"{v} {port}" for v, port in rows])
    ax.invert_yaxis()
    ax.set_xlabel(f"fraction of the period ({format_exact(schedule.period)} time units)"
                  if len(format_exact(schedule.period)) < 30 else "fraction of the period")
    ax.set_title(f"one period ({len(schedule.steps)} steps), coloured by tree")
    fig.tight_layout()
    save(plt, fig, path)
