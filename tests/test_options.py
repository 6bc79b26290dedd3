"""Issue 18 (F08): every number an option takes is validated when the command line is
read -- range named, one line, exit 2 -- by the shared types of
steady.commands.options; `steady --help` documents the exit codes.  (Ours.)"""

import argparse
import socket
from fractions import Fraction

import pytest
from hypothesis import given, settings

from helpers import examples
from hypothesis import strategies as st

from helpers import assert_one_line_error, run
from steady.commands import options
from steady.experiments.runner import check_workers, scheduler_url
from steady.errors import InputError

FAST = settings(max_examples=examples(80), deadline=None)
ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent


@FAST
@given(st.integers(-10, 10), st.integers(0, 20), st.integers(-10 ** 30, 10 ** 30))
def test_integer_accepts_exactly_its_range(low, span, value):
    parse = options.integer(low, low + span)
    if low <= value <= low + span:
        assert parse(str(value)) == value
    else:
        with pytest.raises(argparse.ArgumentTypeError, match=f">= {low} and <= {low + span}"):
            parse(str(value))


@FAST
@given(st.integers(0, 99), st.sampled_from([" {}", "{} ", "+{}", "{}.0", "{}e0", "0x{}",
                                            "{}_0"]),
       st.sampled_from([0xFF10, 0x0660, 0x0966]))
def test_integer_refuses_other_spellings(value, form, zero):
    parse = options.integer(0, 10 ** 6)
    with pytest.raises(argparse.ArgumentTypeError):
        parse(form.format(value))
    with pytest.raises(argparse.ArgumentTypeError):       # int() would take these
        parse("".join(chr(zero + int(d)) for d in str(value)))


@pytest.mark.parametrize("text", ["nan", "inf", "-1", "1e9", "NaN", "1,5", ""])
def test_seconds_refuse_non_finite_and_out_of_range(text):
    with pytest.raises(argparse.ArgumentTypeError, match="seconds from 0 to 86400"):
        options.seconds()(text)


def test_exact_bounds():
    parse = options.exact(10 ** 15, 16)
    assert parse("1/3") == Fraction(1, 3)
    for bad, says in [("0", "> 0"), ("-1", "> 0"), ("1e16", "at most"),
                      ("1/12345678901234567", "16 digits"), (" 3", "not a number")]:
        with pytest.raises(argparse.ArgumentTypeError, match=says):
            parse(bad)


#: The audit's F08 command lines, and the option each must name (its range in the line).
AUDIT = [
    (["ethernet", "tree", "samples/ethernet-random-64.json", "--algorithm", "k-ary",
      "--k", "1000000000"], "--k"),
    (["ethernet", "tree", "samples/ethernet-random-64.json", "--algorithm", "k-ary",
      "--k", "65"], "--k"),
    (["ethernet", "segment", "--machines", "8", "--tree", "k-ary", "--k", "9",
      "--size", "8KB"], "--k"),
    (["ethernet", "segment", "--machines", "1000000000", "--size", "8KB"], "--machines"),
    (["pipe", "--size", "1e100"], "--size"),
    (["experiment", "stp", "--jobs", "1000000000"], "--jobs"),
    (["experiment", "stp", "--jobs", "99999999999999999999"], "--jobs"),
    (["experiment", "grid", "--clusters", "1000000000"], "--clusters"),
    (["experiment", "grid", "--clusters", "2..1000000000"], "--clusters"),
    (["experiment", "grid", "--iterations", "10000000000"], "--iterations"),
    (["experiment", "ethernet-height", "--machines", "1000000000"], "--machines"),
    (["experiment", "ethernet-height", "--machines", "16..1000000000"], "--machines"),
    (["experiment", "stp", "--nodes", "1000000000"], "--nodes"),
    (["experiment", "stp", "--backend", "dask", "--scheduler", "not-an-address"],
     "--scheduler"),
    (["experiment", "stp", "--scheduler", "tcp://127.0.0.1:8786"], "--scheduler"),
    (["simulate", "--horizon", "1000000000", "--max-events", "1000000000000"],
     "--max-events"),
    (["simulate", "--horizon", "10", "--max-events", "-5"], "--max-events"),
    (["simulate", "--horizon", "0"], "--horizon"),
    (["grid", "schedule", "samples/grid5000-6-clusters.json", "--node-limit",
      "1000000000000"], "--node-limit"),
    (["heuristics", "--best-tree", "nan"], "--best-tree"),
    (["experiment", "stp", "--density", "nan"], "--density"),
    (["experiment", "stp", "--seed", "-1"], "--seed"),
    (["schedule", "-o", ""], "-o/--output"),
]


