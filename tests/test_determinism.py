"""The same command gives the same bytes at any load (issue 41): every search of the
short periods and of the finite horizon is bounded by work, never by time."""

import os
import subprocess
import sys
import time

import pytest

from helpers import sample
from steady.generators import mesh_platform
from steady.topologies import switched_cluster

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _steady(*argv) -> bytes:
    done = subprocess.run([sys.executable, "-m", "steady", *map(str, argv)],
                          capture_output=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout


def _hogs(n: int):
    """``n`` processes that keep a core busy until killed."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


@pytest.mark.slow
def test_same_bytes_with_both_cores_busy(tmp_path):
    """steady schedule --max-messages, steady simulate (thorough effort on a 9-node
    mesh whose deep search runs the cut-count MILP (SCIP) and CP-SAT's port-order
    search) and a collective's timetable built from blocks (CP-SAT: multi-port cluster
    seed 2) write the same files, quiet and with every core busy."""
    cluster = tmp_path / "cluster-2.json"
    switched_cluster(2).write(str(cluster))
    mesh = tmp_path / "mesh-9-2.json"
    mesh_platform(9, seed=2).write(str(mesh))
    commands = [("schedule", sample("random-30.json"), "--max-messages", "24", "-o"),
                ("simulate", mesh, "--horizon", "2000", "--effort",
                 "thorough", "--quiet", "--json", "--plan"),
                ("schedule", cluster, "--collective", "allgather", "--max-messages", "64",
                 "-o")]
    quiet = []
    for i, argv in enumerate(commands):
        out = tmp_path / f"quiet{i}.json"
        quiet.append((_steady(*argv, out), out.read_bytes()))
    hogs = _hogs(2 * (os.cpu_count() or 2))
    try:
        time.sleep(0.5)
        for i, argv in enumerate(commands):
            out = tmp_path / f"busy{i}.json"
            stdout = _steady(*argv, out)
            assert out.read_bytes() == quiet[i][1]
            if argv[0] == "simulate":
                assert stdout == quiet[i][0]
    finally:
        for hog in hogs:
            hog.kill()
