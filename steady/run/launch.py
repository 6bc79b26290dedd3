"""``--launch``: start ``mpiexec -n P python -m steady ...`` ourselves (ours).

The launcher relays the ranks' output and reduces a failure to one line:

* the ranks' own ``steady:`` lines pass through, each once;
* a rank that dies: every rank keeps a connection open to a socket of the launcher
  (and says ``done`` on it when it ends in order); the kernel closes it when the process
  exits, so the first connection to end without ``done`` names the rank that died
  first; the launcher then kills the others and says "rank r (node) died before the
  end".  With MPICH's mpiexec (Hydra) it asks ``-disable-auto-cleanup``: Hydra would
  otherwise kill every rank within milliseconds of the death and print a multi-line
  banner (which the launcher drops);
* a job that outlives its deadline (the ranks' own, plus a grace) is stopped;
* Ctrl-C is passed to ``mpiexec``, which passes it to every rank; ranks not gone
  within a few seconds are killed;
* a launcher that dies, even by SIGKILL, takes the job with it: ``mpiexec`` gets
  SIGTERM then (Linux's parent-death signal) and stops every rank.

When the ranks outnumber the cores, MPICH's busy-waiting collectives would starve each
other: the launcher sets ``MPIR_CVAR_ENABLE_HEAVY_YIELD=1`` (MPICH's own switch for
oversubscription: wait with nanosleep), unless already set.
"""

from __future__ import annotations

import os
import re
import selectors
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
#: The most the launcher waits, after mpiexec ended, for the watch to name a rank that
#: died (it returns 0.2 s after the end when none did).
WATCH_GRACE = 5
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
                                env=env, text=True, errors="replace",
                                preexec_fn=_with_parent(os.getpid()))
        relay = _Relay()
        readers = [threading.Thread(target=relay.pump, args=(stream, out), daemon=True)
                   for stream, out in ((proc.stdout, sys.stdout), (proc.stderr, sys.stderr))]
        for reader in readers:
            reader.start()
        watch = _Watch(notes, names)
        watcher = threading.Thread(target=watch.run, args=(proc,), daemon=True)
        watcher.start()
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
        # a rank's death and mpiexec's end can come within milliseconds (the peers
        # fail at once and abort): the watch reads the closed connections first
        watcher.join(WATCH_GRACE)
        return _verdict(relay, watch, code)


def _with_parent(parent: int):
    """For Popen's ``preexec_fn`` (Linux): mpiexec gets SIGTERM when the launcher dies,
    even by SIGKILL (prctl PR_SET_PDEATHSIG), and then stops every rank itself; without
    it a killed launcher left mpiexec and the ranks running.  Elsewhere, None."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    prctl = ctypes.CDLL(None, use_errno=True).prctl

    def die_with_parent():
        prctl(1, signal.SIGTERM, 0, 0, 0)          # 1: PR_SET_PDEATHSIG
        if os.getppid() != parent:                  # the launcher died before that
            os.kill(os.getpid(), signal.SIGTERM)
    return die_with_parent


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
    """The rank that died first (module docstring).  Every rank on this host keeps a
    connection to the launcher's socket (:func:`note_rank`) and says ``done`` (or
    ``failed``: it stopped on an error it reported, often a peer's death seen through
    MPI) before it ends; the kernel closes a process's connection when it exits, so the
    first connection to end without either is the rank that died, in the order the
    deaths happened (polling the processes could see a rank that died first and a
    peer it took down at the same look).  Ranks on other hosts are not seen (their own
    deadline applies)."""

    def __init__(self, folder: str, names=None):
        self.names = names
        self.first = None
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(os.path.join(folder, WATCH_SOCKET))
        self.server.listen(64)
        self.server.setblocking(False)

    def run(self, proc) -> None:
        peers: dict = {}          # connection -> [rank, pid, state, unread bytes]
        ended_at = None
        with selectors.DefaultSelector() as selector:
            selector.register(self.server, selectors.EVENT_READ)
            while True:
                for key, _ in selector.select(0.05):
                    if key.fileobj is self.server:
                        try:
                            conn, _ = self.server.accept()
                        except OSError:
                            continue
                        peers[conn] = [None, None, "running", b""]
                        selector.register(conn, selectors.EVENT_READ)
                        continue
                    conn = key.fileobj
                    try:
                        data = conn.recv(4096)
                    except OSError:
                        data = b""
                    if data:
                        _read_notes(peers[conn], data)
                        continue
                    selector.unregister(conn)
                    rank, _, state, _ = peers.pop(conn)
                    conn.close()
                    if rank is not None and state not in ("done", "failed"):
                        self.first = rank
                        _kill(pid for _, pid, _, _ in peers.values())
                        return
                if proc.poll() is not None:   # one last look: a death may be the cause
                    ended_at = ended_at or time.monotonic()
                    if time.monotonic() - ended_at > 0.2:
                        return

    def who(self) -> str:
        if self.names and self.names[self.first] is not None:
            return f"rank {self.first} ({self.names[self.first]})"
        return f"rank {self.first}"


#: The launcher's socket in its notes folder (``STEADY_RUN_PIDS``).
WATCH_SOCKET = "watch"


def _read_notes(peer: list, data: bytes) -> None:
    """Lines ``rank pid state`` from a rank (:func:`note_rank`), into its entry."""
    peer[3] += data
    *lines, peer[3] = peer[3].split(b"\n")
    for line in lines:
        try:
            rank, pid, state = line.decode().split()
            peer[0], peer[1], peer[2] = int(rank), int(pid), state
        except ValueError:
            continue


def _kill(pids) -> None:
    for pid in pids:
        if pid is None:
            continue
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


_channel = None
#: Under --launch, how long a rank that failed on an error waits before it aborts the
#: job: a peer's death makes its peers fail within milliseconds, and MPI_Abort would
#: kill them all before the watch has seen which rank died first (s).
ABORT_DELAY = 1.0


def before_abort() -> None:
    """A rank about to abort the job after an error, under --launch: give the watch
    (:class:`_Watch`) time to name a peer that died first; nothing otherwise."""
    if os.environ.get("STEADY_RUN_PIDS"):
        time.sleep(ABORT_DELAY)


def note_rank(rank: int, state: str) -> None:
    """A rank under ``--launch`` tells the launcher's watch its pid and state (running,
    done, failed) over a connection it keeps open until it exits (:class:`_Watch`)."""
    global _channel
    folder = os.environ.get("STEADY_RUN_PIDS")
    if not folder:
        return
    try:
        if _channel is None:
            _channel = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            _channel.connect(os.path.join(folder, WATCH_SOCKET))
        _channel.sendall(f"{rank} {os.getpid()} {state}\n".encode())
    except OSError:
        pass   # another host, or the launcher gone: nobody to tell


def _is_hydra(mpiexec: str) -> bool:
    try:
        out = subprocess.run([mpiexec, "--version"], capture_output=True, text=True,
                             timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "HYDRA" in out
