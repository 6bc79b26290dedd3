"""Issue 18 (F06, F12): output files.  Every writer goes through one check of the path
(steady.fileio.check_output_path) and one atomic write whose temporary file is removed on
any exception, Ctrl-C and SIGTERM included.  (Ours: docs/cli.md, "Output files".)"""

import os
import signal
import subprocess
import sys
import threading

import pytest
from hypothesis import given, settings

from helpers import examples
from hypothesis import strategies as st

from helpers import assert_one_line_error, run
from steady import fileio
from steady.errors import InputError
from steady.fileio import atomic_write_bytes, atomic_write_text, check_output_path, \
    open_input, signals_deferred
from steady.platform import default_platform

ROOT = os.geteuid() == 0 if hasattr(os, "geteuid") else False


def leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


# -- the path check ---------------------------------------------------------------------

def test_a_plain_path_passes(tmp_path):
    assert check_output_path(tmp_path / "new.json") == tmp_path / "new.json"
    (tmp_path / "old.json").write_text("x")
    assert check_output_path(tmp_path / "old.json") == tmp_path / "old.json"


def refusal(path, says):
    with pytest.raises(InputError) as info:
        check_output_path(path)
    assert says in info.value.reason, info.value
    return info.value


def test_refused_paths(tmp_path):
    (tmp_path / "dir").mkdir()
    (tmp_path / "file").write_text("")
    (tmp_path / "target").write_text("keep")
    (tmp_path / "link").symlink_to(tmp_path / "target")
    os.mkfifo(tmp_path / "fifo")
    refusal("", "empty file name")
    refusal(f"{tmp_path}/new/", "names a folder")
    refusal(tmp_path / "dir", "is a folder")
    refusal(tmp_path / "link", "is a symbolic link")
    refusal(tmp_path / "fifo", "is not a regular file")
    refusal(tmp_path / "missing" / "x.json", "does not exist")
    refusal(tmp_path / "file" / "x.json", "is not a folder")
    if os.path.exists("/proc/self/fd/1"):
        refusal("/proc/self/fd/1", "is a symbolic link")
    if os.path.exists("/dev/null"):
        refusal("/dev/null", "is not a regular file")


@pytest.mark.skipif(ROOT, reason="root may write anywhere")
def test_read_only_file_and_folder_are_refused(tmp_path):
    (tmp_path / "ro.json").write_text("")
    (tmp_path / "ro.json").chmod(0o444)
    refusal(tmp_path / "ro.json", "read-only")
    (tmp_path / "rodir").mkdir()
    (tmp_path / "rodir").chmod(0o555)
    refusal(tmp_path / "rodir" / "x.json", "not writable")


def test_read_only_checks_as_root_too(tmp_path, monkeypatch):
    """The same branches, with os.access saying no (the tests may run as root)."""
    (tmp_path / "ro.json").write_text("")
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    refusal(tmp_path / "ro.json", "read-only")
    refusal(tmp_path / "x.json", "not writable")


def test_every_writer_checks_the_path(tmp_path):
    """The check is inside the atomic write: a symlink is never replaced by a file."""
    (tmp_path / "target").write_text("keep")
    (tmp_path / "link").symlink_to(tmp_path / "target")
    with pytest.raises(InputError, match="symbolic link"):
        default_platform().write(tmp_path / "link")
    assert (tmp_path / "link").is_symlink() and (tmp_path / "target").read_text() == "keep"


# -- the atomic write ---------------------------------------------------------------------

@settings(max_examples=examples(25), deadline=None)
@given(st.binary(min_size=1, max_size=2000), st.sampled_from(["fchmod", "write", "fsync", "replace"]),
       st.sampled_from([KeyboardInterrupt, OSError, RuntimeError]))
def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path_factory, data, where,
                                                             error):
    """Whatever call fails, with whatever exception (Ctrl-C included): the old content
    stays, and no temporary file is left."""
    folder = tmp_path_factory.mktemp("w")
    target = folder / "f.bin"
    target.write_bytes(b"old")

    class FailingOs:       # steady.fileio's view of os, with one call failing
        def __getattr__(self, name):
            if name == where:
                def fail(*args, **kwargs):
                    raise error("injected")
                return fail
            return getattr(os, name)

    fileio.os = FailingOs()
    try:
        with pytest.raises(error):
            atomic_write_bytes(target, data)
    finally:
        fileio.os = os
    assert target.read_bytes() == b"old"
    assert leftovers(folder) == []
    atomic_write_bytes(target, data)
    assert target.read_bytes() == data and leftovers(folder) == []


def test_the_written_file_has_the_old_mode(tmp_path):
    target = tmp_path / "f.txt"
    target.write_text("a")
    target.chmod(0o640)
    atomic_write_text(target, "b")
    assert target.read_text() == "b" and (target.stat().st_mode & 0o777) == 0o640


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(),
                    reason="signals reach the main thread only")
