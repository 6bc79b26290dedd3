"""Shared machinery of the campaigns: a parallel map, exact statistics, CSV output, and
the output folder (:class:`CampaignFolder`: checked before the work, never left
holding two runs).

Campaigns are embarrassingly parallel (one task = one platform or one draw), so the only
parallel primitive is :func:`parallel_map`: ordered results, a count progress bar, and
three backends — ``serial`` (``jobs=1``, no process start-up, what the tests use),
``loky`` (joblib's process pool, the local default) and ``dask`` (joblib's dask backend on
a ``dask.distributed`` cluster: the optional ``dask`` extra).  A task must be a picklable
top-level function of one picklable argument, and must draw its randomness from a seed
carried in that argument, so that the results do not depend on the backend or on
``jobs`` (tested).
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import socket
import stat
import tempfile
from fractions import Fraction
from pathlib import Path
from typing import Callable, Iterable, Sequence

from ..errors import InputError, echo, shorten
from ..fileio import atomic_write_text, signals_deferred
from ..progress import CountBar

BACKENDS = ("loky", "dask")
#: The most worker processes of a campaign (``--jobs``; docs/limits.md).
MAX_JOBS = 256
#: Seconds a campaign waits for a dask scheduler to answer before it refuses the
#: address (``--scheduler``), before any work.
SCHEDULER_TIMEOUT = 5
#: A dask scheduler address: [protocol://]host:port (host a name, IPv4 or [IPv6]).
_ADDRESS = re.compile(r"(?:(tcp|tls|ws|wss|ucx)://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)"
                      r":([0-9]{1,5})", re.ASCII)


def scheduler_url(text: str) -> str:
    """``[protocol://]host:port`` as dask spells it (``tcp://`` by default), or
    ValueError naming what is expected."""
    match = _ADDRESS.fullmatch(text)
    if match is None or not 1 <= int(match[3]) <= 65535:
        raise ValueError(f"{echo(text)} is not a scheduler address: expected "
                         "[tcp://]HOST:PORT, e.g. tcp://10.0.0.1:8786 (port 1 to 65535)")
    return f"{match[1] or 'tcp'}://{match[2]}:{int(match[3])}"


def check_workers(jobs: int, backend: str, scheduler: str | None = None) -> None:
    """``--jobs``, ``--backend`` and ``--scheduler`` as one-line InputErrors (a campaign
    calls this before any work): a scheduler must be a dask address that answers
    within :data:`SCHEDULER_TIMEOUT` seconds."""
    if backend not in BACKENDS:
        raise InputError("<command line>", "--backend", f"unknown backend {echo(backend)}; "
                         f"choose one of {', '.join(BACKENDS)}")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= MAX_JOBS:
        raise InputError("<command line>", "--jobs", f"{echo(jobs)}: must be an integer "
                         f"from 1 to {MAX_JOBS} (worker processes)")
    if scheduler is None:
        return
    if backend != "dask":
        raise InputError("<command line>", "--scheduler", "applies to --backend dask")
    try:
        url = scheduler_url(scheduler)
    except ValueError as exc:
        raise InputError("<command line>", "--scheduler", str(exc)) from None
    host, port = url.partition("://")[2].rsplit(":", 1)
    try:
        socket.create_connection((host.strip("[]"), int(port)),
                                 timeout=SCHEDULER_TIMEOUT).close()
    except OSError as exc:
        reason = "no answer" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc))
        raise InputError("<command line>", "--scheduler", f"cannot reach {echo(url)} "
                         f"within {SCHEDULER_TIMEOUT} s: {reason}") from None


def parallel_map(function: Callable, items: Iterable, *, jobs: int = 1,
                 backend: str = "loky", scheduler: str | None = None,
                 quiet: bool = False, label: str = "tasks") -> list:
    """``[function(x) for x in items]``, on ``jobs`` workers, in the order of ``items``.

    ``jobs=1`` runs in this process.  ``backend="dask"`` connects to the
    ``dask.distributed`` scheduler at ``scheduler`` (e.g. ``tcp://host:8786``), or starts
    a local cluster of ``jobs`` workers when none is given.
    """
    items = list(items)
    check_workers(jobs, backend, scheduler)
    with CountBar(len(items), label, quiet) as bar:
        if jobs == 1 and backend == "loky":
            results = []
            for x in items:
                results.append(function(x))
                bar.advance()
            return results
        return _joblib_map(function, items, jobs, backend, scheduler, bar)


def _joblib_map(function, items, jobs, backend, scheduler, bar) -> list:
    import joblib

    if backend == "dask":
        client = _dask_client(scheduler, jobs)
        context = joblib.parallel_config(backend="dask")
    else:
        client, context = None, joblib.parallel_config(backend="loky", n_jobs=jobs)
    try:
        with context:
            # return_as="generator" yields in input order as tasks finish: the bar moves
            # while the pool works, and the order (hence every table) stays fixed.
            results = []
            tasks = (joblib.delayed(function)(x) for x in items)
            for r in joblib.Parallel(n_jobs=jobs if backend == "loky" else -1,
                                     return_as="generator")(tasks):
                results.append(r)
                bar.advance()
            return results
    finally:
        if client is not None:
            client.close()


def _dask_client(scheduler, jobs):
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise InputError("<command line>", "--backend dask",
                         "needs dask.distributed: pip install 'steady[dask]'") from None
    if scheduler:
        url = scheduler_url(scheduler)
        try:
            return Client(url, timeout=f"{SCHEDULER_TIMEOUT}s")
        except (OSError, TimeoutError) as exc:
            raise InputError("<command line>", "--scheduler", f"cannot connect to "
                             f"{echo(url)}: {exc}") from None
    return Client(LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                               dashboard_address=None))


# -- the output folder ------------------------------------------------------------------

#: The file that marks a campaign folder complete, listing the files of the run.
MARKER = ".steady-campaign"
_PARTIAL = ".partial-"


def check_campaign_folder(out, option: str = "--out") -> Path:
    """The ``--out`` folder of a campaign, checked before any work (one-line
    InputError otherwise): a new folder under a writable folder, or an existing
    writable folder that is empty or holds a complete campaign (:data:`MARKER`) --
    never a file, a path under a file, or a folder of other files, which the new run
    would mix with its own.  A symbolic link to a folder is followed."""
    text = os.fspath(out)
    if text == "":
        raise InputError("<command line>", option, "an empty folder name")
    path = Path(text)
    if path.is_symlink() and path.is_dir():
        path = path.resolve()
    try:
        info = os.stat(path)
    except FileNotFoundError:
        info = None
    except NotADirectoryError:
        info = None
    except OSError as exc:
        raise InputError(text, option, f"cannot use: {exc.strerror or exc}") from None
    if info is None:
        ancestor = path.parent
        while not os.path.lexists(ancestor) and ancestor != ancestor.parent:
            ancestor = ancestor.parent
        if not ancestor.is_dir():
            raise InputError(text, option, f"lies under {echo(str(ancestor))}, which is a "
                             "file, not a folder")
        if not os.access(ancestor, os.W_OK | os.X_OK):
            raise InputError(text, option, f"cannot create: the folder "
                             f"{echo(str(ancestor))} is not writable")
        return path
    if not stat.S_ISDIR(info.st_mode):
        raise InputError(text, option, "exists and is not a folder")
    if not os.access(path, os.W_OK | os.X_OK):
        raise InputError(text, option, "the folder is not writable")
    entries = [e for e in os.listdir(path) if not e.startswith(_PARTIAL)]
    if entries and MARKER not in entries:
        raise InputError(text, option, f"the folder holds files no complete steady "
                         f"campaign wrote (no {MARKER} in it): give a new or empty folder, "
                         "or empty this one")
    return path


class CampaignFolder:
    """Where a campaign writes, so that a folder never mixes two runs (ours; issue 18).

    Created before the work, which checks ``--out`` (:func:`check_campaign_folder`)
    and, with ``plots``, that matplotlib can be loaded.
    :meth:`publish` has the files written into a temporary folder inside it, then
    moves them in with Ctrl-C and SIGTERM held back: the previous run's marker goes
    first, then the previous run's files, then the new files arrive, then the new
    :data:`MARKER` listing them.  An interrupted or failed run leaves the folder as it
    was (the temporary folder is removed); only a hard kill in the middle of the moves
    can leave a folder without its marker, which says "incomplete" (docs/cli.md)."""

    def __init__(self, out, option: str = "--out", plots: bool = False,
                 settings: dict | None = None, force: bool = False):
        self.option = option
        self.settings = settings
        self.path = check_campaign_folder(out, option)
        if settings is not None and not force:
            _check_same_settings(self.path, settings, option)
        if plots:   # a missing matplotlib fails now, not after the campaign's work
            from ..present.plots import pyplot

            pyplot(self.path / "figure.png", option)

    def publish(self, write: Callable[[Path], Iterable]) -> list[Path]:
        """Call ``write(folder)``, which writes the campaign's files into ``folder`` and
        returns their paths; move them into place; return their final paths."""
        created = not self.path.exists()
        tmp = None
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            with signals_deferred():
                tmp = Path(tempfile.mkdtemp(prefix=_PARTIAL, dir=self.path))
            written = [Path(p) for p in write(tmp)]
            self._move_in(tmp)
            return [self.path / p.relative_to(tmp) for p in written]
        except BaseException as exc:
            with signals_deferred():
                if tmp is not None:
                    shutil.rmtree(tmp, ignore_errors=True)
                if created:
                    try:
                        self.path.rmdir()       # only if nothing else arrived in it
                    except OSError:
                        pass
            if isinstance(exc, OSError):
                raise InputError(str(self.path), self.option, f"cannot write: "
                                 f"{exc.strerror or exc}") from None
            raise

    def _move_in(self, tmp: Path) -> None:
        marker = self.path / MARKER
        names = sorted(os.listdir(tmp))
        with signals_deferred():
            previous = self._previous_files(marker)
            if marker.exists():
                marker.unlink()                 # from here on the folder is incomplete
            for name in previous - set(names):
                _remove(self.path / name)
            for name in names:
                target = self.path / name
                if target.is_dir() and not target.is_symlink():
                    shutil.rmtree(target)
                os.replace(tmp / name, target)
            tmp.rmdir()
            doc = {"format": "steady-campaign", "version": 1, "complete": True,
                   "files": names}
            if self.settings is not None:
                doc["settings"] = self.settings
            atomic_write_text(marker, json.dumps(doc, indent=1) + "\n")

    @staticmethod
    def _previous_files(marker: Path) -> set:
        """The files the previous complete run listed in its marker (only those are
        removed: a file the user put beside them stays)."""
        try:
            files = json.loads(marker.read_text(encoding="utf-8")).get("files", [])
        except (OSError, ValueError, AttributeError):
            return set()
        return {f for f in files if isinstance(f, str) and f and "/" not in f
                and f not in (".", "..", MARKER)}


def _check_same_settings(path: Path, settings: dict, option: str) -> None:
    """A folder holding a campaign run with other settings is replaced only with
    ``--force`` (ours; issue 45): two commands of the README once wrote into the same
    default folder and the second silently replaced the first's report.  A rerun with
    the same settings replaces the previous run, as before."""
    try:
        previous = json.loads((path / MARKER).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return                          # a new or empty folder
    except (OSError, ValueError):
        previous = {}
    if not isinstance(previous, dict):
        previous = {}
    old = previous.get("settings")
    if old == settings:
        return
    if not isinstance(old, dict):
        why = "a campaign whose settings it does not record"
    else:
        key = next(k for k in sorted(set(old) | set(settings))
                   if old.get(k) != settings.get(k))
        why = (f"a campaign run with other settings ({key.replace('_', '-')} "
               f"{_setting(old.get(key))} there, {_setting(settings.get(key))} now)")
    raise InputError(str(path), option, f"holds {why}: give --force to replace it, or "
                     "another --out")


def _setting(value) -> str:
    return "none" if value is None else shorten(str(value))


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif os.path.lexists(path):
        path.unlink()


# -- exact statistics ----------------------------------------------------------------------

def mean(values: Sequence) -> Fraction:
    """The exact mean of ints / Fractions."""
    values = list(values)
    if not values:
        raise ValueError("mean of no values")
    return sum((Fraction(v) for v in values), Fraction(0)) / len(values)


def variance(values: Sequence) -> Fraction:
    """The exact population variance (divide by n, as the campaigns report a spread of
    the drawn platforms, not an estimate of a larger population)."""
    values = [Fraction(v) for v in values]
    m = mean(values)
    return sum(((v - m) ** 2 for v in values), Fraction(0)) / len(values)


def deviation(values: Sequence) -> float:
    """sqrt(variance), a float: the one irrational figure of a table, for display only."""
    return float(variance(values)) ** 0.5


# -- output ---------------------------------------------------------------------------

def write_csv(path, header: Sequence[str], rows: Iterable[Sequence]) -> None:
    """A CSV file written atomically; Fractions are written exactly as ``p/q``."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow([_cell(x) for x in row])
    atomic_write_text(path, buffer.getvalue())


def _cell(x):
    if isinstance(x, Fraction):
        return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"
    return x
