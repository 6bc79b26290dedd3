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
