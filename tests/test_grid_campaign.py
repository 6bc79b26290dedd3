"""The campaign of seed 001 §6 (steady.experiments.grid): exact per-size statistics, the
independence of the draws from the way they are split into tasks, the verdicts."""

from dataclasses import replace
from fractions import Fraction

import pytest

from steady.errors import InputError
from steady.commands.grid import parse_clusters
from steady.experiments.grid import Block, run_block, summarise
from steady.experiments.grid_report import findings
from steady.grid.heuristics import HEURISTICS

KEYS = tuple(HEURISTICS)   # flat fef ecef ecef-la ecef-lat-min ecef-lat-max bottomup binomial


def test_summary_by_hand():
    """Three draws.  Global minimum (the paper's seven, not the binomial tree): 8, 10, 9.
    Hits: ECEF, ECEF-LA, ECEF-LAt, BottomUp and the binomial tree two each, FEF one.
    The first and third draws have their optimum (7 and 9; the second hit the node
    limit): the binomial tree reaches both, FEF, ECEF-LA, ECEF-LAt and BottomUp the
    third.  ECEF: excess (8 + 10)/(7 + 9) - 1 = 1/8 and worst max(8/7, 10/9) - 1 = 1/7;
    the global minimum is optimal once, 1/16 above on average."""
    rows = [((10, 9, 8, 8, 9, 9, 8, 7), 7, 5),
            ((12, 12, 10, 11, 10, 12, 12, 13), None, 200),
            ((12, 9, 10, 9, 9, 11, 9, 9), 9, 3)]
    s = summarise(4, KEYS, rows)
    assert s.iterations == 3 and s.solved == 2 and s.unsolved == 1 and s.max_nodes == 200
    assert s.mean_us["flat"] == Fraction(34, 3) and s.mean_us["ecef-la"] == Fraction(28, 3)
    assert [s.hits[k] for k in KEYS] == [0, 1, 2, 2, 2, 0, 2, 2]
    assert [s.optimal_hits[k] for k in KEYS] == [0, 1, 0, 1, 1, 0, 1, 2]
    assert s.excess["ecef"] == Fraction(1, 8) and s.worst["ecef"] == Fraction(1, 7)
    assert s.excess["flat"] == Fraction(3, 8)
    assert s.best_of_seven_optimal == 1 and s.mean_optimum_us == 8
    assert s.best_of_seven_excess == Fraction(1, 16)


def test_draws_do_not_depend_on_the_split():
    whole = Block(5, 0, 6, seed=3, keys=KEYS, exact=True, node_limit=10**5)
    parts = [replace(whole, first=0, count=2), replace(whole, first=2, count=4)]
    rows = run_block(whole)
    assert rows == run_block(parts[0]) + run_block(parts[1])
    for makespans, optimum, nodes in rows:
        assert optimum is not None and nodes >= 1
        assert all(optimum <= m for m in makespans)


def test_node_limit_counts_as_unsolved():
    block = Block(9, 0, 3, seed=0, keys=KEYS, exact=True, node_limit=1)
    rows = run_block(block)
    assert all(optimum is None and nodes == 1 for _, optimum, nodes in rows)
    assert summarise(9, KEYS, rows).unsolved == 3


def test_findings_verdicts():
    """A synthetic size where Flat Tree is worst, BottomUp beats FEF, ECEF is best and
    ECEF-LAT hits the global minimum 45% of the time at both sizes."""
    def size(n, ecef_lat_hits):
        means = dict(zip(KEYS, (50, 40, 10, 11, 12, 13, 30, 45)))
        s = summarise(n, KEYS, [((1,) * 8, None, 0)] * 100)
        s.mean_us = {k: Fraction(v) for k, v in means.items()}
        s.hits = dict.fromkeys(KEYS, 50)
        s.hits["ecef-lat-max"] = ecef_lat_hits
        return s

    verdicts = {a: c for a, _, c in findings(KEYS, {3: size(3, 45), 9: size(9, 45)})}
    assert verdicts["Flat Tree has the worst average completion time"] == "agrees"
    assert verdicts["BottomUp is better than FEF on average"] == "agrees"
    assert verdicts["the ECEF family has the best average completion times"] == "agrees"
    assert verdicts["ECEF-LAT hits the global minimum about 45% of the time, flat in n"] \
        == "agrees"
    assert verdicts["the hit rates of ECEF, ECEF-LA and ECEF-LAt fall as n grows"] \
        == "differs"
    falling = {a: c for a, _, c in findings(KEYS, {3: size(3, 60), 9: size(9, 20)})}
    assert falling["ECEF-LAT hits the global minimum about 45% of the time, flat in n"] \
        == "differs"


def test_parse_clusters():
    assert parse_clusters("2..5") == [2, 3, 4, 5]
    assert parse_clusters("10,2,5,5") == [2, 5, 10]
    for bad in ("1..3", "4..2", "x", "2..", ""):
        with pytest.raises(InputError, match="--clusters"):
            parse_clusters(bad)
