"""Ctrl-C, SIGTERM and SIGHUP, honoured at any moment (ours; docs/cli.md, "Ctrl-C").

The pieces, all in the standard library so that the command line can install them
before it imports anything heavy:

* :func:`command_signals`: the handlers of a command.  Each of the three signals is
  *recorded* (:func:`received`) and raised as KeyboardInterrupt, so that every
  temporary file is removed on the way out and the command ends with "steady:
  interrupted" and exit code 130.  The record outlives the exception: when a library
  turns the KeyboardInterrupt into something else (numpy's "bad install" ImportError
  at import time, Python 3.11's RuntimeError from ``__set_name__``, a plotting error),
  or swallows it, the command line still knows that the user asked to stop.
* :func:`solve`: every call into a solver's compiled code goes through it (CP-SAT,
  SCIP and GLOP through pywraplp).  Those calls run for seconds to minutes inside C++,
  where Python runs no signal handler, and some install their own: CP-SAT catches
  SIGINT during ``Solve`` and, after it, leaves the C-level disposition at SIG_DFL
  while ``signal.getsignal`` still reports Python's handler (a later Ctrl-C then kills
  the process without a word); SCIP catches SIGINT, prints "pressed CTRL-C" on stdout
  and returns a partial answer as if nothing happened.  :func:`solve` runs the call in
  a helper thread that blocks the three signals (the solver's own threads inherit the
  mask), so that they reach the main thread, which waits: a signal there asks the
  solver to stop (``stop``: ``CpSolver.stop_search``, ``Solver.InterruptSolve``), and
  when the call has returned the handlers are put back *at the C level*
  (``signal.signal`` again) and the signal is delivered to them.
* :func:`deferred`: the signals held back for a few system calls (a temporary file
  being created or removed) and, by :func:`guard_extension_imports`, while an extension
  module initialises (an interrupted python-flint crashed the process);
* :func:`finish`: the last step of the ``steady`` process: from there on the signals
  are ignored (a signal while Python shuts down would kill the process without a word
  after its output was complete), and one that arrived before is answered;
* :func:`other_rank`: under mpiexec, ranks other than 0 stay silent (rank 0 says it).
"""

from __future__ import annotations

import signal
import sys
import threading
from contextlib import contextmanager

#: The signals that stop a command (those the platform has).
SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
                if hasattr(signal, name))
#: The exit code of an interrupted command (docs/cli.md), whichever signal it was.
EXIT_CODE = 130
MESSAGE = "steady: interrupted"

_received: list[int] = []


def received() -> bool:
    """True when one of :data:`SIGNALS` reached the handlers of :func:`command_signals`
    since they were installed."""
    return bool(_received)


def _interrupt(signum, frame):
    _received.append(signum)
    raise KeyboardInterrupt


def _ours(number) -> bool:
    """A signal steady answers: not one the parent told us to ignore (``nohup``)."""
    return signal.getsignal(number) is not signal.SIG_IGN


def install() -> dict:
    """Install the handlers of a command (record, then KeyboardInterrupt) for every
    signal not ignored; the previous handlers, to put back.  Main thread only."""
    previous = {}
    for number in SIGNALS:
        if _ours(number):
            previous[number] = signal.signal(number, _interrupt)
    return previous


@contextmanager
def command_signals(restore: bool = True):
    """The handlers of :func:`install` inside the block, the record cleared on entry;
    with ``restore``, the previous handlers are put back after it (tests run commands
    in-process).  Outside the main thread (a library caller's thread), nothing is
    installed."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _received.clear()
    previous = install()
    try:
        yield
    finally:
        if restore:
            for number, handler in previous.items():
                signal.signal(number, handler)


_depth = [0]


@contextmanager
def deferred():
    """Hold Ctrl-C, SIGTERM and SIGHUP back inside the block; they are delivered (to
    the handlers in place, KeyboardInterrupt on the command line) right after it.  Used
    around the few system calls whose interruption would leave a temporary file
    without a name to remove it by (:mod:`steady.fileio`), and around the
    initialisation of extension modules (:func:`guard_extension_imports`).  Blocks
    nest: the outermost one delivers.

    The handlers are swapped for a recorder, not the signals masked: a signal sent to
    the process may be taken by any thread that does not mask it (joblib and dask start
    threads), but Python runs every handler in the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    if _depth[0]:   # inside another block: it delivers
        _depth[0] += 1
        try:
            yield
        finally:
            _depth[0] -= 1
        return
    pending = []
    previous = {}
    for number in SIGNALS:
        handler = signal.getsignal(number)
        if handler is None or handler is signal.SIG_IGN:   # not ours to hold, or ignored
            continue
        previous[number] = signal.signal(number, lambda signum, frame: pending.append(signum))
    _depth[0] = 1
    try:
        yield
    finally:
        _depth[0] = 0
        for number, handler in previous.items():
            signal.signal(number, handler)
        for number in pending:
            handler = previous[number]
            if callable(handler):
                handler(number, None)
            else:                       # SIG_DFL: the default action, now that we are done
                signal.raise_signal(number)


