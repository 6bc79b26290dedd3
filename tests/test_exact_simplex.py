"""The exact simplex from a feasible basis (steady.exact.simplex): the optimum of
LinearProgram.solve_exact, from the slack basis and from an optimal basis after columns
are added."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import examples
from steady.exact.lp import EQ, LE, CertificationError, LinearProgram
from steady.exact.simplex import SimplexLimit, exact_simplex

_COEFF = st.fractions(min_value=0, max_value=5, max_denominator=4)


def _program(rows, objective, equalities):
    """max c·x, rows a·x <= 1 (a >= 0), and x_0 = sum of the next ones per equality:
    bounded (each column used has a positive row) and feasible at x = 0."""
    lp = LinearProgram("simplex-test")
    n = len(objective)
    for j, c in enumerate(objective):
        lp.add_variable(f"v{j}", objective=c)
    for coeffs in rows:
        lp.add_row({j: a for j, a in enumerate(coeffs) if a}, LE, 1, "load")
    lp.add_row({j: 1 for j in range(n)}, LE, 10**6, "bounded")
    for k in equalities:
        lp.add_row({0: 1, k % n: -1} if k % n else {}, EQ, 0, "link")
    return lp


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(1, 5).flatmap(lambda n: st.tuples(
    st.lists(st.lists(_COEFF, min_size=n, max_size=n), min_size=1, max_size=5),
    st.lists(st.fractions(min_value=-2, max_value=3, max_denominator=3), min_size=n,
             max_size=n),
    st.lists(st.integers(1, 4), max_size=2),
    st.integers(0, 30))))
def test_from_the_slacks_it_reaches_the_exact_optimum(case):
    """From the slack basis (x = 0), and again from the optimum after the cost of every
    column is multiplied by 10^e (a basis feasible still: the rows are unchanged), the
    simplex's vertex passes the exact checks with the value of solve_exact."""
    rows, objective, equalities, e = case
    lp = _program(rows, objective, equalities)
    slacks = [("row", i) for i in range(len(lp.rows))]
    x, y, basis, _ = exact_simplex(lp, slacks, 500)
    x = [Fraction(int(v.p), int(v.q)) for v in x]
    y = [Fraction(int(v.p), int(v.q)) for v in y]
    lp._verify(x, y)
    value = sum(lp.objective[j] * x[j] for j in lp.objective)
    assert value == lp.solve_exact().value
    skewed = [c * Fraction(10) ** e for c in objective]
    again = _program(rows, skewed, equalities)._simplex_from(basis, 500)  # checked
    assert again.value == _program(rows, skewed, equalities).solve_exact().value


def test_columns_added_start_from_the_old_basis():
    lp = LinearProgram("grow")
    x = lp.add_variable("x", objective=1)
    r = lp.add_row({x: 1}, EQ, 0, "root")
    load = lp.add_row({}, LE, 1, "load")
    lp.add_variable("t0", column={r: -1, load: 3})
    first = lp.solve_exact([("row", 0), ("row", 1)], 10)
    assert first.value == Fraction(1, 3)
    lp.add_variable("t1", column={r: -1, load: Fraction(1, 10**20)})
    second = lp._simplex_from(first.basis, 10)
    assert second.value == 10**20 and second.stats["fallback"].startswith("exact simplex")


def test_the_pivot_bound_and_a_bad_start_are_refused():
    lp = LinearProgram("grow")
    x = lp.add_variable("x", objective=1)
    lp.add_row({x: 1}, LE, 1, "cap")
    with pytest.raises(SimplexLimit, match="within 0 pivots"):
        exact_simplex(lp, [("row", 0)], 0)
    with pytest.raises(CertificationError, match="not a basis"):
        lp._simplex_from([], 5)
