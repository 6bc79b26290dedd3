"""Command-line commands of this package, registered by :mod:`steady.cli`.

Only argparse wiring lives at the top of this module; each command imports the
computing modules when it runs, so that ``steady --help`` stays fast.
"""

from __future__ import annotations


def add_commands(sub) -> None:
    """Add this package's top-level commands to the ``steady`` subparsers ``sub``."""


def add_experiments(experiments) -> None:
    """Add this package's campaigns to the ``steady experiment`` subparsers."""
