"""``steady heuristics``: every heuristic of seed 000 on one platform, text and JSON.

Expected values are derived by hand in tests/test_heuristics.py (002 Figure 1: the
pruning and growing heuristics give 2/3, the Binomial Tree 1/3; the optimum is 1).
"""

import json
from fractions import Fraction

from helpers import assert_one_line_error, run

from steady.heuristics.registry import heuristics_for

# S->A 1, S->B 1, S->C 1, A->B 2, A->C 2, send_S = 1/2, send_A = 1: the multi-port
# heuristics give the star, period max(3 x 1/2, 1) = 3/2 (tests/test_heuristics.py).
MULTI = {"format": "steady-platform", "version": 1, "name": "multi", "source": "S",
         "links": [{"from": "S", "to": "A", "cost": 1}, {"from": "S", "to": "B", "cost": 1},
                   {"from": "S", "to": "C", "cost": 1}, {"from": "A", "to": "B", "cost": 2},
                   {"from": "A", "to": "C", "cost": 2}],
         "send_overhead": {"S": "1/2", "A": "1"}}


def write(tmp_path, doc):
    path = tmp_path / "p.json"
    path.write_text(json.dumps(doc))
    return path


def test_text_output_lists_every_one_port_heuristic(capsys):
    code, out, err = run(capsys, "heuristics", "--best-tree", "0")
    assert code == 0 and err == ""
    assert "optimum    1 " in out and "best tree" not in out
    # a row: name, share of the optimum, exact throughput, tree
    rows = {line.split()[0]: line.split()[2] for line in out.splitlines()
            if line.split() and line.split()[0] in heuristics_for("one-port")}
    assert list(rows) == heuristics_for("one-port")
    assert rows["simple-prune"] == rows["refined-prune"] == rows["grow-min-out-degree"] \
        == "2/3"
    assert rows["binomial"] == "1/3"
    assert "P2->P3 (via P1)" in out      # a logical edge that is no link, and its route


def test_json_maps_every_heuristic_to_its_tree_and_throughput(capsys):
    code, out, _ = run(capsys, "heuristics", "--best-tree", "0", "--json")
    doc = json.loads(out)
    assert code == 0
    assert doc["optimum"] == "1" and doc["model"] == "one-port" and "best_tree" not in doc
    assert doc["refined-prune"]["throughput"] == "2/3"
    assert doc["refined-prune"]["ratio"] == "2/3"
    assert sorted(map(tuple, doc["refined-prune"]["tree"])) == [
        ("P1", "P3"), ("P2", "P1"), ("P2", "P4"), ("Ps", "P2")]
    assert doc["binomial"]["throughput"] == "1/3"
    assert doc["binomial"]["routes"] == [["P2", "P1", "P3"], ["Ps", "P2", "P4"]]
    assert "routes" not in doc["refined-prune"]
    for name in heuristics_for("one-port"):
        assert len(doc[name]["tree"]) == 4


def test_multi_port_model(capsys, tmp_path):
    code, out, _ = run(capsys, "heuristics", write(tmp_path, MULTI), "--model",
                       "multi-port", "--best-tree", "0", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["model"] == "multi-port"
    assert set(heuristics_for("multi-port")) <= set(doc)
    assert doc["multiport-grow"]["throughput"] == "2/3"
    assert doc["multiport-prune-degree"]["throughput"] == "2/3"
    # One-port: S's port gives 3·TP - x - y <= 1 with A relaying x + y <= 1/2 (cost 2
    # each): TP = 1/2, below the multi-port trees (seed 000 Figure 5's ratios > 1).
    # Multi-port: S's sends (3·TP - x - y)/2 <= 1, A's sends x + y <= 1, A->B and A->C
    # carry at most 1/2: TP = 1 with x = y = 1/2.
    assert doc["one_port_optimum"] == "1/2" and doc["optimum"] == "1"


def test_multi_port_without_send_overheads_is_bad_input(capsys):
    code, out, err = run(capsys, "heuristics", "--model", "multi-port", "--best-tree", "0")
    assert code == 2 and out == ""
    assert_one_line_error(err, "send_overhead.Ps")


def test_best_tree_with_a_small_limit(capsys):
    code, out, _ = run(capsys, "heuristics", "--best-tree", "5", "--json")
    doc = json.loads(out)
    # 002 §3.1.2: the best tree of Figure 1 (Figure 4) has throughput 2/3.
    assert code == 0 and doc["best_tree"]["throughput"] == "2/3"
    best = Fraction(doc["best_tree"]["throughput"])
    assert all(Fraction(doc[name]["throughput"]) <= best
               for name in heuristics_for("one-port"))
