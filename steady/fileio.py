"""Reading JSON documents strictly, with precise errors; writing files atomically.

Every steady document (platform, schedule, tree, grid, cluster, pLogP table) is read by
:func:`load_json` / :func:`loads_json`, which refuse what a lenient JSON reader would
let through and another reader would read differently (docs/formats.md, "Rules every
document follows"): a key given twice in one object, ``NaN`` and ``Infinity``, a number
with more than :data:`~steady.numbers.MAX_DIGITS` digits, a file larger than
:data:`MAX_DOCUMENT_BYTES`.  A leading UTF-8 byte order mark is accepted and ignored
(RFC 8259 §8.1 allows it; Windows editors write it).  :func:`check_format` gives the
one-line "format: expected X, got Y" before any other check of a document.

Every file steady writes goes through :func:`atomic_write_bytes`: refused up front
when the path is not a plain file path (:func:`check_output_path`), written to a
temporary file beside it and renamed into place; the temporary file is removed on any
failure, including Ctrl-C and SIGTERM (the command line turns SIGTERM into
KeyboardInterrupt), and the signals are held back while it is created or removed.
"""

from __future__ import annotations

import json
import os
import re
import stat
import tempfile
from decimal import Decimal
from pathlib import Path

from . import interrupts
from .errors import InputError, echo
from .numbers import MAX_DIGITS, many_digits

#: The largest document steady reads (docs/limits.md): JSON text takes about ten times
#: its size in memory once parsed.
MAX_DOCUMENT_BYTES = 512 * 2 ** 20
_BOM = "\ufeff"


# -- reading ------------------------------------------------------------------------

class _Duplicated(dict):
    """An object of the document in which the key ``duplicate`` was given twice."""

    duplicate = None


class _NonFinite(float):
    """``NaN``, ``Infinity`` or ``-Infinity`` where the document has a number."""

    text = ""


class _LongNumber(Exception):
    """A JSON integer with more than MAX_DIGITS digits (found again by position)."""


def _hooks():
    """(object hook, constant hook, problems): the hooks mark what they find and note
    it in ``problems``, so that clean documents are never walked a second time."""
    problems = []

    def pairs_to_object(pairs):
        document = dict(pairs)
        if len(document) == len(pairs):
            return document
        seen = set()
        for key, _ in pairs:
            if key in seen:
                break
            seen.add(key)
        marked = _Duplicated(document)
        marked.duplicate = key
        problems.append(marked)
        return marked

    def constant(text):
        value = _NonFinite(text.replace("Infinity", "inf"))
        value.text = text
        problems.append(value)
        return value

    return pairs_to_object, constant, problems


def _integer(text):
    if len(text) <= 2000:
        return int(text)
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise _LongNumber
    import flint   # CPython 3.11's int(str) is quadratic: 15 s at a million digits

    return int(flint.fmpz(text))


def loads_json(text: str, origin: str):
    """Parse a steady document strictly: every float kept as its exact decimal text
    (``Decimal``); a duplicate key, NaN / Infinity or an over-long number refused with
    the element or the position named.  A leading byte order mark is ignored."""
    if text.startswith(_BOM):
        text = text[1:]
    pairs_to_object, constant, problems = _hooks()
    try:
        with many_digits():
            doc = json.loads(text, parse_float=Decimal, parse_int=_integer,
                             parse_constant=constant, object_pairs_hook=pairs_to_object)
    except json.JSONDecodeError as exc:
        raise InputError(origin, f"line {exc.lineno} column {exc.colno}",
                         f"malformed JSON: {exc.msg}") from None
    except RecursionError:
        raise InputError(origin, "document", "malformed JSON: nested too deeply") from None
    except _LongNumber:
        raise InputError(origin, _long_number_at(text), f"a number with more than "
                         f"{MAX_DIGITS} digits, the most steady reads (docs/limits.md)") \
            from None
    except ValueError as exc:  # e.g. a float beyond what Decimal accepts
        raise InputError(origin, "document", f"malformed JSON: {exc}") from None
    if problems:
        raise InputError(origin, *_first_problem(doc))
    return doc


def _long_number_at(text: str) -> str:
    """``line L column C`` of the first run of more than MAX_DIGITS digits."""
    match = re.search(f"[0-9]{{{MAX_DIGITS + 1},}}", text)
    if match is None:
        return "document"
    line = text.count("\n", 0, match.start()) + 1
    column = match.start() - (text.rfind("\n", 0, match.start()) + 1) + 1
    return f"line {line} column {column}"


