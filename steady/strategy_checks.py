"""Argument checks of the hypothesis strategies (ours): a parameter given as a value is
checked when the strategy is defined, one given as a strategy each time it is drawn,
and both fail with hypothesis' ``InvalidArgument`` naming the parameter, its value and
the rule.  Shared by :mod:`steady.strategies` and the strategies of the grid and
Ethernet packages."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from .numbers import parse_exact

SearchStrategy = st.SearchStrategy

__all__ = ["boolean", "checked", "define", "fail", "integer", "no_strategy", "number",
           "one_of", "positive", "probability", "value_of"]


def value_of(draw, x):
    """A parameter's value: drawn when it is a strategy."""
    return draw(x) if isinstance(x, SearchStrategy) else x


def checked(draw, name: str, x, check):
    """A drawn parameter, checked as a value given directly would have been."""
    if not isinstance(x, SearchStrategy):
        return x
    v = draw(x)
    check(name, v, drawn=True)
    return v


def fail(name, value, drawn, reason):
    how = "drew" if drawn else "="
    raise InvalidArgument(f"{name} {how} {value!r}: {reason}")


def integer(lo: int | None = None, none_ok: bool = False):
    def check(name, v, drawn=False):
        if v is None and none_ok:
            return
        if isinstance(v, bool) or not isinstance(v, int):
            fail(name, v, drawn, "must be an int" + (" or None" if none_ok else "")
                  + " (or a strategy of them)")
        if lo is not None and v < lo:
            fail(name, v, drawn, f"must be >= {lo}")
    return check


def boolean(name, v, drawn=False):
    if not isinstance(v, bool):
        fail(name, v, drawn, "must be True or False (or a strategy of them)")


def number(name, v, drawn=False) -> Fraction:
    try:
        return parse_exact(v)
    except (ValueError, TypeError):
        fail(name, v, drawn, "must be an exact number (int, Fraction, Decimal, text such "
              "as '1/3', or a float, read by its decimal text)")


def probability(name, v, drawn=False):
    x = number(name, v, drawn)
    if not 0 <= x <= 1:
        fail(name, v, drawn, "must be a probability, between 0 and 1")


def positive(name, v, drawn=False):
    if number(name, v, drawn) <= 0:
        fail(name, v, drawn, "must be > 0")


def define(**checked) -> None:
    """Definition-time checks of the parameters given as values."""
    for name, (value, check) in checked.items():
        if not isinstance(value, SearchStrategy):
            check(name, value)


def one_of(options):
    def check(name, v, drawn=False):
        if isinstance(v, bool) or v not in options:     # True == 1: not a version
            fail(name, v, drawn, "must be one of " + ", ".join(map(repr, options)))
    return check


def no_strategy(name: str, value, hint: str) -> None:
    if isinstance(value, SearchStrategy):
        raise InvalidArgument(f"{name} must be a Platform, not a strategy: {hint}")
