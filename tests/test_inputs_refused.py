"""Issue 18 (F03, F09, F10, F11, F14, F15): every steady document is read strictly and
every bad one is refused in one line -- duplicate keys, non-ASCII digits, lenient number
forms, NaN, over-long numbers, a document of another kind -- and no error line is longer
than steady.errors.LINE, whatever the input.  (Ours: the reading rules of
docs/formats.md and the limits of docs/limits.md.)"""

import json
import sys
from decimal import Decimal
from fractions import Fraction as F

import pytest
from hypothesis import HealthCheck, given, settings

from helpers import examples
from hypothesis import strategies as st

from helpers import assert_one_line_error, run
from steady import errors, fileio, numbers
from steady.errors import InputError, echo, shorten
from steady.fileio import load_json, loads_json
from steady.numbers import MAX_DIGITS, parse_exact, parse_integer
from steady.strategies import platforms
from steady.platform import default_platform
from steady.schedule_file import Schedule

FAST = settings(max_examples=examples(60), deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])

ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent

#: The zero of every Unicode digit set Python's int() accepts that is not ASCII (a few).
ZEROS = [0xFF10, 0x0660, 0x06F0, 0x0966, 0x09E6, 0x0E50, 0x1D7CE]


@pytest.fixture(scope="module")
def schedule_doc():
    from steady.schedule.periodic import optimal_schedule
    from steady.throughput import throughput

    platform = default_platform()
    schedule = optimal_schedule(platform, throughput(platform, "trees"))[0]
    return json.loads(schedule.to_json())


def write(tmp_path, name, doc_or_text):
    path = tmp_path / name
    text = doc_or_text if isinstance(doc_or_text, str) else json.dumps(doc_or_text)
    path.write_text(text, encoding="utf-8")
    return path


# -- the number grammar (F09) ---------------------------------------------------------

def spellings(x: F) -> list[str]:
    """The ASCII texts of ``x`` a document may hold."""
    texts = [f"{x.numerator}/{x.denominator}"]
    if x.denominator == 1:
        texts.append(str(x.numerator))
    return texts


def foreign(text: str, zero: int, where: int) -> str:
    """``text`` with its ``where``-th ASCII digit (cyclically) written in another
    Unicode digit set, the one starting at code point ``zero``."""
    digits = [i for i, c in enumerate(text) if c.isdigit()]
    i = digits[where % len(digits)]
    return text[:i] + chr(zero + int(text[i])) + text[i + 1:]


@FAST
@given(st.fractions(max_denominator=10 ** 6).filter(lambda x: abs(x) < 10 ** 12),
       st.sampled_from(ZEROS), st.integers(0, 40))
def test_any_non_ascii_digit_is_refused(x, zero, where):
    for text in spellings(x):
        assert parse_exact(text) == x                      # ASCII: read exactly
        bad = foreign(text, zero, where)
        with pytest.raises(ValueError, match="ASCII"):
            parse_exact(bad)
        if "/" not in text:
            assert parse_integer(text) == x
            with pytest.raises(ValueError, match="must be an integer"):
                parse_integer(bad)


@FAST
@given(st.integers(-10 ** 9, 10 ** 9),
       st.sampled_from([" {}", "{} ", " {} ", "+{}", "{}/+1", "{}/-1", "{} /1", "{}/ 1",
                        "\t{}", "{}\n", "{}_0", "0x{}"]))
def test_lenient_forms_are_refused(n, form):
    text = form.format(n)
    with pytest.raises(ValueError):
        parse_exact(text)
    with pytest.raises(ValueError):
        parse_integer(text)


@pytest.mark.parametrize("text", ["-2/-1", "2/-1", "+1", " +1 ", "1.5/2", "", "-", "/1"])
def test_forms_the_audit_found_are_refused(text):
    with pytest.raises(ValueError):
        parse_exact(text)


@pytest.mark.parametrize("text, value", [("-3/4", F(-3, 4)), ("6/8", F(3, 4)),
                                         ("1e-3", F(1, 1000)), (".5", F(1, 2)),
                                         ("5.", F(5)), ("2.5E+1", F(25)), ("-0", F(0))])
