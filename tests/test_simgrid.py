"""steady import simgrid and steady replay (issue 19).

The tests that run SimGrid skip with "skipped: SimGrid not installed" when its Python
bindings are nowhere (steady.simgrid.locate); .ci/run installs python3-simgrid so that CI
runs them.  The others (units, exact decimals, refusals before SimGrid runs, the hint)
always run.  SimGrid example platforms live in samples/simgrid/ (LGPL-2.1, see there)."""

import json
import os
import subprocess
import sys
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from helpers import examples

from steady import InputError, Platform
from steady.schedule.periodic import optimal_schedule
from steady.simgrid import locate
from steady.simgrid.units import BANDWIDTH, TIME, parse, parse_size
from steady.simgrid.xmlinfo import exact_of, read_facts
from steady.throughput import throughput
from helpers import assert_one_line_error, run

F = Fraction
ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples" / "simgrid"
HAVE_SIMGRID = locate.find_simgrid() is not None
needs_simgrid = pytest.mark.skipif(not HAVE_SIMGRID, reason="skipped: SimGrid not installed")
MB = F(10 ** 6)


# -- without SimGrid ----------------------------------------------------------------------

def test_units_give_the_exact_value_and_simgrids_double():
    assert parse("125MBps", BANDWIDTH) == (F(125 * 10 ** 6), 125e6)
    assert parse("1Gbps", BANDWIDTH)[0] == F(10 ** 9, 8)
    assert parse("2KiBps", BANDWIDTH)[0] == 2048
    exact, double = parse("50us", TIME)
    assert exact == F(1, 20000)
    assert double == 50 * 1e-6 != 5e-05   # SimGrid's product, not the nearest double
    assert parse("1.0E-4s", TIME)[0] == F(1, 10 ** 4)
    assert parse_size("1MB") == 10 ** 6 and parse_size("1MiB") == 2 ** 20
    assert parse_size("8kb") == 1000
    for bad in ("1XB", "MB", "-1MB", "0"):
        with pytest.raises(ValueError):
            parse_size(bad)


def test_simgrids_doubles_are_matched_to_the_files_decimals():
    facts = read_facts(SAMPLES / "small_platform.xml")
    assert exact_of(498e6, facts.bandwidths) == (F(498 * 10 ** 6), True)
    assert exact_of(15 * 1e-6, facts.latencies) == (F(15, 10 ** 6), True)
    assert exact_of(0.1, facts.latencies) == (F(1, 10), False)   # not in the file
    assert facts.sharing("loopback") == "fatpipe"
    assert facts.sharing("9") == "shared"
    # dragonfly links carry k x bw: the multiples are in the pool
    dragonfly = read_facts(SAMPLES / "cluster_dragonfly.xml")
    assert exact_of(3 * 125e6, dragonfly.bandwidths) == (F(375 * 10 ** 6), True)


def test_entities_are_refused(tmp_path):
    bomb = tmp_path / "bomb.xml"
    bomb.write_text('<?xml version="1.0"?>\n<!DOCTYPE p [<!ENTITY a "aaaa">]>\n'
                    '<platform version="4.1">&a;</platform>\n')
    with pytest.raises(InputError) as caught:
        read_facts(bomb)
    assert "refused" in caught.value.reason


def test_wifi_is_refused_naming_the_feature(tmp_path, capsys):
    wifi = tmp_path / "wifi.xml"
    wifi.write_text('<?xml version="1.0"?>\n<platform version="4.1"><zone id="z" '
                    'routing="Full"><link id="l" bandwidth="1MBps" latency="0" '
                    'sharing_policy="WIFI"/></zone></platform>\n')
    code, _, err = run(capsys, "import", "simgrid", str(wifi), "--size", "1MB")
    assert code == 2
    assert_one_line_error(err, "WIFI")


