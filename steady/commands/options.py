"""Validated command-line options (ours): every number an option takes is checked when
the command line is read, before any work, against a range the message names.

Two forms of each check: argparse ``type=`` factories (:func:`integer`, :func:`exact`,
:func:`seconds`, :func:`output_file`, :func:`scheduler_address`), whose refusal
:class:`SteadyParser` prints as one line naming the option (exit code 2), and the plain
functions behind them (:func:`check_integer`, ...) for values a command reads from a
composite option (``--clusters 2..10``, ``--nodes 10,20``), which raise
:class:`~steady.errors.InputError`.  The ranges are the constants below, documented in
docs/limits.md.

Numbers follow the grammar of the files (:mod:`steady.numbers`): ASCII digits only, no
spaces, no ``+`` (Python's ``int()`` also takes ``"１２"`` and ``" +12 "``).
"""

from __future__ import annotations

import argparse
import math
import re
from fractions import Fraction

from ..errors import InputError, echo

#: Worker processes of a campaign (``--jobs``).
MAX_JOBS = 256
#: Search nodes of the exact grid optimum (``--node-limit``): 2·10^6 take about a minute.
MAX_NODE_LIMIT = 10 ** 8
#: Random draws of a campaign per configuration (``--iterations``, ``--repeats``,
#: ``--topologies``).
MAX_DRAWS = 10 ** 6
#: Clusters of a grid (``experiment grid --clusters``, ``--exact-max``).
MAX_CLUSTERS = 1000
#: Nodes of a generated platform (``experiment stp --nodes``).
MAX_NODES = 1000
#: Machines of a random switched cluster (``experiment ethernet-height --machines``,
#: ``--per-switch``): Algorithm 2 grows about cubically (6 s at 1024 machines, 19 s at
#: 2048, 155 s at 4096, measured on a loaded 2-core machine).
MAX_MACHINES = 4096
#: Machines of ``ethernet segment --machines`` (a complete tree in heap order: 7 s at
#: 10^5, 99 s at 10^6) and the largest ``--k`` (never more than the machines).
MAX_SEGMENT_MACHINES = 10 ** 5
#: Message transfers ``simulate`` replays (``--max-events``): about 0.8 kB and 40 µs
#: each (measured, 2 cores under load), so at most ~4 GB and a few minutes.
MAX_EVENTS = 5 * 10 ** 6
#: ``pipe --size``: the slice search grows with the digits of L (15 s at 10^15 on a
#: loaded 2-core machine), so L is at most 10^15 with at most 16 digits above and
#: below the fraction bar.
MAX_PIPE_SIZE = 10 ** 15
MAX_PIPE_DIGITS = 16
#: ``--max-messages`` (messages, or chunks per root, per period of a timetable): ten
#: times the exact period ``steady schedule`` calls huge (the work grows with it).
MAX_MESSAGES = 10 ** 7
#: Time limits in seconds (``--best-tree``): one day.
MAX_SECONDS = 86_400
#: Campaign seeds (``--seed``): 0 <= seed < 2^64.
MAX_SEED = 2 ** 64 - 1

_INTEGER = re.compile(r"-?[0-9]+", re.ASCII)
_FLOAT = re.compile(r"-?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?", re.ASCII)
_ARGUMENT = re.compile(r"argument ([^:]+): (.*)", re.DOTALL)


class SteadyParser(argparse.ArgumentParser):
    """argparse, with the one-line errors of docs/cli.md: a value an option refuses
    prints ``steady: <command line>: --jobs: must be ...`` (exit code 2).  Mistakes in
    the command itself (an unknown option, a missing argument) keep argparse's usage
    line.  ``add_subparsers`` gives every subcommand this class too."""

    def error(self, message):
        from ..interrupts import other_rank

        if other_rank():   # under mpiexec, rank 0 says it for all
            self.exit(2)
        match = _ARGUMENT.fullmatch(message)
        if match is None:
            super().error(message)
        origin = _ORIGINS.pop(match[2], "<command line>")
        self.exit(2, f"steady: {InputError(origin, match[1], match[2])}\n")


#: reason -> origin of the refusals of :func:`_type` checks that name a file (argparse
#: passes only the reason's text on to :meth:`SteadyParser.error`).
_ORIGINS: dict[str, str] = {}


