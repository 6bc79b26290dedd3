"""The import layering of steady/ (issue 15), read from the source with ast (nothing is
run): every import, at module level or inside a function, relative ones resolved."""

import ast
import functools
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "steady"
#: The pipeline, lowest stage first: a module imports only its own stage or lower ones.
STAGES = [("interrupts",), ("errors",), ("numbers",), ("fileio",), ("progress",),  # ground
          ("exact",),                          # exact LP, max-flow, arborescences
          ("network",),                        # physical links: section, link rows
          ("platform", "__init__", "inputs"),  # the model, its file format, API inputs
          ("generators", "topologies"),        # platforms made by code
          ("schedule_file",),                  # the schedule document
          ("throughput",), ("schedule",),      # SSB LP -> Thm 5 trees, Thm 6 matchings
          ("certificate",), ("verify_collective",), ("verify",),   # the independent checkers
          ("strategies", "strategy_checks", "testing"),  # for users' test suites: all of the above
          ("simulate", "simgrid"), ("present",),  # simgrid: import and replay
          ("run", "mpi"),                      # MPI execution (mpi: its public door)
          ("runtimes",),                       # programs for other runtimes (MSCCL XML)
          ("heuristics", "grid", "ethernet"),  # seeds 000, 001, 004, beside the core
          ("experiments",), ("commands", "cli", "__main__")]
GROUND = ("interrupts", "errors", "numbers", "fileio", "progress")
CHECKERS_MAY_IMPORT = ("errors", "numbers", "fileio", "platform", "schedule_file",
                       "certificate", "verify_collective",  # and the standard library and networkx
                       "inputs")  # the API's reading of a platform (no solver): the checker
                                  # takes every input the solver takes
#: A runtime's checker (runtimes/<name>/check*) imports no exporter: the runtime's
#: facts (runtime.py), the rank convention (ranks.py) and its own modules only.
RUNTIME_SHARED = ("runtime", "ranks")
#: A runtime's exporter imports schedule documents only: no construction, no solver.
EXPORTERS_MAY_IMPORT = ("errors", "numbers", "fileio", "platform", "schedule_file",
                        "runtimes")


def under(name, prefixes):
    rel = name.partition(".")[2] or "__init__"
    return any(rel == p or rel.startswith(p + ".") for p in prefixes)


def modules(root):
    return {".".join(p.relative_to(root.parent).with_suffix("").parts).removesuffix(
        ".__init__"): p for p in sorted(root.rglob("*.py"))}


def stamp(path: Path) -> tuple[int, int]:
    status = path.stat()
    return status.st_mtime_ns, status.st_size


@functools.lru_cache(maxsize=None)
def _tree(path: Path, stamp: tuple[int, int]) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def parsed(path: Path) -> ast.Module:
    """The module's syntax tree, parsed once per worker (a file changed in place, as
    the injections do, is parsed again: the key holds its mtime and size)."""
    return _tree(path, stamp(path))


def imports(root):
    """(importer, file:line, imported module, statement) for every import under root,
    listed once per worker for the eight rules that read them."""
    mods = modules(root)
    return _imports(root, tuple((path, stamp(path)) for path in mods.values()))


@functools.lru_cache(maxsize=None)
def _imports(root, stamps):
    return list(_each_import(root))


def _each_import(root):
    mods = modules(root)
    for name, path in mods.items():
        here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = ".".join(here[:len(here) + 1 - node.level] + [node.module or ""]
                                ).strip(".") if node.level else node.module
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base
                           for a in node.names]
            else:
                continue
            for t in targets:
                while t.startswith("steady.") and t not in mods:
                    t = t.rpartition(".")[0]
                where = f"{path.relative_to(root.parent).as_posix()}:{node.lineno}"
                yield name, where, t, ast.unparse(node)


def steady_imports(root):
    return [i for i in imports(root) if i[2].split(".")[0] == "steady"]


def stage_of(name):
    return next((i for i, stage in enumerate(STAGES) if under(name, stage)), None)