def test_the_grammar_still_reads(text, value):
    assert parse_exact(text) == value


def test_digit_limit_is_named_in_text_and_in_decimals():
    ok = "7" * MAX_DIGITS
    with numbers.many_digits():
        assert parse_exact(ok) == int(ok)
    for too_long in ("7" * (MAX_DIGITS + 1), "1/" + "3" * (MAX_DIGITS + 1),
                     "0." + "1" * MAX_DIGITS):
        with pytest.raises(ValueError, match=f"more than {MAX_DIGITS} digits"):
            parse_exact(too_long)
    with pytest.raises(ValueError, match=f"more than {MAX_DIGITS} digits"):
        parse_exact(Decimal("1." + "1" * MAX_DIGITS))
    with pytest.raises(ValueError, match="more than"):
        parse_integer("9" * (MAX_DIGITS + 1))


def test_long_numbers_are_read_exactly_and_fast():
    """5000-digit numbers (beyond Python's default 4300-digit limit) read exactly."""
    big = 10 ** 5000 + 7
    text = numbers.int_text(big)                             # str(big) is refused
    assert parse_exact(text) == big                          # through FLINT
    assert parse_exact(f"1/{text}") == F(1, big)
    assert parse_exact(Decimal(f"{text}.5")) == F(2 * big + 1, 2)
    assert parse_integer(text) == big


# -- the JSON reader (F09, F11) --------------------------------------------------------

def paths(value, path=""):
    """Every object of a parsed document with its element path (the readers' style)."""
    if isinstance(value, dict):
        yield path, value
        for k, v in value.items():
            yield from paths(v, f"{path}.{k}" if path else k)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from paths(v, f"{path}[{i}]")


def dumps_with_duplicate(doc, target: str, path: str = "") -> str:
    """JSON text of ``doc`` in which the object at ``target`` repeats its first key,
    the copy holding another value (first-wins and last-wins readers disagree)."""
    if isinstance(doc, dict):
        items = [f"{json.dumps(k)}: {dumps_with_duplicate(v, target, f'{path}.{k}' if path else k)}"
                 for k, v in doc.items()]
        if path == target and doc:
            items.append(f"{json.dumps(next(iter(doc)))}: []")
        return "{" + ", ".join(items) + "}"
    if isinstance(doc, list):
        return "[" + ", ".join(dumps_with_duplicate(v, target, f"{path}[{i}]")
                               for i, v in enumerate(doc)) + "]"
    return json.dumps(doc)


@FAST
@given(st.data())
def test_any_duplicate_key_is_refused_and_named(schedule_doc, data):
    objects = [(p, o) for p, o in paths(schedule_doc) if o]
    path, obj = data.draw(st.sampled_from(objects))
    key = next(iter(obj))
    text = dumps_with_duplicate(schedule_doc, path)
    with pytest.raises(InputError) as info:
        loads_json(text, "s.json")
    assert info.value.element == (f"{path}.{key}" if path else key)
    assert "duplicate key" in info.value.reason
    assert loads_json(dumps_with_duplicate(schedule_doc, "nowhere"), "s.json") == schedule_doc


def test_the_audits_duplicate_steps_are_refused(tmp_path, schedule_doc, capsys):
    """F09: an invalid empty `steps` first, the real one second."""
    text = json.dumps(schedule_doc).replace('"steps": [', '"steps": [], "steps": [', 1)
    path = write(tmp_path, "dup.json", text)
    code, out, err = run(capsys, "verify", write(tmp_path, "p.json", default_platform().to_json()),
                         path)
    assert code == 2 and out == ""
    assert_one_line_error(err, "steps: duplicate key 'steps'")