def _type(check, name: str):
    """An argparse ``type=`` from a check that raises ValueError with the reason (an
    InputError names its origin too: the file an output option names)."""
    def parse(text):
        try:
            return check(text)
        except InputError as exc:
            _ORIGINS[exc.reason] = exc.origin
            raise argparse.ArgumentTypeError(exc.reason) from None
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = name
    return parse


#: An argparse ``type=`` from a check (raising ValueError or InputError with the
#: reason), for the commands' own option grammars (``import simgrid --hosts``).
checked_type = _type


# -- integers --------------------------------------------------------------------------

def _integer_in(text: str, low: int, high: int) -> int:
    words = f"must be >= {low} and <= {high} (an integer), got {echo(text)}"
    if not _INTEGER.fullmatch(text) or len(text.lstrip("-")) > len(str(high)) + 1:
        raise ValueError(words)
    value = int(text)
    if not low <= value <= high:
        raise ValueError(words)
    return value


def integer(low: int, high: int):
    """argparse type: an integer in [low, high], in ASCII digits."""
    return _type(lambda text: _integer_in(text, low, high), "integer")


def check_integer(text: str, option: str, low: int, high: int) -> int:
    """An integer in [low, high] read from part of an option, or InputError."""
    try:
        return _integer_in(text, low, high)
    except ValueError as exc:
        raise InputError("<command line>", option, str(exc)) from None


def integer_list(text: str, option: str, low: int, high: int, example: str,
                 most: int = 1000) -> list[int]:
    """``10,20,30``: integers in [low, high], at most ``most`` of them, or InputError."""
    parts = text.split(",")
    if len(parts) > most:
        raise InputError("<command line>", option, f"at most {most} values, got {len(parts)}")
    if not all(_INTEGER.fullmatch(p) for p in parts):
        raise InputError("<command line>", option, f"{echo(text)}: expected integers "
                         f"separated by commas, e.g. {example}")
    return [check_integer(p, option, low, high) for p in parts]


# -- real numbers ------------------------------------------------------------------------

def _real_in(text: str, low: float, high: float, words: str) -> float:
    if not _FLOAT.fullmatch(text) or len(text) > 40:
        raise ValueError(f"must be {words}, got {echo(text)}")
    value = float(text)
    if not (math.isfinite(value) and low <= value <= high):
        raise ValueError(f"must be {words}, got {echo(text)}")
    return value


def seconds(low: float = 0, high: float = MAX_SECONDS):
    """argparse type: a time limit in seconds, a decimal in [low, high] (no NaN)."""
    words = f"a number of seconds from {low:g} to {high:g}"
    return _type(lambda text: _real_in(text, low, high, words), "seconds")


def real_list(text: str, option: str, low: float, high: float, example: str,
              most: int = 1000) -> list[float]:
    """``0.04,0.12``: decimals in [low, high] (densities), or InputError."""
    parts = text.split(",")
    if len(parts) > most:
        raise InputError("<command line>", option, f"at most {most} values, got {len(parts)}")
    words = f"numbers from {low:g} to {high:g} separated by commas, e.g. {example}"
    try:
        return [_real_in(p, low, high, words) for p in parts]
    except ValueError:
        raise InputError("<command line>", option, f"must be {words}, got "
                         f"{echo(text)}") from None


def _exact_in(text: str, high, digits: int | None) -> Fraction:
    from ..numbers import parse_exact

    value = parse_exact(text)      # ValueError saying why
    if value <= 0:
        raise ValueError(f"must be > 0, got {echo(text)}")
    if high is not None and value > high:
        raise ValueError(f"must be at most {high}, got {echo(text)} (docs/limits.md)")
    if digits is not None and max(len(str(value.numerator)),
                                  len(str(value.denominator))) > digits:
        raise ValueError(f"at most {digits} digits above and below the fraction bar, got "
                         f"{echo(text)} (docs/limits.md)")
    return value


def positive_exact(text: str, option: str, high=None) -> Fraction:
    """An option's exact number > 0 (at most ``high``), read after parsing (options
    whose meaning depends on others); bad values: InputError naming the option."""
    try:
        return _exact_in(text, high, None)
    except ValueError as exc:
        raise InputError("<command line>", option, str(exc)) from None


