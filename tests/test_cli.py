"""The command line: outputs, JSON contract, exit codes and one-line errors."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from steady.cli import main
from helpers import run

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def test_default_platform_is_figure_1_with_throughput_1(capsys):
    code, out, err = run(capsys, "throughput", "--json")
    doc = json.loads(out)
    assert code == 0 and err == ""
    assert doc["platform"] == "figure-1"
    assert (doc["throughput"], doc["period"], doc["certified"]) == ("1", "1", True)
    assert "out-port of Ps" in doc["bottleneck"]


def test_human_output_names_throughput_period_bottleneck(capsys):
    code, out, _ = run(capsys, "throughput", str(SAMPLES / "figure5-dag.json"), "--dag")
    assert code == 0
    assert "4/5 = 0.8" in out and "5/4 = 1.25" in out and "bottleneck" in out


def test_tree_file_in_platform_format(capsys):
    code, out, _ = run(capsys, "throughput", "--tree", str(SAMPLES / "figure4-tree.json"),
                       "--json")
    assert code == 0 and json.loads(out)["throughput"] == "2/3"


def test_tree_file_in_tree_format(capsys, tmp_path):
    tree = tmp_path / "t.json"
    tree.write_text(json.dumps({"format": "steady-tree", "version": 1,
                                "edges": [["Ps", "P1"], ["Ps", "P2"], ["P1", "P3"],
                                          ["P2", "P4"]]}))
    code, out, _ = run(capsys, "throughput", "--tree", str(tree), "--json")
    # Figure 3 tree: the source sends to P1 and P2 (cost 1 each): TP = 1/2.
    assert code == 0 and json.loads(out)["throughput"] == "1/2"


@pytest.mark.parametrize("method", ["cuts", "trees", "flow"])
def test_methods_agree_on_a_generated_sample(capsys, method):
    code, out, _ = run(capsys, "throughput", str(SAMPLES / "random-10.json"),
                       "--method", method, "--json")
    assert code == 0
    reference = main(["throughput", str(SAMPLES / "random-10.json"), "--json"])
    ref_out, _ = capsys.readouterr()
    assert reference == 0
    assert json.loads(out)["throughput"] == json.loads(ref_out)["throughput"]


def write(tmp_path, doc, name="p.json"):
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return str(path)


BAD = [
    ({"source": "Z", "nodes": ["A", "B"], "links": [{"from": "A", "to": "B", "cost": 1}]},
     "source"),
    ({"source": "A", "links": [{"from": "A", "to": "B", "cost": -1}]}, "cost"),
    ({"source": "A", "links": [{"from": "A", "to": "B", "cost": "x"}]}, "cost"),
    ({"source": "A", "links": [{"from": "A", "to": "B", "cost": 1, "bandwidth": 2}]}, "both"),
    ({"source": "A", "links": [{"from": "A", "to": "A", "cost": 1}]}, "self-loop"),
    ({"source": "A", "links": [{"from": "A", "to": "B", "cost": 1},
                               {"from": "A", "to": "B", "cost": 2}]}, "duplicate"),
    ({"source": "A", "nodes": ["A", "B", "C", "D"],
      "links": [{"from": "A", "to": "B", "cost": 1}]}, "C, D"),
    ({"source": "A", "links": [], "colour": 1}, "colour"),
    ('{"source": "A",\n "links": [}', "line 2"),
]


@pytest.mark.parametrize("doc,needle", BAD)
def test_bad_platform_exit_2_one_line(capsys, tmp_path, doc, needle):
    path = write(tmp_path, doc)
    code, out, err = run(capsys, "throughput", path)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and path in lines[0] and needle in lines[0]


def test_missing_file_exit_2(capsys, tmp_path):
    code, _, err = run(capsys, "throughput", str(tmp_path / "nope.json"))
    assert code == 2 and "no such file" in err


def test_dag_on_cyclic_platform_exit_2(capsys):
    code, _, err = run(capsys, "throughput", "--dag")
    assert code == 2 and "cycle" in err and len(err.strip().splitlines()) == 1


def test_bad_tree_exit_2(capsys, tmp_path):
    tree = write(tmp_path, {"format": "steady-tree", "edges": [["Ps", "P1"], ["P1", "P3"]]},
                 "t.json")
    code, _, err = run(capsys, "throughput", "--tree", tree)
    assert code == 2 and "not spanning" in err and "P2" in err


def test_console_entry_point_and_module():
    done = subprocess.run([sys.executable, "-m", "steady", "throughput", "--json"],
                          capture_output=True, text=True)
    assert done.returncode == 0 and json.loads(done.stdout)["throughput"] == "1"
    bad = subprocess.run([sys.executable, "-m", "steady", "throughput", "--bogus"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
