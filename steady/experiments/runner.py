"""Shared machinery of the campaigns: a parallel map, exact statistics, CSV output.

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
from fractions import Fraction
from typing import Callable, Iterable, Sequence

from ..errors import InputError
from ..fileio import atomic_write_text
from ..progress import CountBar

BACKENDS = ("loky", "dask")


def add_campaign_options(parser, out: str, jobs: int = 1) -> None:
    """The options every ``steady experiment`` campaign shares: workers, backend,
    output folder, plots, progress bar (``--backend`` is checked by
    :func:`parallel_map`, which gives the one-line error of docs/cli.md)."""
    parser.add_argument("--jobs", type=int, default=jobs, metavar="N",
                        help=f"worker processes (default {jobs})")
    parser.add_argument("--backend", default="loky", metavar="loky|dask",
                        help="loky (default, local processes) or dask (a dask.distributed "
                             "cluster: the 'dask' extra)")
    parser.add_argument("--scheduler", metavar="ADDRESS", help="with --backend dask: the "
                        "scheduler's address (default: a local cluster of --jobs workers)")
    parser.add_argument("--out", default=out, metavar="DIR",
                        help=f"output folder (default ./{out})")
    parser.add_argument("--no-plots", action="store_true", help="CSV and report only")
    parser.add_argument("--quiet", action="store_true", help="no progress bar on stderr")


def check_workers(jobs: int, backend: str) -> None:
    """``--jobs`` and ``--backend`` as one-line InputErrors (a campaign calls this before
    it creates its output folder)."""
    if backend not in BACKENDS:
        raise InputError("<command line>", "--backend", f"unknown backend {backend!r}; "
                         f"choose one of {', '.join(BACKENDS)}")
    if jobs < 1:
        raise InputError("<command line>", "--jobs", f"{jobs}: needs at least one worker")


def parallel_map(function: Callable, items: Iterable, *, jobs: int = 1,
                 backend: str = "loky", scheduler: str | None = None,
                 quiet: bool = False, label: str = "tasks") -> list:
    """``[function(x) for x in items]``, on ``jobs`` workers, in the order of ``items``.

    ``jobs=1`` runs in this process.  ``backend="dask"`` connects to the
    ``dask.distributed`` scheduler at ``scheduler`` (e.g. ``tcp://host:8786``), or starts
    a local cluster of ``jobs`` workers when none is given.
    """
    items = list(items)
    check_workers(jobs, backend)
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
        return Client(scheduler)
    return Client(LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                               dashboard_address=None))


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


def option_list(text: str, option: str, convert: Callable, example: str) -> list:
    """The values of a comma-separated command-line option (``--nodes 10,20,30``),
    converted by ``convert`` (``int``, ``float``); a one-line InputError otherwise."""
    try:
        return [convert(x) for x in text.split(",")]
    except ValueError:
        raise InputError("<command line>", option, f"{text!r}: expected "
                         f"{convert.__name__} values separated by commas, e.g. "
                         f"{example}") from None
