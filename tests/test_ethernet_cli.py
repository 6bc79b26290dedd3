"""The seed 004 commands: ``steady ethernet tree|segment`` and the campaigns
``steady experiment ethernet-height`` (Figure 5) and ``ethernet-table3``."""

import csv
import json
from fractions import Fraction
from pathlib import Path

import pytest
from helpers import assert_one_line_error, run

from steady.ethernet.broadcast_tree import BroadcastTree
from steady.ethernet.cluster import Cluster
from steady.ethernet.contention import contending_pairs

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
RANDOM64 = SAMPLES / "ethernet-random-64.json"
TOPOLOGY4 = SAMPLES / "ethernet-topology4.json"


@pytest.mark.parametrize("algorithm, extra, degree", [("linear", [], 1),
                                                      ("binary", [], 2),
                                                      ("k-ary", ["--k", "4"], 4)])
def test_tree_json_is_a_contention_free_spanning_tree(capsys, algorithm, extra, degree):
    code, out, err = run(capsys, "ethernet", "tree", RANDOM64, "--algorithm", algorithm,
                         *extra, "--json")
    assert code == 0 and err == ""
    doc = json.loads(out)
    cluster = Cluster.from_file(RANDOM64)
    tree = BroadcastTree.from_edges(doc["root"], [tuple(e) for e in doc["edges"]])
    assert tree.spans(cluster.machines) and tree.max_degree <= degree
    assert contending_pairs(cluster, tree.edges(), different_senders=True) == []
    assert doc["height"] == tree.height and doc["contention_free"] is True
    assert doc["order"][0] == "n0" and sorted(doc["order"]) == sorted(cluster.machines)


def test_tree_text_and_the_unaware_comparison(capsys):
    code, out, _ = run(capsys, "ethernet", "tree", TOPOLOGY4, "--compare")
    assert code == 0
    assert "algorithm   binary (Algorithm 2, Theorem 2)" in out
    assert "complete binary tree: 5" in out
    # 004 §5.2: switch-by-switch numbering makes the unaware linear tree contention-free;
    # the unaware binary tree contends, the flat tree never does.
    assert "linear    height   31       0 contending pairs" in out
    assert "flat      height    1       0 contending pairs" in out
    binary_line = next(line for line in out.splitlines() if line.strip().startswith("binary"))
    assert "0 contending" not in binary_line


def test_tree_compare_json_lists_every_contending_pair(capsys):
    code, out, _ = run(capsys, "ethernet", "tree", TOPOLOGY4, "--compare", "--json")
    doc = json.loads(out)["unaware"]
    assert list(doc) == ["flat", "binomial", "binary", "3-ary", "linear"]
    cluster = Cluster.from_file(TOPOLOGY4)
    for info in doc.values():
        expected = contending_pairs(cluster, [tuple(e) for e in info["edges"]],
                                    different_senders=True)
        assert info["contending_pairs"] == [c.to_dict() for c in expected]


def test_segment_json_reproduces_a_table3_linear_entry(capsys):
    # 004 Table 3, 100Mbps, 128KB, linear tree: Model 512B
    code, out, err = run(capsys, "ethernet", "segment", "--params", "100mbps", "--tree",
                         "linear", "--machines", 32, "--size", "128KB", "--json")
    assert code == 0 and err == ""
    doc = json.loads(out)
    assert doc["best_segment"] == 512 and isinstance(doc["best_segment"], int)
    assert doc["size"] == 131072 and doc["formula"] == "(1)"
    assert [c["segment"] for c in doc["candidates"]] == [256 << i for i in range(8)]
    times = {c["segment"]: Fraction(c["time"]) for c in doc["candidates"]}
    assert Fraction(doc["best_time"]) == times[512] == min(times.values())
    # 512B: X = 256, 31·(0.156 + 0.051) + 255·0.051 = 6.417 + 13.005 = 19.422 ms
    assert times[512] == Fraction("19.422")


def test_segment_binary_on_a_cluster_and_the_text_output(capsys):
    code, out, _ = run(capsys, "ethernet", "segment", "--params", "1000mbps", "--tree",
                       "binary", "--cluster", TOPOLOGY4, "--size", "2MB")
    assert code == 0
    assert f"Algorithm 2 on {TOPOLOGY4}, P = 32" in out
    assert "best segment size: 8192 bytes" in out      # Table 3, 2MB, 1000Mbps: 8192B
    assert out.count("<- best") == 1


def test_segment_reads_a_parameter_file(tmp_path, capsys):
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"format": "steady-plogp", "version": 1, "unit": "us",
                                "sizes": [{"bytes": 1, "g": 1, "L": 1},
                                          {"bytes": 2, "g": 2, "L": "1/2"}]}))
    # complete binary tree on 3 machines (A = 1, B = 2, D = 2), 2 bytes:
    # m = 1: L + 2g + 2·1·g = 5; m = 2: 1/2 + 4 = 9/2 -> 2
    code, out, _ = run(capsys, "ethernet", "segment", "--params", path, "--tree", "binary",
                       "--machines", 3, "--size", 2, "--json")
    doc = json.loads(out)
    assert [c["time"] for c in doc["candidates"]] == ["5", "9/2"]
    assert doc["best_segment"] == 2 and doc["unit"] == "us"


