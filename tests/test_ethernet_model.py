"""Seed 004 §4.2 (extended pLogP, formulas (1) and (2)), Table 2, Table 3, and the §3.1
completion-time formulas."""

import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings

from helpers import examples
from hypothesis import strategies as st

import steady.ethernet
from steady.errors import InputError
from steady.ethernet.broadcast_tree import BroadcastTree
from steady.ethernet.linear_cost import (LinearCost, binomial_rounds, binomial_time,
                                         flat_time, pipelined_stage_time,
                                         scatter_allgather_bound)
from steady.ethernet.plogp import PLogPTable, load_table, table_from_dict
from steady.ethernet.segments import (best_segment, binary_time, choose, hop_counts,
                                      linear_time, tree_time)
from steady.ethernet.unaware import complete_kary_tree
from steady.experiments import ethernet, ethernet_report

F = Fraction
PROOF = Path(__file__).resolve().parent.parent / "proofs" / "ethernet-segment-model.md"


def test_table2_is_shipped_as_printed():
    t100, t1000 = load_table("100mbps"), load_table("1000mbps")
    assert t100.sizes == t1000.sizes == (256, 512, 1024, 2048, 4096, 8192, 16384, 32768)
    assert (t100.g(256), t100.L(256)) == (F("0.030"), F("0.110"))
    assert (t1000.g(32768), t1000.L(32768)) == (F("0.541"), F("0.030"))
    assert t100.unit == t1000.unit == "ms"


def test_table2_latency_is_half_the_round_trip_minus_the_gap_up_to_printing():
    # 004 §5.1: L(m) = RTT(m)/2 - g(m); the printed L is rounded to 0.001 ms
    for name in ("100mbps", "1000mbps"):
        doc = json.loads((Path(steady.ethernet.__file__).parent / "data"
                          / f"plogp-{name}.json").read_text())
        for row in doc["sizes"]:
            derived = F(row["rtt"]) / 2 - F(row["g"])
            assert abs(derived - F(row["L"])) <= F(1, 1000), (name, row)


def test_formula1_by_hand():
    # 100Mbps, P = 32, 8KB in 32 segments of 256B:
    # 31·(0.110 + 0.030) + 31·0.030 = 4.34 + 0.93 = 5.27 ms
    t = load_table("100mbps")
    r = linear_time(32, t, 8192, 256)
    assert (r.segments, r.A, r.B, r.time) == (32, 31, 31, F(527, 100))


def test_formula2_on_the_tree_of_figure8():
    # 004 Figure 8: 0 -> (1, 2), 2 -> (3, 4); the last receiver is 4 with A = 2, B = 4.
    tree = BroadcastTree.from_edges("0", [("0", "1"), ("0", "2"), ("2", "3"), ("2", "4")])
    assert hop_counts(tree) == {"1": (1, 1), "2": (1, 2), "3": (2, 3), "4": (2, 4)}
    t = load_table("100mbps")
    # 8KB in 8 segments of 1024B: 2·0.250 + 4·0.089 + 2·7·0.089 = 2.102 ms
    r = tree_time(tree, t, 8192, 1024)
    assert (r.A, r.B, r.degree, r.time) == (2, 4, 2, F(2102, 1000))
    assert r == binary_time(2, 4, t, 8192, 1024)


def test_kary_generalisation_paces_the_pipeline_by_the_degree():
    # a 3-ary star: the third child gets the first segment after L + 3g; each further
    # segment costs the root 3g: L + 3g + 3(X - 1)g.  One-byte segments of a 4-byte message.
    t = PLogPTable("t", "s", {1: F(5)}, {1: F(2)})
    star = BroadcastTree.from_edges("r", [("r", "a"), ("r", "b"), ("r", "c")])
    assert tree_time(star, t, 4, 1).time == 5 + 3 * 2 + 3 * 3 * 2


@settings(max_examples=examples(40), deadline=None)
@given(st.integers(2, 40), st.integers(1, 3000), st.sampled_from((256, 1024, 32768)))
def test_a_linear_tree_is_formula1(machines, msize_kb, m):
    chain = complete_kary_tree([f"n{r}" for r in range(machines)], 1)
    t = load_table("1000mbps")
    assert tree_time(chain, t, msize_kb * 1024, m) == linear_time(machines, t,
                                                                 msize_kb * 1024, m)


def test_best_segment_of_table3_where_the_model_and_the_paper_differ():
    # 1000Mbps, 64KB, P = 32 (formula (1)): 512B gives 31·0.071 + 127·0.017 = 4.360 ms,
    # 1024B gives 31·0.093 + 63·0.025 = 4.458 ms: the model picks 512B, Table 3 prints
    # 1024B (the one linear Model entry we do not reproduce).
    t = load_table("1000mbps")
    choice = choose(lambda m: linear_time(32, t, 65536, m), t, 65536)
    times = {c.segment: c.time for c in choice.candidates}
    assert (times[512], times[1024]) == (F(4360, 1000), F(4458, 1000))
    assert choice.best_segment == 512


def test_table3_linear_model_column_matches_the_paper_but_one_entry():
    rows = ethernet.table3_rows()
    differ = [(r["network"], r["message_kb"]) for r in rows
              if r["linear_model"] != r["paper_linear_model"]]
    assert differ == [("1000mbps", 64)]


