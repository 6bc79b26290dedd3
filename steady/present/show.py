"""Showing one period of a schedule: the table of 002 §4.4 and a Gantt chart.

For steps (steady-schedule version 1) the table has a row per link and a column per step
(a matching of Thm 6), each cell listing the messages sent per tree (``T0x3`` = three
messages of tree 0); for a timetable (version 2) a row per link lists its transfers in
time order, each with its start.  The Gantt chart draws, for every node, its send port
and its receive port over one period, coloured by tree (with the step boundaries of a
version 1 schedule); it needs matplotlib (the ``plot`` extra).  Times are drawn as
floats: a picture, never a result.
"""

from __future__ import annotations

from fractions import Fraction

from ..errors import InputError, shorten
from ..numbers import many_digits
from ..schedule_file import TIMED, timed, transfer_cost, transfer_time
from .plots import pyplot, save
from .sheet import readable

_WIDE = 12  # more steps than this: one block per step instead of a grid

# The cells and column heads are terse so that a period fits a terminal: say once how
# to read them.
_LEGEND = "legend: Tkxm = m messages of tree k sent over the link in that step"
_COLUMNS = '        column "i (d)" = step i, lasting d time units; "." = link idle'


#: Said once when a number was rounded to fit (exact optima of heterogeneous platforms
#: have counts and periods of dozens of digits).
_ROUNDED = "~: rounded to fit; the file holds every number exactly"


def _cell(transfers) -> str:
    return " ".join(f"T{t.tree}x{readable(t.messages)}" for t in transfers)


def _head(schedule, shape: str) -> str:
    return (f"period {readable(schedule.period)}, "
            f"{readable(schedule.messages_per_period)} messages per period, "
            f"throughput {readable(schedule.throughput)}, "
            f"{len(schedule.trees)} trees, {shape}")


def _with_rounding_note(lines: list[str]) -> str:
    if any("~" in line for line in lines):
        lines = lines + [_ROUNDED]
    return "\n".join(lines)


def period_table(schedule) -> str:
    """One period as text (002 §4.4 style; a timetable: a row per link).  Numbers
    longer than a dozen characters are rounded (:func:`readable`), said once."""
    if schedule.version == TIMED:
        return _timetable(schedule)
    with many_digits():
        head = _head(schedule, f"{len(schedule.steps)} steps")
        if len(schedule.steps) > _WIDE:
            return _with_rounding_note([head] + _blocks(schedule) + ["", _LEGEND])
        return _with_rounding_note([head] + _grid(schedule) + ["", _LEGEND, _COLUMNS])


def _blocks(schedule) -> list[str]:
    lines = []
    for i, step in enumerate(schedule.steps):
        lines.append(f"step {i}  duration {readable(step.duration)}")
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
    header = ["link \\ step"] + [f"{i} ({readable(s.duration)})"
                                 for i, s in enumerate(schedule.steps)]
    rows = [header]
    for arc in links:
        row = [f"{arc[0]}->{arc[1]}"]
        for step in schedule.steps:
            row.append(_cell([t for t in step.transfers if t.arc == arc]) or ".")
        rows.append(row)
    widths = [max(len(r[c]) for r in rows) for c in range(len(header))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]


def _timetable(schedule) -> str:
    """A timetable (version 2): a row per link, its transfers by start time."""
    platform = schedule.platform
    with many_digits():
        head = _head(schedule, f"{len(schedule.transfers)} transfers (a timetable)")
        by_link: dict[tuple[str, str], list] = {}
        for t in sorted(schedule.transfers, key=lambda t: t.start):
            by_link.setdefault(t.arc, []).append(t)
        lines = [head]
        slowed = False
        for (u, v), transfers in by_link.items():
            busy = sum(t.messages * transfer_cost(platform, schedule.trees, t)
                       for t in transfers)
            cells = []
            for t in transfers:
                cell = f"{readable(t.start)} T{t.tree}x{readable(t.messages)}"
                length = transfer_time(platform, schedule.trees, t)
                if length != t.messages * transfer_cost(platform, schedule.trees, t):
                    cell += f" over {readable(length)}"   # slower than its route
                    slowed = True
                cells.append(cell)
            lines.append(f"{u}->{v} (busy {readable(busy)}): {', '.join(cells)}")
    legend = ["", "legend: t Tkxm = m messages of tree k sent over the link from time t, "
                  "back to back (m x the link's cost)"]
    if slowed:   # issue 43: multi-port transfers at a share of their route's speed
        legend.append("        t Tkxm over d = the m messages spread over [t, t + d), "
                      "slower than the route, holding its links for (m x cost) / d of "
                      "their capacity; busy = the messages x cost a link carries")
    return _with_rounding_note(lines + legend)