def _first_problem(doc):
    """(element, reason) of the first duplicate key or non-finite number, in document
    order.  The walk is iterative: a document may be nested deeply."""
    stack = [("", doc)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            if isinstance(value, _Duplicated):
                key = value.duplicate
                return (_child(path, key), f"duplicate key {echo(key)}: a key is given once "
                        "per object (readers keeping the first or the last copy would "
                        "read different documents)")
            stack.extend(reversed([(_child(path, k), v) for k, v in value.items()
                                   if isinstance(v, (dict, list, _NonFinite))]))
        elif isinstance(value, list):
            stack.extend(reversed([(f"{path}[{i}]", v) for i, v in enumerate(value)
                                   if isinstance(v, (dict, list, _NonFinite))]))
        elif isinstance(value, _NonFinite):
            return (path or "document", f"{value.text} is not a number steady reads "
                    "(exact numbers only)")
    return ("document", "a duplicate key or a non-finite number")  # not reached


def _child(path: str, key) -> str:
    return f"{path}.{key}" if path else str(key)


def check_format(doc, origin: str, kind: str, required: bool = False) -> dict:
    """The first check of every steady document: a JSON object whose ``format`` is
    ``kind`` (optional unless ``required``).  A document of another kind is named:
    ``format: expected 'steady-platform', got 'steady-schedule'`` -- before any
    unknown-key rule could give a misleading first error."""
    if not isinstance(doc, dict):
        raise InputError(origin, "document", f"a {kind} document is a JSON object, got "
                         f"{_kind(doc)}")
    if "format" not in doc:
        if required:
            raise InputError(origin, "format", f"missing (expected {kind!r})")
        return doc
    if doc["format"] != kind:
        raise InputError(origin, "format", f"expected {kind!r}, got {echo(doc['format'])}")
    return doc


def _kind(value) -> str:
    return {list: "a list", str: "a string", bool: "a boolean", type(None): "null",
            int: "a number", Decimal: "a number"}.get(type(value), type(value).__name__)


class JsonDocument:
    """What the immutable steady documents (platform, grid, switched cluster) share:
    ``to_json`` and an atomic ``write`` from the class's ``to_dict``, ``from_dict`` and
    ``from_file`` through its ``_read(doc, origin)``, which validates and raises
    one-line InputErrors."""

    __slots__ = ()

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1) + "\n"

    def write(self, path) -> None:
        atomic_write_text(path, self.to_json())

    @classmethod
    def from_dict(cls, doc, origin: str = "<dict>"):
        return cls._read(doc, origin)

    @classmethod
    def from_file(cls, path):
        return cls._read(load_json(path), str(path))


def check_version(doc: dict, origin: str, version: int | tuple[int, ...],
                  required: bool = True) -> None:
    """The ``version`` of a versioned steady document must be the integer ``version``
    (or one of the integers of a tuple ``version``).

    ``type() is int`` and not ``==``: JSON ``true`` and ``1.0`` (read as Decimal) compare
    equal to 1 in Python, but neither is version 1."""
    versions = version if isinstance(version, tuple) else (version,)
    words = " or ".join(str(v) for v in versions)
    if "version" not in doc:
        if required:
            raise InputError(origin, "version", f"missing (expected {words})")
        return
    found = doc["version"]
    if type(found) is not int or found not in versions:
        raise InputError(origin, "version", f"unsupported version {echo(found)} "
                         f"(this steady reads version {words})")