@pytest.mark.parametrize("argv, name", [
    (["ethernet", "tree", "missing.json"], "missing.json"),
    (["ethernet", "tree", RANDOM64, "--k", "3"], "--k"),
    (["ethernet", "tree", RANDOM64, "--algorithm", "k-ary", "--k", "1"], "--k"),
    (["ethernet", "segment", "--size", "1MB"], "--machines"),
    (["ethernet", "segment", "--machines", "1", "--size", "1MB"], "--machines"),
    (["ethernet", "segment", "--machines", "8", "--size", "1GB"], "--size"),
    (["ethernet", "segment", "--machines", "8", "--size", "100"], "--size"),
    (["ethernet", "segment", "--machines", "8", "--size", "8KB", "--params", "nope.json"],
     "nope.json"),
    (["ethernet", "segment", "--machines", "8", "--cluster", TOPOLOGY4, "--size", "8KB"],
     "--machines"),
    (["experiment", "ethernet-height", "--machines", "1,2"], "--machines"),
    (["experiment", "ethernet-height", "--machines", "64..32"], "--machines"),
    (["experiment", "ethernet-height", "--per-switch", "eight"], "--per-switch"),
    (["experiment", "ethernet-height", "--topologies", "0"], "--topologies"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, argv, name):
    code, _, err = run(capsys, *argv, *(["--out", tmp_path] if "experiment" in argv
                                        else []))
    assert code == 2
    assert_one_line_error(err, name)


def test_a_bad_cluster_file_is_one_line(tmp_path, capsys):
    doc = json.loads(TOPOLOGY4.read_text())
    doc["links"].append(["s0", "s3"])
    path = tmp_path / "c.json"
    path.write_text(json.dumps(doc))
    code, _, err = run(capsys, "ethernet", "tree", path)
    assert code == 2
    assert_one_line_error(err, f"links[{len(doc['links']) - 1}]")


def read_csv(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def test_height_campaign_writes_csv_and_checks_the_claim(tmp_path, capsys):
    code, out, _ = run(capsys, "experiment", "ethernet-height", "--machines", "16..32",
                       "--topologies", 3, "--out", tmp_path, "--no-plots", "--quiet")
    # 16 and 32 machines stay within twice floor(log2 P) (a one-switch 16-machine
    # cluster already needs height 4 = floor(log2 16))
    assert code == 0 and "holds for every size" in out
    heights = read_csv(tmp_path / "heights.csv")
    assert len(heights) == 2 * 2 * 3          # densities x sizes x topologies
    summary = read_csv(tmp_path / "summary.csv")
    for s in summary:
        mine = [int(h["height"]) for h in heights if (h["per_switch"], h["machines"])
                == (s["per_switch"], s["machines"])]
        assert Fraction(s["mean_height"]) == Fraction(sum(mine), len(mine))
        assert int(s["complete_height"]) == int(s["machines"]).bit_length() - 1
    assert (tmp_path / "report.md").read_text() in out


def test_height_campaign_exits_1_when_the_factor_of_two_fails(tmp_path, capsys):
    # 128 machines on 64 switches: Algorithm 2 needs height > 14 = 2·floor(log2 128)
    code, out, _ = run(capsys, "experiment", "ethernet-height", "--machines", "128",
                       "--per-switch", 2, "--topologies", 2, "--out", tmp_path,
                       "--no-plots", "--quiet")
    assert code == 1 and "FAILS for 128 machines at 2/switch" in out


def test_height_campaign_seeds_every_configuration_apart():
    """Topology t of two sizes or densities never shares a random stream; the seeds do
    not depend on the process (no hash())."""
    from steady.experiments.ethernet import height_tasks, topology_seed

    tasks = height_tasks([16, 32], [8, 16], 5, seed=3)
    assert len({t.seed for t in tasks}) == len(tasks) == 20
    assert topology_seed(3, 16, 8, 0) == tasks[0].seed
    assert topology_seed(3, 16, 8, 0) != topology_seed(4, 16, 8, 0)


def test_switch_depth_by_hand():
    """Root n0 on s0 of a chain s0 - s1 - s2 - s3: three switch hops to the far end; a
    root on a middle switch of the chain sees two."""
    from steady.ethernet.generators import switch_chain
    from steady.experiments.ethernet import switch_depth

    chain = switch_chain([8] * 4)
    assert switch_depth(chain) == 3
    middle = Cluster(chain.switches, chain.machines, chain.links, "n8")
    assert switch_depth(middle) == 2


def test_height_campaign_draws_figure5(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    code, _, _ = run(capsys, "experiment", "ethernet-height", "--machines", "16",
                     "--per-switch", "8", "--topologies", 1, "--out", tmp_path, "--quiet")
    assert code == 0
    assert (tmp_path / "figure5.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_table3_campaign_writes_the_report(tmp_path, capsys):
    code, out, _ = run(capsys, "experiment", "ethernet-table3", "--out", tmp_path)
    assert code == 0
    assert "17 of 18 Model entries equal the paper's" in out
    rows = read_csv(tmp_path / "table3.csv")
    assert len(rows) == 18 and rows[0]["linear_time"] == "527/100"   # formula (1) by hand