@FAST
@given(st.data(), st.sampled_from(ZEROS))
def test_any_count_with_a_foreign_digit_is_refused(schedule_doc, data, zero):
    """F09: counts, weights, tree indices in any non-ASCII digit set, as text."""
    doc = json.loads(json.dumps(schedule_doc))
    fields = [(doc, "messages_per_period", "messages_per_period")]
    fields += [(t, "weight", f"trees[{i}].weight") for i, t in enumerate(doc["trees"])]
    for i, step in enumerate(doc["steps"]):
        for j, t in enumerate(step["transfers"]):
            for key in ("messages", "tree"):
                fields.append((t, key, f"steps[{i}].transfers[{j}].{key}"))
    holder, key, element = data.draw(st.sampled_from(fields))
    holder[key] = foreign(str(holder[key]), zero, data.draw(st.integers(0, 5)))
    with pytest.raises(InputError) as info:
        Schedule.from_dict(doc, "s.json")
    assert info.value.element == element and "must be an integer" in info.value.reason


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_numbers_are_refused_where_they_are(constant):
    with pytest.raises(InputError) as info:
        loads_json('{"a": [1, {"b": %s}]}' % constant, "f.json")
    assert info.value.element == "a[1].b" and constant in info.value.reason


def test_a_byte_order_mark_is_ignored(tmp_path):
    text = default_platform().to_json()
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert load_json(path) == json.loads(text)
    assert loads_json("\ufeff" + text, "s") == json.loads(text)
    with pytest.raises(InputError, match="malformed JSON"):       # only a leading one
        loads_json(text[:1] + "\ufeff" + text[1:], "s")


def test_an_over_long_json_integer_is_refused_at_its_position():
    text = '{"a": 1,\n "b": %s}' % ("9" * (MAX_DIGITS + 1))
    with pytest.raises(InputError) as info:
        loads_json(text, "f.json")
    assert info.value.element == "line 2 column 7"
    assert f"more than {MAX_DIGITS} digits" in info.value.reason


def test_a_document_larger_than_the_limit_is_refused(tmp_path, monkeypatch):
    path = write(tmp_path, "big.json", '{"format": "steady-platform"}' + " " * 100)
    monkeypatch.setattr(fileio, "MAX_DOCUMENT_BYTES", 64)
    with pytest.raises(InputError, match="more than the 64 steady reads"):
        load_json(path)


# -- a document of another kind (F14) ---------------------------------------------------

def test_a_schedule_given_as_the_platform_is_named(tmp_path, schedule_doc, capsys):
    path = write(tmp_path, "s.json", schedule_doc)
    code, _, err = run(capsys, "verify", path, path)
    assert code == 2
    assert_one_line_error(err, "format: expected 'steady-platform', got 'steady-schedule'")


@pytest.mark.parametrize("argv", [["grid", "schedule"], ["ethernet", "tree"],
                                  ["throughput"]])
def test_every_reader_names_the_other_kind_first(tmp_path, schedule_doc, capsys, argv):
    path = write(tmp_path, "s.json", schedule_doc)
    code, _, err = run(capsys, *argv, path)
    assert code == 2
    assert_one_line_error(err, "format: expected 'steady-")
    assert "got 'steady-schedule'" in err


# -- big numbers never give a traceback (F03) ----------------------------------------------

def test_counts_beyond_python_digit_limit_are_verified(tmp_path, schedule_doc, capsys):
    """F03: messages_per_period with 5000 digits: verify lists the violations (exit 1)."""
    doc = json.loads(json.dumps(schedule_doc))
    doc["messages_per_period"] = "1" + "0" * 5000
    code, out, err = run(capsys, "verify", write(tmp_path, "p.json",
                                                 default_platform().to_json()),
                         write(tmp_path, "s.json", doc))
    assert code == 1 and out.startswith("invalid") and "Traceback" not in err


def test_huge_options_answer_or_refuse_in_one_line(capsys):
    code, out, err = run(capsys, "simulate", "--horizon", "1e4300", "--quiet", "--json")
    assert code == 0 and loads_json(out, "stdout")["horizon"] == "1" + "0" * 4300
    code, _, err = run(capsys, "pipe", "--size", "1e4300", "--quiet")
    assert code == 2
    assert_one_line_error(err, "--size")
    code, _, err = run(capsys, "ethernet", "segment", "--machines", 8, "--size",
                       "1" + "0" * 5000)
    assert code == 2
    assert_one_line_error(err, "--size")