def guard_extension_imports() -> None:
    """From now on in this process, an extension module's initialisation runs with the
    signals :func:`deferred`: a KeyboardInterrupt inside it can leave the interpreter
    broken (python-flint's, interrupted, crashed the process with a segmentation
    fault at its next use).  Initialisations take milliseconds; the signal is
    delivered right after.  The ``steady`` process calls this before it imports its
    commands (:mod:`steady.cli`)."""
    from importlib.machinery import ExtensionFileLoader

    if getattr(ExtensionFileLoader, "_steady_deferred", False):
        return
    create, execute = ExtensionFileLoader.create_module, ExtensionFileLoader.exec_module

    def create_module(self, spec):
        with deferred():
            return create(self, spec)

    def exec_module(self, module):
        with deferred():
            return execute(self, module)

    ExtensionFileLoader.create_module = create_module
    ExtensionFileLoader.exec_module = exec_module
    ExtensionFileLoader._steady_deferred = True


#: The environment variables by which mpiexec tells a process its rank (MPICH's Hydra,
#: Open MPI, PMIx).
_RANK_VARIABLES = ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK")


def other_rank() -> bool:
    """True in an MPI job's rank other than 0 (read from mpiexec's environment, before
    MPI is loaded): it stays silent on bad input and on Ctrl-C, which rank 0 reports
    once for all (docs/cli.md, steady run)."""
    import os

    for name in _RANK_VARIABLES:
        value = os.environ.get(name)
        if value is not None:
            return value.strip() != "0"
    return False


def interrupted() -> int:
    """Say so on stderr (one line; rank 0 only in an MPI job) and return the exit code
    of an interrupted command."""
    if other_rank():
        return EXIT_CODE
    try:
        print(MESSAGE, file=sys.stderr, flush=True)
    except (OSError, ValueError):   # stderr closed or gone: the exit code says it
        pass
    return EXIT_CODE


def _record(signum, frame):
    _received.append(signum)


def finish(code: int) -> int:
    """The exit code of the ``steady`` process, after its command returned ``code``:
    stdout is flushed with the signals only recorded, then they are ignored (Python's
    shutdown follows: a signal now would kill the process without a word after its
    output was complete -- Python leaves an ignored signal ignored to the end), and a
    signal received at any time before turns the code into :data:`EXIT_CODE` with its
    one line (unless the command said it already)."""
    if threading.current_thread() is threading.main_thread():
        ours = [n for n in SIGNALS if _ours(n)]
        for number in ours:
            signal.signal(number, _record)
        try:
            sys.stdout.flush()
        except (OSError, ValueError):   # a reader that left (BrokenPipe): nothing to say
            pass
        for number in ours:
            signal.signal(number, signal.SIG_IGN)
        _forget_keyboard_interrupt()
    if _received and code != EXIT_CODE:
        return interrupted()
    return code


def _forget_keyboard_interrupt() -> None:
    """Clear CPython's "unhandled KeyboardInterrupt" mark: code run through
    ``PyRun_String`` (some extension modules do) that a KeyboardInterrupt left sets it
    even when steady caught the exception later, and CPython then ends the process
    by SIGINT after its shutdown, whatever the exit code (seen once in 40 Ctrl-Cs
    during ``steady schedule``).  Running a statement through the same function
    clears it (public C API; CPython resets the mark at every such run)."""
    try:
        import ctypes

        ctypes.pythonapi.PyRun_SimpleString(b"pass")
    except (ImportError, AttributeError, OSError):   # not CPython: no such mark
        pass


