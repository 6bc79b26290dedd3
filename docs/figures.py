"""Every figure that README.md and docs/*.md quote, regenerated from the commands
themselves (issue 45; ours).

    python docs/figures.py                  # the cheap figures (about 20 s of runs)
    python docs/figures.py --all            # and the expensive ones: campaigns, long
                                            # runs, benchmarks (53 min on 2 cores at
                                            # load 2-5: stp-tiers 21, stp 10, grid-per-grid
                                            # 9, stp-tiers-stars 5, grid 2 min, the rest
                                            # under a minute each)
    python docs/figures.py --only stp,grid  # some groups (--list names them)
    python docs/figures.py --check          # compare, write nothing: exit 1 on drift
    python docs/figures.py --all --reuse    # reuse the runs kept in --work (default
                                            # build/figures) when their command is the same

It runs each command (``python -m steady ...`` in a fresh process, in the --work folder
where ``samples`` links to the repository's), reads the figures off its output, and
writes them into the documents, in three kinds of places:

- inline, in prose and tables: ``<!-- fig:NAME -->VALUE<!-- /fig -->`` (the comments
  are invisible once rendered);
- a whole block (a table): ``<!-- figures:NAME -->`` ... ``<!-- /figures:NAME -->``;
- in code blocks, where a comment would show: :data:`SPOTS`, a regular expression per
  place whose one group is the figure.

Running it again changes nothing (idempotent).  Two kinds of figures:

- **exact**: counts, ratios, steps, file sizes -- deterministic: tests/test_figures.py
  fails when a document differs from what the command now prints (the cheap ones in
  the default run, the expensive ones under ``slow``);
- **measured**: wall times (``~1 min 48 s``, with the machine's cores and load average)
  and whatever depends on them (the exact best tree's 10-second search, MPI runs): the
  script writes them, nothing checks them.

After a merge that changes what a command prints: ``python docs/figures.py --all``,
review ``git diff``, commit.  A figure whose place was edited away is an error naming
it (put its marker back, or drop the figure here).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
WORK = ROOT / "build" / "figures"


# -- the commands ----------------------------------------------------------------------

@dataclass(frozen=True)
class Run:
    """One command the documents quote: ``steady`` arguments (or, with ``script``, a
    Python script of the repository and its arguments), run in the work folder."""

    key: str
    argv: tuple
    slow: bool = False
    script: bool = False
    ok: tuple = (0,)        # the exit codes it may end with
    #: Options that change only measured figures (the exact best tree's wall-clock
    #: search): the drift test leaves them out, which gives the same exact figures
    #: sooner.
    measured_only: tuple = ()
    #: A campaign (the papers' experiments, the SimGrid replay of every sample: from
    #: half a minute to 21 minutes each on 2 cores): its drift test runs only when
    #: asked (``--campaigns``), not in CI, whose whole run must stay under 15 minutes.
    campaign: bool = False

    def exact(self) -> "Run":
        """This run without :attr:`measured_only` (for the drift test)."""
        argv, drop = list(self.argv), list(self.measured_only)
        for i in range(len(argv) - len(drop) + 1):
            if drop and argv[i:i + len(drop)] == drop:
                del argv[i:i + len(drop)]
                break
        return Run(self.key, tuple(argv), self.slow, self.script, self.ok,
                   campaign=self.campaign)

    def command(self) -> list[str]:
        if self.script:
            return [sys.executable, str(ROOT / self.argv[0]), *self.argv[1:]]
        return [sys.executable, "-m", "steady", *self.argv]


def _runs() -> dict[str, Run]:
    runs = [
        # -- cheap (seconds): the default run and the default tests ---------------------
        Run("tp-fig1", ("throughput", "--json")),
        Run("tp-dag", ("throughput", "samples/figure5-dag.json", "--dag", "--json")),
        Run("tp-tree", ("throughput", "--tree", "samples/figure4-tree.json", "--json")),
        Run("schedule-fig1", ("schedule", "-o", "fig1.schedule.json", "--json")),
        Run("schedule-dag", ("schedule", "samples/figure5-dag.json", "--dag", "--json")),
        Run("simulate-100", ("simulate", "--horizon", "100", "--json")),
        Run("pipe", ("pipe", "samples/figure1-startup.json", "--size", "10000", "--json")),
        Run("segment", ("ethernet", "segment", "--machines", "32", "--size", "128KB",
                        "--json")),
        Run("a100", ("throughput", "samples/collectives/a100-2.json", "--collective",
                     "allgather", "--size", "1", "--json")),
        Run("m65", ("schedule", "samples/mesh-65.json", "--max-messages", "1000", "-o",
                    "m65.json", "--json")),
        Run("m65-steps", ("schedule", "samples/mesh-65.json", "--max-messages", "1000",
                          "--steps", "-o", "m65s.json", "--json")),
        Run("table3", ("experiment", "ethernet-table3", "--out", "ethernet-table3",
                       "--force")),
        # -- expensive (seconds to an hour each) ----------------------------------------
        Run("tradeoff-r50", ("tradeoff", "samples/random-50.json", "--max-messages",
                             "10,100,1000", "--json"), slow=True),
        Run("simulate-r30", ("simulate", "samples/random-30.json", "--horizon", "100000",
                             "--json"), slow=True),
        Run("heuristics-r30", ("heuristics", "samples/random-30.json", "--json"),
            slow=True),
        Run("grid-optimum", ("grid", "schedule", "samples/grid5000-6-clusters.json",
                             "--optimum", "--json"), slow=True),
        Run("r50-1000", ("schedule", "samples/random-50.json", "--max-messages", "1000",
                         "--json"), slow=True),
        Run("r50-10000", ("schedule", "samples/random-50.json", "--max-messages", "10000",
                          "--json"), slow=True),
        Run("r30-exact", ("schedule", "samples/random-30.json", "-o", "r30.json",
                          "--json"), slow=True),
        Run("dragonfly-import", ("import", "simgrid",
                                 "samples/simgrid/cluster_dragonfly.xml", "--size", "1MB",
                                 "--hosts", r"^node-[0-9]*[05]\.", "-o", "dragonfly.json",
                                 "--json"), slow=True),
        Run("dragonfly", ("schedule", "samples/simgrid/cluster_dragonfly-24.json",
                          "--json"), slow=True),
        Run("scale-1000", ("throughput", "platforms/scale-1000.json", "--json"),
            slow=True),
        Run("stp", ("experiment", "stp", "--best-tree", "10", "--jobs", "2", "--force"),
            slow=True, measured_only=("--best-tree", "10"), campaign=True),
        Run("stp-tiers", ("experiment", "stp", "--platforms", "tiers", "--lan-redundancy",
                          "2", "--best-tree", "10", "--jobs", "2", "--force"), slow=True,
            measured_only=("--best-tree", "10"), campaign=True),
        Run("stp-tiers-stars", ("experiment", "stp", "--platforms", "tiers", "--jobs",
                                "2", "--one-port-only", "--no-plots", "--out",
                                "stp-tiers-stars", "--force"), slow=True, campaign=True),
        Run("grid", ("experiment", "grid", "--jobs", "2", "--json", "--force"), slow=True,
            campaign=True),
        Run("grid-per-grid", ("experiment", "grid", "--links", "per-grid", "--jobs", "2",
                              "--json", "--force"), slow=True, campaign=True),
        Run("ethernet-height", ("experiment", "ethernet-height", "--jobs", "2", "--force"),
            slow=True, ok=(0, 1), campaign=True),
        Run("ethernet-height-attach", ("experiment", "ethernet-height", "--switch-tree",
                                       "attach", "--jobs", "2", "--force"),
            slow=True, ok=(0, 1), campaign=True),
        Run("simgrid-replay", ("benchmarks/simgrid_platforms.py", "replay"), slow=True,
            script=True, campaign=True),
    ]
    for name, _ in GENERATED:
        m = "100" if name.startswith("mesh") else "1000"
        runs.append(Run(f"timed-{name}", ("schedule", f"platforms/{name}.json",
                                          "--max-messages", m, "--json"), slow=True))
    return {r.key: r for r in runs}


#: Platforms made by code (steady.generators) that the documents quote: file name and
#: how to make it (written into the work folder before the runs).
GENERATED = [
    *[(f"random-{n}-s{seed}", (n, seed)) for seed in (1, 2, 3) for n in (50, 65)],
    *[(f"mesh-8-s{seed}", (8, seed)) for seed in (1, 2, 3)],
    ("scale-1000", (1000, 0)),
]


def _generate(work: Path) -> None:
    from steady.generators import mesh_platform, random_platform, scale_platform

    folder = work / "platforms"
    folder.mkdir(parents=True, exist_ok=True)
    for name, (n, seed) in GENERATED:
        path = folder / f"{name}.json"
        if path.exists():
            continue
        if name.startswith("mesh"):
            platform = mesh_platform(n, seed=seed)
        elif name.startswith("scale"):
            platform = scale_platform(n, seed=seed)
        else:
            platform = random_platform(n, 0.1, seed=seed)
        path.write_text(platform.to_json(), encoding="utf-8")


def _prepare(work: Path) -> None:
    work.mkdir(parents=True, exist_ok=True)
    link = work / "samples"
    if not link.exists():
        link.symlink_to(ROOT / "samples")
    _generate(work)


def load() -> float:
    """The 1-minute load average (0 where the system has none)."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return 0.0


