"""steady.experiments.runner: the campaigns' parallel map, exact statistics, CSV files."""

import io
import random
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from steady.errors import InputError
from steady.experiments.runner import mean, parallel_map, variance, write_csv
from steady.progress import CountBar


def seeded_draw(seed):
    """A task in the campaigns' style: all randomness from the seed it carries."""
    rng = random.Random(seed)
    return seed, [rng.randrange(1000) for _ in range(3)]


@pytest.mark.slow
def test_parallel_results_equal_serial_results_in_order():
    serial = parallel_map(seeded_draw, range(12))
    assert [s for s, _ in serial] == list(range(12))
    assert parallel_map(seeded_draw, range(12), jobs=2, quiet=True) == serial


@pytest.mark.parametrize("kwargs, element", [
    ({"jobs": 0}, "--jobs"),
    ({"backend": "threads"}, "--backend"),
])
def test_bad_options_are_input_errors(kwargs, element):
    with pytest.raises(InputError) as info:
        parallel_map(seeded_draw, [1], **kwargs)
    assert info.value.element == element


@given(st.lists(st.fractions(max_denominator=50), min_size=1, max_size=20))
def test_mean_and_variance_are_exact(values):
    m = mean(values)
    assert m * len(values) == sum(values)
    assert variance(values) == sum((v - m) ** 2 for v in values) / len(values)
    assert variance(values) >= 0


def test_variance_by_hand():
    assert mean([1, 2, 3, 6]) == 3
    assert variance([1, 2, 3, 6]) == Fraction(4 + 1 + 0 + 9, 4)


def test_csv_writes_fractions_exactly(tmp_path):
    path = tmp_path / "t.csv"
    write_csv(path, ["a", "b"], [[Fraction(1, 3), 2], [Fraction(4), "x"]])
    assert path.read_text() == "a,b\n1/3,2\n4,x\n"


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_count_bar_draws_on_a_terminal_and_not_when_quiet():
    stream = Terminal()
    with CountBar(4, "platforms", stream=stream) as bar:
        bar.advance()
        bar.advance(3)
    assert "1/4 platforms" in stream.getvalue() and "4/4 platforms" in stream.getvalue()
    quiet = Terminal()
    with CountBar(4, "platforms", quiet=True, stream=quiet) as bar:
        bar.advance()
    assert quiet.getvalue() == ""


def test_stage_bar_shows_its_final_state_when_the_work_completes():
    """A bar that stops at 3/4 never says it finished: on success it ends at 4/4 and
    stays on screen; on an error it is wiped (the error line follows)."""
    from steady.progress import StageBar

    stream = Terminal()
    with StageBar(["a", "b", "c", "d"], stream=stream) as bar:
        for name in "abcd":
            bar.stage(name)
    assert "3/4 d" in stream.getvalue() and "4/4 done" in stream.getvalue()
    assert stream.getvalue().endswith("\n")
    failed = Terminal()
    with pytest.raises(ValueError):
        with StageBar(["a", "b"], stream=failed) as bar:
            bar.stage("a")
            raise ValueError
    assert "2/2" not in failed.getvalue() and not failed.getvalue().endswith("\n")
    quiet = Terminal()
    with StageBar(["a"], quiet=True, stream=quiet) as bar:
        bar.stage("a")
    assert quiet.getvalue() == ""


def test_count_bar_stays_at_its_total_when_done():
    stream = Terminal()
    with CountBar(2, "clusters", stream=stream) as bar:
        bar.advance(2)
    last = stream.getvalue().rsplit("\r", 1)[1]      # what stays on the screen
    assert "2/2 clusters" in last and last.endswith("\n")