def stage_violations(root):
    found = [f"{p.relative_to(root.parent).as_posix()}: {m} is in no stage of STAGES"
             for m, p in modules(root).items() if stage_of(m) is None]
    return found + [f"{w}: {text} -- {dst} (stage {'/'.join(STAGES[stage_of(dst)])}) is above "
                    f"{src} (stage {'/'.join(STAGES[stage_of(src)])})"
                    for src, w, dst, text in steady_imports(root)
                    if None not in (stage_of(src), stage_of(dst))
                    and stage_of(dst) > stage_of(src)]


def loop_violations(root):
    """Loops among the children (modules, sub-packages, its __init__) of each package."""
    graph = {}
    for src, w, dst, text in steady_imports(root):
        s, d = src.split("."), dst.split(".")
        k = next((i for i, (x, y) in enumerate(zip(s, d)) if x != y), min(len(s), len(d)))
        a, b = (".".join(p[:k + 1]) if len(p) > k else m + ".__init__"
                for p, m in ((s, src), (d, dst)))
        if a != b:
            graph.setdefault(a, {}).setdefault(b, f"{w}: {text}")
    found, state = [], {}

    def visit(path):
        state[path[-1]] = "open"
        for nxt in graph.get(path[-1], {}):
            if state.get(nxt) == "open":
                loop = path[path.index(nxt):] + [nxt]
                found.append("loop " + " -> ".join(loop) + ": " + "; ".join(
                    graph[a][b] for a, b in zip(loop, loop[1:])))
            elif nxt not in state:
                visit(path + [nxt])
        state[path[-1]] = "done"
    for v in list(graph):
        if v not in state:
            visit([v])
    return found


def checker_violations(root):
    """verify and certificate check what constructors build: they import none of them."""
    allowed = sys.stdlib_module_names | {"networkx"}
    return [f"{w}: {text} -- the independent checker {src} imports {dst}"
            for src, w, dst, text in imports(root)
            if src in ("steady.verify", "steady.verify_collective", "steady.certificate")
            and not (under(dst, CHECKERS_MAY_IMPORT) if dst.split(".")[0] == "steady"
                     else dst.split(".")[0] in allowed)]


def _runtime_part(name):
    """(runtime, 'checker'|'shared'|'exporter') of a module under steady.runtimes."""
    parts = name.split(".")
    if len(parts) < 4 or parts[1] != "runtimes":
        return None
    kind = ("checker" if parts[3].startswith("check") else
            "shared" if parts[3] in RUNTIME_SHARED else "exporter")
    return parts[2], kind


def runtime_violations(root):
    """Exporters import schedules only; their checkers import no exporter."""
    found = []
    for src, w, dst, text in imports(root):
        part = _runtime_part(src)
        if part is None:
            continue
        steady = dst.split(".")[0] == "steady"
        if part[1] in ("checker", "shared"):
            target = _runtime_part(dst) if steady else None
            ok = (dst.split(".")[0] in sys.stdlib_module_names | {"networkx"} if not steady
                  else under(dst, CHECKERS_MAY_IMPORT) or target is not None
                  and target[0] == part[0] and target[1] in ("checker", "shared"))
            if not ok:
                found.append(f"{w}: {text} -- the independent checker {src} imports {dst}")
        elif steady and not under(dst, EXPORTERS_MAY_IMPORT):
            found.append(f"{w}: {text} -- the exporter {src} imports {dst}, which is no "
                         "schedule document")
    return found


def beside_violations(root):
    top = ("commands", "cli", "__main__")
    return [f"{w}: {text} -- {src} imports {dst}" for src, w, dst, text in steady_imports(root)
            if under(src, ("heuristics", "grid", "ethernet")) and under(dst, top + ("experiments",))
            or under(src, ("experiments",)) and under(dst, top)]


def exact_violations(root):
    return [f"{w}: {text} -- exact/ imports {dst}, above the ground"
            for src, w, dst, text in steady_imports(root)
            if under(src, ("exact",)) and not under(dst, ("exact",) + GROUND)]


def door_violations(root):
    """steady/throughput/__init__ is the one public door of the solver."""
    return [f"{w}: {text} -- imports {dst}; use steady.throughput"
            for src, w, dst, text in steady_imports(root)
            if dst.startswith("steady.throughput.") and not under(src, ("throughput",))]


