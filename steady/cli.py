"""The console entry point ``steady`` (pyproject's ``[project.scripts]``); the command
line itself is :mod:`steady.commands`.

The command modules are imported inside :func:`main`, under its guard: a Ctrl-C while
they load (the first tenth of a second) ends with "steady: interrupted" and exit code
130, as everywhere else, not with Python's traceback (issue 18 F06)."""

import sys


def main(argv=None) -> int:
    """Run one ``steady`` command; returns its exit code (see :mod:`steady.commands`)."""
    try:
        from .commands import main as run
    except KeyboardInterrupt:
        print("steady: interrupted", file=sys.stderr)
        return 130
    return run(argv)


def build_parser():
    """The ``steady`` argument parser (:func:`steady.commands.build_parser`)."""
    from .commands import build_parser as build

    return build()


__all__ = ["build_parser", "main"]