def open_input(path, element: str = "file"):
    """``path`` opened for reading (binary), or a one-line InputError naming it.

    An input must be a regular file: a folder, a FIFO (one without a writer blocks its
    reader forever), a socket or a device (``/dev/zero`` never ends) is refused up
    front, like a missing file and an empty name (docs/cli.md, "Input files").  The
    file is opened without blocking and checked on the open descriptor, so nothing
    can be swapped in between."""
    origin = os.fsdecode(os.fspath(path)) if isinstance(path, (str, bytes, os.PathLike)) \
        else str(path)
    if origin == "":
        raise InputError("<command line>", element, "empty file name")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except (FileNotFoundError, NotADirectoryError):
        raise InputError(origin, element, "no such file") from None
    except OSError as exc:
        raise InputError(origin, element, f"cannot read: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise InputError(origin, element, "is a folder, not a file")
        if not stat.S_ISREG(mode):
            kind = ("a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
                    else "a device")
            raise InputError(origin, element, f"is {kind}, not a regular file: steady "
                             "reads its inputs from regular files")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def check_input(path, element: str = "file") -> str:
    """The text of ``path`` when it names a regular file steady can read (as
    :func:`open_input`, for a file another program reads: SimGrid's platforms)."""
    open_input(path, element).close()
    return os.fsdecode(os.fspath(path))


def load_json(path, kind: str | None = None) -> object:
    """Read and parse a JSON file (:func:`loads_json`); every failure becomes an
    :class:`InputError`.  With ``kind``, the document must be a JSON object of that
    format (:func:`check_format`)."""
    origin = str(path)
    try:
        with open_input(path) as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > MAX_DOCUMENT_BYTES:
                raise InputError(origin, "file", f"{size} bytes, more than the "
                                 f"{MAX_DOCUMENT_BYTES} steady reads (docs/limits.md)")
            data = handle.read(MAX_DOCUMENT_BYTES + 1)
    except OSError as exc:
        raise InputError(origin, "file", exc.strerror or str(exc)) from None
    if len(data) > MAX_DOCUMENT_BYTES:   # fstat said nothing
        raise InputError(origin, "file", f"more than the {MAX_DOCUMENT_BYTES} bytes "
                         "steady reads (docs/limits.md)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(origin, f"byte {exc.start}", "not UTF-8 text") from None
    doc = loads_json(text, origin)
    if kind is not None:
        check_format(doc, origin, kind)
    return doc


# -- writing ------------------------------------------------------------------------

#: Hold Ctrl-C, SIGTERM and SIGHUP back inside a block: :func:`steady.interrupts.deferred`.
signals_deferred = interrupts.deferred


def check_output_path(path, element: str = "file") -> Path:
    """The path of a file steady is about to write, or a one-line InputError.

    steady replaces an output file atomically (a temporary file renamed over it), so
    the path must name a regular file or nothing yet, in an existing writable folder.
    Refused (docs/cli.md, "Output files"): an empty name, a name ending in ``/``, a
    folder, a symbolic link (``/proc/self/fd/1`` is one: the rename would replace the
    link, not write through it), a FIFO, socket or device, a read-only file, a missing
    or unwritable folder.  Every writer calls this (:func:`atomic_write_bytes`); the
    command line also calls it when it reads the option, before any work."""
    text = os.fspath(path)
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    if text == "":
        raise InputError("<command line>", element, "empty file name")
    if text.endswith(("/", os.sep)):
        raise InputError(text, element, "names a folder (ends with '/'), not a file")
    target = Path(text)
    try:
        info = os.lstat(target)
    except (FileNotFoundError, NotADirectoryError):   # the folder check says why
        info = None
    except OSError as exc:
        raise InputError(text, element, f"cannot write: {exc.strerror or exc}") from None
    if info is not None:
        if stat.S_ISLNK(info.st_mode):
            raise InputError(text, element, "is a symbolic link: steady replaces its "
                             "output files atomically and would replace the link; give "
                             "the path of a regular file")
        if stat.S_ISDIR(info.st_mode):
            raise InputError(text, element, "is a folder, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise InputError(text, element, "is not a regular file (a FIFO, socket or "
                             "device): steady writes files atomically, through a "
                             "temporary file and a rename")
        if not os.access(target, os.W_OK):
            raise InputError(text, element, "cannot write: the file is read-only")
    folder = target.parent
    if not folder.is_dir():
        reason = "does not exist" if not folder.exists() else "is not a folder"
        raise InputError(text, element, f"cannot write: the folder {echo(str(folder))} "
                         f"{reason}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(text, element, f"cannot write: the folder {echo(str(folder))} "
                         "is not writable")
    return target


def atomic_write_text(path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename.

    A reader never sees a half-written file, and a failure leaves the old file intact.
    """
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path, data: bytes) -> None:
    """:func:`atomic_write_text` for bytes (e.g. an image).  The path is checked first
    (:func:`check_output_path`, InputError); the temporary file
    ``.NAME.XXXXXXXX.tmp`` is removed on any exception, KeyboardInterrupt included."""
    path = check_output_path(path)
    mode = _file_mode(path)
    fd = tmp = None
    try:
        with signals_deferred():   # the name is known as soon as the file exists
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp",
                                       dir=path.parent)
        # mkstemp creates the file 0600; give it the mode a plain open() would have.
        os.fchmod(fd, mode)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
        with signals_deferred():
            os.close(fd)
            fd = None
        if interrupts.received():   # a library swallowed the KeyboardInterrupt
            raise KeyboardInterrupt
        os.replace(tmp, path)
    except BaseException:
        with signals_deferred():
            if fd is not None:
                os.close(fd)
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except FileNotFoundError:
                    pass
        raise


def _file_mode(path: Path) -> int:
    """The existing file's permissions, else 0666 minus the process umask."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
