"""Experiment campaigns reproducing the seed papers' tables and figures.

One module per campaign (``stp`` for seed 000, ``grid`` for seed 001, ``ethernet`` for
seed 004); :mod:`steady.experiments.runner` is the shared machinery (parallel map with a
progress bar, exact summary statistics, atomic CSV files).
"""