def execute(run: Run, work: Path, reuse: bool = False, in_process: bool = False) -> dict:
    """Run ``run`` in ``work`` (or reuse its record), keep the record, return it:
    ``argv``, ``code``, ``stdout``, ``stderr``, ``seconds`` (wall time), ``load``
    (1-minute load average when it started) and ``cores``.  ``in_process``: call
    ``steady.cli.main`` here instead of a fresh process (the tests: no start-up)."""
    records = work / "runs"
    records.mkdir(parents=True, exist_ok=True)
    path = records / f"{run.key}.json"
    if reuse and path.exists():
        record = json.loads(path.read_text(encoding="utf-8"))
        if record.get("argv") == list(run.argv) and record.get("code") in run.ok:
            return record
    started, at = time.perf_counter(), load()
    print(f"figures: {run.key}: {' '.join(run.argv)}", file=sys.stderr, flush=True)
    if in_process and not run.script:
        code, out, err = _in_process(run, work)
    else:
        env = dict(os.environ, STEADY_PROGRESS="off", PYTHONPATH=str(ROOT))
        done = subprocess.run(run.command(), cwd=work, env=env, capture_output=True,
                              text=True)
        code, out, err = done.returncode, done.stdout, done.stderr
    record = {"argv": list(run.argv), "code": code, "stdout": out, "stderr": err[-4000:],
              "seconds": time.perf_counter() - started, "load": at,
              "cores": os.cpu_count()}
    if code not in run.ok:
        raise SystemExit(f"figures: {run.key}: exit {code}:\n{err}")
    path.write_text(json.dumps(record, indent=1), encoding="utf-8")
    return record


