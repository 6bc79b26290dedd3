"""The header rules shared by this package's versioned JSON formats
(``steady-ethernet-cluster``, ``steady-plogp``): an object, no unknown key, the right
``format`` and ``version``."""

from __future__ import annotations

from ..errors import InputError
from ..fileio import check_format, check_version


def check_header(doc, origin: str, fmt: str, version: int, keys) -> None:
    """Raise an :class:`InputError` naming the element unless ``doc`` is a ``fmt``
    version ``version`` object whose keys are all in ``keys``."""
    check_format(doc, origin, fmt, required=True)   # first: another kind is named
    unknown = sorted(set(doc) - set(keys))
    if unknown:
        raise InputError(origin, f"key {unknown[0]!r}", "unknown key (allowed: "
                         + ", ".join(sorted(keys)) + ")")
    check_version(doc, origin, version)