def exact(high=None, digits: int | None = None):
    """argparse type: an exact number > 0 in the files' spellings (``3``, ``7/2``,
    ``0.1``, ``1e-3``), at most ``high``, with at most ``digits`` digits in its
    numerator and denominator."""
    return _type(lambda text: _exact_in(text, high, digits), "exact number")


# -- files and addresses ---------------------------------------------------------------

def _output_file(text: str) -> str:
    from ..fileio import check_output_path

    if text == "":
        raise ValueError("an empty file name")
    check_output_path(text)     # InputError naming the file
    return text


#: argparse type of ``-o``, ``--gantt``, ``--plot``, ``--trace``: a file steady may
#: write (:func:`steady.fileio.check_output_path`), checked before the work.
output_file = _type(_output_file, "output file")


def _input_file(text: str) -> str:
    if text == "":
        raise ValueError("an empty file name")
    return text


#: argparse type of an input file (a platform, a schedule, ``--map``, ...): the empty
#: name is refused here (it would otherwise read as "not given"); the file itself is
#: checked when it is read (:func:`steady.fileio.open_input`).
input_file = _type(_input_file, "input file")


def _address(text: str) -> str:
    from ..experiments.runner import scheduler_url

    return scheduler_url(text)


#: argparse type of ``--scheduler`` (its reachability is checked when the campaign
#: starts: :func:`steady.experiments.runner.check_workers`).
scheduler_address = _type(_address, "address")


# -- campaigns -------------------------------------------------------------------------

def add_campaign_options(parser, out: str, jobs: int = 1) -> None:
    """The options every ``steady experiment`` campaign shares: workers, backend,
    scheduler, output folder, plots, progress bar; ``--jobs`` and ``--scheduler`` are
    validated here, ``--backend``, the scheduler's answer and ``--out`` when the
    campaign starts (:func:`steady.experiments.runner.check_workers`,
    :class:`~steady.experiments.runner.CampaignFolder`), before any work."""
    from ..experiments.runner import MAX_JOBS

    jobs = max(1, min(jobs, MAX_JOBS))
    parser.add_argument("--jobs", type=integer(1, MAX_JOBS), default=jobs, metavar="N",
                        help=f"worker processes, 1 to {MAX_JOBS} (default {jobs})")
    parser.add_argument("--backend", default="loky", metavar="loky|dask",
                        help="loky (default, local processes) or dask (a dask.distributed "
                             "cluster: the 'dask' extra)")
    parser.add_argument("--scheduler", type=scheduler_address, metavar="ADDRESS",
                        help="with --backend dask: the scheduler's address, "
                             "[tcp://]HOST:PORT (default: a local cluster of --jobs "
                             "workers)")
    parser.add_argument("--out", metavar="DIR",
                        help=f"output folder (default ./{out}, named after the options "
                             "that change the results): new, empty, or a previous run's "
                             "with the same settings, replaced when the new run completes")
    parser.add_argument("--force", action="store_true",
                        help="replace a campaign of other settings in --out")
    parser.add_argument("--no-plots", action="store_true", help="CSV and report only")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")


#: Options that change how a campaign runs or where it writes, not what it computes.
_NOT_SETTINGS = {"run", "command", "campaign", "jobs", "backend", "scheduler", "out",
                 "force", "no_plots", "quiet", "json"}


def campaign_settings(args) -> dict:
    """What a campaign's results depend on, as its folder's marker records it
    (steady.experiments.runner.CampaignFolder): the campaign and its options, without
    those that change only how it runs (workers, backend, folder, plots, progress)."""
    settings = {"campaign": args.campaign}
    for key, value in sorted(vars(args).items()):
        if key in _NOT_SETTINGS or callable(value):
            continue
        settings[key] = value if isinstance(value, (str, int, float, bool, type(None))) \
            else str(value)
    return settings


def add_effort(parser) -> None:
    """``--effort fast|default|thorough``: how much the searches of steady.schedule and
    steady.simulate may do, bounded by deterministic work (steady.schedule.effort)."""
    parser.add_argument("--effort", choices=("fast", "default", "thorough"),
                        default="default",
                        help="how much searching: fast (seconds), default, thorough "
                             "(minutes); bounded by work, never by time, so the same "
                             "input gives the same output on any machine")
