"""Messages, names and docs that issue 43's new-user trial found wrong: the option
that a refusal blames, periods in tradeoff tables, an oversubscribed fat tree's name,
`import simgrid --ports` in docs/cli.md, the commands that take a fabric in
docs/formats.md."""

import re
from fractions import Fraction
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from helpers import run
from steady.numbers import format_exact
from steady.present.sheet import column_exact
from steady.topologies import fat_tree_platform

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"


def _section(path: Path, title: str) -> str:
    text = path.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else None]


def test_import_simgrid_documents_ports():
    section = _section(ROOT / "docs" / "cli.md", "steady import simgrid")
    assert "[--ports {one-port,multi-port}]" in section.split("\n\n")[1]   # the usage
    assert "\n| `--ports {one-port,multi-port}` | " in section


def test_formats_no_longer_says_only_throughput_takes_a_fabric():
    text = " ".join((ROOT / "docs" / "formats.md").read_text(encoding="utf-8").split())
    assert "by every command but `steady throughput`" not in text
    assert ("`steady throughput` (whose default on it is `--collective broadcast`), "
            "`schedule`, `tradeoff` and `simulate` take it") in text


def test_rates_without_a_broadcast_blame_rates(capsys):
    code, out, err = run(capsys, "throughput", SAMPLES / "collectives" / "hetero-cluster.json",
                         "--collective", "allgather", "--rates", "1,2")
    assert (code, out) == (2, "")
    assert err == ("steady: <command line>: --rates: allgather: every compute node is a "
                   "root (--sources and --rates are for a broadcast)\n")
    code, out, err = run(capsys, "throughput", SAMPLES / "collectives" / "hetero-cluster.json",
                         "--collective", "allgather", "--sources", "a0", "--rates", "1")
    assert code == 2 and err.startswith("steady: <command line>: --sources: allgather: ")


def test_tradeoff_shows_periods_exactly(capsys):
    code, out, err = run(capsys, "tradeoff", SAMPLES / "collectives" / "a100-1.json",
                         "--collective", "allgather", "--max-messages", "1,2", "--quiet")
    assert code == 0, err
    rows = [line.split() for line in out.splitlines() if re.match(r"\s+[12] ", line)]
    assert [row[3] for row in rows] == ["7/300", "7/150"]   # was 0.0233, 0.0466


def test_tradeoff_rounds_a_long_period_to_nearest(capsys):
    code, out, err = run(capsys, "tradeoff", SAMPLES / "random-30.json", "--max-messages",
                         "2", "--quiet")
    assert code == 0, err
    row = next(line.split() for line in out.splitlines() if re.match(r"\s+2 ", line))
    assert row[3] == "~35.725465"   # 35.7254649733... (its exact value in --json)


@given(st.fractions(min_value=0, max_value=10 ** 6), st.integers(10, 20))
def test_a_column_shows_the_exact_value_or_a_rounded_one(x, width):
    text = column_exact(x, width)
    if len(format_exact(x)) <= width:
        assert text == format_exact(x)
    else:
        assert text.startswith("~") and len(text) <= width
        places = len(text.partition(".")[2])
        assert abs(Fraction(text[1:]) - x) <= Fraction(1, 2 * 10 ** places)


def test_an_oversubscribed_fat_tree_says_so_in_its_name():
    assert fat_tree_platform(4).name == "fat-tree-4"   # the sample's name, unchanged
    assert fat_tree_platform(4, oversubscription=1).name == "fat-tree-4"
    assert fat_tree_platform(4, oversubscription=2).name == "fat-tree-4-oversubscribed-2"
    assert (fat_tree_platform(4, oversubscription=Fraction(3, 2)).name
            == "fat-tree-4-oversubscribed-3/2")