def test_the_digit_limit_is_restored_after_a_command(capsys):
    before = sys.get_int_max_str_digits()
    run(capsys, "throughput", "--json")
    assert sys.get_int_max_str_digits() == before


# -- error lines are bounded (F10) -----------------------------------------------------------

@settings(max_examples=examples(100), deadline=None)
@given(st.text(max_size=3000), st.text(max_size=3000), st.text(max_size=3000))
def test_any_input_error_is_one_bounded_line(origin, element, reason):
    line = str(InputError(origin, element, reason))
    assert len(line) <= errors.LINE
    assert "\n" not in line and "\r" not in line


@settings(max_examples=examples(100), deadline=None)
@given(st.one_of(st.text(max_size=2000), st.integers(), st.binary(max_size=500),
                 st.lists(st.text(max_size=100), max_size=30)))
def test_echo_is_bounded(value):
    assert len(echo(value)) <= errors.ECHO


def test_echo_names_a_huge_integer_without_converting_it():
    text = echo(7 ** 10 ** 6)     # 845099 digits: str() would take minutes
    assert "integer of about 845" in text and len(text) <= errors.ECHO


def test_shorten_keeps_both_ends():
    assert shorten("a" * 100 + "TAIL", 20) == "a" * 10 + "…" + "aaaaa" + "TAIL"
    assert shorten("short", 20) == "short"


def test_a_megabyte_node_name_gives_a_short_line(tmp_path, capsys):
    name = "N" * 10 ** 6
    doc = {"format": "steady-platform", "source": "S",
           "links": [{"from": "S", "to": name, "cost": 0}]}
    code, _, err = run(capsys, "throughput", write(tmp_path, "p.json", doc))
    assert code == 2
    assert_one_line_error(err, "must be > 0")
    assert len(err.strip()) <= errors.LINE + len("steady: ")


def test_a_megabyte_number_gives_a_short_line(tmp_path, capsys):
    doc = {"format": "steady-platform", "source": "S",
           "links": [{"from": "S", "to": "A", "cost": "1/" + "7" * (MAX_DIGITS + 1)}]}
    code, _, err = run(capsys, "throughput", write(tmp_path, "p.json", doc))
    assert code == 2
    assert_one_line_error(err, "links[0] (S->A).cost")
    assert f"more than {MAX_DIGITS} digits" in err and len(err) < 400


def test_numbers_module_bounds_are_documented():
    text = (__import__("pathlib").Path(__file__).resolve().parent.parent / "docs" /
            "limits.md").read_text(encoding="utf-8")
    for value in (numbers.MAX_DIGITS, numbers.MAX_EXPONENT, numbers.MAX_TEXT_DIGITS):
        assert str(value) in text


@pytest.mark.parametrize("argv", [
    ["pipe", "samples/figure1.json", "--size", "10", "--slices", "1_000"],
    ["pipe", "samples/figure1.json", "--size", "10", "--slices", "\u0661\u0662"],
    ["pipe", "samples/figure1.json", "--size", "10", "--slices", "99999999999"],
    ["schedule", "samples/figure1.json", "--max-messages", "1_0"],
    ["schedule", "samples/figure1.json", "--max-messages", "\u0661\u0662"],
    ["tradeoff", "samples/figure1.json", "--max-messages", "10,99999999999"],
])
def test_counts_of_the_timed_and_pipe_options_read_ascii_digits_in_range(argv, capsys):
    """--slices and --max-messages read as the other integer options: ASCII digits, no
    underscores, and a stated upper bound (the work grows with them)."""
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert_one_line_error(err, argv[-2])


def test_platforms_beyond_the_exact_limit_are_refused_before_any_work(monkeypatch, capsys):
    """F15: the exact optimum's size limit is checked first and named, with the file,
    for throughput, its --dag form and the commands built on it (here with the limit
    lowered to 3 nodes: Figure 1 has 5)."""
    import steady.throughput

    monkeypatch.setattr(steady.throughput, "MAX_EXACT_NODES", 3)
    for argv in (["throughput", "samples/figure1.json"],
                 ["throughput", "samples/figure5-dag.json", "--dag"],
                 ["schedule", "samples/figure1.json", "--max-messages", "4"],
                 ["heuristics", "samples/figure1.json"]):
        code, _, err = run(capsys, *argv)
        assert code == 2
        assert_one_line_error(err, "nodes")
        assert argv[1] in err and "more than the 3" in err


