"""Helpers shared by the command-line tests (imported as ``helpers``: pytest puts this
folder on ``sys.path`` since the tests are not a package)."""

from steady.cli import main


def run(capsys, *argv):
    """Run ``steady *argv`` in-process: (exit code, stdout, stderr)."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(err, name):
    """DESIGN.md: bad input is one line on stderr naming the element, no traceback."""
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("steady: ") and str(name) in lines[0]
