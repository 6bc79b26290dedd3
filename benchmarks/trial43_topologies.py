"""The topologies of issue 43's second new-user trial (trial43), none of them in
samples/: written as steady-platform files (and one SimGrid platform with routers) into
a folder, to reproduce the trial's table and its defects left (see the trial's report).

    python benchmarks/trial43_topologies.py OUT_DIR

* dgx-mixed-2: 2 DGX-like boxes, GPUs 0-3 at 450 GB/s and 4-7 at 300 GB/s to the
  NVSwitch, pairs of GPUs behind a PCIe switch (32 GB/s) with one 50 GB/s NIC, one leaf;
* rail-4x4: 4 servers x 4 GPUs, NVSwitch 200 GB/s, GPU g on rail switch g (25 GB/s),
  rails on 2 spines (50 GB/s); rail-8x8-hetero: 8 x 8, two box generations, two NIC
  speeds, 4 spines (64 GPUs, no symmetry given);
* torus-4x4: a 2D torus of 16 GPUs, no switch, x links 100 and y links 50 GB/s;
* mesh-3x3-oneport / -multiport: a 3x3 mesh, integer costs drawn (seed 7), each way
  its own;
* hetero-asym: 3 racks of different speeds, asymmetric up/down links, a side link;
  hetero-asym-oneport: the same, one-port;
* fat-tree-6, fat-tree-8, fat-tree-6-oversubscribed-3: steady.topologies' generator;
* routers.xml: SimGrid, 3 clusters (9 hosts, routers ra, rb, rc) joined by 3 links;
  `steady import simgrid routers.xml --size 1GB --ports multi-port -o routers.json`.
"""

import json
import random
import sys
from fractions import Fraction as F
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from steady.topologies import fat_tree_platform  # noqa: E402

ROUTERS_XML = """<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="root" routing="Full">
    <cluster id="ca" prefix="a" suffix="" radical="0-2" speed="1Gf" bw="1GBps" lat="10us"
             bb_bw="2GBps" bb_lat="10us" router_id="ra"/>
    <cluster id="cb" prefix="b" suffix="" radical="0-3" speed="1Gf" bw="500MBps" lat="10us"
             bb_bw="1GBps" bb_lat="10us" router_id="rb"/>
    <cluster id="cc" prefix="c" suffix="" radical="0-1" speed="1Gf" bw="2GBps" lat="5us"
             bb_bw="3GBps" bb_lat="5us" bb_sharing_policy="FATPIPE" router_id="rc"/>
    <link id="ab" bandwidth="800MBps" latency="50us"/>
    <link id="ac" bandwidth="1.5GBps" latency="20us"/>
    <link id="bc" bandwidth="600MBps" latency="20us"/>
    <zoneRoute src="ca" dst="cb" gw_src="ra" gw_dst="rb"><link_ctn id="ab"/></zoneRoute>
    <zoneRoute src="ca" dst="cc" gw_src="ra" gw_dst="rc"><link_ctn id="ac"/></zoneRoute>
    <zoneRoute src="cb" dst="cc" gw_src="rb" gw_dst="rc"><link_ctn id="bc"/></zoneRoute>
  </zone>
</platform>
"""


def link(links, a, b, bw, back=None):
    links.append({"from": a, "to": b, "bandwidth": str(bw)})
    links.append({"from": b, "to": a, "bandwidth": str(bw if back is None else back)})


def doc(name, source, links, switches, ports="multi-port"):
    return {"format": "steady-platform", "version": 1, "name": name, "source": source,
            "ports": ports, "switches": switches, "links": links}


