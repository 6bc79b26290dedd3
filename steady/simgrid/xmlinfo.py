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
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from fractions import Fraction

from ..errors import InputError
from .units import BANDWIDTH, TIME, parse

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
    facts = XmlFacts()
    try:
        root = ElementTree.parse(str(path), forbid_dtd=False).getroot()
    except DefusedXmlException as exc:
        raise InputError(str(path), "XML", f"refused: {exc}") from None
    except (ElementTree.ParseError, OSError) as exc:
        raise InputError(str(path), "XML", f"cannot parse: {exc}") from None
    facts.files = 1
    for element in root.iter():
        _numbers(element, facts)
        _policy(element, facts)
    return facts


def _numbers(element, facts: XmlFacts) -> None:
    for key in _BANDWIDTH_KEYS:
        text = element.get(key)
        if text is None or "," in text or ";" in text:
            continue   # wifi: one rate per station, refused below
        try:
            exact, double = parse(text, BANDWIDTH)
        except ValueError:
            continue   # SimGrid itself reports it when it loads the file
        for k in range(1, _MULTIPLES + 1):
            facts.bandwidths.setdefault(double * k, exact * k)
    for key in _LATENCY_KEYS:
        text = element.get(key)
        if text is None:
            continue
        try:
            exact, double = parse(text, TIME)
        except ValueError:
            continue
        facts.latencies.setdefault(double, exact)


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
    return Fraction(repr(float(value))), False


def platform_dir(path) -> str:
    """The directory SimGrid resolves the file's relative trace paths from."""
    return os.path.dirname(os.path.abspath(str(path))) or "."
