"""docs/testing.md is a worked example suite: its Python blocks, run in order as one
module, define tests that pass (and the page stays true).

A user copies the page into a suite of their own, without steady's conftest.py (whose
hypothesis profile turns the deadline and the too-slow health check off): so the page
runs here under hypothesis' own default profile, as there, and must pass on a loaded
machine by its own settings (issue 45: it once failed one run in four with
FailedHealthCheck).  Under CI the examples are derandomized, as the rest of the suite's."""

import os
import re
import types
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import settings

DOC = Path(__file__).resolve().parent.parent / "docs" / "testing.md"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
STEADY = "ci" if os.environ.get("STEADY_CI") else "steady"   # conftest.py's profile
settings.register_profile("a-user", parent=settings.get_profile("default"),
                          derandomize=bool(os.environ.get("STEADY_CI")))


@contextmanager
def as_a_user():
    """Hypothesis' default settings (as in a user's suite), then steady's again."""
    settings.load_profile("a-user")
    try:
        yield
    finally:
        settings.load_profile(STEADY)


def doc_module() -> types.ModuleType:
    blocks = BLOCK.findall(DOC.read_text(encoding="utf-8"))
    module = types.ModuleType("docs_testing")
    with as_a_user():   # settings(...) on the page inherit what is current when it runs
        exec(compile("\n".join(blocks), str(DOC), "exec"), module.__dict__)
    return module


MODULE = doc_module()
TESTS = sorted(name for name in vars(MODULE) if name.startswith("test_"))


def test_the_page_is_a_suite():
    assert len(TESTS) >= 8


def test_every_property_of_the_page_is_calm():
    """Each hypothesis test on the page has no deadline and no too-slow health check
    of its own (not borrowed from steady's profile)."""
    from hypothesis import HealthCheck

    given = [name for name in TESTS
             if hasattr(getattr(MODULE, name), "hypothesis")]
    assert len(given) >= 8
    for name in given:
        chosen = getattr(MODULE, name)._hypothesis_internal_use_settings
        assert chosen.deadline is None, name
        assert HealthCheck.too_slow in chosen.suppress_health_check, name


@pytest.mark.parametrize("name", TESTS)
def test_the_pages_tests_pass(name):
    with as_a_user():
        getattr(MODULE, name)()


def test_the_pages_bug_is_caught_as_shown():
    """The falsifying example printed on the page is what the suite finds for the bug
    it describes (a step lasting its fastest transfer)."""
    from hypothesis import find, settings

    from steady.strategies import platforms
    from steady.testing import assert_valid_schedule

    original = MODULE.my_schedule

    def buggy(platform):
        s = original(platform)
        steps = []
        for step in s.steps:
            fastest = min(platform.cost(t.tail, t.head) for t in step.transfers)
            steps.append(type(step)(fastest, step.transfers))
        period = sum(step.duration for step in steps)
        return type(s)(platform, 1 / period, period, 1, s.trees, steps)

    def fails(p):
        try:
            assert_valid_schedule(p, buggy(p))
        except AssertionError:
            return True
        return False

    p = find(platforms(max_nodes=6), fails,
             settings=settings(database=None, derandomize=True, max_examples=500))
    text = DOC.read_text(encoding="utf-8")
    assert f"platform={p!r}," in text
    with pytest.raises(AssertionError) as info:
        assert_valid_schedule(p, buggy(p))
    assert f"AssertionError: {info.value}\n" in text
