"""The signal contract of docs/cli.md at random moments (issue 42): Ctrl-C, SIGTERM or
SIGHUP stops ``steady`` with exit code 130 and the one line "steady: interrupted" --
during its start-up (imports), inside each kind of solver (CP-SAT, SCIP, GLOP: each
call runs in a thread named ``steady:KIND``, steady.interrupts.solve), while it writes
its file and during its teardown -- and files are complete or absent.

A signal sent after the command has finished (its output flushed, Python shutting down)
is ignored: the command's own exit code stands, with its complete output.

Each example starts ``steady`` in a child process, waits for the moment (steady's
handlers installed: /proc's SigCgt; a solver's thread: /proc's task names), sleeps a
random delay, sends a random signal.  Needs Linux's /proc."""

import glob
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from helpers import examples

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
STOPS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

pytestmark = [pytest.mark.skipif(not os.path.exists("/proc/self/task"),
                                 reason="needs Linux's /proc")]


def steady(*argv, cwd):
    return subprocess.Popen([sys.executable, "-m", "steady", *map(str, argv)], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def handlers_installed(pid) -> bool:
    """SIGTERM caught: steady's handlers are in (Python alone leaves it default)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) >> (signal.SIGTERM - 1) & 1)
    except OSError:
        pass
    return False


def thread_names(pid) -> set:
    names = set()
    for path in glob.glob(f"/proc/{pid}/task/*/comm"):
        try:
            names.add(Path(path).read_text().strip())
        except OSError:
            pass
    return names


def wait_for(proc, ready, limit=120.0) -> bool:
    """Poll until ``ready(pid)``; False when the process ended first."""
    end = time.monotonic() + limit
    while proc.poll() is None and time.monotonic() < end:
        if ready(proc.pid):
            return True
        time.sleep(0.005)
    return False


def in_solver(kind):
    return lambda pid: f"steady:{kind}" in thread_names(pid)


def platform_120(folder: Path) -> Path:
    """A random 120-node platform whose best tree CP-SAT searches until its time
    limit (10 s here: 1.6 s of start, then CP-SAT)."""
    from steady.generators import random_platform

    path = folder / "r120.json"
    if not path.exists():
        random_platform(120, 0.1, seed=1).write(path)
    return path


# scenario -> (argv, moment to wait for, largest random delay after it in seconds)
SCENARIOS = {
    "start-up": (["throughput", SAMPLES / "random-50.json", "--method", "flow"],
                 handlers_installed, 0.8),
    "cp-sat": (["heuristics", "R120", "--best-tree", "30"], in_solver("cp-sat"), 1.0),
    # thorough: SCIP rounds over the cuts for a minute (random-30 at M = 10 now ends
    # within 0.5 s of its first SCIP call, before the signal)
    "scip": (["schedule", SAMPLES / "random-50.json", "--max-messages", "30", "--effort",
              "thorough"], in_solver("scip"), 0.5),
    "glop": (["throughput", SAMPLES / "random-50.json", "--method", "flow"],
             in_solver("glop"), 1.0),
    # the exact schedule of a 65-node mesh (a 1.2 MB file): the work, the write, the
    # teardown, and after the end
    "write and teardown": (["schedule", SAMPLES / "mesh-65.json", "-o", "F.json",
                            "--quiet"], handlers_installed, 1.5),
    # matplotlib drawing (a KeyboardInterrupt inside it came out as its traceback)
    "gantt": (["show", "S10", "--gantt", "F.png"], handlers_installed, 2.0),
}
#: The scenarios whose command may end before the signal (then it ends as it would).
MAY_END = ("write and teardown", "gantt")


def schedule_10(folder: Path) -> Path:
    """The exact schedule of samples/random-10.json, for show --gantt."""
    from steady.platform import Platform
    from steady.schedule.periodic import optimal_schedule
    from steady.throughput import throughput

    path = folder / "s10.json"
    if not path.exists():
        platform = Platform.from_file(SAMPLES / "random-10.json")
        optimal_schedule(platform, throughput(platform, "trees"))[0].write(path)
    return path


def check_files(folder: Path) -> None:
    """Complete or absent: F.json parses, F.png is a whole PNG, and no temporary file
    is left."""
    assert not list(folder.glob(".F.*")), list(folder.iterdir())
    if (folder / "F.json").exists():
        json.loads((folder / "F.json").read_text())
    if (folder / "F.png").exists():
        assert (folder / "F.png").read_bytes().endswith(b"IEND\xaeB`\x82")


@pytest.mark.slow
@settings(max_examples=examples(18), deadline=None)
@given(scenario=st.sampled_from(sorted(SCENARIOS)), number=st.sampled_from(STOPS),
       fraction=st.floats(0, 1))
def test_a_signal_at_a_random_moment_is_answered(tmp_path_factory, scenario, number,
                                                 fraction):
    folder = tmp_path_factory.mktemp("signal")
    argv, moment, most = SCENARIOS[scenario]
    argv = [platform_120(folder) if a == "R120" else schedule_10(folder) if a == "S10"
            else a for a in argv]
    proc = steady(*argv, cwd=folder)
    try:
        reached = wait_for(proc, moment)
        time.sleep(fraction * most)
        sent = proc.poll() is None
        if sent:
            proc.send_signal(number)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    if scenario not in MAY_END:
        assert reached and sent, (scenario, proc.returncode, err)
    check_files(folder)
    if proc.returncode == 130:
        assert err == "steady: interrupted\n"
        return
    # only the teardown (or a process already gone) may end as the command did
    assert scenario in MAY_END, (scenario, proc.returncode, err)
    assert (proc.returncode, err) == (0, "")
    assert (folder / ("F.json" if scenario == "write and teardown" else "F.png")).exists()


def test_sigterm_during_start_up_is_one_line(tmp_path):
    """The imports (numpy, networkx) take the first half second: SIGTERM there is the
    one line and 130, not a death by signal nor a library's traceback."""
    proc = steady("throughput", SAMPLES / "random-50.json", "--method", "flow",
                  cwd=tmp_path)
    assert wait_for(proc, handlers_installed)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert (proc.returncode, err) == (130, "steady: interrupted\n")
