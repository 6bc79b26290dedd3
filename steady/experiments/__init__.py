"""Experiment campaigns reproducing the seed papers' tables and figures.

Two modules per campaign: one runs it (``stp`` for seed 000, ``grid`` for seed 001,
``ethernet`` for seed 004), its ``_report`` twin writes the CSV files, figures and
reports.  :mod:`steady.experiments.runner` is the shared machinery (parallel map with a
progress bar, exact summary statistics, atomic CSV files).  Campaigns import what they
measure (``heuristics``, ``grid``, ``ethernet``, ...) and presentation; nothing below
imports them, and the command line (:mod:`steady.commands`) wires them.
"""

#: The package's modules (imported on use: importing the package imports none).
__all__ = ["ethernet", "ethernet_report", "grid", "grid_report", "runner", "stp", "stp_report"]
