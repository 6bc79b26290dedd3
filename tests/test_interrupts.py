"""Ctrl-C, SIGTERM and SIGHUP inside the solvers' compiled code (issue 42):
:func:`steady.interrupts.solve` stops the solve when a signal arrives, delivers the
signal to the handler in place once the solver has returned, and leaves Python's
handler installed at the C level whatever the solver did.

Each solver is given a problem that takes far longer than the moment of the signal,
under a deterministic bound (CP-SAT's deterministic time, SCIP's nodes, GLOP's
iterations; GLOP's optimum); that the solve ended below its bound is what shows it
was stopped (no wall-clock assertion)."""

import os
import random
import signal
import subprocess
import sys
import threading
import textwrap
import time

import pytest

from steady import interrupts


def cpsat_model(n=60):
    from ortools.sat.python import cp_model

    m = cp_model.CpModel()
    xs = [m.new_int_var(0, n * n, "") for _ in range(n)]
    m.add_no_overlap([m.new_fixed_size_interval_var(x, i % 7 + 1, "")
                      for i, x in enumerate(xs)])
    m.minimize(sum((i % 5 + 1) * x for i, x in enumerate(xs)))
    return m


def market_split(rows=4, columns=30, seed=1):
    """Cornuéjols and Dawande's market split instances: hard for branch and bound
    (here 200000 nodes take about 20 s)."""
    from ortools.linear_solver import pywraplp

    solver = pywraplp.Solver.CreateSolver("SCIP")
    draw = random.Random(seed)
    xs = [solver.BoolVar("") for _ in range(columns)]
    for _ in range(rows):
        a = [draw.randint(0, 99) for _ in range(columns)]
        solver.Add(sum(c * x for c, x in zip(a, xs)) == sum(a) // 2)
    return solver


def random_lp(n=2500, k=60, seed=1):
    from ortools.linear_solver import pywraplp

    solver = pywraplp.Solver.CreateSolver("GLOP")
    draw = random.Random(seed)
    xs = [solver.NumVar(0, solver.infinity(), "") for _ in range(n)]
    for _ in range(n):
        solver.Add(solver.Sum([draw.random() * x for x in draw.sample(xs, k)])
                   <= 1 + draw.random())
    solver.Maximize(solver.Sum([draw.random() * x for x in xs]))
    return solver


def solver_threads() -> int:
    """How many of this process's threads are a solve of :func:`interrupts.solve`
    (named ``steady:KIND``; Linux's /proc), or -1 without /proc."""
    if not os.path.isdir("/proc/self/task"):
        return -1
    count = 0
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/comm") as comm:
                count += comm.read().startswith("steady:")
        except OSError:   # the thread ended meanwhile
            pass
    return count


def signal_soon(number=signal.SIGINT, after=0.3):
    """Send ``number`` to this process ``after`` seconds after the solve has started
    (its thread is there), so that the signal lands inside the solve however loaded
    the machine is (a timer from the call alone could fire before the solve started
    under load, and the solve then ran to its bound)."""
    def send():
        if solver_threads() >= 0:
            end = time.monotonic() + 120
            while not solver_threads():
                if time.monotonic() > end:   # no solve came: no stray signal later
                    return
                time.sleep(0.005)
        time.sleep(after)
        os.kill(os.getpid(), number)

    timer = threading.Thread(target=send, daemon=True)
    timer.start()
    return timer


def test_a_signal_stops_cp_sat_and_is_raised_after_it():
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_deterministic_time = 10.0   # about 40 s unstopped
    model = cpsat_model()
    signal_soon()
    with pytest.raises(KeyboardInterrupt):
        interrupts.solve_cpsat(solver, model)
    assert solver.response_proto.deterministic_time < 10.0
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_signal_stops_scip_and_is_raised_after_it():
    solver = market_split()
    signal_soon()
    with pytest.raises(KeyboardInterrupt):
        interrupts.solve_linear(solver, "limits/nodes = 200000\n")
    assert solver.nodes() < 200000


def test_a_signal_stops_glop():
    """GLOP stopped answers without an optimum (NOT_SOLVED); the handler in place (here
    one that does not raise) gets the signal after the solve."""
    from ortools.linear_solver import pywraplp

    got = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: got.append(signum))
    try:
        solver = random_lp()
        signal_soon(after=0.1)
        status = interrupts.solve_linear(solver)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert got == [signal.SIGINT]
    assert status != pywraplp.Solver.OPTIMAL


def test_sigterm_reaches_the_handler_in_place_after_the_solve():
    from ortools.sat.python import cp_model

    got = []

    def handler(signum, frame):
        got.append(signum)

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.max_deterministic_time = 10.0
        model = cpsat_model()
        signal_soon(signal.SIGTERM)
        status = interrupts.solve_cpsat(solver, model)   # the handler does not raise
        assert got == [signal.SIGTERM]
        assert solver.response_proto.deterministic_time < 10.0
        assert status in (cp_model.FEASIBLE, cp_model.UNKNOWN)
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_without_a_signal_the_answer_and_errors_come_through():
    assert interrupts.solve(lambda: 42, lambda: None) == 42
    with pytest.raises(ZeroDivisionError):
        interrupts.solve(lambda: 1 // 0, lambda: None)
    found = []
    thread = threading.Thread(target=lambda: found.append(
        interrupts.solve(lambda: threading.current_thread().name, lambda: None)))
    thread.start()
    thread.join()
    assert found == [thread.name]   # outside the main thread: called as it is


@pytest.mark.slow
def test_python_handler_is_back_at_the_c_level_after_cp_sat():
    """CP-SAT with its own SIGINT handler (catch_sigint_signal left on) sets SIG_DFL at
    the C level when it returns; after :func:`interrupts.solve` a Ctrl-C is Python's
    KeyboardInterrupt again, not a death by signal.  In a child process: a failure
    would kill pytest otherwise."""
    script = textwrap.dedent("""
        import os, signal, sys, time
        sys.path.insert(0, sys.argv[1])
        from test_interrupts import cpsat_model
        from ortools.sat.python import cp_model
        from steady import interrupts
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.max_deterministic_time = 0.05
        solver.parameters.catch_sigint_signal = True
        model = cpsat_model(20)
        interrupts.solve(lambda: solver.solve(model), solver.stop_search)
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.5)
        except KeyboardInterrupt:
            print("KeyboardInterrupt")
    """)
    here = os.path.dirname(os.path.abspath(__file__))
    proc = subprocess.run([sys.executable, "-c", script, here], capture_output=True,
                          text=True, timeout=120)
    assert (proc.returncode, proc.stdout) == (0, "KeyboardInterrupt\n"), proc.stderr
