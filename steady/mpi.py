"""steady's broadcast for mpi4py programs (issue 44, item 4), in a program run by
``mpiexec`` (the caller imports mpi4py; this module does not)::

    >>> import numpy as np, steady.mpi
    >>> from mpi4py import MPI
    >>> buffer = np.empty(1 << 24, dtype=np.uint8)    # the root fills it
    >>> steady.mpi.bcast(MPI.COMM_WORLD, buffer, 0, schedule="s.json")

The ranks execute the schedule's plan (the one ``steady run`` executes) on slices of
the buffer; in a loop, prepare the schedule once (``prepare``): the plans are then
kept.  See :mod:`steady.run.bcast` and docs/mpi.md.
"""

from .run.bcast import (FALLBACK_BYTES, MAX_SLICES, STARTUP_BYTES, PreparedBcast, bcast,
                        prepare)

#: mpi4py's spelling of a broadcast of a buffer (``Comm.Bcast``): the same call.
Bcast = bcast

__all__ = ["bcast", "Bcast", "prepare", "PreparedBcast", "FALLBACK_BYTES",
           "STARTUP_BYTES", "MAX_SLICES"]
