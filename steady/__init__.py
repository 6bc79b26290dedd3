"""steady: optimal steady-state broadcast on heterogeneous platforms (one-port model).

The doors (README, "From Python"): ``steady.throughput.throughput`` (the exact optimum),
:func:`check` (its certificate re-checked), :func:`optimal_schedule`,
:func:`timed_schedule` / :func:`timed_timetable` (short periods), ``steady.verify.verify``
(the independent checker), :func:`horizon_choice` (a finite horizon and its plan),
:func:`collective_throughput` (collectives on switched fabrics).

The names below are loaded on first use (PEP 562), so that ``import steady`` itself is
instant: the command line's guard then covers every module it loads, and a Ctrl-C at
start-up ends with exit code 130, not a traceback (issue 18 F06)."""

import importlib

__all__ = ["InputError", "Link", "Platform", "default_platform", "Schedule", "check",
           "tree_throughput", "dag_throughput", "optimal_schedule", "timed_schedule",
           "timed_timetable", "horizon_choice", "collective_throughput",
           "check_collective"]
__version__ = "0.1.0"

#: Where each name lives.  The exact throughput itself is ``steady.throughput.throughput``
#: and the checker ``steady.verify.verify``: a package attribute of the same name as a
#: subpackage (steady.throughput, steady.verify) would be replaced by the subpackage as
#: soon as it is imported, so those two are not re-exported here.
_HOME = {"InputError": "errors", "Link": "platform", "Platform": "platform",
         "default_platform": "platform", "Schedule": "schedule_file",
         "check": "certificate", "check_collective": "certificate",
         "tree_throughput": "throughput", "dag_throughput": "throughput",
         "collective_throughput": "throughput", "optimal_schedule": "schedule",
         "timed_schedule": "schedule", "timed_timetable": "schedule",
         "horizon_choice": "simulate"}


def __getattr__(name):
    if name in _HOME:
        value = getattr(importlib.import_module(f".{_HOME[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'steady' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