RULES = {f.__name__.removesuffix("_violations"): f for f in (
    stage_violations, loop_violations, checker_violations, runtime_violations,
    beside_violations,
    exact_violations, door_violations)}


@pytest.mark.parametrize("rule", RULES)
def test_steady_keeps_the_rule(rule):
    found = RULES[rule](ROOT)
    assert not found, "\n".join(found)


def test_cli_start_up_imports_no_heavy_module():
    """`steady --help` stays ~0.1 s: the command functions import what they compute
    when they run, and the optional heavy dependencies stay inside functions."""
    code = "import sys, steady.commands; print(*sys.modules)"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True).stdout.split()
    heavy = ("ortools", "sympy", "networkx", "numpy", "matplotlib", "dask", "joblib",
             "hypothesis", "steady.exact", "steady.throughput")
    assert not [m for m in loaded if m.split(".")[0] in heavy or m.startswith(heavy)]


@pytest.mark.slow
@pytest.mark.parametrize("rule, injected, says", [
    ("stage", [("schedule/dag.py", "from ..verify import verify")], None),
    ("stage", [("throughput/ports.py", "import steady.simulate.engine")], None),
    ("stage", [("newstage.py", "")], "in no stage"),
    ("loop", [("throughput/result.py", "from .trees import TreeMaster")], None),
    ("loop", [("grid/model.py", "from ..heuristics import registry"),
              ("heuristics/models.py", "from ..grid.draws import draws")], None),
    ("checker", [("verify.py", "from .schedule.periodic import optimal_schedule")], None),
    ("checker", [("certificate.py", "from ortools.graph.python import max_flow")], None),
    ("runtime", [("runtimes/msccl/check_run.py", "from .export import broadcast_moves")],
     None),
    ("runtime", [("runtimes/msccl/check.py", "from ...schedule.timed import timed_schedule")],
     None),
    ("runtime", [("runtimes/msccl/ranks.py", "from .program import algo_xml")], None),
    ("runtime", [("runtimes/msccl/export.py", "from ...throughput import throughput")],
     None),
    ("beside", [("grid/model.py", "from ..experiments.runner import mean")], None),
    ("beside", [("ethernet/trees.py", "from steady.commands import main")], None),
    ("beside", [("experiments/stp.py", "from ..commands.heuristics import _cmd_stp")], None),
    ("exact", [("exact/lp.py", "from ..platform import Platform")], None),
    ("door", [("heuristics/models.py", "from ..throughput.tree import tree_formula")], None)])
def test_each_rule_can_fail(tmp_path, rule, injected, says):
    """Bad imports injected into a copy of steady/: the rule names the first one's file
    and statement (the copy keeps every rule before the injection)."""
    copy = tmp_path / "steady"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert not RULES[rule](copy)
    for file, line in injected:
        path = copy / file
        old = path.read_text() if path.exists() else ""
        path.write_text(old + f"\n\ndef _injected():\n    {line or 'pass'}\n")
    file, line = injected[0]
    found = RULES[rule](copy)
    assert any(f"steady/{file}" in m and (says or line) in m for m in found), found


def private_imports(source) -> list[str]:
    """The private names (``_x``, not dunders) a module (its source, or its parsed tree)
    imports from steady's modules."""
    found = []
    for node in ast.walk(ast.parse(source) if isinstance(source, str) else source):
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "")
                                                 .startswith("steady")):
            found += [a.name for a in node.names
                      if a.name.startswith("_") and not a.name.startswith("__")]
    return found


def test_no_private_name_is_imported_across_modules():
    """Issue 41: a name another module needs is public in its own module."""
    found = {str(p.relative_to(ROOT)): private_imports(parsed(p))
             for p in sorted(ROOT.rglob("*.py"))}
    assert {k: v for k, v in found.items() if v} == {}


def test_a_private_import_is_found():
    assert private_imports("from ..strategies import _checked, integer\n") == ["_checked"]
    assert private_imports("from steady.schedule.timed import _decimal\n") == ["_decimal"]
    assert private_imports("from fractions import _gcd\nfrom . import __version__\n") == []
