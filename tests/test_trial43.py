"""What issue 43's second new-user trial (trial43) found wrong, one test per defect."""

from fractions import Fraction
from pathlib import Path

import pytest

from helpers import assert_one_line_error, run

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


@pytest.mark.parametrize("command, extra", [
    ("throughput", []), ("schedule", ["--max-messages", "4"]),
    ("simulate", ["--horizon", "1"]), ("tradeoff", ["--max-messages", "4"])])
@pytest.mark.parametrize("option, value", [
    ("--sources", ""), ("--sources", "a0,"), ("--sources", "a0,,b0"), ("--rates", "")])
def test_an_empty_sources_or_rates_item_is_refused(capsys, command, extra, option, value):
    """``--sources ""`` (an unset shell variable) ran the default broadcast from the
    platform's source as if the option were absent; every empty item is now refused in
    one line naming the option, before any work."""
    path = SAMPLES / "collectives" / "hetero-cluster.json"
    argv = [command, path, *extra, option, value]
    if option == "--rates":
        argv += ["--sources", "a0"]
    code, out, err = run(capsys, *argv)
    assert code == 2 and not out
    assert_one_line_error(err, option)
    assert "empty item" in err


def test_an_empty_sources_is_refused_on_a_one_port_platform_too(capsys):
    """On a classic one-port platform an empty ``--sources`` went to today's broadcast
    silently."""
    code, out, err = run(capsys, "throughput", SAMPLES / "figure1.json", "--sources", "")
    assert code == 2 and not out
    assert_one_line_error(err, "--sources")


PACKAGE = Path(__file__).resolve().parent.parent / "steady"


def _direct_solves() -> list[str]:
    """Lines of steady/ (but steady/interrupts.py) that call a pywraplp solver's
    ``Solve()`` themselves instead of through ``steady.interrupts.solve_linear``."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "interrupts.py" and path.parent == PACKAGE:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if ".Solve(" in line and not line.lstrip().startswith("#"):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{number}")
    return found


def test_the_scanner_finds_a_direct_solve(tmp_path, monkeypatch):
    """The scan below can fail: it sees a direct call in a package file."""
    (tmp_path / "m.py").write_text("status = solver.Solve()\n", encoding="utf-8")
    monkeypatch.setattr(f"{__name__}.PACKAGE", tmp_path)
    assert _direct_solves() == [f"{tmp_path.name}/m.py:1"]


def test_every_scip_or_glop_solve_goes_through_the_interrupts_module():
    """docs/cli.md: Ctrl-C gives exit 130 at any moment.  SCIP catches SIGINT itself
    (misc/catchctrlc) and returns a partial answer as if nothing happened, unless the
    call goes through steady.interrupts.solve_linear (which turns that off and stops
    the solver on a signal)."""
    assert _direct_solves() == []


@pytest.mark.parametrize("attribute, value, reason", [
    ("capacity", 0, "must be > 0"), ("capacity", -1, "must be > 0"),
    ("capacity", float("nan"), "not a finite number"), ("capacity", "abc", "not a number"),
    ("capacity", None, "missing number"), ("weight", 0, "must be > 0")])
def test_a_networkx_refusal_names_the_graph_s_attribute(attribute, value, reason):
    """ForestColl's graphs carry ``capacity`` (or networkx's ``weight``): a bad value
    was refused as ``links[0] (g0->sw).bandwidth`` (or ``.cost``), an attribute the
    graph does not have."""
    import networkx as nx

    from steady.errors import InputError
    from steady.platform import Platform

    graph = nx.DiGraph()
    for g in ("g0", "g1"):
        graph.add_edge(g, "sw", **{attribute: 25})
        graph.add_edge("sw", g, **{attribute: 25})
    graph["g0"]["sw"][attribute] = value
    with pytest.raises(InputError) as caught:
        Platform.from_networkx(graph, "g0", compute_nodes=["g0", "g1"], ports="multi-port")
    assert caught.value.element == f"links[0] (g0->sw).{attribute}"
    assert reason in caught.value.reason


def test_one_root_solved_is_singular():
    """An allgather on a transitive fabric solves one root: "1 root solved" (it said
    "1 roots solved"); an allreduce solves two (one per direction)."""
    from steady.throughput.collective import collective_throughput

    path = SAMPLES / "collectives" / "a100-1.json"
    assert collective_throughput(path, "allgather").stats["symmetry"] == \
        "group of order 8, 1 root solved"
    assert collective_throughput(path, "allreduce").stats["symmetry"] == \
        "group of order 8, 2 roots solved"


@pytest.mark.parametrize("x, shown", [
    (Fraction(1, 3_000_000), "1/3000000 (~3.333333e-7)"),
    (Fraction(-1, 3 * 10 ** 9), "-1/3000000000 (~-3.333333e-10)"),
    (Fraction(1, 10 ** 7), "1/10000000 = 1e-7"),
    (Fraction(2, 3), "2/3 (~0.666667)"),
    (Fraction(47, 10 ** 7), "47/10000000 (~0.000005)"),
    (Fraction(1, 7 * 10 ** 40), "~1.428571e-41 (exact value in the file)")])
def test_a_tiny_rate_is_not_shown_as_zero(x, shown):
    """A fabric whose bandwidths are in bytes per microsecond (or a rate per root of
    1/3000000) printed ``1/3000000 (~0)``: the rounded decimal now keeps 7 significant
    digits when the 6 places would read 0."""
    from steady.present.sheet import number

    assert number(x) == shown


def test_a_link_far_faster_is_answered_and_the_way_out_s_bounds_are_documented(
        tmp_path, capsys):
    """One link of the heterogeneous cluster sample 10^20 times faster: GLOP gives up.
    It was refused ("no exact fallback for collectives yet"); the exact way out now
    answers it (proofs/collective-exact-way-out.md), and the bounds its refusal names
    are in docs/limits.md."""
    import json

    doc = json.loads((SAMPLES / "collectives" / "hetero-cluster.json").read_text(
        encoding="utf-8"))
    del doc["links"][0]["cost"]
    doc["links"][0]["bandwidth"] = "1e20"
    path = tmp_path / "far.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    code, out, err = run(capsys, "throughput", path, "--collective", "allgather", "--json")
    assert code == 0, err
    answer = json.loads(out)
    assert answer["rate"] == "1" and answer["certified"] is True
    assert answer["statistics"]["route"].startswith("exact way out (GLOP status")
    limits = " ".join((SAMPLES.parent / "docs" / "limits.md").read_text(
        encoding="utf-8").split())
    assert "no exact fallback for collectives yet" not in limits
    for bound in ("EXACT_WAY_OUT_ROUNDS", "EXACT_WAY_OUT_PIVOTS"):
        assert bound in limits
