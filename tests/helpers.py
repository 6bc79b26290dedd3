"""Helpers shared by tests (imported as ``helpers``: pytest puts this folder on
``sys.path`` since the tests are not a package): the command line run in-process, the
samples' paths, a timetable that ends after its largest port load, and a ladder of
timetables as the finite-horizon chooser builds them."""

import os
from fractions import Fraction
from pathlib import Path

from steady.cli import main
from steady.generators import random_platform
from steady.schedule.branchings import weighted_branchings
from steady.schedule.counts import merged, usage
from steady.schedule.cut_counts import cut_counts
from steady.schedule.effort import DEFAULT
from steady.schedule.list_schedule import greedy_runs
from steady.schedule.timed import timed_timetable, tree_families
from steady.schedule.timetable import Timetable, loads_of, ticks_per_unit
from steady.throughput import throughput

#: The samples folder, whatever the working directory.
SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def sample(name: str) -> Path:
    """The path of ``samples/<name>``."""
    return SAMPLES / name


def run(capsys, *argv):
    """Run ``steady *argv`` in-process: (exit code, stdout, stderr)."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(err, name):
    """DESIGN.md: bad input is one line on stderr naming the element, no traceback."""
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("steady: ") and str(name) in lines[0]


def late_timetable(seed: int, messages: int):
    """(platform, result, timetable, load): on ``random_platform(8, 0.3, seed)``, a
    timetable of ``messages`` arborescences packed into counts chosen over the cuts,
    timed by one greedy run only (no rounds, no search), and the counts' largest port
    load (seed 39, 5 messages: the timetable ends 4.8 % after it); None when the cuts
    give no counts."""
    platform = random_platform(8, 0.3, seed=seed)
    counts = cut_counts(platform, messages)
    if counts is None:
        return None
    trees = merged(weighted_branchings(platform, counts, messages))
    used = usage(trees)
    unit = ticks_per_unit(platform, used)
    cost = {arc: int(platform.cost(*arc) * unit) for arc in used}
    runs = greedy_runs(used, cost)
    end = max(s + n * cost[arc] for arc, rs in runs.items() for s, n in rs)
    table = Timetable.from_arc_runs(platform, trees, runs, end, unit)
    result = throughput(platform, "trees")
    return platform, result, table, max(loads_of(platform, counts).values())


def ratio_of(table, optimum) -> Fraction:
    """A broadcast timetable's ratio, written out: messages per time unit over TP*."""
    return Fraction(table.messages * table.unit, table.period) / optimum


def ladder(platform, values):
    """(the optimum with its trees, [(M, timetable, ratio)] at default effort for each
    M of ``values``): the chooser's ``built`` list."""
    from steady.simulate.choose import with_trees

    result = with_trees(platform, throughput(platform, "trees"))
    families = tree_families(platform, result, DEFAULT)
    built = []
    for m in values:
        table, _ = timed_timetable(platform, result, m, DEFAULT, families)
        built.append((m, table, ratio_of(table, result.throughput)))
    return result, built


def examples(ci: int) -> int:
    """How many examples a property draws: ``ci`` under CI (STEADY_CI, derandomized,
    conftest.py), two fifths of it (at least 10, at most ``ci``) in the README's
    ``python -m pytest``, as conftest's profile does where a test sets no number (40
    of 100): the newcomer's run stays under 3 minutes and CI keeps the full search."""
    if os.environ.get("STEADY_CI"):
        return ci
    return min(ci, max(10, -(-2 * ci // 5)))


# -- the collective LP over every tree of a tiny platform (an oracle) --------------------

def all_route_trees(platform, root, direction):
    """Every tree of the collective model (issue 43) on a tiny platform: a parent and a
    simple route through switches per compute node, as (child, parent, route) picks."""
    import networkx as nx
    from itertools import product

    g = platform.to_networkx()
    compute = platform.compute_nodes
    others = [v for v in compute if v != root]
    routes = {}
    for a, b in product(compute, compute):
        if a != b:
            routes[(a, b)] = [p for p in nx.all_simple_paths(g, a, b)
                              if all(v in platform.switches for v in p[1:-1])]
    choices = []
    for v in others:
        options = []
        for u in compute:
            if u != v:
                pair = (u, v) if direction == "out" else (v, u)
                options += [(v, u, tuple(p)) for p in routes[pair]]
        choices.append(options)
    for pick in product(*choices):
        parent = {v: u for v, u, _ in pick}
        ok = True
        for v in others:
            seen = set()
            while v != root and ok:
                ok = v not in seen
                seen.add(v)
                v = parent[v]
        if ok:
            yield pick


def every_tree_lp(platform, kind):
    """The collective's LP over all trees (allgather, reduce-scatter or allreduce), a
    LinearProgram built by enumeration (no pricing): its optimum is the collective's."""
    from itertools import product

    from steady.exact.lp import EQ, LE, LinearProgram

    compute = platform.compute_nodes
    directions = {"allgather": ["out"], "reduce-scatter": ["in"],
                  "allreduce": ["in", "out"]}[kind]
    lp = LinearProgram("brute")
    x = lp.add_variable("x", objective=1)
    rows, columns = {}, []
    for root, d in product(compute, directions):
        eq = lp.add_row({x: 1}, EQ, 0, f"{root} {d}")
        for pick in all_route_trees(platform, root, d):
            col = {eq: Fraction(-1)}
            for _, _, route in pick:
                costs = [platform.cost(a, b) for a, b in zip(route, route[1:])]
                keys = []
                if not platform.multi_port:
                    keys += [("out", route[0], max(costs)), ("in", route[-1], max(costs))]
                for (a, b), c in zip(zip(route, route[1:]), costs):
                    if platform.multi_port or (a in platform.switches and b in platform.switches):
                        keys.append(("arc", (a, b), c))
                for kind_, what, c in keys:
                    key = (kind_, what)
                    if key not in rows:
                        rows[key] = lp.add_row({}, LE, 1, str(key))
                    col[rows[key]] = col.get(rows[key], 0) + c
            columns.append(col)
    for k, col in enumerate(columns):
        lp.add_variable(f"t{k}", column=col)
    return lp


def full_speed(platform, table):
    """``table`` itself, or for a streamed timetable (transfers at a share of their
    routes, proofs/collectives.md §16) the list schedule of its trees at full speed:
    the whole-hold and majority rows bound full-speed timetables only."""
    from steady.schedule.effort import effort
    from steady.schedule.list_schedule import route_list_schedule

    if not table.slowed:
        return table
    return route_list_schedule(platform, list(table.trees), effort("fast"))


def streamed_schedule(platform, kind="allgather", most=4):
    """(result, table): the streamed timetable (proofs/collectives.md §16) of the first
    chunk count's trees ranked by their loads, as the chooser streams them -- built here
    whatever construction the chooser would keep on ``platform``."""
    from steady.schedule.collective import streamed_counts, streamed_of
    from steady.throughput import collective_throughput

    result = collective_throughput(platform, kind)
    fams, counts = streamed_counts(platform, result, most, "fast")
    return result, streamed_of(platform, fams, counts.next(None)[2])
