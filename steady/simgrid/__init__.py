"""SimGrid on the side of steady's pipeline (issue 19; ours): it produces platforms and
consumes schedules, through SimGrid's own Python bindings, found at run time
(:mod:`.locate`) and run in a child process (:mod:`._worker`):

- :mod:`.importer`: ``steady import simgrid`` -- a SimGrid platform file as a
  steady-platform with its network section (exact numbers: :mod:`.xmlinfo`,
  :mod:`.units`);
- :mod:`.replay`: ``steady replay`` -- a schedule run in SimGrid, simulated against
  predicted period and throughput.
"""

#: The package's modules (imported on use: importing the package imports none).
__all__ = ["importer", "locate", "replay", "units", "xmlinfo"]
