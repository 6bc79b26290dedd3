"""steady.testing (issue 21): assertion helpers whose failure messages name the rule,
the step, the link and the numbers."""

from dataclasses import replace
from decimal import Decimal
from fractions import Fraction as F

import pytest
from hypothesis import given, settings

from helpers import examples
from hypothesis import strategies as st

from steady import Link, Platform, default_platform
from steady.schedule import optimal_schedule, periodic_schedule
from steady.schedule_file import Step, timed
from steady.strategies import platforms, schedule_corruptions, schedules
from steady.testing import (NAMESPACE, assert_optimal, assert_throughput,
                            assert_valid_schedule)
from steady.throughput import throughput

FIGURE4 = {"P1": "Ps", "P2": "P1", "P3": "P1", "P4": "P2"}     # TP(T) = 2/3


def figure1_optimal():
    p = default_platform()
    return optimal_schedule(p, throughput(p))[0]


def figure4_schedule():
    """A valid, non-optimal schedule: the single tree of 002 Figure 4, weight 1."""
    return periodic_schedule(default_platform(), [(FIGURE4, 1)], 1)


def failure(check, *args, **kwargs) -> str:
    with pytest.raises(AssertionError) as info:
        check(*args, **kwargs)
    return str(info.value)


# -- assert_valid_schedule ---------------------------------------------------------------

def test_valid_schedules_pass():
    assert_valid_schedule(default_platform(), figure1_optimal())
    assert_valid_schedule(None, figure4_schedule())            # no certificate: fine
    assert_valid_schedule(default_platform().to_dict(), timed(figure1_optimal()))
    assert_valid_schedule(None, timed(figure1_optimal()), min_ratio=1)


def test_the_message_names_rule_step_link_and_numbers():
    s = figure4_schedule()
    step = s.steps[0]
    t = step.transfers[0]
    short = replace(s, steps=(replace(step, duration=step.duration / 4),) + s.steps[1:])
    text = failure(assert_valid_schedule, None, short)
    busy = t.messages * default_platform().cost(*t.arc)
    assert text.startswith("the schedule is not a valid schedule: ")
    assert (f"[capacity] steps[0] link {t.tail}->{t.head}: {t.messages} messages x cost "
            f"{default_platform().cost(*t.arc)} = {busy} > duration {step.duration / 4} "
            f"(expected {step.duration / 4}, found {busy})") in text
    assert "[period] period:" in text


def test_one_port_and_delivery_messages():
    s = figure4_schedule()
    merged = Step(sum((st_.duration for st_ in s.steps), F(0)),
                  [t for st_ in s.steps for t in st_.transfers])
    text = failure(assert_valid_schedule, None, replace(s, steps=(merged,)))
    assert "[one-port] steps[0] node P1: P1 sends over 2 links in one step" in text
    dropped = replace(s, steps=s.steps[1:])
    text = failure(assert_valid_schedule, None, dropped)
    weight = s.trees[0].weight
    assert "[delivery] trees[0] edge " in text and f"(expected {weight}, found 0)" in text


def test_timed_messages_say_version_2():
    s = timed(figure1_optimal())
    late = replace(s, transfers=(replace(s.transfers[0], start=s.period),) + s.transfers[1:])
    text = failure(assert_valid_schedule, None, late)
    assert text.startswith("the schedule (version 2, timed) is not a valid schedule")
    assert "[window] transfers[0]: ends at" in text


def test_the_platform_given_must_be_the_schedules():
    other = Platform("Ps", [Link("Ps", "P1", 2)])
    text = failure(assert_valid_schedule, other, figure1_optimal())
    assert "[platform]" in text


def test_long_reports_are_cut():
    s = figure1_optimal()
    bad = replace(s, steps=tuple(replace(step, transfers=tuple(
        replace(t, messages=0) for t in step.transfers)) for step in s.steps))
    text = failure(assert_valid_schedule, None, bad)
    assert text.count("\n  [") == 10 and "... and " in text


def test_a_certificate_is_checked_when_present():
    s = figure1_optimal()
    wrong = replace(s.certificate, out_prices={**s.certificate.out_prices, "Ps": F(0)})
    assert "[optimality]" in failure(assert_valid_schedule, None,
                                     replace(s, certificate=wrong))


@settings(max_examples=examples(30), deadline=None)
@given(schedule_corruptions(schedules(platforms(max_nodes=5))))
def test_every_corruption_fails_with_its_rule_named(c):
    assert f"[{c.kind}]" in failure(assert_valid_schedule, c.schedule.platform, c.schedule)


# -- assert_optimal ---------------------------------------------------------------------

def test_assert_optimal():
    assert_optimal(default_platform(), figure1_optimal())
    assert_optimal(None, timed(figure1_optimal()))
    bare = replace(figure1_optimal(), certificate=None)              # a user's schedule
    assert_optimal(default_platform(), bare)
    s = figure4_schedule()
    text = failure(assert_optimal, default_platform(), s)
    assert text == ("[optimality] throughput: the schedule's throughput 2/3 (~0.666667) is "
                    "not the optimum 1 (ratio 2/3 (~0.666667)), with "
                    f"{s.messages_per_period} messages per period of {s.period}")


def test_assert_optimal_checks_validity_first():
    s = figure1_optimal()
    bad = replace(s, throughput=s.throughput + 1)
    assert "[throughput] throughput:" in failure(assert_optimal, None, bad)


# -- assert_throughput --------------------------------------------------------------------

@pytest.mark.parametrize("value", [1, F(1), "1", Decimal("1.0"), 1.0, "2/2"])
def test_assert_throughput_accepts_exact_numbers(value):
    assert_throughput(default_platform(), value)


def test_assert_throughput_of_objects_and_other_platform_forms():
    assert_throughput(default_platform().to_dict(), figure1_optimal())
    assert_throughput(default_platform(), throughput(default_platform(), "trees"))


def test_assert_throughput_failures():
    assert failure(assert_throughput, default_platform(), F(2, 3)) == (
        "[throughput] 2/3 (~0.666667) is not the optimal throughput 1: off by 1/3 "
        "(~0.333333), below it")
    assert failure(assert_throughput, default_platform(), 1.0000001).endswith("above it")
    assert "not a number" in failure(assert_throughput, default_platform(), "fast")


def test_assert_throughput_with_a_tolerance():
    assert_throughput(default_platform(), 0.9999999, tolerance="1/1000000")
    text = failure(assert_throughput, default_platform(), 0.99, tolerance=F(1, 1000))
    assert "(tolerance 1/1000 (~0.001))" in text


# -- NAMESPACE ------------------------------------------------------------------------------

@settings(max_examples=examples(20), deadline=None)
@given(schedules(platforms(max_nodes=5), optimal=st.booleans()))
def test_the_namespace_evaluates_reprs(s):
    assert eval(repr(s), dict(NAMESPACE)) == s
    assert eval(repr(s.platform), dict(NAMESPACE)) == s.platform
