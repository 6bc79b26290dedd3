"""Figures (the optional ``plot`` extra): matplotlib loaded on demand, written atomically.

Exact numbers are drawn as floats: a figure is for the eye, never for a result.
"""

from __future__ import annotations

import io

from ..errors import InputError
from ..fileio import atomic_write_bytes

FORMATS = (".png", ".svg")


def pyplot(path, option: str):
    """matplotlib.pyplot (non-interactive backend), or a one-line user error naming the
    option when the path has no image suffix or matplotlib is missing."""
    path = str(path)
    if not path.lower().endswith(FORMATS):
        raise InputError(path, option, "the figure is written as .png or .svg")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InputError(path, option, "needs matplotlib: pip install 'steady[plot]'") \
            from None
    return plt


def save(plt, fig, path) -> None:
    """Write the figure in the format its suffix names; atomic (docs/cli.md)."""
    path = str(path)
    image = io.BytesIO()
    fig.savefig(image, format=path.rsplit(".", 1)[1].lower())
    plt.close(fig)
    atomic_write_bytes(path, image.getvalue())


def ratio_plot(points, path, title: str) -> None:
    """steady(G, K) / (K·TP) against K (002 Theorem 7), with the Lemma 7 bound 1."""
    plt = pyplot(path, "--plot")
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.step([float(k) for k, _ in points], [float(r) for _, r in points], where="post",
            label="delivered by K / (K x optimal throughput)")
    ax.axhline(1.0, color="0.5", linestyle="--",
               label="upper bound: no schedule delivers more (002 Lemma 7)")
    ax.set_xlabel("horizon K (time units)")
    ax.set_ylabel("ratio")
    ax.set_ylim(0, 1.05)
    ax.set_title(title)
    ax.legend(loc="lower right")
    fig.tight_layout()
    save(plt, fig, path)


def tradeoff_plot(rows, path, title: str) -> None:
    """``steady tradeoff --plot``: the certified ratio against M, messages per period at
    most, for the timetable (version 2) and, when measured, the synchronous steps
    (version 1, ``--steps``) on the same trees."""
    plt = pyplot(path, "--plot")
    fig, ax = plt.subplots(figsize=(6, 4))
    m = [r["max_messages"] for r in rows]
    ax.semilogx(m, [float(r["ratio"]) for r in rows], "o-", label="timetable (v2)")
    if rows and "steps_ratio" in rows[0]:
        ax.semilogx(m, [float(r["steps_ratio"]) for r in rows], "s--",
                    label="synchronous steps (v1)")
        for r in rows:
            ax.annotate(f"{r['steps']} steps", (r["max_messages"], float(r["steps_ratio"])),
                        textcoords="offset points", xytext=(4, -12), fontsize=7)
    ax.set_xlabel("M, messages per period at most")
    ax.set_ylabel("certified ratio to the optimum")
    ax.set_title(f"{title}: short-period schedules")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    save(plt, fig, path)
