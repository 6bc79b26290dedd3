"""The steady-grid v1 format (seed 001 §3 cluster model): reading, validation, the sample
of 001 Table 3, the Table 2 draws, and the public strategy."""

import copy
import json
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings

from helpers import examples
from hypothesis import strategies as st

from steady.errors import InputError
from steady.grid.draws import TABLE2_US, table2_grid
from steady.grid.model import Cluster, Grid
from steady.grid.strategies import grids
from steady.strategies import decimal_costs, exact_costs

SAMPLE = "samples/grid5000-6-clusters.json"

SMALL = {"format": "steady-grid", "version": 1, "root": "A", "unit": "ms",
         "clusters": [{"name": "A", "broadcast_time": 5}, {"name": "B", "broadcast_time": "0.5"},
                      {"name": "C", "broadcast_time": "1/3"}],
         "latency": [[None, 1, 2], [1, None, 3], [2, 3, None]],
         "gap": "10"}


def test_small_document_is_read_exactly():
    grid = Grid.from_dict(SMALL)
    assert grid.names == ("A", "B", "C") and grid.root == 0 and grid.unit == "ms"
    assert grid.T == (5, Fraction(1, 2), Fraction(1, 3))
    assert grid.L[1][2] == 3 and grid.L[2][0] == 2
    assert grid.g[0][1] == grid.g[2][1] == 10          # one number for every pair
    assert grid.transfer(1, 2) == 13
    assert Grid.from_dict(grid.to_dict()) == grid


def test_sample_is_table3():
    """001 Table 3: latencies in microseconds, 88 machines in 6 clusters."""
    grid = Grid.from_file(SAMPLE)
    assert grid.unit == "us" and grid.size == 6 and grid.names[grid.root] == "C0"
    assert [c.nodes for c in grid.clusters] == [31, 29, 6, 1, 1, 20]
    assert sum(c.nodes for c in grid.clusters) == 88
    assert grid.L[0][2] == Fraction("12181.52") and grid.L[3][4] == Fraction("242.47")
    assert grid.L[4][5] == Fraction("5394.10") and grid.L[0][1] == Fraction("62.10")
    assert all(grid.L[i][j] == grid.L[j][i] for i in range(6) for j in range(6))
    assert [c.latency for c in grid.clusters] == [
        Fraction("47.56"), Fraction("47.92"), Fraction("35.52"), None, None,
        Fraction("27.53")]
    # the documented assumptions: 4 MiB over 1 Gb/s inside a site, 100 Mb/s between
    assert grid.g[0][1] == Fraction(4194304, 125) and grid.g[0][5] == Fraction(4194304 * 2, 25)
    # T_C0 = ceil(log2 31) = 5 rounds of g_LAN + 47.56
    assert grid.T[0] == 5 * (Fraction(4194304, 125) + Fraction("47.56"))
    assert grid.T[3] == grid.T[4] == 0


def _error(doc):
    with pytest.raises(InputError) as info:
        Grid.from_dict(doc, "f.json")
    return str(info.value)


@pytest.mark.parametrize("change, element", [
    (lambda d: d.update(extra=1), "key 'extra'"),
    (lambda d: d.update(format="steady-platform"), "format"),
    (lambda d: d.update(version=2), "version"),
    (lambda d: d.update(version=True), "version"),
    (lambda d: d.update(version="1"), "version"),
    (lambda d: d.update(unit="min"), "unit"),
    (lambda d: d.pop("root"), "root"),
    (lambda d: d.update(root="Z"), "root"),
    (lambda d: d.pop("gap"), "gap"),
    (lambda d: d.update(gap=0), "gap"),
    (lambda d: d["clusters"][1].update(colour="red"), "clusters[1].colour"),
    (lambda d: d["clusters"][2].pop("broadcast_time"), "clusters[2].broadcast_time"),
    (lambda d: d["clusters"][2].update(broadcast_time="-1"), "clusters[2].broadcast_time"),
    (lambda d: d["clusters"][0].update(nodes=0), "clusters[0].nodes"),
    (lambda d: d["clusters"][1].update(name="A"), "clusters[1].name"),
    (lambda d: d["latency"].pop(), "latency"),
    (lambda d: d["latency"][1].pop(), "latency[1]"),
    (lambda d: d["latency"][2].__setitem__(2, 0), "latency[2][2]"),
    (lambda d: d["latency"][0].__setitem__(1, "-4"), "latency[0][1]"),
    (lambda d: d["latency"][0].__setitem__(2, "fast"), "latency[0][2]"),
    (lambda d: d["latency"][2].__setitem__(1, None), "latency[2][1]"),
    (lambda d: d.update(clusters=d["clusters"][:1], latency=[[None]]), "clusters"),
    (lambda d: d.update(clusters=[], latency=[]), "clusters"),     # not "root: unknown"
])
def test_invalid_documents_name_the_element(change, element):
    doc = copy.deepcopy(SMALL)
    change(doc)
    message = _error(doc)
    assert message.startswith("f.json: ") and element in message


def test_a_fractional_node_count_is_shown_as_written():
    doc = copy.deepcopy(SMALL)
    doc["clusters"][0]["nodes"] = Decimal("2.5")        # what the JSON reader gives
    assert _error(doc).endswith("clusters[0].nodes: a whole number of machines >= 1, "
                                "got 2.5")


def test_python_floats_are_read_by_their_decimal_text():
    """DESIGN.md exactness policy: 0.1 means 1/10, not the nearest binary double."""
    grid = Grid([Cluster("A", 0.1), Cluster("B", 2)], [[0, 0.2], [0.3, 0]],
                [[0, 1], [1.5, 0]])
    assert grid.T[0] == Fraction(1, 10) and grid.L[0][1] == Fraction(1, 5)
    assert grid.g[1][0] == Fraction(3, 2)


def test_malformed_json_gives_line_and_column(tmp_path):
    path = tmp_path / "g.json"
    path.write_text('{"format": "steady-grid",\n "root": }')
    with pytest.raises(InputError, match="line 2 column"):
        Grid.from_file(path)


@settings(max_examples=examples(40), deadline=None)
@given(grids(max_clusters=4, latency=decimal_costs(), gap=exact_costs(),
             broadcast_time=st.one_of(st.just(0), exact_costs())))
def test_documents_round_trip_exactly(grid):
    doc = json.loads(json.dumps(grid.to_dict()))
    assert Grid.from_dict(doc) == grid


@settings(max_examples=examples(30), deadline=None)
@given(grids(symmetric=True))
def test_strategy_draws_valid_symmetric_grids(grid):
    n = grid.size
    assert 2 <= n <= 5
    assert all(grid.L[i][j] == grid.L[j][i] and grid.g[i][j] > 0
               for i in range(n) for j in range(n) if i != j)


def test_table2_draws_are_exact_symmetric_and_reproducible():
    grid = table2_grid(7, seed=3, iteration=11)
    assert grid == table2_grid(7, seed=3, iteration=11)
    assert grid != table2_grid(7, seed=3, iteration=12)
    ranges = {"latency": grid.L, "gap": grid.g}
    for key, matrix in ranges.items():
        low, high = TABLE2_US[key]
        for i in range(7):
            for j in range(7):
                if i != j:
                    assert type(matrix[i][j]) is int and low <= matrix[i][j] <= high
                    assert matrix[i][j] == matrix[j][i]
    low, high = TABLE2_US["broadcast_time"]
    assert all(low <= t <= high for t in grid.T) and grid.unit == "us"
