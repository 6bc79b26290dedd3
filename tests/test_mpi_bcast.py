"""steady.mpi.bcast (issue 44, item 4): the plan is the one ``steady run`` executes; the
choice of slices; every rank's part of a plan delivers the root's exact bytes and cannot
deadlock (simulated in-process, a property); and real MPI jobs (tests/bcast_program.py
under mpiexec, 2 to 16 ranks): every rank ends with the root's bytes, repeated calls
reuse the plans, mismatched calls raise on every rank instead of hanging.  The MPI
tests are skipped without mpi4py."""

import json
import os
import subprocess
import sys
from collections import deque
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import assume, given, settings

from helpers import examples
from hypothesis import strategies as st

from steady.errors import InputError
from steady.generators import mesh_platform, random_platform
from steady.platform import Platform
from steady.run.bcast import MAX_SLICES, PreparedBcast, byte_view, prepare
from steady.run.job import read_plan
from steady.run.pipeline import rank_part
from steady.schedule.periodic import optimal_schedule
from steady.schedule.timed import timed_schedule
from steady.simulate.choose import broadcast_plan
from steady.strategies import platforms, schedules
from steady.throughput import throughput

HERE = Path(__file__).resolve().parent
SAMPLES = HERE.parent / "samples"
PROGRAM = HERE / "bcast_program.py"


def figure1_schedule(path):
    platform = Platform.from_file(SAMPLES / "figure1.json")
    optimal_schedule(platform, throughput(platform, "trees"))[0].write(path)
    return path


def timed_file(platform, m, path):
    timed_schedule(platform, throughput(platform, "trees"), m)[0].write(path)
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bcast")
    two = Platform.from_dict({"format": "steady-platform", "version": 1, "source": "A",
                              "links": [{"from": "A", "to": "B", "cost": "1"}]})
    return {"figure1": figure1_schedule(folder / "figure1.json"),
            "figure1-m1": timed_file(Platform.from_file(SAMPLES / "figure1.json"), 1,
                                     folder / "figure1-m1.json"),
            "random-10": timed_file(Platform.from_file(SAMPLES / "random-10.json"), 3,
                                    folder / "random-10.json"),
            2: timed_file(two, 1, folder / "two.json"),
            3: timed_file(random_platform(3, 0.6, seed=1), 2, folder / "three.json"),
            8: timed_file(mesh_platform(8, seed=2), 2, folder / "mesh-8.json"),
            16: timed_file(mesh_platform(16, seed=0), 1, folder / "mesh-16.json")}


# -- in-process: the plan, the slices, the parts --------------------------------------

@pytest.mark.parametrize("name, ks", [("figure1", [2, 3, 8, 64]),
                                      ("random-10", [3, 7, 48])])
def test_the_plan_is_the_one_steady_run_executes(files, name, ks):
    prepared = prepare(files[name])
    for k in ks:
        assert prepared.plan(k) == read_plan(files[name], k)[0]
    assert prepared.plans_built == len(ks)
    prepared.plan(ks[0])
    assert prepared.plans_built == len(ks)     # kept


def test_a_plan_file_runs_with_its_own_broadcasts(files, tmp_path):
    plan = read_plan(files["figure1"], 6)[0]
    path = tmp_path / "plan.json"
    path.write_text(plan.to_json())
    prepared = prepare(path)
    assert prepared.slices_for(10 ** 6) == 6 and prepared.slices_for(10) == 0
    with pytest.raises(InputError, match="slices"):
        prepared._check_slices(8, 10 ** 6)


@pytest.mark.parametrize("name", ["figure1", "random-10"])
def test_the_slices_minimise_the_model_over_the_whole_ladder(files, name):
    """Seed 004 §4.2's choice, the plan's makespan for (X + H - 1): the ladder may stop
    at the first rise only because the product has one minimum."""
    prepared = prepare(files[name], startup_bytes=64 * 1024)
    m = prepared.messages_per_period
    for n in [m, 70_000, 10 ** 6, 2 ** 24 + 3, 2 ** 26]:
        k = prepared.slices_for(n)
        if n < prepared.fallback_bytes:
            assert k == 0
            continue
        ladder = [m << j for j in range(12) if m << j <= min(MAX_SLICES, n)]
        costs = [prepared.plan(x).makespan_time * (prepared.startup_bytes + Fraction(n, x))
                 for x in ladder]
        assert k == ladder[costs.index(min(costs))]
    assert prepared.slices_for(2 ** 26) > prepared.slices_for(10 ** 6)   # not constant


def test_fallback_below_the_threshold_and_below_one_byte_a_slice(files):
    prepared = prepare(files["random-10"], fallback_bytes=0)
    assert prepared.slices_for(2) == 0 and prepared.slices_for(3) == 3   # M = 3
    prepared = prepare(files["random-10"])
    assert prepared.slices_for(prepared.fallback_bytes - 1) == 0
    assert prepared.slices_for(prepared.fallback_bytes) >= 3