def test_no_single_A_B_reproduces_the_binary_model_columns():
    # formula (2) depends on the tree through A and B only (1 <= A <= P - 1 hops,
    # A <= B <= 2A); no pair matches all 18 binary Model entries of Table 3
    tables = {n: load_table(n) for n in ethernet.PAPER_TABLE3}
    best = 0
    for A in range(1, 32):
        for B in range(A, 2 * A + 1):
            same = 0
            for name, table in tables.items():
                for kb, paper in zip(ethernet.TABLE3_KB,
                                     ethernet.PAPER_TABLE3[name]["binary_model"]):
                    ours = choose(lambda m: binary_time(A, B, table, kb * 1024, m),
                                  table, kb * 1024)
                    same += ours.best_segment == paper
            best = max(best, same)
    assert best == 15


def test_the_proof_note_shows_the_current_table3():
    assert ethernet_report.table3_report(ethernet.table3_rows()) in PROOF.read_text()


def test_candidates_are_the_tabulated_sizes_up_to_the_message():
    t = load_table("100mbps")
    tree = complete_kary_tree([f"n{r}" for r in range(8)], 2)
    choice = best_segment(tree, t, 1000)
    assert [c.segment for c in choice.candidates] == [256, 512]
    assert [c.segments for c in choice.candidates] == [4, 2]     # ceil(1000 / m)
    with pytest.raises(ValueError):
        best_segment(tree, t, 100)


def test_ties_keep_the_smallest_segment():
    # P = 2, a 2-byte message: m = 1 costs 1 + 1 + 1·1 = 3, m = 2 costs 1 + 2 = 3
    t = PLogPTable("t", "", {1: F(1), 2: F(1)}, {1: F(1), 2: F(2)})
    choice = choose(lambda m: linear_time(2, t, 2, m), t, 2)
    assert [c.time for c in choice.candidates] == [3, 3] and choice.best_segment == 1


def test_latency_is_derived_from_the_round_trip_when_absent():
    doc = {"format": "steady-plogp", "version": 1, "unit": "us",
           "sizes": [{"bytes": 64, "g": "1/3", "rtt": 2}]}
    assert table_from_dict(doc, "p.json").L(64) == F(2, 3)


@pytest.mark.parametrize("change, element", [
    (lambda d: d.update(format="steady-cluster"), "format"),
    (lambda d: d.update(version=3), "version"),
    (lambda d: d.update(extra=1), "key 'extra'"),
    (lambda d: d.update(unit=5), "unit"),
    (lambda d: d.update(sizes=[]), "sizes"),
    (lambda d: d["sizes"].append(7), "sizes[2]"),
    (lambda d: d["sizes"][1].update(bytes=128), "sizes[1].bytes"),
    (lambda d: d["sizes"][1].update(bytes=256), "sizes[1].bytes"),
    (lambda d: d["sizes"][1].update(bytes="512"), "sizes[1].bytes"),
    (lambda d: d["sizes"][0].update(g="0"), "sizes[0].g"),
    (lambda d: d["sizes"][0].update(g="fast"), "sizes[0].g"),
    (lambda d: d["sizes"][0].pop("g"), "sizes[0].g"),
    (lambda d: d["sizes"][0].pop("L"), "sizes[0].L"),
    (lambda d: d["sizes"][0].update(L="-1"), "sizes[0].L"),
    (lambda d: d["sizes"][0].update(gap=1), "sizes[0].gap"),
])
def test_invalid_parameter_tables_name_the_element(change, element):
    doc = {"format": "steady-plogp", "version": 1, "unit": "ms",
           "sizes": [{"bytes": 256, "g": "0.03", "L": "0.11"},
                     {"bytes": 512, "g": "0.05", "L": "0.15"}]}
    change(doc)
    with pytest.raises(InputError) as info:
        table_from_dict(doc, "p.json")
    assert info.value.element == element


# -- 004 §3.1, T(n) = α + nβ ---------------------------------------------------------------

COST = LinearCost(F(1), F(1, 1000))        # T(1000) = 2, T(100) = 11/10, T(875) = 15/8


def test_section31_formulas_by_hand():
    assert flat_time(COST, 8, 1000) == 14                       # 7·2
    assert binomial_time(COST, 8, 1000) == 6                    # 3·2
    assert scatter_allgather_bound(COST, 8, 1000) == F(15, 4)   # 2·T(7/8·1000)
    linear = complete_kary_tree([f"n{r}" for r in range(8)], 1)
    binary = complete_kary_tree([f"n{r}" for r in range(8)], 2)
    assert pipelined_stage_time(COST, linear, 1000, 10) == F(187, 10)   # (10+8-1)·1.1
    assert pipelined_stage_time(COST, binary, 1000, 10) == F(143, 5)    # (10+4-1)·2·1.1
    assert [binomial_rounds(p) for p in (1, 2, 5, 8, 9)] == [0, 1, 3, 3, 4]


def test_table1_pipelined_linear_tree_tends_to_one_message_time():
    # α = 0: (X + P - 1)·T(msize/X) = T(msize)·(X + P - 1)/X, -> T(msize) as X grows
    cost = LinearCost(F(0), F(1))
    linear = complete_kary_tree([f"n{r}" for r in range(8)], 1)
    assert pipelined_stage_time(cost, linear, 1000, 1000) == 1007
    assert pipelined_stage_time(cost, linear, 1000, 1) == 8 * cost.T(1000)
