"""The ``steady`` command line (docs/cli.md): one parser, its commands wired by the
modules of this package, one per seed system.

- :mod:`.core`: seed 002's pipeline (throughput, schedule, verify, show, pipe, simulate);
- :mod:`.heuristics` (seed 000), :mod:`.grid` (001), :mod:`.ethernet` (004): their
  commands, and their campaigns under ``steady experiment``.

The command modules hold argparse wiring and presentation only and import what a
command computes when it runs, so building the parser stays cheap (``steady --help``).
Exit codes: 0 success, 1 a check failed, 2 bad input or usage.  A user error is one line
on stderr naming the file, the element and the reason, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys

from .. import __version__
from ..errors import InputError
from . import core, ethernet, grid, heuristics, timed

#: The modules that wire commands, in the order ``steady --help`` lists them.
SYSTEMS = (core, timed, heuristics, grid, ethernet)
#: The modules that wire campaigns under ``steady experiment``.
CAMPAIGNS = (heuristics, grid, ethernet)


def build_parser() -> argparse.ArgumentParser:
    """The ``steady`` parser with every command and campaign."""
    parser = argparse.ArgumentParser(
        prog="steady", description="Optimal steady-state broadcast on heterogeneous "
                                   "platforms (one-port model): exact and certified.")
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


def main(argv=None) -> int:
    """Run one ``steady`` command; returns its exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:  # plain `steady`: the help, not an error
        parser.print_help()
        return 0
    try:
        return args.run(args)
    except InputError as exc:
        print(f"steady: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("steady: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `steady show FILE | head`: the reader left
        sys.stdout = open(os.devnull, "w")
        return 0