def test_ethernet_tree_refuses_clusters_beyond_its_tables(monkeypatch, capsys):
    """F15: ethernet tree's machines x machines tables are bounded up front."""
    from steady.commands import options

    monkeypatch.setattr(options, "MAX_MACHINES", 8)
    code, _, err = run(capsys, "ethernet", "tree", "samples/ethernet-random-64.json")
    assert code == 2
    assert_one_line_error(err, "machines")


def test_verify_violation_lines_are_bounded(tmp_path, capsys):
    """F10 for the verifier: values echoed from the file (a 5000-digit count, a
    5000-character node name, a 3000-digit denominator) are shortened in its lines."""
    out = tmp_path / "s.json"
    assert run(capsys, "schedule", "samples/figure1.json", "--max-messages", "4", "-o",
               out, "--quiet")[0] == 0
    doc = json.loads(out.read_text())
    doc["transfers"][0]["messages"] = "7" * 5000
    doc["transfers"][1]["from"] = "X" * 5000
    doc["transfers"][2]["start"] = "1/" + "3" * 3000
    bad = write(tmp_path, "bad.json", json.dumps(doc).replace('"' + "7" * 5000 + '"',
                                                               "7" * 5000))
    code, text, _ = run(capsys, "verify", "samples/figure1.json", bad)
    lines = text.splitlines()
    assert code == 1 and any("[one-port]" in line for line in lines)
    assert max(map(len, lines)) <= errors.LINE + 4


EXTREME = ["1e-4300", "1e-400", "1e-300", "1e300", "1e400", "1e4300", "1" * 1000 + "/7"]


def _figure1_with(cost: str):
    from steady.platform import Platform

    doc = json.loads(open("samples/figure1.json", encoding="utf-8").read())
    doc["links"][0]["cost"] = cost
    doc["links"][0].pop("bandwidth", None)
    return Platform.from_dict(doc, "figure1")


@pytest.mark.slow
def test_extreme_costs_get_the_exact_certified_optimum():
    """F02: one cost of Figure 1 from 1e-4300 to a 1000-digit number: the optimum is
    found (the float search cannot hold such costs; the exact way out takes over),
    passes the independent certificate check, and falls as that cost grows."""
    from steady.certificate import check
    from steady.throughput import throughput

    values = []
    for cost in sorted(EXTREME, key=lambda c: numbers.parse_exact(c)):
        platform = _figure1_with(cost)
        result = throughput(platform)
        assert check(platform, result).ok, cost
        values.append(result.throughput)
    assert all(a >= b for a, b in zip(values, values[1:]))
    assert values[0] > values[-1]


@pytest.mark.slow
@pytest.mark.parametrize("cost", ["1e-4300", "1e4300", "1" * 1000 + "/7"])
def test_extreme_costs_are_scheduled_simulated_and_piped(cost, tmp_path, capsys):
    """F02 downstream: a short timed schedule (its Dinkelbach search cannot hold the
    loads either and keeps its exact start), the horizon plan and PIPE all answer."""
    path = tmp_path / "p.json"
    _figure1_with(cost).write(path)
    for argv in (["schedule", path, "--max-messages", "10", "-o", tmp_path / "s.json"],
                 ["simulate", path, "--horizon", "100"],
                 ["pipe", path, "--size", "1000"]):
        code, _, err = run(capsys, *argv, "--quiet")
        assert code == 0, err


def _hub_star():
    """Issue 18's kind of hidden input: a two-way star whose costs spread over 10^±9
    (3.7·10^(2i-9) out of the hub, 2.3·10^(9-2i) back)."""
    from steady.platform import Link, Platform

    links = []
    for i in range(10):
        links.append(Link("H", f"N{i}", numbers.parse_exact(f"3.7e{2 * i - 9}")))
        links.append(Link(f"N{i}", "H", numbers.parse_exact(f"2.3e{9 - 2 * i}")))
    return Platform("N0", links)


