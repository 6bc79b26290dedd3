"""``--launch``: start ``mpiexec -n P python -m steady ...`` ourselves (ours).

The launcher relays the ranks' output and reduces a failure to one line:

* the ranks' own ``steady:`` lines pass through, each once;
* a rank that dies: every rank leaves a note with its pid in a folder the launcher
  gives it (and marks it ``done`` when it ends in order); the launcher polls them, and
  when one vanishes before its end it kills the others and says "rank r (node) died
  before the end".  With MPICH's mpiexec (Hydra) it asks ``-disable-auto-cleanup``:
  Hydra would otherwise kill every rank within milliseconds of the death, too fast to
  tell which one died, and print a multi-line banner (which the launcher drops);
* a job that outlives its deadline (the ranks' own, plus a grace) is stopped;
* Ctrl-C is passed to ``mpiexec``, which passes it to every rank; ranks not gone
  within a few seconds are killed.

When the ranks outnumber the cores, MPICH's busy-waiting collectives would starve each
other: the launcher sets ``MPIR_CVAR_ENABLE_HEAVY_YIELD=1`` (MPICH's own switch for
oversubscription: wait with nanosleep), unless already set.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from ..errors import InputError
from .mpi import HINT

OVERSUBSCRIBED = {"MPIR_CVAR_ENABLE_HEAVY_YIELD": "1"}
#: After the ranks' own deadline, how long the launcher waits before killing (s).
GRACE = 15
_NOISE = re.compile(r"^(={3,}.*|=   .*|YOUR APPLICATION TERMINATED.*|"
                    r"This typically refers to a problem.*|Please see the FAQ.*|"
                    r"\[mpiexec@.*|\[proxy:.*|Abort\(\d+\) on node.*)$")


def mpiexec_path() -> str:
    """The mpiexec next to this Python (the MPICH wheel's), else the one on PATH."""
    here = Path(sys.executable).parent / "mpiexec"
    if here.exists():
        return str(here)
    found = shutil.which("mpiexec")
    if not found:
        raise InputError("--launch", "mpiexec", f"not found: {HINT}")
    return found


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def launch(argv: list[str], ranks: int, timeout_s: float | None, names=None) -> int:
    """Run ``steady argv`` (without --launch) on ``ranks`` MPI ranks; the exit code.
    ``names[r]``: what rank r plays, for the line about a rank that died."""
    mpiexec = mpiexec_path()
    keep = ["-disable-auto-cleanup"] if _is_hydra(mpiexec) else []
    command = [mpiexec, *keep, "-n", str(ranks), sys.executable, "-m", "steady", *argv]
    env = dict(os.environ)
    if ranks > cores():
        for key, value in OVERSUBSCRIBED.items():
            env.setdefault(key, value)
    with tempfile.TemporaryDirectory(prefix="steady-run-") as notes:
        env["STEADY_RUN_PIDS"] = notes
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=env, text=True, errors="replace")
        relay = _Relay()
        readers = [threading.Thread(target=relay.pump, args=(stream, out), daemon=True)
                   for stream, out in ((proc.stdout, sys.stdout), (proc.stderr, sys.stderr))]
        for reader in readers:
            reader.start()
        watch = _Watch(notes, names)
        threading.Thread(target=watch.run, args=(proc,), daemon=True).start()
        try:
            code = proc.wait(None if timeout_s is None else timeout_s + GRACE)
        except subprocess.TimeoutExpired:
            _stop(proc)
            _join(readers)
            relay.flush()
            print(f"steady: run: mpiexec did not end within --timeout {timeout_s:g} s "
                  f"(+{GRACE} s); stopped", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            _stop(proc)
            _join(readers)
            relay.flush()
            if not relay.interrupted:
                print("steady: interrupted", file=sys.stderr)
            return 130
        _join(readers)
        return _verdict(relay, watch, code)


class _Relay:
    """Copies the ranks' output through, without MPICH's banners and without
    repeating a ``steady:`` line already shown.  Their standard error is held until the
    job ends: when a rank died, the others' errors (MPI failing under them, e.g.
    ``process_vm_readv failed``) are consequences, and the one line said is the death."""

    def __init__(self):
        self.lock = threading.Lock()
        self.seen: set[str] = set()
        self.said = False
        self.interrupted = False
        self.held: list[str] = []

    def pump(self, stream, out) -> None:
        for line in stream:
            text = line.rstrip("\n")
            with self.lock:
                if _NOISE.match(text):
                    continue
                if text.startswith("steady:"):
                    if text in self.seen:
                        continue
                    self.seen.add(text)
                    self.said = True
                    self.interrupted |= text == "steady: interrupted"
                if out is sys.stderr:
                    self.held.append(text)
                else:
                    print(text, file=out, flush=True)

    def flush(self) -> None:
        """Print the held standard error."""
        with self.lock:
            for text in self.held:
                print(text, file=sys.stderr, flush=True)
            self.held.clear()


def _join(readers) -> None:
    for reader in readers:
        reader.join(5)


def _stop(proc) -> None:
    """Ctrl-C to mpiexec (it forwards it to the ranks), then kill after 5 s."""
    try:
        proc.send_signal(signal.SIGINT)
        proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    except KeyboardInterrupt:
        proc.kill()
        proc.wait()


def _verdict(relay: _Relay, watch: "_Watch", code: int) -> int:
    """The exit code, with one line when a rank died or the job failed without saying
    why; otherwise the ranks' held standard error."""
    if watch.first is not None:
        print(f"steady: run: {watch.who()} died before the end; the other ranks were "
              "stopped", file=sys.stderr)
        return 1
    relay.flush()
    if code in (0, 1, 2, 130) or relay.said:
        return code
    print(f"steady: run: mpiexec ended with exit code {code}", file=sys.stderr)
    return 1


class _Watch:
    """The rank that vanished before the end (module docstring); polls the notes
    every 10 ms.  Only ranks on this host are seen (elsewhere the ranks' own deadline
    applies)."""

    def __init__(self, folder: str, names=None):
        self.folder = folder
        self.names = names
        self.first = None
        self.host = socket.gethostname()

    def run(self, proc) -> None:
        while True:  # one last look after mpiexec ended: a death may be the cause
            ended = proc.poll() is not None
            notes = self._notes()
            # "failed": a rank that stopped on an error it reported (often a peer's
            # death seen through MPI); only a rank that vanished silently died
            gone = [r for r, (pid, state) in notes.items()
                    if state not in ("done", "failed") and not _running(pid)]
            if gone:
                self.first = min(gone)
                for r, (pid, state) in notes.items():
                    if r not in gone:
                        try:
                            os.kill(pid, signal.SIGKILL)
                        except OSError:
                            pass
                return
            if ended:
                return
            time.sleep(0.01)

    def who(self) -> str:
        if self.names and self.names[self.first] is not None:
            return f"rank {self.first} ({self.names[self.first]})"
        return f"rank {self.first}"

    def _notes(self) -> dict:
        found = {}
        for name in os.listdir(self.folder):
            if not name.isdigit():
                continue
            try:
                with open(os.path.join(self.folder, name)) as f:
                    note = json.load(f)
                if note.get("host") == self.host:
                    found[int(name)] = (int(note["pid"]), note.get("state"))
            except (OSError, ValueError, KeyError):
                continue
        return found


def note_rank(rank: int, state: str) -> None:
    """A rank under ``--launch`` leaves its pid and state (running, done) for the
    launcher's watch (atomically: the watch may read at any time)."""
    folder = os.environ.get("STEADY_RUN_PIDS")
    if not folder:
        return
    path = os.path.join(folder, str(rank))
    try:
        with open(path + ".tmp", "w") as f:
            json.dump({"pid": os.getpid(), "host": socket.gethostname(),
                       "state": state}, f)
        os.replace(path + ".tmp", path)
    except OSError:
        pass


def _running(pid: int) -> bool:
    """Whether the process exists and is not a zombie (Linux /proc when there)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True


def _is_hydra(mpiexec: str) -> bool:
    try:
        out = subprocess.run([mpiexec, "--version"], capture_output=True, text=True,
                             timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "HYDRA" in out