def _in_process(run: Run, work: Path) -> tuple[int, str, str]:
    import contextlib
    import io

    from steady.cli import main as steady

    out, err, here = io.StringIO(), io.StringIO(), os.getcwd()
    previous = os.environ.get("STEADY_PROGRESS")
    os.environ["STEADY_PROGRESS"] = "off"
    try:
        os.chdir(work)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = steady(list(run.argv))
    finally:
        os.chdir(here)
        if previous is None:
            os.environ.pop("STEADY_PROGRESS", None)
        else:
            os.environ["STEADY_PROGRESS"] = previous
    return code, out.getvalue(), err.getvalue()


# -- reading outputs -------------------------------------------------------------------

def doc(record) -> dict:
    return json.loads(record["stdout"])


def floor_text(x, places: int) -> str:
    """x rounded down to ``places`` decimals (a certified ratio is never shown above
    itself), trailing zeros kept."""
    x = Fraction(x)
    scaled = x.numerator * 10 ** places // x.denominator
    return f"{scaled // 10 ** places}.{scaled % 10 ** places:0{places}d}"


def round_text(x, places: int) -> str:
    x = Fraction(x)
    scaled = round(x * 10 ** places)
    return f"{scaled // 10 ** places}.{scaled % 10 ** places:0{places}d}"


def ratio_text(x, places: int = 6) -> str:
    """A ratio as the commands print it: ``1`` when exactly 1, else rounded down."""
    return "1" if Fraction(x) == 1 else floor_text(x, places)


def duration(record) -> str:
    """A measured wall time for the documents: ``1 min 48 s at load 2.5`` (tenths
    under 10 s: ``0.3 s``, never ``0 s``)."""
    s = round(record["seconds"])
    if record["seconds"] < 9.95:
        text = f"{record['seconds']:.1f} s"
    else:
        text = f"{s} s" if s < 60 else f"{s // 60} min {s % 60:02d} s"
    return f"{text} at load {record['load']:.1f}"


def md_tables(text: str) -> dict[str, tuple[list[str], list[list[str]]]]:
    """The markdown tables of a report: {section title: (header, rows)}."""
    tables, title = {}, ""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#"):
            title = line.lstrip("#").strip()
        elif line.startswith("|") and i + 1 < len(lines) and lines[i + 1].startswith("|---"):
            header = [c.strip() for c in line.strip("|").split("|")]
            rows = []
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append([c.strip() for c in lines[i].strip("|").split("|")])
                i += 1
            tables[title] = (header, rows)
            continue
        i += 1
    return tables


