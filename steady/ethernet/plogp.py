"""Parameters of the extended parameterized LogP model (seed 004 §4.2, Table 2).

Only L(m) and g(m) enter formulas (1) and (2) (004 §5.1), and they are known for a few
message sizes: "one would like to build a table for L and g for every possible value of
m.  This is practically impossible" — so a parameter set is a table over the candidate
segment sizes.

File format ``steady-plogp`` v1 (unknown keys rejected; ``name``, ``description``
optional)::

    {"format": "steady-plogp", "version": 1, "name": "100mbps", "unit": "ms",
     "sizes": [{"bytes": 256, "g": "0.030", "L": "0.110", "rtt": "0.280"}, ...]}

``bytes``: a positive integer, strictly increasing down the list; ``g`` > 0 and ``L`` >= 0
are exact numbers (decimal text, "p/q" or integers) in ``unit``; ``rtt`` (optional) is the
measured round trip time.  When ``L`` is absent it is derived as 004 §5.1 does,
L(m) = RTT(m)/2 - g(m); when both are given ``L`` is used as written (Table 2 prints L
rounded: at 1000Mbps, 2048B, RTT/2 - g = 0.084 but L = 0.083).  The built-in sets
``100mbps`` and ``1000mbps`` are Table 2.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

from ..errors import InputError
from ..fileio import load_json
from ..numbers import parse_exact
from .formats import check_header

FORMAT = "steady-plogp"
VERSION = 1
BUILTIN = ("100mbps", "1000mbps")
_TOP_KEYS = {"format", "version", "name", "description", "unit", "sizes"}
_ROW_KEYS = {"bytes", "g", "L", "rtt"}
_DATA = Path(__file__).with_name("data")


@dataclass(frozen=True)
class PLogPTable:
    """L(m) and g(m) for the tabulated message sizes m (bytes), exact, in ``unit``."""

    name: str
    unit: str
    latency: Mapping[int, Fraction]
    gap: Mapping[int, Fraction]

    def __post_init__(self):
        object.__setattr__(self, "latency", MappingProxyType(dict(self.latency)))
        object.__setattr__(self, "gap", MappingProxyType(dict(self.gap)))

    @property
    def sizes(self) -> tuple[int, ...]:
        """The tabulated sizes, increasing: the candidate segment sizes."""
        return tuple(sorted(self.gap))

    def L(self, m: int) -> Fraction:
        """L(m), the end-to-end latency of an m-byte message (004 §4.2)."""
        return self.latency[m]

    def g(self, m: int) -> Fraction:
        """g(m), the gap between consecutive m-byte messages (004 §4.2)."""
        return self.gap[m]


def load_table(spec: str) -> PLogPTable:
    """A built-in table (``100mbps``, ``1000mbps``: 004 Table 2) or a steady-plogp file."""
    if spec in BUILTIN:
        path = _DATA / f"plogp-{spec}.json"
        return table_from_dict(load_json(path), spec)
    return table_from_dict(load_json(spec), str(spec))


def table_from_dict(doc, origin: str) -> PLogPTable:
    """Validate a steady-plogp v1 document (module docstring); errors name the element."""
    check_header(doc, origin, FORMAT, VERSION, _TOP_KEYS)
    for key in ("name", "description", "unit"):
        if key in doc and not isinstance(doc[key], str):
            raise InputError(origin, key, "must be a string")
    rows = doc.get("sizes")
    if not isinstance(rows, list) or not rows:
        raise InputError(origin, "sizes", "must be a non-empty list of "
                         "{\"bytes\", \"g\", \"L\"} rows")
    latency, gap = {}, {}
    for i, row in enumerate(rows):
        m, L, g = _row(row, f"sizes[{i}]", origin)
        if gap and m <= max(gap):
            raise InputError(origin, f"sizes[{i}].bytes", f"{m} after {max(gap)}: sizes "
                             "must be strictly increasing")
        latency[m], gap[m] = L, g
    return PLogPTable(doc.get("name", ""), doc.get("unit", ""), latency, gap)


def _row(row, element: str, origin: str) -> tuple[int, Fraction, Fraction]:
    if not isinstance(row, dict):
        raise InputError(origin, element, "a row is an object {\"bytes\", \"g\", \"L\"}")
    unknown = sorted(set(row) - _ROW_KEYS)
    if unknown:
        raise InputError(origin, f"{element}.{unknown[0]}", "unknown key (allowed: "
                         + ", ".join(sorted(_ROW_KEYS)) + ")")
    m = row.get("bytes")
    if isinstance(m, bool) or not isinstance(m, int) or m <= 0:
        raise InputError(origin, f"{element}.bytes", f"a size is a positive integer number "
                         f"of bytes, got {m!r}")
    values = {}
    for key in ("g", "L", "rtt"):
        if key in row:
            try:
                values[key] = parse_exact(row[key])
            except ValueError as exc:
                raise InputError(origin, f"{element}.{key}", str(exc)) from None
    if "g" not in values:
        raise InputError(origin, f"{element}.g", "missing")
    if values["g"] <= 0:
        raise InputError(origin, f"{element}.g", f"the gap must be > 0, got {row['g']!r}")
    if "L" not in values:
        if "rtt" not in values:
            raise InputError(origin, f"{element}.L", "missing (give L, or rtt to derive "
                             "L = rtt/2 - g)")
        values["L"] = values["rtt"] / 2 - values["g"]
    if values["L"] < 0:
        raise InputError(origin, f"{element}.L", f"the latency must be >= 0, got "
                         f"{values['L']}")
    return m, values["L"], values["g"]