def topologies() -> dict:
    out = {}
    # A. DGX-like 2 boxes, H100-ish with different speeds: GPUs 0-3 at 450 to NVSwitch, 4-7 at 300;
    #    pairs of GPUs share a PCIe switch (32 GB/s per GPU), one NIC per PCIe switch at 50 GB/s to one leaf.
    L, S = [], []
    for b in range(2):
        nv = f"b{b}.nvs"; S.append(nv)
        for g in range(8):
            link(L, f"b{b}.g{g}", nv, 450 if g < 4 else 300)
        for p in range(4):
            pcie = f"b{b}.pcie{p}"; nic = f"b{b}.nic{p}"; S += [pcie, nic]
            for g in (2*p, 2*p+1):
                link(L, f"b{b}.g{g}", pcie, 32)
            link(L, pcie, nic, 50)
            link(L, nic, "leaf", 50)
    S.append("leaf")
    out["dgx-mixed-2"] = doc("dgx-mixed-2", "b0.g0", L, S)

    # C. rail-optimized: 4 servers x 4 GPUs; NVSwitch 200; GPU g -> NIC -> rail switch g at 25;
    #    rails to 2 spines at 50.
    L, S = [], []
    for s in range(4):
        nv = f"s{s}.nvs"; S.append(nv)
        for g in range(4):
            link(L, f"s{s}.g{g}", nv, 200)
            link(L, f"s{s}.g{g}", f"rail{g}", 25)
    for g in range(4):
        S.append(f"rail{g}")
        for sp in range(2):
            link(L, f"rail{g}", f"spine{sp}", 50)
    S += ["spine0", "spine1"]
    out["rail-4x4"] = doc("rail-4x4", "s0.g0", L, S)

    # D. 2D torus 4x4, no switches, x links 100, y links 50.
    L = []
    n = 4
    for i in range(n):
        for j in range(n):
            a = f"t{i}_{j}"
            link(L, a, f"t{(i+1)%n}_{j}", 100)
            link(L, a, f"t{i}_{(j+1)%n}", 50)
    out["torus-4x4"] = doc("torus-4x4", "t0_0", L, [])

    # E. 3x3 mesh, no switches, one-port, heterogeneous costs (integers)
    L = []
    import random
    rnd = random.Random(7)
    for i in range(3):
        for j in range(3):
            a = f"m{i}{j}"
            if i + 1 < 3: link(L, a, f"m{i+1}{j}", rnd.choice([1, 2, 3, 5]), rnd.choice([1, 2, 3, 5]))
            if j + 1 < 3: link(L, a, f"m{i}{j+1}", rnd.choice([1, 2, 3, 5]), rnd.choice([1, 2, 3, 5]))
    out["mesh-3x3-oneport"] = doc("mesh-3x3-oneport", "m00", L, [], ports="one-port")
    out["mesh-3x3-multiport"] = doc("mesh-3x3-multiport", "m00", L, [], ports="multi-port")

    # F. heterogeneous cluster with asymmetric links
    L, S = [], ["tor0", "tor1", "tor2", "agg"]
    for i in range(3): link(L, f"x{i}", "tor0", 100, 40)     # up 100, down 40
    for i in range(5): link(L, f"y{i}", "tor1", 25)
    for i in range(2): link(L, f"z{i}", "tor2", F(125, 10))
    link(L, "tor0", "agg", 80, 60); link(L, "tor1", "agg", 30); link(L, "tor2", "agg", 20)
    link(L, "x0", "y0", 7)  # a direct side link
    out["hetero-asym"] = doc("hetero-asym", "x0", L, S)

    L, S = [], []
    for s in range(8):
        nv = f"s{s}.nvs"; S.append(nv)
        for g in range(8):
            link(L, f"s{s}.g{g}", nv, 300 if s % 2 else 450)
            link(L, f"s{s}.g{g}", f"rail{g}", 50 if s < 4 else 25)
    for g in range(8):
        S.append(f"rail{g}")
        for sp in range(4):
            link(L, f"rail{g}", f"spine{sp}", 100)
    S += [f"spine{sp}" for sp in range(4)]
    out["rail-8x8-hetero"] = doc("rail-8x8-hetero", "s0.g0", L, S)
    one = json.loads(json.dumps(out["hetero-asym"]))
    one["ports"], one["name"] = "one-port", "hetero-asym-oneport"
    out["hetero-asym-oneport"] = one
    for k, o in ((6, 1), (8, 1), (6, 3)):
        p = fat_tree_platform(k, oversubscription=o)
        out[p.name] = p.to_dict()
    return out


if __name__ == "__main__":
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "trial43-topologies")
    folder.mkdir(parents=True, exist_ok=True)
    for name, d in topologies().items():
        (folder / f"{name}.json").write_text(json.dumps(d, indent=1), encoding="utf-8")
    (folder / "routers.xml").write_text(ROUTERS_XML, encoding="utf-8")
    print(f"{len(topologies())} platforms and routers.xml in {folder}")
