"""The ``steady`` command line (docs/cli.md): one parser, its commands wired by the
modules of this package, one per seed system.

- :mod:`.core`: seed 002's pipeline (throughput, schedule, verify, show, pipe, simulate);
- :mod:`.heuristics` (seed 000), :mod:`.grid` (001), :mod:`.ethernet` (004): their
  commands, and their campaigns under ``steady experiment``.

The command modules hold argparse wiring and presentation only and import what a
command computes when it runs, so building the parser stays cheap (``steady --help``).
Exit codes: 0 success, 1 a check failed, 2 bad input or usage, 130 interrupted (Ctrl-C or
SIGTERM).  A user error is one line on stderr naming the file, the element and the
reason, never a traceback (docs/cli.md); the limits that remain are in docs/limits.md.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from contextlib import contextmanager

from .. import __version__
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
  130  interrupted (Ctrl-C or SIGTERM): output files are complete or absent"""


def main(argv=None) -> int:
    """Run one ``steady`` command; returns its exit code."""
    parser = build_parser()
    try:
        # results may be longer than any input: MAX_TEXT_DIGITS for the whole command
        with _stop_signals(), many_digits():
            try:
                args = parser.parse_args(argv)
            except SystemExit as exc:  # --help, --version, or a usage error (printed)
                return exc.code if isinstance(exc.code, int) else int(exc.code is not None)
            if args.command is None:  # plain `steady`: the help, not an error
                parser.print_help()
                return 0
            return _named(args)
    except KeyboardInterrupt:  # a signal while the handlers are put back: still 130
        print("steady: interrupted", file=sys.stderr)
        return 130


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
    except InputError as exc:
        if exc.origin == "<platform>" and isinstance(getattr(args, "platform", None), str):
            # the library names a Platform object it was given; here it is a file
            exc = InputError(args.platform, exc.element, exc.reason)
        print(f"steady: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("steady: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `steady show FILE | head`: the reader left
        sys.stdout = open(os.devnull, "w")
        return 0
    except MemoryError:
        print("steady: out of memory: the input is too large for this machine (the "
              "limits are in docs/limits.md)", file=sys.stderr)
        return 2
    except ValueError as exc:
        # The last guard of docs/limits.md: a number whose text would exceed
        # MAX_TEXT_DIGITS digits (Python refuses the int <-> str conversion).
        if "integer string conversion" not in str(exc):
            raise
        print(f"steady: a number has more than {MAX_TEXT_DIGITS} digits, the most steady "
              "converts to or from text (docs/limits.md)", file=sys.stderr)
        return 2


def _interrupt(signum, frame):
    raise KeyboardInterrupt


@contextmanager
def _stop_signals():
    """SIGTERM (and SIGHUP) stop a command as Ctrl-C does: KeyboardInterrupt, so that
    every temporary file is removed on the way out (steady.fileio) and the exit code is
    130.  A signal the parent set to be ignored stays ignored; the handlers are put
    back when the command returns (tests run commands in-process)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {}
    for name in ("SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) is not signal.SIG_IGN:
            previous[number] = signal.signal(number, _interrupt)
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
