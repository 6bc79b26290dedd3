"""Reading JSON documents with precise errors, writing files atomically."""

from __future__ import annotations

import json
import os
import tempfile
from decimal import Decimal
from pathlib import Path

from .errors import InputError
from .numbers import many_digits


def loads_json(text: str, origin: str):
    """Parse JSON keeping every float as its exact decimal text (``Decimal``)."""
    try:
        with many_digits():
            return json.loads(text, parse_float=Decimal)
    except json.JSONDecodeError as exc:
        raise InputError(origin, f"line {exc.lineno} column {exc.colno}",
                         f"malformed JSON: {exc.msg}") from None
    except RecursionError:
        raise InputError(origin, "document", "malformed JSON: nested too deeply") from None
    except ValueError as exc:  # e.g. an integer beyond Python's 4300-digit limit
        raise InputError(origin, "document", f"malformed JSON: {exc}") from None


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
        raise InputError(origin, "version", f"unsupported version {found!r} "
                         f"(this steady reads version {words})")


def load_json(path) -> object:
    """Read and parse a JSON file; every failure becomes an :class:`InputError`."""
    origin = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(origin, "file", "no such file") from None
    except IsADirectoryError:
        raise InputError(origin, "file", "is a directory, not a file") from None
    except UnicodeDecodeError as exc:
        raise InputError(origin, f"byte {exc.start}", "not UTF-8 text") from None
    except OSError as exc:
        raise InputError(origin, "file", exc.strerror or str(exc)) from None
    return loads_json(text, origin)


def atomic_write_text(path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename.

    A reader never sees a half-written file, and a failure leaves the old file intact.
    """
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path, data: bytes) -> None:
    """:func:`atomic_write_text` for bytes (e.g. an image)."""
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        # mkstemp creates the file 0600; give it the mode a plain open() would have.
        os.chmod(tmp, _file_mode(path))
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
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
