"""What issue 43's second new-user trial (trial43) found wrong, one test per defect."""

from pathlib import Path

import pytest

from helpers import assert_one_line_error, run

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


@pytest.mark.parametrize("command, extra", [
    ("throughput", []), ("schedule", ["--max-messages", "4"]),
    ("simulate", ["--horizon", "1"]), ("tradeoff", ["--max-messages", "4"])])
@pytest.mark.parametrize("option, value", [
    ("--sources", ""), ("--sources", "a0,"), ("--sources", "a0,,b0"), ("--rates", "")])
def test_an_empty_sources_or_rates_item_is_refused(capsys, command, extra, option, value):
    """``--sources ""`` (an unset shell variable) ran the default broadcast from the
    platform's source as if the option were absent; every empty item is now refused in
    one line naming the option, before any work."""
    path = SAMPLES / "collectives" / "hetero-cluster.json"
    argv = [command, path, *extra, option, value]
    if option == "--rates":
        argv += ["--sources", "a0"]
    code, out, err = run(capsys, *argv)
    assert code == 2 and not out
    assert_one_line_error(err, option)
    assert "empty item" in err


def test_an_empty_sources_is_refused_on_a_one_port_platform_too(capsys):
    """On a classic one-port platform an empty ``--sources`` went to today's broadcast
    silently."""
    code, out, err = run(capsys, "throughput", SAMPLES / "figure1.json", "--sources", "")
    assert code == 2 and not out
    assert_one_line_error(err, "--sources")
