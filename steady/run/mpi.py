"""The one door to mpi4py in steady: nothing else imports it (DESIGN.md), and steady
works without the ``mpi`` extra, saying so in one line when asked to run."""

from __future__ import annotations

from ..errors import InputError

HINT = "install the mpi extra: pip install 'steady[mpi]' (mpi4py and the MPICH wheels)"


def load_mpi(command: str = "steady run"):
    """``mpi4py.MPI`` (importing it initialises MPI), or a one-line user error."""
    try:
        from mpi4py import MPI
    except ImportError:
        raise InputError(command, "mpi4py", f"not installed: {HINT}") from None
    return MPI


def available() -> bool:
    """Whether mpi4py can be imported (without importing it: no MPI initialisation)."""
    import importlib.util

    return importlib.util.find_spec("mpi4py") is not None
