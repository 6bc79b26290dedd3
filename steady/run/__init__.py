"""Running a schedule for real (issue 20): an MPI program that executes the finite-horizon
plan of any steady schedule with real messages, checks their delivery on every rank and
measures the throughput it reaches; and platforms calibrated by MPI ping-pong.  At the
end of the pipeline: it consumes schedule files only.

- the plan it runs is :mod:`steady.simulate.plan`'s (what ``steady simulate`` counts; a
  steady-plan file, or :func:`steady.simulate.choose.broadcast_plan` of a schedule);
- :mod:`.baselines`: K x MPI_Bcast (MPICH's binomial tree) and a pipelined chain, as
  plans for the same engine;
- :mod:`.payload`: messages with a sequence number and a checksum;
- :mod:`.engine`: one rank's event loop (real time, emulated port costs);
- :mod:`.session`: clocks, start, gathering, the deadline; :mod:`.job`: ``steady run``
  on every rank; :mod:`.report`: measured against predicted, the trace document;
- :mod:`.bcast` (public as :mod:`steady.mpi`): ``steady.mpi.bcast``, the plan on slices
  of an mpi4py program's own buffer; :mod:`.pipeline`: one rank's part of it;
- :mod:`.calibrate`: ``steady calibrate``; :mod:`.launch`: ``--launch`` (mpiexec);
  :mod:`.gantt`: ``steady show --trace``; :mod:`.units`: sizes and durations;
- :mod:`.mpi`: the one door to mpi4py (nothing else in steady imports it).

Importing this package does not import mpi4py (nor initialise MPI).
"""

#: The package's modules (imported on use: importing the package imports none).
__all__ = ["baselines", "bcast", "calibrate", "engine", "gantt", "job", "launch", "mpi", "payload", "pipeline", "report", "session", "units"]