def _random10_with(far: str, near: str):
    from steady.platform import Platform

    doc = json.loads(open("samples/random-10.json", encoding="utf-8").read())
    for link in doc["links"]:
        if (link["from"], link["to"]) in (("P5", "P6"), ("P8", "P6")):
            link["cost"] = far if link["from"] == "P5" else near
            link.pop("bandwidth", None)
    return Platform.from_dict(doc, "random-10")


@pytest.mark.slow
@pytest.mark.parametrize("make", [_hub_star, lambda: _random10_with("1e16", "1e-12")],
                         ids=["hub-star-1e9", "random-10-1e16-1e-12"])
def test_costs_far_apart_get_the_exact_optimum_by_the_exact_way_out(make):
    """F01/F02 class: float searches break on these (a level underflows to 0, a float
    basis fails its exact check); every method ends with the same exact optimum,
    checked independently, through the exact fallback."""
    from steady.certificate import check
    from steady.throughput import throughput

    platform = make()
    results = [throughput(platform, method) for method in ("cuts", "trees", "flow")]
    assert len({r.throughput for r in results}) == 1
    assert all(check(platform, r).ok for r in results)


def test_a_float_failure_on_narrow_costs_is_not_blamed_on_them(monkeypatch):
    """The exact way out is for costs spread far apart only: on Figure 1 a failing
    float search is re-raised, not turned into a refusal of the costs."""
    import steady.throughput as tp
    from steady.exact.lp import CertificationError

    def broken(platform):
        raise CertificationError("GLOP status 4")

    monkeypatch.setitem(tp.METHODS, "cuts", broken)
    with pytest.raises(CertificationError):
        tp.throughput(_figure1_with("1"))


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(platforms(max_nodes=5), st.integers(-4300, 4300))
def test_any_platform_scaled_by_ten_to_the_e_has_the_optimum_scaled_back(platform, e):
    """F02 as a class: costs times 10^e, |e| <= 4300, give TP*/10^e exactly, certified
    (the LP is homogeneous; floats only ever see costs brought near 1)."""
    from steady.certificate import check
    from steady.throughput import throughput

    factor = F(10) ** e
    scaled = platform.scale_costs(factor)
    result = throughput(scaled)
    assert result.throughput == throughput(platform).throughput / factor
    assert check(scaled, result).ok


@pytest.mark.slow
@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(platforms(min_nodes=3, max_nodes=5), st.data())
def test_costs_drawn_far_apart_give_one_certified_optimum(platform, data):
    """F01/F02 as a class: each cost times its own 10^e, |e| <= 400 (spreads no float
    search holds): cuts and trees agree with the reference flow method, and each answer
    passes the independent certificate check."""
    from steady.certificate import check
    from steady.platform import Link, Platform
    from steady.throughput import throughput

    exps = data.draw(st.lists(st.integers(-400, 400), min_size=len(platform.links),
                              max_size=len(platform.links)))
    far = Platform(platform.source,
                   [Link(l.tail, l.head, l.cost * F(10) ** e)
                    for l, e in zip(platform.links, exps)], platform.nodes)
    results = [throughput(far, m) for m in ("cuts", "trees", "flow")]
    assert len({r.throughput for r in results}) == 1
    assert all(check(far, r).ok for r in results)


# -- sizes (issue 42, finding 7) -----------------------------------------------------------

def _replicated(schedule_doc, n: int) -> dict:
    """002 Figure 1's schedule with its period run ``n`` times: n times the steps and
    the tree weights, a valid schedule of 2n steps."""
    doc = json.loads(json.dumps(schedule_doc))
    doc["trees"] = [dict(t, weight=t["weight"] * n) for t in doc["trees"]]
    doc["steps"] = doc["steps"] * n
    doc["messages_per_period"] *= n
    doc["period"] = str(F(doc["period"]) * n)
    return doc


