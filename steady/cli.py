"""The console entry point ``steady`` (pyproject's ``[project.scripts]``) and ``python -m
steady``; the command line itself is :mod:`steady.commands`.

The signal handlers come first (:mod:`steady.interrupts`, standard library only), and
the command modules are imported after them, under the same guard: Ctrl-C, SIGTERM or
SIGHUP while they load (numpy, networkx: the first half second) ends with "steady:
interrupted" and exit code 130, as everywhere else -- even when the library being
imported turns the KeyboardInterrupt into an error of its own (issue 18 F06, issue
42).  As the process's entry (no ``argv``), the exit code passes through
:func:`steady.interrupts.finish`: a signal during Python's shutdown, after the output
is complete, is not a death without a word."""

import sys

from . import interrupts


def main(argv=None) -> int:
    """Run one ``steady`` command; returns its exit code (see :mod:`steady.commands`).
    ``argv`` None: the process's own command line (the entry point), whose handlers
    stay to the end (:func:`steady.interrupts.finish`); a list: a command run
    in-process (tests), whose handlers are put back after it."""
    process = argv is None
    with interrupts.command_signals(restore=not process):
        if process:
            interrupts.guard_extension_imports()
        try:
            code = _command(argv)
        except KeyboardInterrupt:
            code = interrupts.interrupted()
        except BaseException:
            if not interrupts.received():
                raise
            code = interrupts.interrupted()
    return interrupts.finish(code) if process else code


def _command(argv) -> int:
    from .commands import main as run

    return run(argv)


def build_parser():
    """The ``steady`` argument parser (:func:`steady.commands.build_parser`)."""
    from .commands import build_parser as build

    return build()


__all__ = ["build_parser", "main"]