@pytest.mark.parametrize("argv, option", AUDIT)
def test_unbounded_numbers_are_refused_up_front(tmp_path, capsys, monkeypatch, argv, option):
    monkeypatch.chdir(__import__("pathlib").Path(__file__).resolve().parent.parent)
    if argv[0] == "experiment":
        argv = argv + ["--out", str(tmp_path / "out"), "--quiet", "--no-plots"]
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert_one_line_error(err, option)
    assert not (tmp_path / "out").exists()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_scheduler_is_one_line_before_the_work(tmp_path, capsys,
                                                              monkeypatch):
    from steady.experiments import stp

    monkeypatch.setattr(stp, "evaluate", None)      # never called: refused before
    code, _, err = run(capsys, "experiment", "stp", "--nodes", "6", "--repeats", "1",
                       "--backend", "dask", "--scheduler", f"127.0.0.1:{free_port()}",
                       "--out", tmp_path / "o", "--quiet", "--no-plots")
    assert code == 2
    assert_one_line_error(err, "--scheduler")
    assert "cannot reach" in err and not (tmp_path / "o").exists()


@pytest.mark.parametrize("text, url", [("host:8786", "tcp://host:8786"),
                                       ("tls://10.0.0.1:1", "tls://10.0.0.1:1"),
                                       ("[::1]:8786", "tcp://[::1]:8786")])
def test_scheduler_addresses(text, url):
    assert scheduler_url(text) == url


@pytest.mark.parametrize("text", ["not-an-address", "host", "host:0", "host:65536",
                                  "http://host:80", "tcp://:8786", "host:80 "])
def test_bad_scheduler_addresses(text):
    with pytest.raises(ValueError, match="scheduler address"):
        scheduler_url(text)


def test_workers_are_bounded():
    for jobs in (0, 257, True, 1.5):
        with pytest.raises(InputError, match="--jobs"):
            check_workers(jobs, "loky")
    check_workers(256, "loky")


def test_usage_mistakes_keep_the_usage_line(capsys):
    code, _, err = run(capsys, "pipe")           # --size is required
    assert code == 2 and err.startswith("usage: steady pipe")


