"""What SimGrid's Python API does not give, read from the platform XML itself (ours).

SimGrid 3.32's bindings return bandwidths and latencies as doubles and have no getter
for a link's sharing policy.  Two things are therefore read from the file, with
defusedxml (no entity expansion, no external DTD fetched):

* **exact decimals**: every bandwidth and latency written in the file, as the exact
  value of its text *and* the double SimGrid computes from it
  (:mod:`steady.simgrid.units`); a double from the API that equals one of them is
  replaced by its exact decimal.  Dragonfly links carry k x bw (SimGrid multiplies the
  bandwidth by the number of parallel cables), so small multiples join the pool;
* **sharing policies**: links declared ``FATPIPE``, cluster backbones declared
  ``bb_sharing_policy="FATPIPE"`` and the private links of flat clusters declared
  ``sharing_policy="FATPIPE"``.  Every other link is shared (SimGrid's default; a
  ``SPLITDUPLEX`` link is two shared links, ``_UP`` and ``_DOWN``): treating a fatpipe
  as shared is the safe side (it only forbids more).

Features steady cannot model are named: ``WIFI`` sharing (rates per station).

The file is also checked before SimGrid sees it (issue 42), each refusal one line
naming the element:

* steady reads the platform file and nothing else: an attribute naming another file
  (``bandwidth_file``, ``latency_file``, ``speed_file``, ``state_file``,
  ``availability_file``, any ``*_file``), ``<include>``, a ``<trace file=...>`` and
  ``<config>`` (its settings can make SimGrid write files, such as
  ``tracing/filename``, or change the network model the replay states) are refused;
  SimGrid would open them (inline ``<trace>`` profiles stay);
* ``<platform version>`` must say 4 or more (SimGrid 3.32 reads no other);
* no UTF-8 byte order mark (SimGrid's parser does not skip it);
* every bandwidth and latency is a finite number with a known unit (not ``NaN``,
  ``inf``, or an exponent beyond +-4300), bandwidths > 0, latencies >= 0;
* at most :data:`MAX_FILE_HOSTS` hosts (``<host>``, ``<peer>``, and the radicals of
  ``<cluster>`` and ``<cabinet>``) and :data:`MAX_XML_BYTES` bytes: SimGrid loads them
  all before anything can be selected.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from fractions import Fraction

from ..errors import InputError, echo
from ..fileio import open_input
from .units import BANDWIDTH, TIME, parse

#: Hosts in a platform file, at most: SimGrid builds every one when it loads the file
#: (10^5 hosts: 2.4 s and 370 MB; 10^8 would take hours).
MAX_FILE_HOSTS = 100_000
#: Bytes of a platform file, at most.
MAX_XML_BYTES = 64 * 2 ** 20
_BOM = b"\xef\xbb\xbf"
_RADICAL = re.compile(r"\s*([0-9]+)\s*(?:-\s*([0-9]+)\s*)?", re.ASCII)
_VERSION = re.compile(r"([0-9]+)(\.[0-9]+)?", re.ASCII)
_BANDWIDTH_KEYS = ("bandwidth", "bw", "bb_bw", "limiter_link", "loopback_bw", "bw_in",
                   "bw_out")
_LATENCY_KEYS = ("latency", "lat", "bb_lat", "loopback_lat")
#: Dragonfly links are k parallel cables fused into one link of k x bw.
_MULTIPLES = 64


@dataclass
class XmlFacts:
    """The exact numbers of a platform file and its fatpipe links."""

    bandwidths: dict[float, Fraction] = field(default_factory=dict)
    latencies: dict[float, Fraction] = field(default_factory=dict)
    fatpipes: set[str] = field(default_factory=set)          # exact link names
    fatpipe_prefixes: list[str] = field(default_factory=list)  # flat clusters' links
    unsupported: list[str] = field(default_factory=list)
    files: int = 0

    def sharing(self, name: str) -> str:
        if name in self.fatpipes or any(name.startswith(p) for p in self.fatpipe_prefixes):
            return "fatpipe"
        return "shared"


def read_facts(path) -> XmlFacts:
    """Parse ``path`` (and the files it includes) for exact numbers and policies."""
    try:
        from defusedxml import ElementTree
        from defusedxml.common import DefusedXmlException
    except ImportError:  # pragma: no cover - the simgrid extra installs it
        raise InputError(str(path), "XML", "exact decimals need defusedxml: pip install "
                         "'steady[simgrid]' (or pip install defusedxml)") from None
    origin = str(path)
    with open_input(path) as handle:
        data = handle.read(MAX_XML_BYTES + 1)
    if len(data) > MAX_XML_BYTES:
        raise InputError(origin, "file", f"more than the {MAX_XML_BYTES} bytes steady "
                         "hands to SimGrid (docs/limits.md)")
    if data.startswith(_BOM):
        raise InputError(origin, "byte 0", "a UTF-8 byte order mark, which SimGrid's XML "
                         "reader does not take: save the file without it")
    facts = XmlFacts()
    try:
        root = ElementTree.fromstring(data, forbid_dtd=False)
    except DefusedXmlException as exc:
        raise InputError(origin, "XML", f"refused: {exc}") from None
    except (ElementTree.ParseError, ValueError) as exc:
        raise InputError(origin, "XML", f"cannot parse: {exc}") from None
    _check_platform(root, origin)
    facts.files = 1
    hosts = 0
    for element in root.iter():
        _check_files(element, origin)
        _numbers(element, facts, origin)
        _policy(element, facts)
        hosts += _hosts(element, origin)
        if hosts > MAX_FILE_HOSTS:
            raise InputError(origin, "hosts", f"more than {MAX_FILE_HOSTS} hosts in the "
                             "file, the most steady hands to SimGrid, which builds every "
                             "one (docs/limits.md)")
    return facts


def _name(element) -> str:
    """An element as an error names it: its tag and id (``link l1``)."""
    ident = element.get("id")
    return element.tag if ident is None else f"{element.tag} {echo(ident)}"


def _check_platform(root, origin) -> None:
    if root.tag != "platform":
        raise InputError(origin, root.tag, "the document is not a SimGrid <platform>")
    version = root.get("version")
    match = _VERSION.fullmatch(version or "")
    if match is None or int(match[1]) < 4:
        raise InputError(origin, "platform.version", f"{echo(version)}: SimGrid 3.32 "
                         "reads platform files of version 4 and above (<platform "
                         "version=\"4.1\">; older ones: SimGrid's simgrid_update_xml)"
                         if version is not None else "missing: SimGrid 3.32 reads "
                         "platform files of version 4 and above (<platform "
                         "version=\"4.1\">)")


def _check_files(element, origin) -> None:
    """Refuse what makes SimGrid open another file (module docstring)."""
    for key, value in element.attrib.items():
        if key.endswith("_file") or (element.tag in ("trace", "include") and key == "file"):
            raise InputError(origin, f"{_name(element)}.{key}", f"names the file "
                             f"{echo(value)}, which SimGrid would open: steady reads the "
                             "platform file only (inline the profile, or remove it)")
    if element.tag == "include":
        raise InputError(origin, "include", "steady reads the platform file only: "
                         "inline the included file")
    if element.tag == "config":
        raise InputError(origin, _name(element), "SimGrid's settings in the platform are "
                         "refused: they can make SimGrid write files and change the "
                         "network model steady states (give them to SimGrid yourself)")


def _hosts(element, origin) -> int:
    """How many hosts ``element`` makes SimGrid build."""
    if element.tag in ("host", "peer"):
        return 1
    if element.tag not in ("cluster", "cabinet"):
        return 0
    radical = element.get("radical") or ""
    count = 0
    for part in radical.split(","):
        match = _RADICAL.fullmatch(part)
        if match is None or len(part) > 40:
            raise InputError(origin, f"{_name(element)}.radical", f"{echo(radical)}: "
                             "expected numbers or ranges a-b separated by commas")
        first, last = int(match[1]), int(match[2] or match[1])
        count += max(last - first + 1, 0)
        if count > MAX_FILE_HOSTS:
            break
    return count


def _numbers(element, facts: XmlFacts, origin: str = "<xml>") -> None:
    for key in _BANDWIDTH_KEYS:
        text = element.get(key)
        if text is None or "," in text or ";" in text:
            continue   # wifi: one rate per station, refused below
        exact, double = _quantity(element, key, text, BANDWIDTH, origin)
        if exact is None:
            continue   # SimGrid itself reports it when it loads the file
        if exact <= 0:
            raise InputError(origin, f"{_name(element)}.{key}", f"{echo(text)}: a "
                             "bandwidth must be > 0")
        for k in range(1, _MULTIPLES + 1):
            facts.bandwidths.setdefault(double * k, exact * k)
    for key in _LATENCY_KEYS:
        text = element.get(key)
        if text is None:
            continue
        exact, double = _quantity(element, key, text, TIME, origin)
        if exact is None:
            continue
        if exact < 0:
            raise InputError(origin, f"{_name(element)}.{key}", f"{echo(text)}: a latency "
                             "must be >= 0")
        facts.latencies.setdefault(double, exact)


def _quantity(element, key, text, table, origin):
    """(exact, double) of a number of the file, (None, None) when it is not one in
    SimGrid's grammar (SimGrid says so when it loads the file); refused when SimGrid
    would read a non-finite number (NaN, inf, an exponent beyond +-4300)."""
    if _NON_FINITE.match(text):
        raise InputError(origin, f"{_name(element)}.{key}", f"{echo(text)} is not a "
                         "finite number (SimGrid would read it as NaN or infinity)")
    try:
        exact, double = parse(text, table)
    except ValueError as exc:
        if "exponent" in str(exc):
            raise InputError(origin, f"{_name(element)}.{key}", str(exc)) from None
        return None, None
    if not math.isfinite(double) or (exact != 0 and double == 0):
        raise InputError(origin, f"{_name(element)}.{key}", f"{echo(text)} is beyond "
                         "what SimGrid's doubles hold (it would read infinity or 0)")
    return exact, double


_NON_FINITE = re.compile(r"\s*[+-]?(nan|inf)", re.IGNORECASE | re.ASCII)


def _policy(element, facts: XmlFacts) -> None:
    tag = element.tag
    policy = (element.get("sharing_policy") or "").upper()
    if policy == "WIFI" or (tag == "zone" and (element.get("routing") or "").lower() == "wifi"):
        facts.unsupported.append("WIFI sharing (one rate per station)")
    if tag == "link" and policy == "FATPIPE" and element.get("id"):
        facts.fatpipes.add(element.get("id"))
    if tag == "cluster" and element.get("id"):
        cid = element.get("id")
        if (element.get("bb_sharing_policy") or "").upper() == "FATPIPE":
            facts.fatpipes.add(f"{cid}_backbone")
        if policy == "FATPIPE" and (element.get("topology") or "FLAT").upper() == "FLAT":
            facts.fatpipe_prefixes.append(f"{cid}_link_")


def exact_of(value: float, pool: dict[float, Fraction]) -> tuple[Fraction, bool]:
    """(exact value, found in the file) of a double from SimGrid's API: the file's
    decimal when one gives exactly this double, else the double's shortest decimal."""
    if value in pool:
        return pool[value], True
    if not math.isfinite(value):   # the file's numbers are checked before (read_facts)
        raise InputError("<simgrid>", "number", f"SimGrid answered {value!r}, not a "
                         "finite number")
    return Fraction(repr(float(value))), False


def platform_dir(path) -> str:
    """The directory SimGrid resolves the file's relative trace paths from."""
    return os.path.dirname(os.path.abspath(str(path))) or "."