def simulate(plan, rank_of, nbytes, root_bytes):
    """Every rank's part run in-process: sends are queued on (sender, receiver)
    channels in the order posted (MPI's order between two ranks), each rank counts
    its receives in port order and starts a send once its ``ready`` count is reached.
    Returns each rank's buffer; fails on a deadlock or a receive of the wrong size."""
    ranks = len(plan.nodes)
    node_of = {r: v for v, r in enumerate(rank_of)}
    parts = [rank_part(plan, node_of[r], rank_of, nbytes) for r in range(ranks)]
    root = rank_of[plan.source]
    buffers = [bytearray(root_bytes) if r == root else bytearray(nbytes)
               for r in range(ranks)]
    channels = {}
    got, sent = [0] * ranks, [0] * ranks
    while True:
        moved = False
        for r, part in enumerate(parts):
            while sent[r] < len(part.sends) and part.ready[sent[r]] <= got[r]:
                peer, lo, hi = part.sends[sent[r]]
                channels.setdefault((r, peer), deque()).append(bytes(buffers[r][lo:hi]))
                sent[r] += 1
                moved = True
            while got[r] < len(part.receives):
                peer, lo, hi = part.receives[got[r]]
                queue = channels.get((peer, r))
                if not queue:
                    break
                data = queue.popleft()
                assert len(data) == hi - lo
                if r != root:
                    buffers[r][lo:hi] = data
                else:
                    assert data == root_bytes[lo:hi]
                got[r] += 1
                moved = True
        if not moved:
            break
    assert all(g == len(p.receives) for g, p in zip(got, parts)), "deadlock"
    assert all(s == len(p.sends) for s, p in zip(sent, parts)), "deadlock"
    assert not any(channels.values()), "unmatched messages"
    return buffers


@settings(max_examples=examples(40))
@given(schedules(platforms(max_nodes=6)), st.data())
def test_every_rank_ends_with_the_roots_bytes_without_deadlock(schedule, data):
    """proofs/bcast-slices.md: ranges tile the buffer, channel orders match, waits go to
    earlier planned starts (no cycle), for any plan of any schedule, any size and K."""
    m = schedule.messages_per_period
    assume(m <= 100)                       # (timed schedules may hold thousands)
    k = data.draw(st.integers(m, 3 * m + 4), label="K")
    n = data.draw(st.integers(k, 3000), label="bytes")
    plan = broadcast_plan(schedule, k)
    ranks = len(plan.nodes)
    rank_of = data.draw(st.permutations(range(ranks)), label="map")
    root_bytes = bytes(data.draw(st.binary(min_size=n, max_size=n), label="root's bytes"))
    for buffer in simulate(plan, list(rank_of), n, root_bytes):
        assert buffer == root_bytes


def test_the_postcondition_catches_a_slice_received_twice(files):
    plan = read_plan(files["figure1"], 4)[0]
    twice = plan.transfers + (plan.transfers[0]._replace(id=len(plan.transfers)),)
    with pytest.raises(AssertionError, match="twice"):
        rank_part(plan.__class__(plan.name, plan.nodes, plan.source, plan.broadcasts,
                                 plan.unit, twice, plan.makespan),
                  plan.transfers[0].head, list(range(5)), 1000)


def test_buffers_as_bytes():
    import numpy as np

    assert byte_view(bytearray(b"abc"), True).tobytes() == b"abc"
    f = np.asfortranarray(np.arange(12, dtype=np.int32).reshape(3, 4))
    assert len(byte_view(f, True)) == 48
    assert bytes(byte_view(f, True)) == f.tobytes(order="F")
    with pytest.raises(TypeError, match="read-only"):
        byte_view(b"abc", True)
    assert byte_view(b"abc", False).tobytes() == b"abc"     # the root only sends
    with pytest.raises(TypeError, match="not contiguous"):
        byte_view(np.arange(10)[::2], True)
    with pytest.raises(TypeError, match="buffer itself"):
        byte_view([np.zeros(3), "d"], True)
    with pytest.raises(TypeError, match="contiguous buffer"):
        byte_view(3.5, True)


def test_bad_arguments_name_themselves(files, tmp_path):
    with pytest.raises(TypeError, match="schedule"):
        prepare(3)
    with pytest.raises(InputError, match="map"):
        prepare(files["figure1"], map=["Ps", "P1", "P2", "P3", "Nope"])
    with pytest.raises(InputError, match="fallback_bytes"):
        prepare(files["figure1"], fallback_bytes=-1)
    prepared = prepare(files["figure1"], map={"Ps": 4, "P1": 3, "P2": 2, "P3": 1, "P4": 0})
    assert prepared.rank_of == [4, 3, 2, 1, 0]
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "steady-schedule", "version": 2}')
    with pytest.raises(InputError, match="bad.json"):
        prepare(bad)
    assert isinstance(prepare(prepared), PreparedBcast)