def solve(call, stop, kind: str = "solver"):
    """``call()`` (a solver's Solve), stopped by ``stop()`` when Ctrl-C, SIGTERM or
    SIGHUP arrives during it; the signal is then delivered to the handler in place
    (KeyboardInterrupt on the command line) once the call has returned, and the
    handlers are re-installed at the C level whatever the solver did to them.

    The call runs in a helper thread (the GIL is released by OR-Tools' solves) so
    that the main thread, waiting, runs the handlers at once; on Linux the thread is
    named ``steady:KIND`` (``top -H`` shows it; the signal tests look for it).
    Outside the main thread, or when no handler is a Python one, ``call()`` runs as
    it is."""
    if (threading.current_thread() is not threading.main_thread()
            or not hasattr(signal, "pthread_sigmask")):
        return call()
    caught = []

    def record(signum, frame):
        if not caught:
            stop()
        caught.append((signum, frame))

    previous = {n: signal.getsignal(n) for n in SIGNALS}
    handled = [n for n, h in previous.items() if callable(h)]
    if not handled:
        return call()
    outcome = {}

    def run():
        _name_thread(f"steady:{kind}")
        try:
            outcome["value"] = call()
        except BaseException as exc:   # handed to the main thread
            outcome["error"] = exc

    worker = threading.Thread(target=run, name="steady-solver", daemon=True)
    try:
        for number in handled:
            signal.signal(number, record)
        # the helper thread (and the solver's threads it starts) inherit the mask:
        # the signals reach the main thread, which waits below
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
        try:
            if not caught:   # a signal already: the solve is not started at all
                worker.start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        while worker.is_alive():
            # a signal interrupts the wait and ``record`` runs; the timeout is for a
            # signal that another thread took (then the main thread is not woken)
            worker.join(0.1)
    except BaseException:   # a handler of ours raised: stop the solver, then go on up
        if worker.ident is not None:
            stop()
            worker.join()
        raise
    finally:
        for number in handled:
            signal.signal(number, previous[number])   # at the C level too
    if caught:
        signum, frame = caught[0]
        previous[signum](signum, frame)   # KeyboardInterrupt on the command line
        if worker.ident is None:          # a handler that let it pass: solve now
            return solve(call, stop, kind)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _name_thread(name: str) -> None:
    """The calling thread's name as the kernel shows it (Linux's prctl PR_SET_NAME, 15
    bytes); nothing elsewhere."""
    global _prctl
    if _prctl is None:
        try:
            import ctypes

            _prctl = ctypes.CDLL(None, use_errno=True).prctl
        except (OSError, AttributeError):
            _prctl = False
    if _prctl and sys.platform.startswith("linux"):
        _prctl(15, name.encode()[:15], 0, 0, 0)   # 15: PR_SET_NAME


_prctl = None


def solve_cpsat(solver, model):
    """``solver.solve(model)`` for a CP-SAT ``CpSolver`` through :func:`solve`, with
    CP-SAT's own SIGINT handler off (``catch_sigint_signal``)."""
    solver.parameters.catch_sigint_signal = False
    return solve(lambda: solver.solve(model), solver.stop_search, "cp-sat")


#: SCIP's own Ctrl-C handler off (it would swallow the signal and return a partial
#: answer as a normal one).
SCIP_PARAMETERS = "misc/catchctrlc = FALSE\n"


def solve_linear(solver, parameters: str | None = None):
    """``solver.Solve()`` for a pywraplp ``Solver`` (SCIP, GLOP) through :func:`solve`.
    ``parameters``: the solver-specific parameters of the call, set here (pywraplp
    keeps one string per solver, so a SCIP solve always sets it, with
    :data:`SCIP_PARAMETERS`); None leaves a GLOP solver's as they are."""
    scip = solver.SolverVersion().startswith("SCIP")
    if scip:
        parameters = (parameters or "") + SCIP_PARAMETERS
    if parameters is not None:
        solver.SetSolverSpecificParametersAsString(parameters)
    kind = "scip" if scip else solver.SolverVersion().split()[0].lower()
    return solve(solver.Solve, solver.InterruptSolve, kind)
