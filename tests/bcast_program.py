"""The mpi4py program tests/test_mpi_bcast.py runs under mpiexec (not a test module):
``python bcast_program.py SCENARIO SCHEDULE [OTHER]``.  Every rank records what it saw;
rank 0 prints one JSON line: {"ranks": [per-rank records]}.

* ``exact``: random buffers of several sizes (sizes not divisible by the slices, tiny
  ones that fall back, several dtypes and layouts), the root's bytes checked on every
  rank; repeated calls (the plans built counted); the schedule given as a path, a
  Schedule object and a prepared one.
* ``mismatch``: calls whose arguments differ between ranks (buffer size, schedule
  OTHER, root, a read-only buffer on one rank, a root that is not the source, a
  schedule file one rank cannot read); each must raise on every rank, and a good call
  after each must still deliver.
"""

import json
import sys

import numpy as np
from mpi4py import MPI

import steady.mpi
from steady.schedule_file import Schedule

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()


def payload(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8)


def exact(path: str) -> dict:
    prepared = steady.mpi.prepare(path)
    root = prepared.rank_of[prepared.source]
    seen = {"calls": [], "plans_built": []}
    m = prepared.messages_per_period
    sizes = [0, 1, 1000, 4096, 65536 + 1, 100_003, 1 << 20 | 7]
    for n in sizes:
        want = payload(n, n)
        buf = want.copy() if rank == root else np.zeros(n, dtype=np.uint8)
        prepared.bcast(comm, buf, root)
        seen["calls"].append([n, prepared.slices_for(n), bool(np.array_equal(buf, want))])
    # explicit slices, not dividing the size
    for n, k in [(100_003, m + 1), (65_536 + 3, 7 * m), (5000, m)]:
        want = payload(n, k)
        buf = want.copy() if rank == root else np.zeros(n, dtype=np.uint8)
        prepared.bcast(comm, buf, root, slices=k)
        seen["calls"].append([n, k, bool(np.array_equal(buf, want))])
    # repeated calls of one size: the plans are built once
    n = 300_001
    for i in range(5):
        want = payload(n, 100 + i)
        buf = want.copy() if rank == root else np.zeros(n, dtype=np.uint8)
        prepared.bcast(comm, buf, root)
        seen["calls"].append([n, prepared.slices_for(n), bool(np.array_equal(buf, want))])
        seen["plans_built"].append(prepared.plans_built)
    # other buffers: a bytearray, a Fortran-ordered float array, a read-only root
    n = 200_000
    want = bytes(payload(n, 7))
    buf = bytearray(want) if rank == root else bytearray(n)
    steady.mpi.bcast(comm, buf, root, schedule=path)
    seen["calls"].append(["bytearray", n, buf == want])
    grid = np.asfortranarray(np.random.default_rng(8).random((300, 70)))
    buf = grid.copy(order="F") if rank == root else np.zeros((300, 70), order="F")
    steady.mpi.Bcast(comm, buf, root, schedule=Schedule.from_file(path))
    seen["calls"].append(["fortran", grid.nbytes, bool(np.array_equal(buf, grid))])
    buf = want if rank == root else bytearray(n)          # bytes: read-only at the root
    steady.mpi.bcast(comm, buf, root, schedule=prepared, slices=m)
    seen["calls"].append(["read-only root", n, buf == want])
    return seen


def attempt(call) -> str | None:
    """The error a call raised on this rank (its type and message), or None."""
    try:
        call()
    except (ValueError, TypeError) as exc:   # InputError is a ValueError
        return f"{'TypeError' if isinstance(exc, TypeError) else 'ValueError'}: {exc}"
    return None


def good_call(prepared, root) -> bool:
    n = 150_001
    want = payload(n, 3)
    buf = want.copy() if rank == root else np.zeros(n, dtype=np.uint8)
    prepared.bcast(comm, buf, root)
    return bool(np.array_equal(buf, want))


def mismatch(path: str, other: str) -> dict:
    prepared = steady.mpi.prepare(path)
    root = prepared.rank_of[prepared.source]
    seen = {}
    n = 100_000 + (rank == size - 1) * 8        # the last rank's buffer is larger
    buf = np.zeros(n, dtype=np.uint8)
    seen["size"] = [attempt(lambda: prepared.bcast(comm, buf, root)),
                    good_call(prepared, root)]
    mine = steady.mpi.prepare(other if rank == 1 else path)
    buf = np.zeros(100_000, dtype=np.uint8)
    seen["schedule"] = [attempt(lambda: mine.bcast(comm, buf, root)),
                        good_call(prepared, root)]
    wrong = (root + 1) % size if rank == 0 else root
    seen["root"] = [attempt(lambda: prepared.bcast(comm, buf, wrong)),
                    good_call(prepared, root)]
    ro = bytes(100_000) if rank == size - 1 and rank != root else buf
    seen["read-only"] = [attempt(lambda: prepared.bcast(comm, ro, root)),
                         good_call(prepared, root)]
    seen["not the source"] = [attempt(lambda: prepared.bcast(comm, buf,
                                                             (root + 1) % size)),
                              good_call(prepared, root)]
    seen["slices"] = [attempt(lambda: prepared.bcast(comm, buf, root,
                                                     slices=prepared.messages_per_period
                                                     + (rank == 0))),
                      good_call(prepared, root)]
    mine = path + ".missing" if rank == 2 else path     # rank 2 cannot read its file
    seen["missing file"] = [attempt(lambda: steady.mpi.bcast(comm, buf, root,
                                                             schedule=mine)),
                            good_call(prepared, root)]
    return seen


def main():
    scenario, path = sys.argv[1], sys.argv[2]
    seen = exact(path) if scenario == "exact" else mismatch(path, sys.argv[3])
    seen["rank"] = rank
    everyone = comm.gather(seen, root=0)
    if rank == 0:
        print(json.dumps({"ranks": everyone}))


if __name__ == "__main__":
    main()