def test_without_simgrid_one_line_says_how_to_install_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(locate, "DEBIAN", str(tmp_path))
    monkeypatch.delenv("STEADY_SIMGRID_PATH", raising=False)
    monkeypatch.setattr(locate.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(InputError) as caught:
        locate.simgrid_path()
    assert "apt-get install python3-simgrid" in caught.value.reason
    code, _, err = run(capsys, "import", "simgrid", str(SAMPLES / "dogbone.xml"), "--size",
                       "1MB")
    assert code == 2
    assert_one_line_error(err, "python3-simgrid")


def test_a_bad_size_is_one_line(capsys):
    code, _, err = run(capsys, "import", "simgrid", str(SAMPLES / "dogbone.xml"), "--size",
                       "1XB")
    assert code == 2
    assert_one_line_error(err, "--size")


# -- with SimGrid ----------------------------------------------------------------------------

@needs_simgrid
def test_a_router_or_a_left_out_host_as_source_says_which(capsys):
    """--source naming a router: "not a host of the platform" with the hosts listed;
    naming a host that --hosts leaves out: "not selected by --hosts"."""
    base = ["import", "simgrid", str(SAMPLES / "dogbone.xml"), "--size", "1MB"]
    code, _, err = run(capsys, *base, "--source", "R1")
    assert code == 2
    assert_one_line_error(err, "'R1' is not a host of the platform")
    code, _, err = run(capsys, *base, "--hosts", "C", "--source", "S1")
    assert code == 2
    assert_one_line_error(err, "'S1' is a host not selected by --hosts")


@needs_simgrid
def test_import_is_exact_and_consistent():
    """Every arc costs SIZE / its slowest link and starts up after the sum of its links'
    latencies; every link costs SIZE / bandwidth, from the file's decimals."""
    from steady.simgrid.importer import import_simgrid

    report = import_simgrid(SAMPLES / "small_platform.xml", MB)
    p = report.platform
    assert len(p.nodes) == 7 and len(p.links) == 42 and report.inexact == 0
    net = p.network
    assert net.route("Tremblay", "Jupiter") == ("9",)
    assert net.link("9").cost == MB / F(7209750)            # bandwidth="7.20975MBps"
    assert net.link("9").sharing == "shared"
    for link in p.links:
        route = [net.link(lid) for lid in net.route(link.tail, link.head)]
        assert link.cost == max(l.cost for l in route)
    tremblay_jupiter = next(l for l in p.links if l.arc == ("Tremblay", "Jupiter"))
    assert tremblay_jupiter.startup == F(1461517, 10 ** 9)  # latency="1.461517ms"


@needs_simgrid
def test_the_samples_are_what_import_writes():
    """samples/simgrid/small_platform.json is regenerated by its README's command."""
    from steady.simgrid.importer import import_simgrid

    report = import_simgrid(SAMPLES / "small_platform.xml", MB)
    assert report.platform == Platform.from_file(SAMPLES / "small_platform.json")


@needs_simgrid
def test_a_platform_simgrid_crashes_on_is_refused_in_one_line(tmp_path, capsys):
    """Two hosts, a Full zone, no route: SimGrid 3.32 crashes asking for it; steady
    survives it (the worker is a child process) and refuses the platform."""
    xml = tmp_path / "noroute.xml"
    xml.write_text('<?xml version="1.0"?>\n<!DOCTYPE platform SYSTEM '
                   '"https://simgrid.org/simgrid.dtd">\n<platform version="4.1"><zone '
                   'id="z" routing="Full"><host id="a" speed="1Gf"/><host id="b" '
                   'speed="1Gf"/></zone></platform>\n')
    code, _, err = run(capsys, "import", "simgrid", str(xml), "--size", "1MB")
    assert code == 2
    assert_one_line_error(err, "no host is reachable from a")


@needs_simgrid
def test_hosts_selects_and_too_many_is_refused(capsys):
    args = ["import", "simgrid", str(SAMPLES / "cluster_backbone.xml"), "--size", "1MB"]
    code, _, err = run(capsys, *args, "--max-hosts", "50")
    assert code == 2
    assert_one_line_error(err, "--hosts")
    code, out, _ = run(capsys, *args, "--hosts", r"^node-[0-3]\.", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["nodes"] == 4 and doc["arcs"] == 12 and doc["shared_links"] == 9


@needs_simgrid
def test_replay_matches_the_network_aware_schedule_not_the_one_port_one():
    """dogbone: every arc crosses link 2, so a message costs three crossings: the
    network-aware optimum is a third of the one-port one, and SimGrid agrees -- the
    one-port schedule replays at a third of what it predicts."""
    from steady.simgrid.replay import replay

    p = Platform.from_file(SAMPLES / "dogbone.json")
    aware, stats = optimal_schedule(p, throughput(p, "trees"))
    assert aware.throughput == F(100, 3) and stats["ratio"] == 1
    report = replay(SAMPLES / "dogbone.xml", aware, MB, periods=2)
    assert report.ratio >= 0.99
    plain = Platform(p.source, p.links, p.nodes, p.name)
    one_port, _ = optimal_schedule(plain, throughput(plain, "trees"))
    assert one_port.throughput == 100
    blind = replay(SAMPLES / "dogbone.xml", replace(one_port, platform=p), MB, periods=2)
    assert blind.ratio < 0.34
    assert report.simulated_throughput >= blind.simulated_throughput * 0.99


@needs_simgrid
def test_import_schedule_verify_replay_on_the_command_line(tmp_path, capsys):
    xml = str(SAMPLES / "small_platform.xml")
    platform, schedule = str(tmp_path / "p.json"), str(tmp_path / "s.json")
    assert run(capsys, "import", "simgrid", xml, "--size", "1MB", "-o", platform,
               "--quiet")[0] == 0
    code, out, _ = run(capsys, "schedule", platform, "-o", schedule, "--quiet")
    assert code == 0 and "ratio" in out
    code, out, _ = run(capsys, "verify", platform, schedule)
    assert code == 0 and "certified ratio" in out
    code, out, _ = run(capsys, "replay", xml, schedule, "--size", "1MB", "--periods", "2",
                       "--json", "--min-ratio", "0.99")
    assert code == 0
    doc = json.loads(out)
    assert doc["periods"] == 2 and float(doc["ratio"]) >= 0.99
    assert "CM02" in doc["model"]
    # the same schedule with another message size is refused: its costs disagree
    code, _, err = run(capsys, "replay", xml, schedule, "--size", "2MB")
    assert code == 2
    assert_one_line_error(err, "--size")


@needs_simgrid
def test_the_worker_never_loads_simgrid_into_steady():
    code = ("import sys; from steady.simgrid.importer import import_simgrid; "
            f"import_simgrid({str(SAMPLES / 'dogbone.xml')!r}, 10**6); "
            "print('simgrid' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.stdout.strip() == "False"


FAILING_HOST = """<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <trace id="A_failure" periodicity="12.0">
    0.5 0.0
    2.0 1.0
  </trace>
  <zone id="AS0" routing="Full">
    <host id="A" speed="1f"/>
    <host id="B" speed="1f"/>
    <link id="L" bandwidth="1MBps" latency="0"/>
    <route src="A" dst="B"><link_ctn id="L"/></route>
  </zone>
  <trace_connect kind="HOST_AVAIL" trace="A_failure" element="A"/>
</platform>
"""


@needs_simgrid
def test_a_replay_stopped_by_a_failing_host_is_one_line(tmp_path, capsys):
    """A host whose state profile turns it off stops the replay (SimGrid kills the
    actor): one line naming the cause, exit 2, for a timetable of several periods."""
    xml = tmp_path / "failing.xml"
    xml.write_text(FAILING_HOST)
    platform, schedule = str(tmp_path / "p.json"), str(tmp_path / "s.json")
    assert run(capsys, "import", "simgrid", xml, "--size", "1MB", "-o", platform,
               "--quiet")[0] == 0
    assert run(capsys, "schedule", platform, "--max-messages", "3", "-o", schedule,
               "--quiet")[0] == 0
    code, _, err = run(capsys, "replay", xml, schedule, "--size", "1MB", "--periods", "3")
    assert code == 2
    assert_one_line_error(err, "profiles")


@needs_simgrid
def test_a_timetable_on_shared_links_runs_in_simgrid_transfer_by_transfer():
    """small_platform (23 shared links): the timetable of --max-messages 20 keeps every
    link within capacity at every instant, so SimGrid runs each transfer of each period
    at full speed: every one ends when the file says (to rounding), not only the last."""
    from steady.schedule.timed import timed_schedule
    from steady.simgrid.replay import replay

    p = Platform.from_file(SAMPLES / "small_platform.json")
    schedule, _ = timed_schedule(p, throughput(p, "trees"), 20)
    report = replay(SAMPLES / "small_platform.xml", schedule, MB, periods=2)
    assert abs(report.ratio - 1) < 1e-9
    assert report.worst["late"] < 1e-9 * float(schedule.period)


# -- hostile platform files and options (issue 42) ---------------------------------------

PLATFORM = """<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="z" routing="Full">
    <host id="A" speed="1Gf"/><host id="B" speed="1Gf"/>
    <link id="l" bandwidth="1MBps" latency="1ms"/>
    <route src="A" dst="B"><link_ctn id="l"/></route>
  </zone>
</platform>
"""


@pytest.mark.parametrize("change, element, says", [
    (('bandwidth="1MBps"', 'bandwidth="NaN"'), "link 'l'.bandwidth", "not a finite number"),
    (('bandwidth="1MBps"', 'bandwidth="-inf"'), "link 'l'.bandwidth", "not a finite"),
    (('latency="1ms"', 'latency="nan"'), "link 'l'.latency", "not a finite number"),
    (('latency="1ms"', 'latency="-1ms"'), "link 'l'.latency", "must be >= 0"),
    (('bandwidth="1MBps"', 'bandwidth="0GBps"'), "link 'l'.bandwidth", "must be > 0"),
    (('bandwidth="1MBps"', 'bandwidth="1e999999999Bps"'), "link 'l'.bandwidth",
     "exponent beyond"),
    (('bandwidth="1MBps"', 'bandwidth="1e400Bps"'), "link 'l'.bandwidth", "doubles"),
    (('latency="1ms"', 'latency="1e-400s"'), "link 'l'.latency", "doubles"),
    (('bandwidth="1MBps"', 'bandwidth="1MBps" bandwidth_file="/etc/passwd"'),
     "link 'l'.bandwidth_file", "/etc/passwd"),
    (('<host id="A"', '<host id="A" speed_file="cpu.txt"'), "host 'A'.speed_file",
     "cpu.txt"),
    (('<zone', '<trace id="t" file="/etc/passwd" periodicity="1"/><zone'),
     "trace 't'.file", "/etc/passwd"),
    (('<zone', '<include file="other.xml"/><zone'), "include.file", "other.xml"),
    (('<zone', '<config><prop id="tracing" value="yes"/></config><zone'), "config",
     "settings"),
    ((' version="4.1"', ''), "platform.version", "missing"),
    (('version="4.1"', 'version="3"'), "platform.version", "version 4"),
    (('<zone', '<cluster id="c" prefix="n" suffix="" radical="0-100000000" speed="1f" '
               'bw="1Bps" lat="0"/><zone'), "hosts", "more than 100000 hosts"),
    (('<zone', '<cluster id="c" prefix="n" suffix="" radical="0-x" speed="1f" '
               'bw="1Bps" lat="0"/><zone'), "cluster 'c'.radical", "ranges"),
])
def test_a_platform_file_is_checked_before_simgrid_reads_it(tmp_path, capsys, change,
                                                           element, says):
    """Every refusal is one line naming the element, before SimGrid runs (no SimGrid
    needed): non-finite or out-of-range numbers, files SimGrid would open, settings,
    versions it does not read, more hosts than it should build."""
    xml = tmp_path / "p.xml"
    xml.write_text(PLATFORM.replace(*change))
    with pytest.raises(InputError) as caught:
        read_facts(xml)
    assert caught.value.element == element and says in caught.value.reason, caught.value
    code, out, err = run(capsys, "import", "simgrid", xml, "--size", "1MB")
    assert code == 2 and out == ""
    assert_one_line_error(err, says)


def test_a_byte_order_mark_a_folder_and_a_fifo_are_named(tmp_path, capsys):
    (tmp_path / "bom.xml").write_bytes(b"\xef\xbb\xbf" + PLATFORM.encode())
    (tmp_path / "folder.xml").mkdir()
    os.mkfifo(tmp_path / "fifo.xml")
    for name, says in (("bom.xml", "byte order mark"), ("folder.xml", "is a folder"),
                       ("fifo.xml", "is a FIFO")):
        for command in (["import", "simgrid", tmp_path / name, "--size", "1MB"],
                        ["replay", tmp_path / name, SAMPLES / "dogbone.json", "--size",
                         "1MB"]):
            code, out, err = run(capsys, *command)
            assert code == 2, (name, command)
            assert_one_line_error(err, says)


@pytest.mark.parametrize("option, value", [
    ("--size", "1e999999999MB"), ("--size", " 1MB"), ("--size", "+1MB"),
    ("--size", "1_0MB"), ("--size", "١MB"), ("--size", "1 MB"), ("--size", "NaNMB"),
    ("--max-hosts", " 10"), ("--max-hosts", "1_0"), ("--max-hosts", "١٠"),
    ("--max-hosts", "+10"), ("--max-hosts", "1"), ("--max-hosts", "100000"),
    ("--hosts", r"(a)\1"), ("--hosts", "(?=a)"), ("--hosts", "(?i)a"),
    ("--hosts", "a{1000}"), ("--hosts", "("),
])
def test_import_options_are_strict(capsys, option, value):
    code, out, err = run(capsys, "import", "simgrid", SAMPLES / "dogbone.xml", "--size",
                         "1MB", option, value)
    assert code == 2 and out == ""
    assert_one_line_error(err, option)


@pytest.mark.parametrize("option, value", [
    ("--periods", " 2"), ("--periods", "2_0"), ("--periods", "0"), ("--periods", "10001"),
    ("--min-ratio", "1e4301"), ("--min-ratio", "NaN"), ("--min-ratio", "0"),
    ("--size", "1e999999999MB"),
])
def test_replay_options_are_strict(capsys, option, value):
    code, out, err = run(capsys, "replay", SAMPLES / "dogbone.xml",
                         SAMPLES / "dogbone.json", "--size", "1MB", option, value)
    assert code == 2 and out == ""
    assert_one_line_error(err, option)


# patterns of a small grammar over the host names' alphabet: literals, classes, groups,
# alternation, quantifiers (greedy and lazy), anchors
_ATOMS = st.sampled_from(["a", "b", "-", r"\.", ".", "[ab]", "[^a]", r"\d", r"\w", r"\W",
                          "[0-9]", "1"])


def _patterns():
    def extend(inner):
        return st.one_of(
            st.tuples(inner, inner).map("".join),
            st.tuples(inner, inner).map(lambda t: f"(?:{t[0]}|{t[1]})"),
            inner.map(lambda x: f"({x})"),
            st.tuples(inner, st.sampled_from(["*", "+", "?", "*?", "{2}", "{1,3}",
                                              "{2,}", "+?"])).map(
                lambda t: f"(?:{t[0]}){t[1]}"))
    body = st.recursive(_ATOMS, extend, max_leaves=8)
    return st.tuples(st.sampled_from(["", "^", r"\A", r"\b"]), body,
                     st.sampled_from(["", "$", r"\Z", r"\B"])).map("".join)


@settings(max_examples=examples(300), deadline=None)
@given(pattern=_patterns(), names=st.lists(st.text("ab-.19_\n", max_size=10), max_size=8))
def test_host_patterns_answer_as_re_search(pattern, names):
    """The linear-time matcher (steady.simgrid.hosts) agrees with Python's re.search on
    every pattern of its grammar."""
    import re

    from steady.simgrid.hosts import HostPattern

    matcher = HostPattern(pattern)
    for name in names:
        assert matcher.search(name) == bool(re.search(pattern, name)), (pattern, name)


def test_a_catastrophic_pattern_is_matched_in_linear_time():
    """^(a+)+$ on 34 a's and a b: 2^34 steps for a backtracking matcher; here one pass
    of at most (name length) x (states) steps (counted by the automaton's cache)."""
    from steady.simgrid.hosts import HostPattern

    for pattern in (r"^(a+)+$", "^" + "a*" * 12 + "$", r"(a|a)*b$", r"^(a|aa)+$"):
        matcher = HostPattern(pattern)
        assert matcher.search("a" * 34 + "!") is False
        assert len(matcher._steps) <= 35 * 2


@needs_simgrid
def test_a_route_to_a_missing_host_is_named(tmp_path, capsys):
    xml = tmp_path / "p.xml"
    xml.write_text(PLATFORM.replace('dst="B"', 'dst="C"'))
    code, out, err = run(capsys, "import", "simgrid", xml, "--size", "1MB")
    assert code == 2
    line = err.strip()
    assert_one_line_error(err, "line 7")
    assert "'C' is no host, router or zone" in line and "'A','B'" not in line


@needs_simgrid
def test_replay_verifies_the_schedule_first(tmp_path, capsys):
    """A schedule that lost transfers is rejected by the verifier (exit 1, the
    violations listed), not replayed; one whose network section is not the file's
    (its links said fatpipe, the certificate gone) is refused in one line."""
    xml = SAMPLES / "small_platform.xml"
    platform, schedule = tmp_path / "p.json", tmp_path / "s.json"
    assert run(capsys, "import", "simgrid", xml, "--size", "1MB", "-o", platform,
               "--quiet")[0] == 0
    assert run(capsys, "schedule", platform, "-o", schedule, "--quiet")[0] == 0
    doc = json.loads(schedule.read_text())
    short = json.loads(schedule.read_text())
    for step in short["steps"]:
        step["transfers"] = step["transfers"][:1]
    (tmp_path / "short.json").write_text(json.dumps(short))
    code, out, err = run(capsys, "replay", xml, tmp_path / "short.json", "--size", "1MB",
                         "--min-ratio", "0.99")
    assert code == 1 and out == ""
    assert "rejected by the verifier" in err and "[delivery]" in err
    fat = json.loads(json.dumps(doc))
    for link in fat["platform"]["network"]["links"]:
        link["sharing"] = "fatpipe"
    for key in ("certificate", "optimum", "ratio"):
        fat.pop(key, None)
    (tmp_path / "fat.json").write_text(json.dumps(fat))
    code, out, err = run(capsys, "replay", xml, tmp_path / "fat.json", "--size", "1MB")
    assert code in (1, 2) and out == ""
    if code == 2:
        assert_one_line_error(err, "fatpipe")
    else:
        assert "rejected by the verifier" in err
