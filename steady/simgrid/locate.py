"""Finding SimGrid's Python bindings and running the worker (ours).

SimGrid is optional: steady looks for its bindings at run time, in this order:

1. ``STEADY_SIMGRID_PATH``: a directory holding the ``simgrid`` module (``-`` means
   "importable as it is");
2. this Python can already ``import simgrid`` (e.g. ``pip install simgrid``, which
   builds SimGrid from source);
3. Debian's ``python3-simgrid`` (``apt-get install python3-simgrid``: SimGrid 3.32 for
   CPython 3.11), in /usr/lib/python3/dist-packages -- used only when its extension
   module was built for this interpreter's version.

The bindings are never imported into steady's process: the worker
(:mod:`steady.simgrid._worker`) runs in a child process with the directory appended to
``sys.path``.  When none is found, :func:`simgrid_path` raises an InputError whose one
line says how to install it.
"""

from __future__ import annotations

import glob
import importlib.util
from importlib.machinery import EXTENSION_SUFFIXES
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from ..errors import InputError

DEBIAN = "/usr/lib/python3/dist-packages"
HINT = ("SimGrid's Python bindings not found: apt-get install python3-simgrid (SimGrid "
        "3.32, CPython 3.11) or pip install simgrid, or set STEADY_SIMGRID_PATH")
WORKER = Path(__file__).with_name("_worker.py")


def simgrid_path() -> str:
    """The directory to append to ``sys.path`` for ``import simgrid`` ("-": none
    needed); InputError with the install hint when SimGrid is nowhere."""
    found = find_simgrid()
    if found is None:
        raise InputError("<simgrid>", "bindings", HINT)
    return found


def find_simgrid() -> str | None:
    """As :func:`simgrid_path`, None when SimGrid is nowhere (tests skip then)."""
    given = os.environ.get("STEADY_SIMGRID_PATH")
    if given:
        return given
    spec = importlib.util.find_spec("simgrid")
    # the bindings are an extension module: a plain simgrid.py on sys.path (say, a
    # script of that name beside the caller) is not them
    if spec is not None and (spec.origin or "").endswith(tuple(EXTENSION_SUFFIXES)):
        return "-"
    tag = f"cpython-{sys.version_info.major}{sys.version_info.minor}"
    if glob.glob(os.path.join(DEBIAN, f"simgrid.{tag}-*.so")):
        return DEBIAN
    return None


def _cpu_spent(proc) -> bool:
    """The worker was stopped by its CPU limit (SIGXCPU, then SIGKILL at the hard
    limit).  The children's CPU time is what the kernel counts for it."""
    try:
        import resource

        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        return used.ru_utime + used.ru_stime >= WORKER_CPU_SECONDS
    except (ImportError, OSError):
        return False


class WorkerCrash(RuntimeError):
    """The worker died (SimGrid aborted or crashed): ``lines`` it printed before,
    ``reason`` in words (the signal, or SimGrid's last error line)."""

    def __init__(self, lines, reason):
        super().__init__(reason)
        self.lines, self.reason = lines, reason


#: The CPU time the worker may use, in seconds (its guard: a deterministic bound of
#: work, not a wall-clock limit; the inputs it gets are bounded already, docs/limits.md).
WORKER_CPU_SECONDS = 600


def _limited():
    """Popen's ``preexec_fn``: the worker's CPU time at most WORKER_CPU_SECONDS."""
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_CPU, (WORKER_CPU_SECONDS, WORKER_CPU_SECONDS + 5))
    except (ImportError, ValueError, OSError):   # not a POSIX system: no guard
        pass


def run_worker(request: dict, timeout: float | None = None) -> list[dict]:
    """Run the worker on ``request``; its JSON lines, up to and including
    ``{"done": true}``.  Raises WorkerCrash when it ends without it."""
    path = simgrid_path()
    cwd = os.path.dirname(os.path.abspath(request["platform"]))
    proc = subprocess.run([sys.executable, str(WORKER), path], input=json.dumps(request) + "\n",
                          capture_output=True, text=True, cwd=cwd, timeout=timeout,
                          preexec_fn=_limited if os.name == "posix" else None)
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    if lines and lines[-1].get("done"):
        return lines
    raise WorkerCrash(lines, _reason(proc))


def _reason(proc) -> str:
    """Why the worker died, in a few words."""
    if proc.returncode < 0:
        try:
            name = signal.Signals(-proc.returncode).name
        except ValueError:
            name = f"signal {-proc.returncode}"
        if name == "SIGXCPU" or (name == "SIGKILL" and _cpu_spent(proc)):
            return (f"SimGrid used more than its {WORKER_CPU_SECONDS} s of CPU time "
                    "(docs/limits.md)")
        critical = [line.rsplit("] ", 1)[-1].strip() for line in proc.stderr.splitlines()
                    if "CRITICAL]" in line]
        return f"SimGrid crashed ({name})" + (f": {critical[0][:200]}" if critical else "")
    errors = [line.strip() for line in proc.stderr.splitlines()
              if line.strip() and not line.startswith(("  ->", "Backtrace"))
              and "Configuration change" not in line]
    text = errors[-1] if errors else f"exit code {proc.returncode}"
    if "ModuleNotFoundError" in text and "simgrid" in text:
        return HINT
    if "] " in text:
        text = text.rsplit("] ", 1)[1]  # drop SimGrid's "[time] file:line: [cat/LEVEL]"
    return text[:300]
