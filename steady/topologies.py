"""Today's GPU fabrics as multi-port switched platforms, with their symmetry (issue 43;
ours, from the vendors' published link speeds).

Units: a unit message is 1 GB and a time unit 1 s, so a link of B GB/s costs 1/B and a
collective's rate comes out in GB/s.  Every platform is multi-port (a GPU uses all its
links at once), its switches forward only, and its ``symmetry`` lists generators of a
group of automorphisms (checked link by link when the platform is built) that the
collective optimum uses to solve one root per orbit (proofs/collectives.md).

* :func:`a100_platform`: NVIDIA DGX A100 boxes.  8 A100 GPUs per box; third-generation
  NVLink gives each GPU 600 GB/s in total, 300 GB/s each way, through the box's
  NVSwitches, modelled as one crossbar switch; for more than one box, 8 ConnectX-6
  HDR InfiniBand NICs (200 Gb/s = 25 GB/s each way), NIC g beside GPU g, and two IB
  switches, the even NICs of every box on one and the odd ones on the other (two
  rails).  The NICs are switches (they forward).
* :func:`mi250_platform`: AMD MI250 boxes of 8 OAM modules, 16 GCDs (two per module),
  on an Infinity Fabric (xGMI) mesh of 50 GB/s lanes each way: 4 lanes between the two
  GCDs of a module, 2 or 1 between modules (:data:`MI250_LANES`); for more than one box,
  each GCD has a 16 GB/s link each way to one InfiniBand switch.
* :func:`fat_tree_platform`: the k-ary fat tree of Al-Fares et al. (SIGCOMM 2008):
  k pods of k/2 edge and k/2 aggregation switches, (k/2)^2 core switches, k^3/4 hosts.
* :func:`hetero_cluster_platform`: a small heterogeneous switched cluster (racks of
  different speeds, an oversubscribed core, one NVLink pair), without symmetry.
* :func:`switched_cluster`: the small random switched clusters of issue 43's trial (6
  compute nodes, 3 switches, link speeds 3 to 15), by seed.
"""

from __future__ import annotations

from fractions import Fraction

from .errors import InputError
from .numbers import format_exact
from .platform import MULTI_PORT, Link, Platform

__all__ = ["a100_platform", "mi250_platform", "fat_tree_platform",
           "hetero_cluster_platform", "switched_cluster", "MI250_LANES", "TOPOLOGIES"]

#: DGX A100: GB/s each way of a GPU's NVLink (to the NVSwitch) and of an HDR NIC.
A100_NVLINK = 300
A100_NIC = 25
#: MI250: GB/s each way of one xGMI lane, and of a GCD's InfiniBand link.
MI250_XGMI_LANE = 50
MI250_IB = 16
#: The xGMI lanes between the 16 GCDs of an 8-module MI250 box, as (GCD, GCD, lanes):
#: GCDs 2m and 2m+1 are the two dies of module m (4 lanes); the modules are joined by
#: 2-lane and 1-lane links, the box having two halves (GCDs 0-7, 8-15) and a mirror
#: symmetry within each group of four GCDs.
MI250_LANES = (
    (0, 1, 4), (2, 3, 4), (4, 5, 4), (6, 7, 4), (8, 9, 4), (10, 11, 4), (12, 13, 4),
    (14, 15, 4),
    (0, 4, 2), (3, 7, 2), (8, 12, 2), (11, 15, 2),
    (0, 8, 1), (3, 11, 1), (1, 5, 1), (2, 6, 1), (9, 13, 1), (10, 14, 1),
    (1, 9, 1), (1, 10, 1), (2, 9, 1), (2, 10, 1),
    (4, 6, 1), (5, 6, 1), (5, 7, 1), (12, 14, 1), (13, 14, 1), (13, 15, 1))


def _both_ways(links: list, a: str, b: str, bandwidth) -> None:
    cost = 1 / Fraction(bandwidth)
    links.append(Link(a, b, cost))
    links.append(Link(b, a, cost))


def _count(value, name: str, lowest: int = 1) -> int:
    if type(value) is not int or value < lowest:
        raise InputError("<topology>", name, f"must be an integer >= {lowest}, got {value!r}")
    return value


def _cycle(names: list[str]) -> dict[str, str]:
    """The permutation sending each name to the next one, the last to the first."""
    return {a: b for a, b in zip(names, names[1:] + names[:1])}


def _merged(*maps: dict) -> dict:
    out: dict = {}
    for m in maps:
        out.update(m)
    return out