@pytest.mark.parametrize("other_thread", [False, True])
def test_signals_are_held_back_inside_the_block(other_thread):
    """Also while another thread runs (joblib's, dask's): a signal sent to the process
    may be taken by any thread, but it still waits for the end of the block."""
    caught = []
    stop = threading.Event()
    if other_thread:
        threading.Thread(target=stop.wait, daemon=True).start()

    def handler(signum, frame):
        caught.append(signum)
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            with signals_deferred():
                os.kill(os.getpid(), signal.SIGTERM)
                caught.append("after kill")        # still running: the signal waits
        assert caught == ["after kill", signal.SIGTERM]
    finally:
        signal.signal(signal.SIGTERM, old)
        stop.set()


SIGNAL_IN_WRITE = r"""
import os, signal, sys
real = os.fsync
def fsync(fd):                       # the signal arrives in the middle of the write
    os.kill(os.getpid(), getattr(signal, sys.argv[1]))
    real(fd)
os.fsync = fsync
from steady.cli import main
sys.exit(main(["schedule", "-o", sys.argv[2], "--quiet"]))
"""


@pytest.mark.parametrize("name", ["SIGTERM", "SIGINT"])
def test_a_signal_inside_the_write_leaves_nothing(tmp_path, name):
    """F06: SIGTERM and SIGINT in the middle of `schedule -o`: exit 130, `steady:
    interrupted`, no temporary file, no target (a real signal, a real process)."""
    target = tmp_path / "s.json"
    done = subprocess.run([sys.executable, "-c", SIGNAL_IN_WRITE, name, str(target)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 130, done.stderr
    assert done.stderr.strip() == "steady: interrupted"
    assert list(tmp_path.iterdir()) == []


# -- the command line ------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["symlink", "fifo", "dir", "empty", "proc"])
@pytest.mark.parametrize("argv", [["schedule", "-o"], ["show", "SCHEDULE", "--gantt"],
                                  ["simulate", "--horizon", "10", "--plot"]])
def test_output_options_refuse_before_the_work(tmp_path, capsys, kind, argv):
    (tmp_path / "target.png").write_text("keep")
    path = {"symlink": tmp_path / "link.png", "fifo": tmp_path / "fifo.png",
            "dir": tmp_path / "dir.png", "empty": "", "proc": "/proc/self/fd/1"}[kind]
    if kind == "symlink":
        path.symlink_to(tmp_path / "target.png")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "dir":
        path.mkdir()
    elif kind == "proc" and not os.path.exists(path):
        pytest.skip("no /proc")
    argv = [str(tmp_path / "none.json") if a == "SCHEDULE" else a for a in argv]
    code, out, err = run(capsys, *argv, path)
    assert code == 2 and out == ""
    assert_one_line_error(err, argv[-1])
    if kind == "symlink":
        assert path.is_symlink() and (tmp_path / "target.png").read_text() == "keep"


# -- inputs must be regular files (issue 42) ---------------------------------------------

@pytest.mark.parametrize("argv", [
    ["throughput", "IN"], ["verify", "IN", "IN"], ["show", "IN"],
    ["simulate", "--schedule", "IN", "--horizon", "10"], ["grid", "schedule", "IN"],
    ["ethernet", "tree", "IN"], ["heuristics", "IN"], ["tradeoff", "IN"],
    ["run", "IN", "--broadcasts", "10", "--launch"],
    ["throughput", "--tree", "IN"],
])
@pytest.mark.parametrize("kind", ["fifo", "folder", "device"])
def test_an_input_that_is_no_regular_file_is_named(tmp_path, capsys, argv, kind):
    """A FIFO without a writer would block its reader forever, /dev/zero never ends, a
    folder is no document: each is refused up front, in one line naming it."""
    path = tmp_path / f"in.{kind}"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    else:
        path = "/dev/zero"
        if not os.path.exists(path):
            pytest.skip("no /dev/zero")
    argv = [str(path) if a == "IN" else a for a in argv]
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    says = {"fifo": "is a FIFO", "folder": "is a folder", "device": "is a device"}[kind]
    assert_one_line_error(err, says)
    assert str(path) in err


def test_open_input_reads_a_regular_file_and_names_the_rest(tmp_path):
    (tmp_path / "a.json").write_text("{}")
    with open_input(tmp_path / "a.json") as handle:
        assert handle.read() == b"{}"
    for path, says in ((tmp_path / "none.json", "no such file"),
                       (tmp_path / "a.json" / "x", "no such file"), ("", "empty file name")):
        with pytest.raises(InputError, match=says):
            open_input(path)
