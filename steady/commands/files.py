"""What every schedule-writing command does last: report a rejected schedule, write the
accepted one atomically, name an unwritable file in one line (exit code 2)."""

from __future__ import annotations

import sys

from ..errors import InputError
from ..fileio import atomic_write_text


def write_error(path, exc: OSError) -> InputError:
    """An output file that cannot be written: one line naming it (exit code 2)."""
    return InputError(str(path), "file", f"cannot write: {exc.strerror or exc}")


def write_output(path, text: str) -> None:
    """Write ``text`` to ``path`` atomically; nothing when no path was given (None).  An
    empty name, a link, a FIFO or a folder is refused in one line
    (:func:`steady.fileio.check_output_path`, which the -o option already ran)."""
    if path is None:
        return
    try:
        atomic_write_text(path, text)
    except OSError as exc:
        raise write_error(path, exc) from None


def rejected(report) -> bool:
    """True, after listing (at most 20 of) its violations, when the verifier rejected
    the schedule: the command then exits 1 and writes nothing."""
    for violation in report.violations[:20]:
        print(f"steady: schedule rejected by the verifier: {violation}", file=sys.stderr)
    return not report.ok
