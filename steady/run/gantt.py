"""``steady show --trace TRACE --gantt FILE``: the real execution of a ``steady run``
drawn beside its plan (ours).  Two panels on one time axis (seconds): above, the planned
transfers (their planned start and end times the time unit); below, what really
happened: each transfer from the moment its sender really posted it, for its emulated
duration on the send row, and until its data really arrived (or its emulated duration,
if longer) on the receive row -- a run that keeps up looks like its plan, one that falls
behind drifts to the right (native runs: from posting to completion and to arrival).  A
row per port (send, receive) of every node, coloured by tree.  Times are drawn as
floats: a picture, never a result.
"""

from __future__ import annotations

from fractions import Fraction

from ..errors import InputError
from ..fileio import check_version, load_json
from ..present.plots import pyplot, save
from ..present.sheet import readable
from .report import TRACE_FORMAT, TRACE_VERSION


def read_trace(path) -> dict:
    """A steady-trace document (docs/formats.md), or a one-line InputError."""
    doc = load_json(path)
    origin = str(path)
    if not isinstance(doc, dict) or doc.get("format") != TRACE_FORMAT:
        raise InputError(origin, "format", f"expected {TRACE_FORMAT!r} (a file written "
                         "by steady run --trace)")
    check_version(doc, origin, TRACE_VERSION)
    for key in ("nodes", "transfers", "mode"):
        if key not in doc:
            raise InputError(origin, key, "missing")
    return doc


def draw_trace(doc: dict, path) -> None:
    """Write the two-panel Gantt chart of a trace to ``path`` (.png or .svg)."""
    plt = pyplot(path, "--gantt")
    nodes = doc["nodes"]
    rows = {}
    for k, v in enumerate(nodes):
        rows[(v, "send")] = 2 * k
        rows[(v, "recv")] = 2 * k + 1
    unit = doc.get("time_unit_ns")
    scale = unit / 1e9 if unit else 1.0   # planned time units -> seconds
    planned: dict = {}
    real: dict = {}
    for t in doc["transfers"]:
        colour = t.get("tree", 0)
        start = float(Fraction(t["planned_start"])) * scale
        length = float(Fraction(t["planned_end"]) - Fraction(t["planned_start"])) * scale
        for row in (rows[(t["from"], "send")], rows[(t["to"], "recv")]):
            planned.setdefault((row, colour), []).append((start, length))
        if "posted_ns" in t:
            posted = t["posted_ns"]
            hold = t["end_ns"] - t["begin_ns"]
            send = hold if unit else t.get("completed_ns", posted) - posted
            real.setdefault((rows[(t["from"], "send")], colour), []).append(
                (posted / 1e9, max(send, 0) / 1e9))
            if "arrival_ns" in t:
                got = max(t["arrival_ns"] - posted, hold if unit else 0)
                real.setdefault((rows[(t["to"], "recv")], colour), []).append(
                    (posted / 1e9, max(got, 0) / 1e9))
    colours = plt.get_cmap("tab10")
    height = max(3, 0.3 * len(rows))
    fig, axes = plt.subplots(2, 1, figsize=(11, 2 * height), sharex=bool(unit))
    titles = (f"planned ({doc.get('algorithm', 'plan')}; makespan "
              f"{planned_text(doc)} time units)",
              f"measured ({doc['mode']}: from each real send; makespan "
              f"{doc.get('makespan_ns', 0) / 1e9:.4f} s)")
    for ax, bars, title in zip(axes, (planned, real), titles):
        for (row, colour), spans in bars.items():
            ax.broken_barh(spans, (row - 0.4, 0.8), facecolors=colours(colour % 10))
        ax.set_yticks(list(rows.values()))
        ax.set_yticklabels([f"{v} {port}" for v, port in rows])
        ax.invert_yaxis()
        ax.set_title(title)
    axes[1].set_xlabel("seconds from the common start")
    axes[0].set_xlabel("seconds (planned time units x the time unit)" if unit else
                       "planned time units (native run: no time unit)")
    fig.tight_layout()
    save(plt, fig, path)


def planned_text(doc) -> str:
    """The trace's planned makespan (exact ``p/q`` text) as people read it: exact when
    short, else rounded (``~5975.4625``); the trace file holds it exactly."""
    text = doc.get("planned_makespan")
    try:
        return readable(Fraction(str(text)))
    except (ValueError, ZeroDivisionError):
        return "?" if text is None else str(text)
