"""The ``steady`` command line (docs/cli.md): one parser, its commands wired by the
modules of this package, one per seed system.

- :mod:`.core`: seed 002's pipeline (throughput, schedule, verify, show, pipe, simulate);
- :mod:`.heuristics` (seed 000), :mod:`.grid` (001), :mod:`.ethernet` (004): their
  commands, and their campaigns under ``steady experiment``.

The command modules hold argparse wiring and presentation only and import what a
command computes when it runs, so building the parser stays cheap (``steady --help``).
Exit codes: 0 success, 1 a check failed, 2 bad input or usage, 130 interrupted (Ctrl-C,
SIGTERM or SIGHUP).  A user error is one line on stderr naming the file, the element and the
reason, never a traceback (docs/cli.md); the limits that remain are in docs/limits.md.
"""

from __future__ import annotations

import argparse
import os
import sys

from .. import __version__, interrupts
from ..errors import InputError
from ..numbers import MAX_TEXT_DIGITS, many_digits
from .options import SteadyParser
from . import core, ethernet, grid, heuristics, mpi, runtimes, simgrid, timed

#: The modules that wire commands, in the order ``steady --help`` lists them.
SYSTEMS = (core, timed, mpi, simgrid, runtimes, heuristics, grid, ethernet)
#: The modules that wire campaigns under ``steady experiment``.
CAMPAIGNS = (heuristics, grid, ethernet)


def build_parser() -> argparse.ArgumentParser:
    """The ``steady`` parser with every command and campaign."""
    parser = SteadyParser(
        prog="steady", description="Optimal steady-state broadcast on heterogeneous "
                                   "platforms (one-port model): exact and certified.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"steady {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for system in SYSTEMS:
        system.add_commands(sub)
    ex = sub.add_parser("experiment", help="run a campaign reproducing a paper's tables "
                        "and figures (CSV + plots)")
    campaigns = ex.add_subparsers(dest="campaign", required=True, metavar="CAMPAIGN")
    for system in CAMPAIGNS:
        system.add_experiments(campaigns)
    return parser


EPILOG = """\
papers (README, "Reproducing the seed papers"): 002 Legrand, Beaumont, Marchal,
  Robert, steady-state broadcasts (the core); 000 pipelined broadcast trees; 001
  grid-aware broadcast; 004 pipelined broadcast on Ethernet clusters. "002 §5.2"
  names a section of paper 002. Words and symbols: docs/glossary.md.

exit codes:
  0    success (verify: the schedule is valid)
  1    a check failed (verify found violations, a schedule was rejected, ...)
  2    bad input or usage, an input beyond docs/limits.md included: one line on
       stderr naming the file, the element and the reason (docs/cli.md)
  130  interrupted (Ctrl-C, SIGTERM or SIGHUP): output files are complete or absent"""


def main(argv=None) -> int:
    """Run one ``steady`` command; returns its exit code."""
    parser = build_parser()
    try:
        # results may be longer than any input: MAX_TEXT_DIGITS for the whole command
        with interrupts.command_signals(), many_digits():
            try:
                args = parser.parse_args(argv)
            except SystemExit as exc:  # --help, --version, or a usage error (printed)
                return exc.code if isinstance(exc.code, int) else int(exc.code is not None)
            if args.command is None:  # plain `steady`: the help, not an error
                parser.print_help()
                return 0
            code = _named(args)
            # a library that swallowed the KeyboardInterrupt (or turned it into an
            # answer) does not make an interrupted command a success
            if interrupts.received() and code != interrupts.EXIT_CODE:
                return interrupts.interrupted()
            return code
    except KeyboardInterrupt:  # a signal while the handlers are put back: still 130
        return interrupts.interrupted()


#: The attributes that name a subcommand (``steady experiment stp``, ...).
_SUBCOMMANDS = ("command", "campaign", "grid_command", "ethernet_command", "runtime", "kind")


def _named(args) -> int:
    """:func:`_run`, the progress lines naming the command (``steady experiment stp``)."""
    from ..progress import set_command

    set_command(" ".join(["steady"] + [str(getattr(args, a)) for a in _SUBCOMMANDS
                                       if getattr(args, a, None)]))
    try:
        return _run(args)
    finally:
        set_command("steady")     # commands run in-process too (tests, docs/figures.py)


def _run(args) -> int:
    try:
        return args.run(args)
    except KeyboardInterrupt:
        return interrupts.interrupted()
    except BaseException as exc:
        # after Ctrl-C, SIGTERM or SIGHUP, whatever a library made of the
        # KeyboardInterrupt (an ImportError, a RuntimeError, a plotting error) is the
        # interruption (docs/cli.md): one line, exit code 130
        if interrupts.received():
            return interrupts.interrupted()
        code = _failed(args, exc)
        if code is None:
            raise
        return code


def _failed(args, exc) -> int | None:
    """The exit code of a command that raised ``exc``; None when it is not ours."""
    if isinstance(exc, InputError):
        if exc.origin == "<platform>" and isinstance(getattr(args, "platform", None), str):
            # the library names a Platform object it was given; here it is a file
            exc = InputError(args.platform, exc.element, exc.reason)
        if not interrupts.other_rank():   # under mpiexec, rank 0 says it for all
            print(f"steady: {exc}", file=sys.stderr)
        return 2
    if isinstance(exc, BrokenPipeError):  # e.g. `steady show FILE | head`: the reader left
        sys.stdout = open(os.devnull, "w")
        return 0
    if isinstance(exc, MemoryError):
        print("steady: out of memory: the input is too large for this machine (the "
              "limits are in docs/limits.md)", file=sys.stderr)
        return 2
    if isinstance(exc, ValueError) and "integer string conversion" in str(exc):
        # The last guard of docs/limits.md: a number whose text would exceed
        # MAX_TEXT_DIGITS digits (Python refuses the int <-> str conversion).
        print(f"steady: a number has more than {MAX_TEXT_DIGITS} digits, the most steady "
              "converts to or from text (docs/limits.md)", file=sys.stderr)
        return 2
    return None