def check_links(schedule, origin) -> None:
    """What drawing needs: every transfer over a link of the schedule's platform, or
    for a collective's tree over a route of links through switches (whose slowest link
    gives its length).  Otherwise one line naming the first (InputError, exit code 2);
    ``steady verify`` lists every violation."""
    platform = schedule.platform
    located = ([(f"transfers[{j}]", t) for j, t in enumerate(schedule.transfers)]
               + [(f"steps[{i}].transfers[{j}]", t) for i, step in enumerate(schedule.steps)
                  for j, t in enumerate(step.transfers)])
    for where, t in located:
        if transfer_cost(platform, schedule.trees, t) is None:
            raise InputError(str(origin), where, f"{shorten(t.tail)}->{shorten(t.head)} "
                             "is not a link of the schedule's platform (steady verify "
                             "lists every problem)")


def port_bars(schedule) -> dict[tuple[str, str], list]:
    """What the Gantt chart draws, exactly: {(node, "send" | "recv"): [(start, length,
    tree)]} by start, each transfer on its sender's and its receiver's row (a version 1
    schedule in its timed form).  Every link must exist (:func:`check_links`)."""
    bars: dict[tuple[str, str], list] = {}
    for t in sorted(timed(schedule).transfers, key=lambda t: t.start):
        length = transfer_time(schedule.platform, schedule.trees, t)   # its duration
        bars.setdefault((t.tail, "send"), []).append((t.start, length, t.tree))
        bars.setdefault((t.head, "recv"), []).append((t.start, length, t.tree))
    return bars


def gantt(schedule, path, origin="schedule") -> None:
    """Draw the send and receive ports of every node over one period (png or svg):
    each transfer from its start for messages x cost (or its ``duration``, when it
    runs slower than its route on a multi-port platform), coloured by tree; a version 1
    schedule's steps start one after the other, its transfers on one link back to back
    (:func:`steady.schedule_file.timed`), and its step boundaries are drawn.  A
    transfer over a missing link is refused first (:func:`check_links`, ``origin``
    naming the schedule)."""
    plt = pyplot(path, "--gantt")
    check_links(schedule, origin)
    nodes = list(schedule.platform.nodes)
    rows = {}
    for k, v in enumerate(nodes):
        rows[(v, "send")] = 2 * k
        rows[(v, "recv")] = 2 * k + 1
    colours = plt.get_cmap("tab20")
    fig, ax = plt.subplots(figsize=(10, max(3, 0.35 * len(rows))))
    period = schedule.period
    bars: dict[tuple[int, int], list] = {}   # (row, colour) -> bars: one call each
    for port, spans in port_bars(schedule).items():
        for start, length, tree in spans:
            # Periods can have thousands of digits: draw fractions of the period.
            bar = (float(start / period), float(length / period))
            bars.setdefault((rows[port], tree % 20), []).append(bar)
    for (row, colour), spans in bars.items():
        # thin white edges: back-to-back transfers of one tree stay apart
        ax.broken_barh(spans, (row - 0.4, 0.8), facecolors=colours(colour),
                       edgecolors="white", linewidths=0.3)
    shown = min(len(schedule.trees), 20)
    if shown:
        from matplotlib.patches import Patch

        many = len(schedule.trees) > 20  # colours repeat every 20 trees
        ax.legend(handles=[Patch(color=colours(l), label=f"trees {l}, {l + 20}, ..."
                                 if many else f"tree {l}") for l in range(shown)],
                  loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False)
    start = Fraction(0)
    for step in schedule.steps:
        start += step.duration
        ax.axvline(float(start / period), color="0.8", linewidth=0.5)
    ax.set_yticks(list(rows.values()))
    ax.set_yticklabels([f"{v} {port}" for v, port in rows])
    ax.invert_yaxis()
    ax.set_xlabel(f"fraction of the period ({readable(period)} time units)")
    shape = (f"{len(schedule.steps)} steps" if schedule.version != TIMED
             else f"a timetable, {len(schedule.transfers)} transfers")
    ax.set_title(f"one period ({shape}), coloured by tree")
    fig.tight_layout()
    save(plt, fig, path)
