"""Issue 18 (F04, F07): a campaign's --out folder is checked before any work, and is
never left holding two runs (steady.experiments.runner.CampaignFolder; docs/cli.md,
"steady experiment")."""

import json
import os

import pytest

from helpers import assert_one_line_error, run
from steady.errors import InputError
from steady.experiments import runner
from steady.experiments.runner import MARKER, CampaignFolder

#: Every campaign with options that make it quick (the folder is the last argument).
CAMPAIGNS = {
    "stp": ["experiment", "stp", "--nodes", "6", "--density", "0.5", "--repeats", "1",
            "--one-port-only", "--no-plots", "--quiet", "--out"],
    "grid": ["experiment", "grid", "--clusters", "2", "--iterations", "2", "--jobs", "1",
             "--no-plots", "--quiet", "--out"],
    "ethernet-height": ["experiment", "ethernet-height", "--machines", "16",
                        "--topologies", "1", "--no-plots", "--quiet", "--out"],
    "ethernet-table3": ["experiment", "ethernet-table3", "--out"],
}


@pytest.fixture
def no_work(monkeypatch):
    """Fail the test if a campaign starts its work."""
    def work(*args, **kwargs):
        raise AssertionError("the campaign started its work before checking --out")

    from steady.experiments import ethernet, grid

    monkeypatch.setattr(runner, "parallel_map", work)
    monkeypatch.setattr(grid, "run_campaign", work)
    monkeypatch.setattr(ethernet, "table3_rows", work)


@pytest.mark.parametrize("campaign", CAMPAIGNS)
@pytest.mark.parametrize("kind, says", [("file", "exists and is not a folder"),
                                        ("under-file", "which is a file"),
                                        ("foreign", "no complete steady campaign"),
                                        ("unwritable", "not writable"),
                                        ("empty-name", "empty folder name")])
def test_bad_out_is_refused_before_any_work(tmp_path, capsys, no_work, monkeypatch,
                                            campaign, kind, says):
    (tmp_path / "file").write_text("")
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "notes.txt").write_text("mine")
    out = {"file": tmp_path / "file", "under-file": tmp_path / "file" / "sub" / "x",
           "foreign": tmp_path / "foreign", "unwritable": tmp_path / "new",
           "empty-name": ""}[kind]
    if kind == "unwritable":       # as root the file system would let us: say no
        monkeypatch.setattr(runner.os, "access", lambda path, mode: False)
    code, out_text, err = run(capsys, *CAMPAIGNS[campaign], out)
    assert code == 2 and out_text == ""
    assert_one_line_error(err, "--out")
    assert says in err
    assert (tmp_path / "foreign" / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "foreign"]