def test_help_documents_the_exit_codes(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0
    for line in ("0    success", "1    a check failed", "2    bad input or usage",
                 "130  interrupted"):
        assert line in out


# -- one strict rule for every integer and size option (issue 42) ------------------------

#: Spellings Python's int(), float() or a loose pattern would take, and that the files'
#: grammar refuses: spaces, "+", "_", non-ASCII digits (Arabic-Indic, full-width), empty.
LOOSE = [" {}", "{} ", "+{}", "{}_0", "١{}", "１{}", ""]

#: (command line with {} where the number goes, the option it must name)
NUMBER_OPTIONS = [
    (["schedule", "--max-messages", "1{}"], "--max-messages"),
    (["simulate", "--horizon", "10", "--max-messages", "1{}"], "--max-messages"),
    (["tradeoff", "--max-messages", "1{}"], "--max-messages"),
    (["schedule", "--max-period", "1{}"], "--max-period"),
    (["schedule", "--ratio", "1{}"], "--ratio"),
    (["pipe", "--size", "1{}"], "--size"),
    (["pipe", "--size", "10", "--slices", "1{}"], "--slices"),
    (["simulate", "--horizon", "1{}"], "--horizon"),
    (["simulate", "--horizon", "10", "--max-events", "1{}"], "--max-events"),
    (["run", "S.json", "--broadcasts", "1{}"], "--broadcasts"),
    (["run", "S.json", "--broadcasts", "10", "--size", "1{}KB"], "--size"),
    (["run", "S.json", "--broadcasts", "10", "--time-unit", "1{}ms"], "--time-unit"),
    (["run", "S.json", "--broadcasts", "10", "--timeout", "1{}"], "--timeout"),
    (["calibrate", "-o", "C.json", "--launch", "1{}"], "--launch"),
    (["calibrate", "-o", "C.json", "--repeats", "1{}"], "--repeats"),
    (["calibrate", "-o", "C.json", "--size", "1{}KB"], "--size"),
    (["calibrate", "-o", "C.json", "--timeout", "1{}"], "--timeout"),
    (["import", "simgrid", "samples/simgrid/dogbone.xml", "--size", "1{}MB"], "--size"),
    (["import", "simgrid", "samples/simgrid/dogbone.xml", "--size", "1MB", "--max-hosts",
      "1{}"], "--max-hosts"),
    (["replay", "samples/simgrid/dogbone.xml", "S.json", "--size", "1MB", "--periods",
      "1{}"], "--periods"),
    (["ethernet", "segment", "--machines", "1{}", "--size", "8KB"], "--machines"),
    (["ethernet", "segment", "--machines", "8", "--size", "1{}KB"], "--size"),
    (["grid", "schedule", "samples/grid5000-6-clusters.json", "--node-limit", "1{}"],
     "--node-limit"),
]


@pytest.mark.parametrize("argv, option", NUMBER_OPTIONS)
@pytest.mark.parametrize("form", LOOSE)
def test_every_number_option_takes_ascii_digits_only(tmp_path, capsys, monkeypatch, argv,
                                                     option, form):
    """Docs (cli.md, Conventions): ASCII digits, no spaces, no "+" -- and no "_", no
    other script's digits, no empty value -- for every option, through the shared
    parsers; one line naming the option, exit 2, before any work."""
    monkeypatch.chdir(ROOT)
    value = form.format(0) if form else ""
    argv = [a.replace("1{}", "1" + value if form else "") for a in argv]
    argv = [str(tmp_path / a) if a in ("S.json", "C.json") else a for a in argv]
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "", (argv, err)
    assert_one_line_error(err, option)
    assert not (tmp_path / "C.json").exists()


#: The audit's MPI and replay command lines (issue 42): beyond a float, below a
#: nanosecond, more memory than the machine has.
MPI_AUDIT = [
    (["run", "S.json", "--broadcasts", "10", "--timeout", "1e400"], "--timeout"),
    (["run", "S.json", "--broadcasts", "10", "--timeout", "1e-400"], "--timeout"),
    (["calibrate", "-o", "C.json", "--timeout", "1e400"], "--timeout"),
    (["calibrate", "-o", "C.json", "--timeout", "1e-400", "--launch", "2"], "--timeout"),
    (["run", "S.json", "--broadcasts", "10", "--time-unit", "1e400s"], "--time-unit"),
    (["run", "S.json", "--broadcasts", "10", "--time-unit", "1e-400s"], "--time-unit"),
    (["run", "S.json", "--broadcasts", "10", "--size", "99999999999GB"], "--size"),
    (["run", "S.json", "--broadcasts", "1000000000000"], "--broadcasts"),
    (["run", "S.json", "--broadcasts", "1000000", "--size", "1GB"], "--broadcasts"),
    (["run", "S.json", "--broadcasts", "10", "--trace", ""], "--trace"),
    (["run", "S.json", "--broadcasts", "10", "--trace", "DIR"], "DIR"),
    (["run", "S.json", "--broadcasts", "10", "--map", ""], "--map"),
    (["calibrate", "-o", ""], "-o/--output"),
    (["calibrate", "-o", "DIR"], "DIR"),
    (["simulate", "--schedule", "", "--horizon", "10"], "--schedule"),
    (["throughput", ""], "platform"),
    (["show", "--trace", ""], "--trace"),
]


@pytest.mark.parametrize("argv, option", MPI_AUDIT)
def test_mpi_options_are_refused_up_front(tmp_path, capsys, argv, option):
    (tmp_path / "DIR").mkdir()
    argv = [str(tmp_path / a) if a in ("S.json", "C.json", "DIR") else a for a in argv]
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "", (argv, err)
    assert_one_line_error(err, str(tmp_path / option) if option == "DIR" else option)
