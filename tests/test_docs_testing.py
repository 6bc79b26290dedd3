"""docs/testing.md is a worked example suite: its Python blocks, run in order as one
module, define tests that pass (and the page stays true)."""

import re
import types
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parent.parent / "docs" / "testing.md"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def doc_module() -> types.ModuleType:
    blocks = BLOCK.findall(DOC.read_text(encoding="utf-8"))
    module = types.ModuleType("docs_testing")
    exec(compile("\n".join(blocks), str(DOC), "exec"), module.__dict__)
    return module


MODULE = doc_module()
TESTS = sorted(name for name in vars(MODULE) if name.startswith("test_"))


def test_the_page_is_a_suite():
    assert len(TESTS) >= 8


@pytest.mark.parametrize("name", TESTS)
def test_the_pages_tests_pass(name):
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

    p = find(platforms(max_nodes=7), fails,
             settings=settings(database=None, derandomize=True, max_examples=500))
    text = DOC.read_text(encoding="utf-8")
    assert f"platform={p!r}," in text
    with pytest.raises(AssertionError) as info:
        assert_valid_schedule(p, buggy(p))
    assert f"AssertionError: {info.value}\n" in text