@pytest.mark.parametrize("argv, limit", [
    (["show", "S", "--gantt", "G.png"], "MAX_GANTT_TRANSFERS"),
    (["simulate", "--schedule", "S", "--horizon", "100"], "MAX_SIMULATED_TRANSFERS"),
])
def test_schedules_beyond_a_commands_size_are_refused_before_it_works(
        tmp_path, schedule_doc, capsys, monkeypatch, argv, limit):
    """A schedule of more transfers than show --gantt draws or simulate follows is
    refused in one line naming the limit, before the schedule is built (here with the
    limits lowered: 002 Figure 1 x 10 has 80 transfers)."""
    from steady.commands import core

    monkeypatch.setattr(core, limit, 79)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(_replicated(schedule_doc, 10)))
    argv = [str(path) if a == "S" else str(tmp_path / a) if a == "G.png" else a
            for a in argv]
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert_one_line_error(err, "80 transfers, more than the 79")
    assert not (tmp_path / "G.png").exists()
    monkeypatch.setattr(core, limit, 80)   # at the limit: it works
    code, _, _ = run(capsys, *argv)
    assert code == 0


def test_grids_beyond_the_exact_search_fail_fast(tmp_path, capsys, monkeypatch):
    """grid schedule --optimum is refused before the grid's tables are read and the
    heuristics run (2000 clusters took more than 600 s); a grid file beyond the
    clusters steady reads, too."""
    from steady.grid import model

    doc = json.loads((ROOT / "samples" / "grid5000-6-clusters.json").read_text())
    big = dict(doc, clusters=[dict(doc["clusters"][0], name=f"c{i}") for i in range(11)])
    path = tmp_path / "g.json"
    path.write_text(json.dumps(big))
    code, out, err = run(capsys, "grid", "schedule", path, "--optimum")
    assert code == 2 and out == ""
    assert_one_line_error(err, "--optimum")
    assert "11 clusters" in err and "at most 10" in err
    monkeypatch.setattr(model, "MAX_CLUSTERS", 5)
    code, out, err = run(capsys, "grid", "schedule", ROOT / "samples" /
                         "grid5000-6-clusters.json")
    assert code == 2 and out == ""
    assert_one_line_error(err, "6 clusters, more than the 5")


def test_a_horizon_of_4300_digits_prints_short_lines(capsys):
    """Every line of simulate's report is short (leading digits and size beyond 40
    characters; the exact values with --json), and --plot refuses an axis beyond
    floats in one line."""
    code, out, err = run(capsys, "simulate", "--horizon", "1e4300")
    assert code == 0 and err == ""
    assert max(map(len, out.splitlines())) < 300, out
    assert "digits; exact value with --json" in out
    code, out, err = run(capsys, "simulate", "--horizon", "1e4300", "--json")
    with numbers.many_digits():
        assert json.loads(out)["horizon"] == "1" + "0" * 4300
    code, out, err = run(capsys, "simulate", "--horizon", "1e4300", "--plot",
                         "never.png")
    assert code == 2 and out == ""
    assert_one_line_error(err, "--plot")


# -- wording (issue 42, finding 8) ----------------------------------------------------------

def test_verify_without_optimality_names_a_timetable_and_an_unchecked_claim(tmp_path,
                                                                          capsys):
    """A timetable is "timed", never "0 steps"; a ratio the file claims and nothing
    checks (--no-optimality, no certificate) is said to be unchecked."""
    platform = ROOT / "samples" / "figure1.json"
    path = tmp_path / "t.json"
    assert run(capsys, "schedule", platform, "--max-messages", "3", "-o", path,
               "--quiet")[0] == 0
    doc = json.loads(path.read_text())
    del doc["certificate"]
    doc["ratio"] = "2"
    path.write_text(json.dumps(doc))
    code, out, err = run(capsys, "verify", platform, path, "--no-optimality")
    assert code == 0 and err == ""
    assert out.startswith("valid: timed, ") and "0 steps" not in out
    assert "nor the ratio 2 the file claims" in out
    code, out, _ = run(capsys, "verify", platform, path, "--no-optimality", "--json")
    report = json.loads(out)
    assert report["steps"] is None and report["ratio_checked"] is False
    assert report["claimed_ratio"] == "2"