def folder_state(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_a_complete_run_marks_the_folder_and_a_rerun_replaces_it(tmp_path, capsys):
    out = tmp_path / "t3"
    code, text, _ = run(capsys, *CAMPAIGNS["ethernet-table3"], out)
    assert code == 0 and f"written to {out}" in text
    marker = json.loads((out / MARKER).read_text())
    assert marker == {"format": "steady-campaign", "version": 1, "complete": True,
                      "files": ["table3.csv", "table3.md"],
                      "settings": {"campaign": "ethernet-table3"}}
    # a stale file of the previous run (listed by its marker) goes, the user's stays
    (out / "stale.csv").write_text("old run")
    marker["files"].append("stale.csv")
    (out / MARKER).write_text(json.dumps(marker))
    (out / "notes.txt").write_text("mine")
    code, _, _ = run(capsys, *CAMPAIGNS["ethernet-table3"], out)
    assert code == 0
    assert sorted(os.listdir(out)) == [MARKER, "notes.txt", "table3.csv", "table3.md"]
    assert json.loads((out / MARKER).read_text())["files"] == ["table3.csv", "table3.md"]


@pytest.mark.parametrize("error, code", [(KeyboardInterrupt, 130), (OSError, 2)])
def test_an_interrupted_run_leaves_the_folder_as_it_was(tmp_path, capsys, monkeypatch,
                                                        error, code):
    """F07: a run that stops while writing (Ctrl-C, a full disk) changes nothing: the
    previous complete campaign stays, with its marker, and no temporary folder."""
    out = tmp_path / "t3"
    assert run(capsys, *CAMPAIGNS["ethernet-table3"], out)[0] == 0
    before = folder_state(out)
    from steady.experiments import ethernet_report

    def half(rows, folder):
        (folder / "table3.csv").write_text("half of a new run")
        raise error("stopped")

    monkeypatch.setattr(ethernet_report, "write_table3_outputs", half)
    got, _, err = run(capsys, *CAMPAIGNS["ethernet-table3"], out)
    assert got == code and "Traceback" not in err
    assert folder_state(out) == before
    # and a first run that stops leaves no folder at all
    got, _, _ = run(capsys, *CAMPAIGNS["ethernet-table3"], tmp_path / "fresh" / "t3")
    assert got == code and not (tmp_path / "fresh" / "t3").exists()


def test_publish_returns_the_final_paths_and_follows_a_linked_folder(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    folder = CampaignFolder(tmp_path / "link")

    def write(into):
        (into / "a.csv").write_text("1")
        return [into / "a.csv"]

    assert folder.publish(write) == [real.resolve() / "a.csv"]
    assert (real / "a.csv").read_text() == "1" and (tmp_path / "link").is_symlink()


def test_partial_folders_of_a_killed_run_do_not_count(tmp_path):
    """A .partial-* folder (a kill -9 during a write) neither blocks nor mixes."""
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / ".partial-abc").mkdir()
    assert CampaignFolder(tmp_path / "out").path == tmp_path / "out"
    with pytest.raises(InputError, match="no complete steady campaign"):
        (tmp_path / "out" / "x.csv").write_text("")
        CampaignFolder(tmp_path / "out")


def test_other_settings_are_not_replaced_without_force(tmp_path, capsys, monkeypatch):
    """Issue 45: the README's two stp campaigns once shared one default folder, the
    second silently replacing the first.  A folder of a campaign run with other
    settings is refused before any work (naming the first difference) unless --force;
    the same settings replace the previous run as before."""
    out = tmp_path / "eh"
    first = CAMPAIGNS["ethernet-height"] + [str(out)]
    assert run(capsys, *first)[0] == 0
    before = folder_state(out)
    other = first[:2] + ["--seed", "1"] + first[2:]
    code, text, err = run(capsys, *other)
    assert code == 2 and text == ""
    assert_one_line_error(err, "--out")
    assert "other settings (seed 0 there, 1 now): give --force" in err
    assert folder_state(out) == before
    assert run(capsys, *first)[0] == 0                    # the same settings: replaced
    assert run(capsys, *(other + ["--force"]))[0] == 0
    assert json.loads((out / MARKER).read_text())["settings"]["seed"] == 1
    # a marker of an older steady (no settings): --force too
    marker = json.loads((out / MARKER).read_text())
    del marker["settings"]
    (out / MARKER).write_text(json.dumps(marker))
    code, _, err = run(capsys, *other)
    assert code == 2 and "does not record" in err


def test_default_folders_differ_per_kind_and_say_where(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    quick = ["--nodes", "8", "--repeats", "1", "--one-port-only", "--no-plots", "--quiet"]
    code, text, _ = run(capsys, "experiment", "stp", "--density", "0.5", *quick)
    assert code == 0 and f"written to {tmp_path / 'stp-campaign'}:" in text
    code, text, _ = run(capsys, "experiment", "stp", "--platforms", "tiers", *quick)
    assert code == 0 and f"written to {tmp_path / 'stp-tiers-campaign'}:" in text
    assert (tmp_path / "stp-campaign" / "report.md").exists()