def a100_platform(boxes: int = 1) -> Platform:
    """DGX A100 boxes (see the module docstring): GPUs ``b{box}.gpu{g}``, switches
    ``b{box}.nvswitch``, ``b{box}.nic{g}`` and ``ib0``/``ib1``; symmetry: the boxes
    shifted by one, and the GPUs of every box shifted by one (their NICs with them,
    the two IB switches swapped)."""
    boxes = _count(boxes, "boxes")
    links: list[Link] = []
    nodes, switches = [], []
    for b in range(boxes):
        gpus = [f"b{b}.gpu{g}" for g in range(8)]
        nodes += gpus
        switches.append(f"b{b}.nvswitch")
        for g in gpus:
            _both_ways(links, g, f"b{b}.nvswitch", A100_NVLINK)
        if boxes > 1:
            for g in range(8):
                nic = f"b{b}.nic{g}"
                switches.append(nic)
                _both_ways(links, gpus[g], nic, A100_NIC)
                _both_ways(links, nic, f"ib{g % 2}", A100_NIC)
    if boxes > 1:
        switches += ["ib0", "ib1"]
    nodes += switches
    kinds = ["gpu"] + (["nic"] if boxes > 1 else [])
    symmetry = [_merged(*(_cycle([f"b{b}.{kind}{g}" for g in range(8)])
                          for b in range(boxes) for kind in kinds),
                        {"ib0": "ib1", "ib1": "ib0"} if boxes > 1 else {})]
    if boxes > 1:
        symmetry.append(_merged(*(_cycle([f"b{b}.{kind}" for b in range(boxes)])
                                  for kind in ["nvswitch"] + [f"{k}{g}" for k in kinds
                                                              for g in range(8)])))
    return Platform("b0.gpu0", links, nodes, f"a100-{boxes}", ports=MULTI_PORT,
                    switches=switches, symmetry=symmetry)


def mi250_platform(boxes: int = 1) -> Platform:
    """MI250 boxes (see the module docstring): GCDs ``b{box}.gcd{i}``, switch ``ib``
    (more than one box); symmetry: the boxes shifted by one, the two halves of every
    box swapped, and the mirror within each group of four GCDs.  (The box has no
    automorphism beyond these 4, so the group acts freely but not transitively: 4
    roots per box-orbit class are solved, one per orbit.)"""
    boxes = _count(boxes, "boxes")
    links: list[Link] = []
    nodes = []
    for b in range(boxes):
        gcd = [f"b{b}.gcd{i}" for i in range(16)]
        nodes += gcd
        for i, j, lanes in MI250_LANES:
            _both_ways(links, gcd[i], gcd[j], lanes * MI250_XGMI_LANE)
        if boxes > 1:
            for g in gcd:
                _both_ways(links, g, "ib", MI250_IB)
    switches = ["ib"] if boxes > 1 else []
    nodes += switches
    halves = {f"b{b}.gcd{i}": f"b{b}.gcd{i ^ 8}" for b in range(boxes) for i in range(16)}
    mirror = {f"b{b}.gcd{i}": f"b{b}.gcd{(i & ~3) | (3 - (i & 3))}"
              for b in range(boxes) for i in range(16)}
    symmetry = [halves, mirror]
    if boxes > 1:
        symmetry.append(_merged(*(_cycle([f"b{b}.gcd{i}" for b in range(boxes)])
                                  for i in range(16))))
    return Platform("b0.gcd0", links, nodes, f"mi250-{boxes}", ports=MULTI_PORT,
                    switches=switches, symmetry=symmetry)


def fat_tree_platform(k: int = 4, bandwidth=Fraction(25, 2), oversubscription=1) -> Platform:
    """The k-ary fat tree (k even): hosts ``p{pod}.e{edge}.h{h}``, switches
    ``p{pod}.edge{e}``, ``p{pod}.agg{a}``, ``core{c}``.  Host links run at
    ``bandwidth`` GB/s each way (default 12.5: 100 Gb/s), switch-to-switch links at
    ``bandwidth / oversubscription``.  Symmetry: pods shifted, edge switches shifted
    within every pod, hosts shifted under every edge switch (free and transitive on
    the hosts).  Named ``fat-tree-{k}``, ``fat-tree-{k}-oversubscribed-{o}`` when
    oversubscribed."""
    k = _count(k, "k", 2)
    if k % 2:
        raise InputError("<topology>", "k", f"must be even, got {k}")
    half = k // 2
    bandwidth = Fraction(bandwidth)
    up = bandwidth / Fraction(oversubscription)
    links: list[Link] = []
    hosts, switches = [], []
    for p in range(k):
        for e in range(half):
            edge = f"p{p}.edge{e}"
            for h in range(half):
                host = f"p{p}.e{e}.h{h}"
                hosts.append(host)
                _both_ways(links, host, edge, bandwidth)
            for a in range(half):
                _both_ways(links, edge, f"p{p}.agg{a}", up)
        for a in range(half):
            for c in range(half):
                _both_ways(links, f"p{p}.agg{a}", f"core{a * half + c}", up)
    for p in range(k):
        switches += [f"p{p}.edge{e}" for e in range(half)] + [f"p{p}.agg{a}" for a in range(half)]
    switches += [f"core{c}" for c in range(half * half)]
    pods = _merged(*(_cycle([f"p{p}.{x}" for p in range(k)])
                     for x in [f"e{e}.h{h}" for e in range(half) for h in range(half)]
                     + [f"edge{e}" for e in range(half)] + [f"agg{a}" for a in range(half)]))
    edges = _merged(*(_cycle([f"p{p}.edge{e}" for e in range(half)]) for p in range(k)),
                    *(_cycle([f"p{p}.e{e}.h{h}" for e in range(half)])
                      for p in range(k) for h in range(half)))
    under = _merged(*(_cycle([f"p{p}.e{e}.h{h}" for h in range(half)])
                      for p in range(k) for e in range(half)))
    symmetry = [g for g in (pods, edges, under) if any(a != b for a, b in g.items())]
    # an oversubscribed tree says so in its name (a different fabric, a different optimum)
    over = Fraction(oversubscription)
    name = f"fat-tree-{k}" + ("" if over == 1 else f"-oversubscribed-{format_exact(over)}")
    return Platform(hosts[0], links, hosts + switches, name, ports=MULTI_PORT,
                    switches=switches, symmetry=symmetry)