# -- under mpiexec -------------------------------------------------------------------

def mpiexec(ranks: int, *argv, timeout=240):
    pytest.importorskip("mpi4py")
    from steady.run.launch import OVERSUBSCRIBED, cores, mpiexec_path

    env = dict(os.environ)
    if ranks > cores():
        env.update(OVERSUBSCRIBED)
    done = subprocess.run([mpiexec_path(), "-n", str(ranks), sys.executable, str(PROGRAM),
                           *map(str, argv)], capture_output=True, text=True,
                          timeout=timeout, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])["ranks"]


def check_exact(ranks, seen):
    assert [s["rank"] for s in seen] == list(range(ranks))
    for s in seen:
        assert s["calls"] and all(call[-1] is True for call in s["calls"]), s["calls"]
        built = s["plans_built"]
        assert built == [built[0]] * 5      # repeated calls: no planning
    calls = seen[0]["calls"]
    sizes = {c[0]: c[1] for c in calls[:7]}
    assert sizes[0] == sizes[1] == sizes[1000] == 0    # tiny: comm.Bcast
    assert sizes[1 << 20 | 7] > 0                      # pipelined


@pytest.mark.parametrize("ranks", [2, 3, 5])
def test_every_rank_gets_the_roots_bytes(files, ranks):
    path = files["figure1"] if ranks == 5 else files[ranks]
    check_exact(ranks, mpiexec(ranks, "exact", path))


@pytest.mark.slow
@pytest.mark.parametrize("ranks", [8, 10, 16])
def test_every_rank_gets_the_roots_bytes_on_many_ranks(files, ranks):
    path = files["random-10"] if ranks == 10 else files[ranks]
    check_exact(ranks, mpiexec(ranks, "exact", path))


@pytest.mark.slow
def test_mismatched_calls_raise_on_every_rank_instead_of_hanging(files):
    seen = mpiexec(5, "mismatch", files["figure1"], files["figure1-m1"])
    expected = {"size": "buffer", "schedule": "schedule", "root": "root",
                "read-only": "arguments", "not the source": "root", "slices": "slices",
                "missing file": "arguments"}
    for s in seen:
        for case, element in expected.items():
            error, then_good = s[case]
            assert error is not None, (s["rank"], case)
            assert then_good is True                     # the next call still works
            if case == "read-only" and s["rank"] == 4:
                assert error.startswith("TypeError") and "read-only" in error
            elif case == "missing file" and s["rank"] == 2:
                assert error.startswith("ValueError") and ".missing" in error, error
            else:
                assert error.startswith("ValueError") and f": {element}: " in error, error


@pytest.mark.slow
def test_the_docs_example_program_runs(files, tmp_path):
    """docs/mpi.md's program, as printed there, under mpiexec on 5 ranks."""
    import re

    pytest.importorskip("mpi4py")
    from steady.run.launch import OVERSUBSCRIBED, mpiexec_path

    page = (HERE.parent / "docs" / "mpi.md").read_text(encoding="utf-8")
    program = next(b for b in re.findall(r"^```python\n(.*?)^```", page, re.S | re.M)
                   if b.startswith("# bcast_demo.py"))
    (tmp_path / "bcast_demo.py").write_text(program)
    done = subprocess.run([mpiexec_path(), "-n", "5", sys.executable, "bcast_demo.py",
                           str(files["figure1"])], capture_output=True, text=True,
                          timeout=240, cwd=tmp_path, env={**os.environ, **OVERSUBSCRIBED})
    assert done.returncode == 0, done.stderr[-3000:]
    prepared = prepare(files["figure1"])
    k = prepared.slices_for(8 * 2 ** 20)
    line = (f"10 broadcasts of {8 * 2 ** 20} bytes, {k} slices, {prepared.plans_built} "
            "plans built")
    assert done.stdout.strip() == line
    assert line in page                        # the page shows what the program prints


def test_a_collective_schedule_is_refused_by_prepare():
    """qa43: an allgather's timetable on random-10 (one-port, no switches) was accepted
    and its plan for K broadcasts failed the unroller's postcondition ("P2 forwards
    message 0 of tree 2 before it is received"); steady.mpi.bcast runs broadcasts."""
    from steady.schedule.collective import collective_schedule
    from steady.throughput import collective_throughput

    platform = Platform.from_file(Path(__file__).resolve().parent.parent / "samples"
                                  / "random-10.json")
    schedule, _ = collective_schedule(platform, collective_throughput(platform, "allgather"),
                                      2, "fast")
    with pytest.raises(InputError) as info:
        prepare(schedule)
    assert info.value.element == "collective"
    assert "steady.mpi.bcast runs a broadcast schedule" in info.value.reason