def table_text(header, rows) -> str:
    return "\n".join(["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
                     + ["| " + " | ".join(r) + " |" for r in rows])


def percent(x) -> int:
    return round(Fraction(x) * 100)


def span(values, unit: str = "%") -> str:
    """``63-64%`` (or ``64%`` when they agree)."""
    low, high = min(values), max(values)
    return f"{low}{unit}" if low == high else f"{low}-{high}{unit}"


# -- the figures -----------------------------------------------------------------------

@dataclass
class Figure:
    """A figure: computed from the records of ``runs`` by ``value``; ``measured``
    figures are written, never checked; ``compare`` says which part of a block is
    checked (default: all of it)."""

    name: str
    runs: tuple
    value: Callable
    measured: bool = False
    compare: Callable | None = None
    group: str = ""

    def checked(self, text: str) -> str:
        return self.compare(text) if self.compare else text


FIGURES: list[Figure] = []


def figure(name, runs, measured=False, compare=None, group=""):
    def add(function):
        FIGURES.append(Figure(name, tuple(runs), function, measured, compare,
                              group or runs[0]))
        return function
    return add


def time_of(key, name=None):
    """The measured wall time of run ``key``, as figure ``time-KEY``."""
    figure(name or f"time-{key}", [key], measured=True)(lambda r: duration(r[key]))


# cheap, exact ---------------------------------------------------------------------------

figure("tp-fig1", ["tp-fig1"])(lambda r: doc(r["tp-fig1"])["throughput"])
figure("tp-dag", ["tp-dag"])(lambda r: doc(r["tp-dag"])["throughput"])
figure("tp-tree", ["tp-tree"])(lambda r: doc(r["tp-tree"])["throughput"])
figure("fig1-messages", ["schedule-fig1"])(
    lambda r: doc(r["schedule-fig1"])["messages_per_period"])
figure("fig1-period", ["schedule-fig1"])(lambda r: doc(r["schedule-fig1"])["period"])
figure("fig1-period-star", ["tp-fig1"])(lambda r: doc(r["tp-fig1"])["period"])
figure("dag-q", ["schedule-dag"])(lambda r: str(doc(r["schedule-dag"])["q"]))
figure("dag-layers", ["schedule-dag"])(
    lambda r: {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}.get(
        n := len({t["layer"] for t in doc(r["schedule-dag"])["layers"]}), str(n)))
figure("sim100-delivered", ["simulate-100"])(
    lambda r: str(doc(r["simulate-100"])["delivered"]))
figure("sim100-bound", ["simulate-100"])(lambda r: doc(r["simulate-100"])["bound"])
figure("pipe-ratio", ["pipe"])(lambda r: round_text(doc(r["pipe"])["ratio"], 3))
figure("segment-best", ["segment"])(lambda r: str(doc(r["segment"])["best_segment"]))
figure("a100-rate", ["a100"])(lambda r: doc(r["a100"])["rate"])
figure("a100-busbw", ["a100"])(
    lambda r: str(Fraction(doc(r["a100"])["bus_bandwidth"])))
figure("m65-ratio", ["m65"])(lambda r: ratio_text(Fraction(doc(r["m65"])["ratio"])))
figure("m65-kb", ["m65"])(lambda r: str(round(doc(r["m65"])["file_bytes"] / 1000)))
figure("m65-steps", ["m65-steps"])(lambda r: str(doc(r["m65-steps"])["steps"]))
figure("m65-steps-ratio", ["m65-steps"])(
    lambda r: ratio_text(Fraction(doc(r["m65-steps"])["ratio"])))


def _table3_line(record, which: str) -> str:
    match = re.search(rf"{which}[^\n]*?: (\d+) of (\d+)", record["stdout"])
    return f"{match[1]} of {match[2]}"


figure("table3-linear", ["table3"])(
    lambda r: _table3_line(r["table3"], "Linear tree").split(" of ")[0])
figure("table3-binary", ["table3"])(lambda r: _table3_line(r["table3"], "Binary tree"))
time_of("m65")


# expensive, exact -----------------------------------------------------------------------

figure("r30-ratio", ["simulate-r30"])(
    lambda r: floor_text(Fraction(doc(r["simulate-r30"])["ratio"]), 3))
figure("r50-1000-ratio", ["r50-1000"])(
    lambda r: ratio_text(Fraction(doc(r["r50-1000"])["ratio"]), 4))
figure("r50-10000-ratio", ["r50-10000"])(
    lambda r: ratio_text(Fraction(doc(r["r50-10000"])["ratio"]), 5))
figure("r30-digits", ["r30-exact"])(
    lambda r: str(len(doc(r["r30-exact"])["messages_per_period"])))
figure("dragonfly-ratio", ["dragonfly"])(
    lambda r: round_text(Fraction(doc(r["dragonfly"])["ratio"]), 2))
for key in ("tradeoff-r50", "simulate-r30", "heuristics-r30", "grid-optimum", "r50-1000",
            "dragonfly-import", "dragonfly", "scale-1000"):
    time_of(key)


def _generated_ratios(r, prefix: str) -> str:
    ratios = [Fraction(doc(rec)["ratio"]) for key, rec in r.items()
              if key.startswith(f"timed-{prefix}")]
    low, high = min(ratios), max(ratios)
    text = lambda x: ratio_text(x, 4)   # noqa: E731
    return text(low) if low == high else f"{text(low)} to {text(high)}"


_RANDOM = [f"timed-random-{n}-s{s}" for s in (1, 2, 3) for n in (50, 65)]
_MESHES = [f"timed-mesh-8-s{s}" for s in (1, 2, 3)]
figure("timed-random-range", _RANDOM)(lambda r: _generated_ratios(r, "random"))
figure("timed-mesh-range", _MESHES)(lambda r: _generated_ratios(r, "mesh"))


# the seed 000 campaign ------------------------------------------------------------------

def _report(r, key, name="report.md") -> str:
    folder = Path(r["_work"]) / _out_folder(key)
    return (folder / name).read_text(encoding="utf-8")


def _out_folder(key) -> str:
    run = RUNS[key]
    if "--out" in run.argv:
        return run.argv[run.argv.index("--out") + 1]
    return {"stp": "stp-campaign", "stp-tiers": "stp-tiers-campaign",
            "grid": "grid-campaign", "grid-per-grid": "grid-per-grid-campaign",
            "ethernet-height": "ethernet-height",
            "ethernet-height-attach": "ethernet-height-attach"}[key]


_STP_COLUMNS = [("Prune Simple", "simple-prune"), ("Refined Prune", "refined-prune"),
                ("Grow Tree", "grow-min-out-degree"), ("Binomial", "binomial"),
                ("LP Prune", "lp-prune"), ("LP Grow", "lp-grow"), ("best tree", "best-tree")]
_ONE_PORT = "one-port: ratio to the MTP optimum (one-port LP), by nodes"


def _section(r, key, title):
    header, rows = md_tables(_report(r, key))[title]
    return [dict(zip(header, row)) for row in rows]


def _stp_table(r) -> str:
    rows = _section(r, "stp", _ONE_PORT)
    out = [[row["nodes"]] + [row.get(c, "—") for _, c in _STP_COLUMNS] for row in rows
           if row["nodes"] in ("10", "30", "50")]
    return table_text(["nodes"] + [label for label, _ in _STP_COLUMNS], out)


def _without_last_column(text: str) -> str:
    """A table without its last column: the exact best tree's is measured (its search
    stops at a wall-clock limit)."""
    return "\n".join(line.rsplit("|", 2)[0] if line.startswith("|") else line
                     for line in text.splitlines())


figure("stp-table", ["stp"], compare=_without_last_column)(_stp_table)


def _proven(r, key="stp"):
    return re.search(r"one-port: the exact best tree is proven optimal on (\d+) of (\d+) "
                     r"platforms(?:; on the others [^%]*?within a proven ([0-9.]+)%)?",
                     _report(r, key))


figure("stp-proven", ["stp"], measured=True)(
    lambda r: f"{_proven(r)[1]} of {_proven(r)[2]}")
figure("stp-proven-gap", ["stp"], measured=True)(
    lambda r: f"{round(float(_proven(r)[3] or 0))}%")


def _cell(row, column) -> int:
    return int(row[column].split("%")[0])


def _at(r, key, title, nodes):
    return next(row for row in _section(r, key, title) if row["nodes"] == str(nodes))


figure("stp-advanced-50", ["stp"])(lambda r: span(
    [_cell(_at(r, "stp", _ONE_PORT, 50), c) for c in
     ("refined-prune", "grow-min-out-degree", "lp-prune", "lp-grow")]))
figure("stp-simple-50", ["stp"])(
    lambda r: f"{_cell(_at(r, 'stp', _ONE_PORT, 50), 'simple-prune')}%")
figure("stp-best-range", ["stp"], measured=True)(lambda r: span(
    [_cell(row, "best-tree") for row in _section(r, "stp", _ONE_PORT)]))
figure("stp-trivial", ["stp"])(lambda r: re.search(
    r"many trees are then optimal\): \d+ of \d+ \((\d+%)\)", _report(r, "stp"))[1])
_MULTI_OPT = "multi-port: ratio to the MTP optimum (one-port LP), by nodes"
_MULTI_BOUND = "multi-port: ratio to the multi-port bound, by nodes"
_MULTI = ("lp-prune", "lp-grow", "multiport-grow", "multiport-prune-degree")
figure("stp-multi-10", ["stp"])(lambda r: f"{max(_cell(_at(r, 'stp', _MULTI_OPT, 10), c) for c in _MULTI)}%")
figure("stp-multi-bound-50", ["stp"])(
    lambda r: span([_cell(_at(r, "stp", _MULTI_BOUND, 50), c) for c in _MULTI]))
figure("stp-multi-best-50", ["stp"], measured=True)(
    lambda r: f"{_cell(_at(r, 'stp', _MULTI_BOUND, 50), 'best-tree')}%")
time_of("stp")


# Table 3 (Tiers): ours beside the paper's
_T3 = "Table 3 (Tiers platforms, one-port): ours beside the paper's"


def _tiers_table(r) -> str:
    rows = []
    for row in _section(r, "stp-tiers", _T3):
        rows.append([row["heuristic (paper's label)"], row["30 nodes: ours"],
                     row["30 nodes: paper"], row["65 nodes: ours"], row["65 nodes: paper"]])
    best = {n: _at(r, "stp-tiers", _ONE_PORT, n).get("best-tree", "—") for n in (30, 65)}
    rows.append(["exact best tree", best[30], "—", best[65], "—"])
    return table_text(["heuristic", "30 nodes: ours", "30: paper", "65 nodes: ours",
                       "65: paper"], rows)


def _without_best_row(text: str) -> str:
    return "\n".join(line for line in text.splitlines()
                     if not line.startswith("| exact best tree"))


figure("tiers-table", ["stp-tiers"], compare=_without_best_row)(_tiers_table)
time_of("stp-tiers")


def _stars(r) -> str:
    rows = _section(r, "stp-tiers-stars", _ONE_PORT)
    text = _report(r, "stp-tiers-stars")
    trivial = re.search(r"optimal\): (\d+) of (\d+)", text)
    cells = [_cell(row, c) for row in rows for _, c in _STP_COLUMNS[:-1]
             if c != "binomial"]
    return f"{trivial[1]} of {trivial[2]}|{span(cells)}"


figure("tiers-stars-trivial", ["stp-tiers-stars"])(lambda r: _stars(r).split("|")[0])
figure("tiers-stars-range", ["stp-tiers-stars"])(lambda r: _stars(r).split("|")[1])


# the seed 001 campaign ------------------------------------------------------------------

def _grid_verdicts(r) -> str:
    """The report's table of verdicts on the paper's findings, as it prints it."""
    for header, rows in md_tables(_report(r, "grid", "grid-report.md")).values():
        if header[:1] == ["finding of 001 §6"]:
            return table_text(header, rows)
    raise KeyError("no verdict table in grid-report.md")


figure("grid-verdicts", ["grid"])(_grid_verdicts)


def _sizes(r, key) -> dict:
    return {s["clusters"]: s for s in doc(r[key])["sizes"]}


figure("grid-unsolved", ["grid"])(
    lambda r: "every optimum proven" if all(s["unsolved"] == 0 for s in
                                            _sizes(r, "grid").values())
    else f"{sum(s['unsolved'] for s in _sizes(r, 'grid').values())} optima not proven")


def _hits(r, key, name, sizes) -> list[int]:
    return [percent(_sizes(r, key)[n]["heuristics"][name]["hit_rate_global_min"])
            for n in sizes]


figure("grid-per-grid-lat", ["grid-per-grid"])(
    lambda r: "between {}% and {}%".format(
        min(h := _hits(r, "grid-per-grid", "ecef-lat-max", range(4, 11))), max(h)))


def _leads(r, key, name, sizes) -> str:
    """The sizes n at which ``name`` has the highest global-minimum hit rate."""
    won = []
    for n in sizes:
        rates = {h: Fraction(v["hit_rate_global_min"])
                 for h, v in _sizes(r, key)[n]["heuristics"].items()}
        if rates[name] == max(rates.values()):
            won.append(n)
    if not won:
        return "at no n"
    if won == list(range(won[0], won[-1] + 1)) and len(won) > 1:
        return f"at n = {won[0]}..{won[-1]}"
    return "at n = " + ", ".join(map(str, won))


figure("grid-per-grid-leads", ["grid-per-grid"])(
    lambda r: _leads(r, "grid-per-grid", "ecef-lat-max", range(4, 11)))


def _optimality(r) -> dict:
    """{n: row} of the report's table of how often the global minimum is optimal."""
    for header, rows in md_tables(_report(r, "grid", "grid-report.md")).values():
        if "global minimum optimal" in header:
            return {row[0]: dict(zip(header, row)) for row in rows}
    raise KeyError("no optimality table in grid-report.md")


figure("grid-optimal-3", ["grid"])(lambda r: _optimality(r)["3"]["global minimum optimal"])
figure("grid-optimal-10", ["grid"])(
    lambda r: _optimality(r)["10"]["global minimum optimal"])
figure("grid-excess-10", ["grid"])(lambda r: _optimality(r)["10"]["global minimum excess"])
figure("grid-ecef-la-10", ["grid"])(lambda r: round_text(Fraction(
    _sizes(r, "grid")[10]["heuristics"]["ecef-la"]["excess_over_optimum"]) * 100, 1) + "%")
time_of("grid")
time_of("grid-per-grid")


# the seed 004 campaigns ------------------------------------------------------------------

def _heights(r, key) -> list[dict]:
    path = Path(r["_work"]) / _out_folder(key) / "summary.csv"
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _ratio(row) -> Fraction:
    return Fraction(row["ratio"]) if "/" in row["ratio"] else Fraction(row["ratio"])


def _height(r, key, per, machines) -> str:
    row = next(x for x in _heights(r, key) if int(x["per_switch"]) == per
               and int(x["machines"]) == machines)
    return round_text(_ratio(row), 2)


figure("eth-max-256", ["ethernet-height"])(lambda r: round_text(max(
    _ratio(x) for x in _heights(r, "ethernet-height")
    if int(x["machines"]) <= 256 or (int(x["per_switch"]) == 16
                                     and int(x["machines"]) <= 512)), 2))
figure("eth-512-8", ["ethernet-height"])(lambda r: _height(r, "ethernet-height", 8, 512))
figure("eth-1024-8", ["ethernet-height"])(lambda r: _height(r, "ethernet-height", 8, 1024))
figure("eth-1024-16", ["ethernet-height"])(
    lambda r: _height(r, "ethernet-height", 16, 1024))


def _depth(r, key) -> str:
    row = next(x for x in _heights(r, key) if int(x["per_switch"]) == 8
               and int(x["machines"]) == 1024)
    return str(round(Fraction(row["mean_switch_depth"])))


figure("eth-depth", ["ethernet-height"])(lambda r: _depth(r, "ethernet-height"))
figure("eth-attach-depth", ["ethernet-height-attach"])(
    lambda r: _depth(r, "ethernet-height-attach"))
figure("eth-attach-max", ["ethernet-height-attach"])(lambda r: round_text(max(
    _ratio(x) for x in _heights(r, "ethernet-height-attach")), 2))
time_of("ethernet-height")


# SimGrid replays (benchmarks/simgrid_platforms.py replay) --------------------------------

def _replays(r) -> dict:
    """{platform: (certified ratio, aware sim/pred, one-port sim/pred, factor)}."""
    rows = {}
    for line in r["simgrid-replay"]["stdout"].splitlines()[1:]:
        parts = line.split()
        if len(parts) == 7:
            rows[parts[0]] = tuple(float(x) for x in parts[2:6])
    return rows


figure("simgrid-aware", ["simgrid-replay"])(lambda r: "10^-8" if all(
    abs(v[1] - 1) <= 1e-8 for v in _replays(r).values()) else "{:.0e}".format(
    max(abs(v[1] - 1) for v in _replays(r).values())))
figure("simgrid-slower", ["simgrid-replay"])(
    lambda r: f"{max(1 / v[2] for v in _replays(r).values()):.1f}x")
#: The samples' names in prose.
_SHORT = {"small_platform": "small_platform", "dogbone": "dogbone",
          "cluster_backbone-20": "backbone", "data_center-24": "data_center",
          "g5k-nancy-21": "g5k", "cluster_dragonfly-24": "dragonfly"}


def _factors(r) -> str:
    """``by x1.4 to x3.8 on data_center, g5k and dragonfly``: where the network-aware
    schedule's simulated throughput beats the one that ignores the network."""
    beaten = {k: v[3] for k, v in _replays(r).items() if v[3] > 1.001}
    names = [_SHORT.get(k, k) for k in beaten]
    where = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return (f"by x{min(beaten.values()):.1f} to x{max(beaten.values()):.1f} on {where}"
            if len(beaten) > 1 else f"by x{max(beaten.values()):.1f} on {where}")


figure("simgrid-factors", ["simgrid-replay"])(_factors)


# where figures go in code blocks ---------------------------------------------------------

#: {figure: [(document, regular expression with one group: the figure)]}: places in
#: code blocks, where a marker would show.
SPOTS = {
    "m65-ratio": [("README.md", r"messages, a timetable \(version 2 file\);\n\s+# certified "
                                r"ratio ([0-9.]+), ")],
    "m65-kb": [("README.md", r"# certified ratio [0-9.]+, (\d+) KB \(")],
    "time-m65": [("README.md", r"# certified ratio [0-9.]+, \d+ KB \((\d[^)]*)\)")],
    "m65-steps": [("README.md", r"1 file, for barriers\): (\d+) steps"),
                  ("docs/cli.md", r"--steps -o m65s\.json # (\d+) steps")],
    "m65-steps-ratio": [("README.md", r"1 file, for barriers\): \d+ steps, ([0-9.]+)")],
    "time-tradeoff-r50": [("README.md", r"timetable and steps side by side \((\d[^)]*)\)")],
    "dag-q": [("README.md", r"--dag  # 002 Theorem 2 on a DAG: q = (\d+)"),
              ("docs/cli.md", r"--dag      # q = (\d+)")],
    "dag-layers": [("docs/cli.md", r"--dag      # q = \d+, (\w+) layers")],
    "sim100-delivered": [("README.md", r"clean-up: (\d+) broadcasts\n"),
                         ("docs/cli.md", r"# (\d+) of K·TP\* = \d+ messages")],
    "sim100-bound": [("README.md", r"# delivered, where no schedule can exceed (\d+);"),
                     ("docs/cli.md", r"# \d+ of K·TP\* = (\d+) messages")],
    "r30-ratio": [("README.md", r"delivers most: ([0-9.]+) of the bound")],
    "time-simulate-r30": [("README.md", r"delivers most: [0-9.]+ of the bound \((\d[^)]*)\)")],
    "pipe-ratio": [("README.md", r"\(ratio ~([0-9.]+)\)")],
    "time-heuristics-r30": [("README.md", r"the exact\n\s+# best tree and the MTP optimum "
                                          r"\(several trees; (\d[^)]*)\)")],
    "time-stp": [("README.md", r"250 random platforms \((\d[^)]*)\)")],
    "time-stp-tiers": [("README.md", r"Table 3 beside ours \(Tiers-like platforms; "
                                     r"(\d[^)]*)\)")],
    "time-grid-optimum": [("README.md", r"and the exact optimum \((\d[^)]*)\)")],
    "time-grid": [("README.md", r"clusters, exact optima \((\d[^)]*)\)")],
    "time-ethernet-height": [("README.md", r"004 Figure 5 \((\d[^)]*)\); exit 1")],
    "segment-best": [("README.md", r"best_segment (\d+)"),
                     ("docs/cli.md", r"# best segment (\d+) bytes")],
    "tp-fig1": [("README.md", r"steady throughput  +# 002 Figure 1: TP = (\S+)"),
                ("docs/cli.md", r"steady throughput  +# 002 Figure 1: TP = (\S+)")],
    "tp-dag": [("README.md", r"--dag   # an acyclic platform \(002 §4\.4\): TP = (\S+)"),
               ("docs/cli.md", r"--dag    # TP = (\S+)")],
    "tp-tree": [("README.md", r"# TP of the Figure 4 tree: (\S+)"),
                ("docs/cli.md", r"# the Figure 4 tree: (\S+)")],
    "a100-rate": [("README.md", r"fabrics: (\S+) GB/s per GPU"),
                  ("docs/cli.md", r"# rate per root (\S+) GB/s")],
    "a100-busbw": [("README.md", r"busbw (\d+) GB/s, certified"),
                   ("docs/cli.md", r"busbw (\d+) GB/s")],
    "dragonfly-ratio": [("README.md", r"-o dragonfly\.sched\.json +# ratio ~([0-9.]+)")],
    "time-dragonfly": [("README.md", r"ratio ~[0-9.]+, certified \((\d[^)]*)\)")],
    "time-dragonfly-import": [("README.md", r"--hosts '\^node-\[0-9\]\*\[05\]\\\.' -o "
                                            r"dragonfly\.json +# (\d[^\n]*)")],
    "fig1-messages": [("README.md", r"steady schedule -o fig1\.json +# 002 Figure 1: "
                                    r"(\d+) messages per period"),
                      ("docs/cli.md", r"steady schedule -o fig1\.json +# 002 Figure 1: "
                                      r"(\d+) messages per period")],
    "r30-digits": [("docs/cli.md", r"messages_per_period: a (\d+)-digit number of chunks")],
}


# -- the documents ----------------------------------------------------------------------

INLINE = re.compile(r"<!-- fig:([\w-]+) -->((?:(?!<!--).)*?)<!-- /fig -->", re.S)
BLOCK = re.compile(r"(<!-- figures:([\w-]+) -->\n)(.*?)(\n<!-- /figures:\2 -->)", re.S)


def places(text: str, name: str, document: str) -> list[tuple[int, int]]:
    """Where figure ``name`` stands in ``text`` (spans of its value)."""
    found = [m.span(2) for m in INLINE.finditer(text) if m[1] == name]
    found += [m.span(3) for m in BLOCK.finditer(text) if m[2] == name]
    for doc_name, pattern in SPOTS.get(name, ()):
        if doc_name != document:
            continue
        matches = list(re.finditer(pattern, text))
        if len(matches) != 1:
            raise SystemExit(f"figures: {name}: {len(matches)} matches of its place in "
                             f"{document} (one expected): {pattern}")
        found.append(matches[0].span(1))
    return found


def names_in_documents() -> dict[str, list[str]]:
    """{figure name: documents} for every marker and spot found."""
    found: dict[str, list[str]] = {}
    for path in DOCUMENTS:
        text = path.read_text(encoding="utf-8")
        rel = path.relative_to(ROOT).as_posix()
        for m in INLINE.finditer(text):
            found.setdefault(m[1], []).append(rel)
        for m in BLOCK.finditer(text):
            found.setdefault(m[2], []).append(rel)
    for name, spots in SPOTS.items():
        for document, _ in spots:
            found.setdefault(name, []).append(document)
    return found


def quoted(name: str) -> list[str]:
    """The values the documents quote for figure ``name``."""
    values = []
    for path in DOCUMENTS:
        text = path.read_text(encoding="utf-8")
        rel = path.relative_to(ROOT).as_posix()
        values += [text[a:b] for a, b in places(text, name, rel)]
    return values


def write(values: dict[str, str]) -> list[Path]:
    """Put ``values`` into every document; returns the documents changed."""
    changed = []
    for path in DOCUMENTS:
        text = path.read_text(encoding="utf-8")
        rel = path.relative_to(ROOT).as_posix()
        spans = []
        for name, value in values.items():
            spans += [(a, b, value) for a, b in places(text, name, rel)]
        new = text
        for a, b, value in sorted(spans, reverse=True):
            new = new[:a] + value + new[b:]
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed.append(path)
    return changed


# -- running ---------------------------------------------------------------------------

RUNS = _runs()


def compute(figures, work: Path, reuse: bool = False, exact: bool = False,
            in_process: bool = False) -> dict[str, str]:
    """{figure name: value} for ``figures``, running what they need; ``exact``: the
    exact figures only, from the runs without their measured-only options (the drift
    test)."""
    _prepare(work)
    if exact:
        figures = [f for f in figures if not f.measured]
    needed = sorted({key for f in figures for key in f.runs},
                    key=list(RUNS).index)
    records = {"_work": str(work)}
    for key in needed:
        run = RUNS[key].exact() if exact else RUNS[key]
        records[key] = execute(run, work, reuse, in_process)
    return {f.name: f.value(records) for f in figures}


def drift(figures, values: dict[str, str]) -> list[str]:
    """The exact figures the documents quote otherwise than ``values``."""
    found = []
    for f in figures:
        if f.measured or f.name not in values:
            continue
        for seen in quoted(f.name):
            if f.checked(seen) != f.checked(values[f.name]):
                found.append(f"{f.name}: the documents say {seen!r}, the command gives "
                             f"{values[f.name]!r}")
    return found


def selected(groups=None, slow: bool = False) -> list[Figure]:
    chosen = []
    for f in FIGURES:
        expensive = any(RUNS[k].slow for k in f.runs)
        if groups is not None:
            if f.group in groups or any(k in groups for k in f.runs):
                chosen.append(f)
        elif slow or not expensive:
            chosen.append(f)
    return chosen


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="the expensive figures too")
    parser.add_argument("--only", help="runs or groups, comma-separated (--list)")
    parser.add_argument("--check", action="store_true",
                        help="compare with the documents, write nothing (exit 1 on drift)")
    parser.add_argument("--reuse", action="store_true",
                        help="reuse the runs kept in --work when their command is the same")
    parser.add_argument("--work", type=Path, default=WORK,
                        help=f"where the commands run (default {WORK.relative_to(ROOT)})")
    parser.add_argument("--list", action="store_true", help="the runs and their figures")
    parser.add_argument("--runs-only", action="store_true",
                        help="run the commands (and keep their records), compute nothing")
    args = parser.parse_args(argv)
    if args.list:
        for key, run in RUNS.items():
            names = [f.name for f in FIGURES if key in f.runs]
            print(f"{key:<24} {'slow' if run.slow else 'cheap':<5} {' '.join(run.argv)}"
                  f"\n{'':<31}{', '.join(names)}")
        return 0
    groups = set(args.only.split(",")) if args.only else None
    figures = selected(groups, args.all)
    if args.runs_only:
        work = args.work.resolve()
        _prepare(work)
        for key in sorted({k for f in figures for k in f.runs}, key=list(RUNS).index):
            execute(RUNS[key], work, args.reuse)
        return 0
    values = compute(figures, args.work.resolve(), args.reuse)
    cores = os.cpu_count()
    values["machine"] = f"{cores}-core machine"
    if args.check:
        found = drift(figures, values)
        print("\n".join(found) or "figures: the documents agree with the commands")
        return 1 if found else 0
    changed = write(values)
    for path in changed:
        print(f"figures: updated {path.relative_to(ROOT)}")
    missing = [f.name for f in figures if not quoted(f.name)]
    if missing:
        print("figures: not placed in any document: " + ", ".join(missing),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