def hetero_cluster_platform() -> Platform:
    """A heterogeneous switched cluster (no symmetry): three racks behind top-of-rack
    switches joined by one core switch -- rack a: 4 nodes at 25 GB/s, uplink 50 GB/s;
    rack b: 4 nodes at 12.5 GB/s, uplink 25 GB/s; rack c: 2 GPU nodes at 50 GB/s that
    also share an NVLink pair at 100 GB/s, uplink 40 GB/s; plus a storage node on the
    core at 10 GB/s."""
    links: list[Link] = []
    nodes, switches = [], ["tor-a", "tor-b", "tor-c", "core"]
    for rack, count, speed, uplink in (("a", 4, 25, 50), ("b", 4, Fraction(25, 2), 25),
                                       ("c", 2, 50, 40)):
        for i in range(count):
            node = f"{rack}{i}"
            nodes.append(node)
            _both_ways(links, node, f"tor-{rack}", speed)
        _both_ways(links, f"tor-{rack}", "core", uplink)
    _both_ways(links, "c0", "c1", 100)
    nodes.append("storage")
    _both_ways(links, "storage", "core", 10)
    return Platform("a0", links, nodes + switches, "hetero-cluster", ports=MULTI_PORT,
                    switches=switches)


#: The link speeds :func:`switched_cluster` draws from.
CLUSTER_SPEEDS = (3, 4, 5, 6, 8, 10, 12, 15)


def switched_cluster(seed: int, ports: str = MULTI_PORT) -> Platform:
    """A random heterogeneous switched cluster (issue 43's trial; ours): compute nodes
    n0 .. n5, switches s0, s1, s2; node i linked both ways to s(i mod 3) and, with
    probability 0.3, to the next switch too; s0 - s1 and s1 - s2 linked both ways and
    s0 - s2 with probability 1/2; every link's speed (each way its own) drawn from
    :data:`CLUSTER_SPEEDS`, its cost 1/speed.  ``random.Random(seed)``, the draws in
    that order: the clusters of seeds 1 and 7 (one-port) are those of
    tests/test_collective_bound.py and tests/test_collective_placement.py."""
    import random

    rng = random.Random(seed)
    speeds = []
    for i in range(6):
        home = i % 3
        speeds += [(f"n{i}", f"s{home}", rng.choice(CLUSTER_SPEEDS)),
                   (f"s{home}", f"n{i}", rng.choice(CLUSTER_SPEEDS))]
        if rng.random() < 0.3:
            other = (home + 1) % 3
            speeds += [(f"n{i}", f"s{other}", rng.choice(CLUSTER_SPEEDS)),
                       (f"s{other}", f"n{i}", rng.choice(CLUSTER_SPEEDS))]
    for a, b in ((0, 1), (1, 2)):
        speeds += [(f"s{a}", f"s{b}", rng.choice(CLUSTER_SPEEDS)),
                   (f"s{b}", f"s{a}", rng.choice(CLUSTER_SPEEDS))]
    if rng.random() < 0.5:
        speeds += [("s0", "s2", rng.choice(CLUSTER_SPEEDS)),
                   ("s2", "s0", rng.choice(CLUSTER_SPEEDS))]
    links = [Link(a, b, Fraction(1, speed)) for a, b, speed in speeds]
    nodes = [f"n{i}" for i in range(6)] + ["s0", "s1", "s2"]
    return Platform("n0", links, nodes, f"cluster-{seed}-{ports}", ports=ports,
                    switches=["s0", "s1", "s2"])


#: name -> (builder, what its size argument is), for commands and benchmarks.
TOPOLOGIES = {"a100": (a100_platform, "boxes"), "mi250": (mi250_platform, "boxes"),
              "fat-tree": (fat_tree_platform, "k")}
