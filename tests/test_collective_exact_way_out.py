"""The collective LP's exact way out (issue 43; proofs/collective-exact-way-out.md): when
GLOP gives up on the tree master (costs far apart), exact column generation from the
trees found so far gives the optimum and the same certificate."""

import json
import re
import shutil
import subprocess
from contextlib import contextmanager
from fractions import Fraction
from functools import partial
from math import lcm
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from helpers import all_route_trees, every_tree_lp, examples, run
from steady.certificate import check_collective
from steady.errors import InputError
from steady.exact.lp import EQ, CertificationError, LinearProgram
from steady.platform import Link
from steady.strategies import switched_platforms
from steady.throughput import collective, trees
from steady.throughput.collective import collective_throughput
from steady.topologies import hetero_cluster_platform

NVLINK = {("c0", "c1"), ("c1", "c0")}


def _hetero_with(cost, arcs=NVLINK):
    """The hetero-cluster sample with the arcs ``arcs`` at ``cost`` (None: removed)."""
    p = hetero_cluster_platform()
    links = [l if l.arc not in arcs else Link(l.tail, l.head, cost)
             for l in p.links if l.arc not in arcs or cost is not None]
    return p.replace_links(links)


@contextmanager
def _forced():
    """collective_throughput with the exact way out from the start (no float search)."""
    with mock.patch.object(collective, "solve_rooted",
                           partial(trees.solve_rooted, search=False)):
        yield


# -- the hetero-cluster with one link 10^16 faster or 10^20 slower ---------------------

@pytest.mark.parametrize("cost", [Fraction(1, 10**16), Fraction(1, 10**20)])
def test_a_link_far_faster_gives_the_samples_optimum(cost):
    """The NVLink pair at 10^16 (10^20) units per time unit: GLOP gives up, the way out
    answers 1 -- at least the sample's 1 (a faster link never lowers the optimum), at
    most the cut bound (an exact max-flow proves it; at 10^16 it is 1, reached)."""
    p = _hetero_with(cost)
    result = collective_throughput(p, "allgather")
    assert result.stats["route"].startswith("exact way out (GLOP status")
    assert result.rate == 1 == collective_throughput(hetero_cluster_platform()).rate
    assert result.rate <= Fraction(result.stats["cut_bound"])
    if cost == Fraction(1, 10**16):
        assert Fraction(result.stats["cut_bound"]) == 1 and result.certificate.cut is not None
    assert check_collective(p, result).ok


def test_a_link_far_slower_gives_the_optimum_between_its_neighbours():
    """The NVLink pair at 10^-20 units per time unit: the way out answers 1.  A slower
    link never raises the optimum and removing it never raises it either, so the
    optimum lies between the pair removed and the pair at its own speed, where the
    float path gives 1 both times; the certificate proves it independently too."""
    p = _hetero_with(Fraction(10**20))
    result = collective_throughput(p, "allgather")
    assert result.stats["route"].startswith("exact way out (GLOP status")
    without = collective_throughput(_hetero_with(None))
    assert "route" not in without.stats
    assert without.rate <= result.rate <= collective_throughput(hetero_cluster_platform()).rate
    assert result.rate == 1
    assert check_collective(p, result).ok


def test_the_command_answers_a_far_faster_link(tmp_path, capsys):
    """`steady throughput --collective allgather --json` on the 10^16 platform: exit 0,
    rate 1, certified (it was refused in one line before)."""
    path = tmp_path / "p.json"
    path.write_text(json.dumps(_hetero_with(Fraction(1, 10**16)).to_dict()))
    code, out, err = run(capsys, "throughput", path, "--collective", "allgather", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["rate"] == "1" and doc["certified"] is True
    assert doc["statistics"]["route"].startswith("exact way out")


def test_a_multi_source_broadcast_takes_it_too():
    """Four sources, the NVLink pair at 10^16 units per time unit: the way out gives
    25/8, the sample's optimum (a faster link never lowers it; the certificate proves
    that nothing beats it here)."""
    p = _hetero_with(Fraction(1, 10**16))
    sources = ["a0", "b0", "c0", "storage"]
    result = collective_throughput(p, "broadcast", sources)
    assert result.stats["route"].startswith("exact way out")
    assert result.rate == Fraction(25, 8) == collective_throughput(
        hetero_cluster_platform(), "broadcast", sources).rate
    assert check_collective(p, result).ok


# -- the bounds: one line, naming them --------------------------------------------------

def test_beyond_its_rounds_the_platform_is_refused_naming_the_bound(monkeypatch):
    monkeypatch.setattr(trees, "EXACT_WAY_OUT_ROUNDS", 1)
    with pytest.raises(InputError) as info:
        collective_throughput(_hetero_with(Fraction(1, 10**20)), "allgather")
    assert info.value.element == "costs"
    assert "EXACT_WAY_OUT_ROUNDS" in info.value.reason
    assert "docs/limits.md" in info.value.reason


def test_beyond_its_pivots_the_platform_is_refused_naming_the_bound(monkeypatch):
    """GLOP failing on every master (so the exact simplex must solve each) with no
    pivot allowed: refused, naming EXACT_WAY_OUT_PIVOTS."""
    def broken(self, strict=False):
        raise CertificationError("GLOP status 4: the LP has no optimum")

    monkeypatch.setattr(LinearProgram, "solve_float", broken)
    monkeypatch.setattr(trees, "EXACT_WAY_OUT_PIVOTS", 0)
    with pytest.raises(InputError) as info:
        collective_throughput(hetero_cluster_platform(), "allgather")
    assert "EXACT_WAY_OUT_PIVOTS" in info.value.reason and "0 pivots" in info.value.reason


def test_the_refusal_is_one_line_on_the_command_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(trees, "EXACT_WAY_OUT_ROUNDS", 1)
    path = tmp_path / "p.json"
    path.write_text(json.dumps(_hetero_with(Fraction(1, 10**20)).to_dict()))
    code, out, err = run(capsys, "throughput", path, "--collective", "allgather")
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "costs" in err and "EXACT_WAY_OUT_ROUNDS" in err


def test_the_exact_simplex_alone_finds_it():
    """GLOP failing on every master: each round's master is solved by the exact simplex
    from the previous round's basis, and the optimum and certificate are the same."""
    p = _hetero_with(Fraction(10**20))

    def broken(self, strict=False):
        raise CertificationError("GLOP status 4: the LP has no optimum")

    with mock.patch.object(LinearProgram, "solve_float", broken):
        result = collective_throughput(p, "allgather")
    assert result.stats["exact_simplex_rounds"] == result.stats["exact_rounds"]
    assert result.rate == 1
    assert check_collective(p, result).ok


# -- properties ------------------------------------------------------------------------

@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(switched_platforms(max_compute=4, max_switches=2),
       st.sampled_from(["allgather", "reduce-scatter", "allreduce"]))
def test_the_forced_way_out_gives_the_float_paths_optimum(platform, kind):
    """On small switched fabrics the exact way out, forced from the seed trees, ends
    at the float path's optimum, with a certificate that checks."""
    expected = collective_throughput(platform, kind)
    with _forced():
        result = collective_throughput(platform, kind)
    assert result.stats["route"] == "exact way out (not asked)"
    assert result.rate == expected.rate
    assert check_collective(platform, result).ok


def _esolver_optimum(lp: LinearProgram, folder) -> Fraction:
    """QSopt_ex's exact optimum of ``lp`` (max, rows <= or ==, x >= 0): each row scaled
    to integers (the same feasible set), written in LP format."""
    lines = ["Maximize", " obj: " + " + ".join(f"{c} v{j}" for j, c in lp.objective.items()),
             "Subject To"]
    for i, row in enumerate(lp.rows):
        scale = lcm(row.rhs.denominator, *(a.denominator for a in row.coeffs.values()))
        terms = " ".join(f"{'+' if a > 0 else '-'} {abs(a * scale)} v{j}"
                         for j, a in row.coeffs.items())
        sense = "=" if row.sense == EQ else row.sense
        lines.append(f" r{i}: {terms} {sense} {row.rhs * scale}")
    lines.append("End")
    (folder / "lp.lp").write_text("\n".join(lines) + "\n")
    subprocess.run(["esolver", "-L", "-O", str(folder / "lp.sol"), str(folder / "lp.lp")],
                   capture_output=True, check=True, timeout=60)
    text = (folder / "lp.sol").read_text()
    assert "status OPTIMAL" in text, text
    return Fraction(re.search(r"Value = (\S+)", text).group(1))


@pytest.mark.skipif(shutil.which("esolver") is None, reason="QSopt_ex's esolver absent")
@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(switched_platforms(max_compute=3, max_switches=2, density=0.2),
       st.sampled_from(["allgather", "reduce-scatter", "allreduce"]),
       st.integers(0, 10**6), st.integers(-24, 24))
def test_costs_far_apart_agree_with_qsopt_ex_over_every_tree(platform, kind, pick, e):
    """One link's cost times 10^e (|e| <= 24): the collective's optimum -- the float
    path where GLOP copes, the way out where not (also seeded by the clamped search
    from its first round), and the way out forced -- is the optimum of the LP over
    every tree that QSopt_ex's exact simplex finds."""
    import tempfile
    from pathlib import Path

    arc = platform.links[pick % len(platform.links)].arc
    skewed = platform.replace_links(
        Link(l.tail, l.head, l.cost * Fraction(10) ** e if l.arc == arc else l.cost)
        for l in platform.links)
    count = sum(1 for _ in all_route_trees(skewed, skewed.compute_nodes[0], "out"))
    assume(count <= 200)
    with tempfile.TemporaryDirectory() as folder:
        oracle = _esolver_optimum(every_tree_lp(skewed, kind), Path(folder))
    natural = collective_throughput(skewed, kind)
    with _forced():
        forced = collective_throughput(skewed, kind)
    with mock.patch.object(trees, "CLAMP_AFTER_ROUNDS", 0):  # seeded at once
        seeded = collective_throughput(skewed, kind)
    assert natural.rate == forced.rate == seeded.rate == oracle
    assert check_collective(skewed, forced).ok and check_collective(skewed, seeded).ok


def test_an_exact_end_that_fails_takes_the_way_out_too(monkeypatch):
    """The float search succeeding but its exact end failing (GLOP's basis refused and
    no sympy answer: simulated) goes on by the exact way out, to the same optimum."""
    solve_exact = LinearProgram.solve_exact

    def no_fallback(self, start=None, max_pivots=0):
        if start is None:
            raise CertificationError("no verified optimum from the float basis")
        return solve_exact(self, start, max_pivots)

    monkeypatch.setattr(LinearProgram, "solve_exact", no_fallback)
    p = hetero_cluster_platform()
    result = collective_throughput(p, "allgather")
    assert result.stats["route"] == "exact way out (no verified optimum from the float basis)"
    assert result.stats["pricing_rounds"] > 0  # the search ran first
    assert result.rate == 1 and check_collective(p, result).ok


# -- the clamped search (issue 43: 2 MI250 boxes with a link x 10^16) -------------------

def test_the_clamped_search_seeds_the_way_out_to_one_round(monkeypatch):
    """A far faster link: the trees and basis of the clamped platform's optimum start
    the exact rounds, which stop after one round at the same optimum."""
    monkeypatch.setattr(trees, "CLAMP_AFTER_ROUNDS", 0)
    p = _hetero_with(Fraction(1, 10**16))
    result = collective_throughput(p, "allgather")
    assert result.stats["route"].startswith("exact way out (GLOP")
    assert result.stats["exact_rounds"] == 1
    assert result.rate == 1 and check_collective(p, result).ok


def test_without_the_clamped_search_the_optimum_is_the_same(monkeypatch):
    """The clamped search only seeds: with it off (no cost beyond the span) the way out
    reaches the same optimum in more rounds."""
    p = _hetero_with(Fraction(1, 10**16))
    seeded = collective_throughput(p, "allreduce")
    monkeypatch.setattr(trees, "CLAMP_SPAN", Fraction(10**40))
    plain = collective_throughput(p, "allreduce")
    assert seeded.rate == plain.rate == Fraction(75, 88)
    assert seeded.stats["exact_rounds"] < plain.stats["exact_rounds"]
    assert check_collective(p, seeded).ok and check_collective(p, plain).ok


def test_a_clamped_basis_that_is_not_feasible_falls_back_to_the_slacks(monkeypatch):
    """A seed basis the exact simplex refuses (here: not a basis) is dropped for the
    slacks: same optimum."""
    seeds = trees._clamped_seeds

    def broken(master, *args):
        basis = seeds(master, *args)
        return None if basis is None else basis[:1] * len(basis)

    monkeypatch.setattr(trees, "_clamped_seeds", broken)
    monkeypatch.setattr(trees, "CLAMP_AFTER_ROUNDS", 0)
    p = _hetero_with(Fraction(10**20))
    result = collective_throughput(p, "allgather")
    assert result.rate == 1 and check_collective(p, result).ok


@pytest.mark.slow
def test_two_mi250_boxes_with_a_link_far_faster_finish():
    """Issue 43's row: 2 MI250 boxes, one xGMI link's cost / 10^16 -- stopped at 600
    CPU-s before the clamped search; now the optimum of the box without the change
    (the link is inside a box; the bottleneck is between the boxes), certified."""
    from steady.inputs import as_platform

    p = as_platform(Path(__file__).resolve().parent.parent / "samples" / "collectives"
                    / "mi250-2.json")
    arcs = {("b0.gcd0", "b0.gcd1"), ("b0.gcd1", "b0.gcd0")}
    fast = p.replace_links(Link(l.tail, l.head, l.cost / 10**16 if l.arc in arcs else l.cost)
                           for l in p.links)
    result = collective_throughput(fast, "allgather")
    assert result.stats["route"].startswith("exact way out")
    assert result.rate == Fraction(166, 15)
    assert check_collective(fast, result).ok
