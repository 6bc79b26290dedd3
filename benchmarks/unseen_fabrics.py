"""Switched fabrics that are in none of samples/, the tests or the other benchmarks
(issue 43's re-check "on switched topologies you have not seen"; sweep43): written as
platform files into a folder, then, with ``--run``, put through the CLI as a new user
would -- ``steady throughput P --collective K --json``, an independent check of the
certificate written here from the JSON alone (multi-port fabrics: the trees' link loads
and Edmonds' bound under the certificate's prices, networkx's minimum arborescence on
exact Fractions; no steady code), ``steady schedule P --collective K --max-messages M
-o f.json --json``, ``steady verify P f.json --json`` and ``steady simulate P --schedule
f.json --horizon H --json`` -- one row per (fabric, collective): x*, the checks, CPU s,
ratio, chunks per root, the verdicts and any exit code other than 0.

    python benchmarks/unseen_fabrics.py OUT_DIR [--run] [--only NAME ...]
        [--collectives allgather reduce-scatter allreduce broadcast]
        [--max-messages 64] [--timeout SECONDS]

Families (deterministic; every name says its parameters):

* ``cluster-S-mp``, ``cluster-S-op``: ``steady.topologies.switched_cluster(S, ports)``,
  seeds 31-60 (1-30 are benchmarks/switched_clusters.py's; 61-70 added by ratio43,
  71-130 by clusters43);
* ``fat-tree-K-o``: ``fat_tree_platform(K, oversubscription=o)``, K = 4, 6, o = 1, 2, 3/2;
* ``a100-B``, ``mi250-B``: ``a100_platform(B)`` / ``mi250_platform(B)`` at box counts not
  in samples/ (3, 5, 6, 8 and 3);
* ``dgx-h100-B-rails`` / ``-leaf``: B DGX-H100-like boxes built as a networkx DiGraph
  (``capacity`` GB/s, node attribute ``switch``, ForestColl's style of input,
  ``Platform.from_networkx``): 8 GPUs at 450 GB/s each way on one NVSwitch, NIC g
  (a switch) beside GPU g at 50 GB/s (400 Gb/s), the NICs on 8 rail switches (one per
  GPU index) or on one leaf switch;
* ``torus-RxC-nic``: a 2D torus of GPUs (x links 100, y links 50 GB/s) whose GPUs also
  reach one NIC switch at 25 GB/s; ``ring-N-nic``: a ring of N GPUs at 100 GB/s, each
  with a 25 GB/s link to a NIC switch;
* ``sg-backbone``, ``sg-torus``, ``sg-dragonfly``: SimGrid platforms of our own (a
  cluster with a backbone and two speeds of nodes; a TORUS cluster; a DRAGONFLY
  cluster), imported by ``steady import simgrid --ports multi-port``; ratio43 added
  ``sg-dragonfly-3`` (DRAGONFLY "2,1;3,1;2,1;2", 24 hosts: SimGrid 3 crashed on three groups), ``sg-dragonfly-2``
  ("2,2;2,1;1,2;2", 8 hosts) and ``sg-fat-tree`` (FAT_TREE "2;4,4;1,2;1,2", 16 hosts).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from fractions import Fraction as F
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from steady.platform import MULTI_PORT, ONE_PORT, Platform  # noqa: E402
from steady.topologies import (a100_platform, fat_tree_platform, mi250_platform,  # noqa: E402
                               switched_cluster)

SG_BACKBONE = """<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="root" routing="Full">
    <cluster id="fast" prefix="f" suffix="" radical="0-3" speed="1Gf" bw="2GBps" lat="5us"
             bb_bw="5GBps" bb_lat="5us" router_id="rf"/>
    <cluster id="slow" prefix="s" suffix="" radical="0-4" speed="1Gf" bw="1GBps" lat="10us"
             bb_bw="3GBps" bb_lat="10us" router_id="rs"/>
    <link id="backbone" bandwidth="4GBps" latency="100us"/>
    <zoneRoute src="fast" dst="slow" gw_src="rf" gw_dst="rs"><link_ctn id="backbone"/></zoneRoute>
  </zone>
</platform>
"""

SG_TORUS = """<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="world" routing="Full">
    <cluster id="torus" topology="TORUS" topo_parameters="3,3" prefix="t" suffix=""
             radical="0-8" speed="1Gf" bw="1GBps" lat="10us" loopback_bw="10GBps"
             loopback_lat="0"/>
  </zone>
</platform>
"""

SG_DRAGONFLY = """<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="world" routing="Full">
    <cluster id="df" topology="DRAGONFLY" topo_parameters="2,1;2,1;2,1;2" prefix="d"
             suffix="" radical="0-15" speed="1Gf" bw="1GBps" lat="10us"/>
  </zone>
</platform>
"""

def _sg_cluster(cluster_id: str, topology: str, parameters: str, hosts: int) -> str:
    """A SimGrid cluster of ``hosts`` hosts (prefix ``cluster_id[0]``) in one zone."""
    return f"""<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="world" routing="Full">
    <cluster id="{cluster_id}" topology="{topology}" topo_parameters="{parameters}"
             prefix="{cluster_id[0]}" suffix="" radical="0-{hosts - 1}" speed="1Gf"
             bw="1GBps" lat="10us"/>
  </zone>
</platform>
"""


SIMGRID = {"sg-backbone": SG_BACKBONE, "sg-torus": SG_TORUS, "sg-dragonfly": SG_DRAGONFLY,
           # ratio43's fabrics nobody had measured: two more dragonfly shapes, a fat tree
           "sg-dragonfly-3": _sg_cluster("df", "DRAGONFLY", "2,1;3,1;2,1;2", 24),
           "sg-dragonfly-2": _sg_cluster("df", "DRAGONFLY", "2,2;2,1;1,2;2", 8),
           "sg-fat-tree": _sg_cluster("ft", "FAT_TREE", "2;4,4;1,2;1,2", 16)}


def dgx_h100(boxes: int, rails: bool) -> Platform:
    """DGX-H100-like boxes as a networkx DiGraph (ForestColl's style: ``capacity``)."""
    import networkx as nx

    g = nx.DiGraph(ports=MULTI_PORT)

    def both(a, b, cap):
        g.add_edge(a, b, capacity=cap)
        g.add_edge(b, a, capacity=cap)

    for b in range(boxes):
        g.add_node(f"b{b}.nvs", switch=True)
        for i in range(8):
            gpu, nic = f"b{b}.gpu{i}", f"b{b}.nic{i}"
            g.add_node(gpu, switch=False)
            g.add_node(nic, switch=True)
            both(gpu, f"b{b}.nvs", 450)
            both(gpu, nic, 50)
            leaf = f"rail{i}" if rails else "leaf"
            g.add_node(leaf, switch=True)
            both(nic, leaf, 50)
    name = f"dgx-h100-{boxes}-{'rails' if rails else 'leaf'}"
    return Platform.from_networkx(g, "b0.gpu0", name=name)


def _both(links, a, b, bw):
    links.append({"from": a, "to": b, "bandwidth": str(bw)})
    links.append({"from": b, "to": a, "bandwidth": str(bw)})


def _doc(name, source, links, switches):
    return {"format": "steady-platform", "version": 1, "name": name, "source": source,
            "ports": "multi-port", "switches": switches, "links": links}


def torus_nic(rows: int, cols: int) -> dict:
    links = []
    for r in range(rows):
        for c in range(cols):
            here = f"g{r}.{c}"
            _both(links, here, f"g{r}.{(c + 1) % cols}", 100)
            _both(links, here, f"g{(r + 1) % rows}.{c}", 50)
            _both(links, here, "nic", 25)
    return _doc(f"torus-{rows}x{cols}-nic", "g0.0", links, ["nic"])


def ring_nic(n: int) -> dict:
    links = []
    for i in range(n):
        _both(links, f"g{i}", f"g{(i + 1) % n}", 100)
        _both(links, f"g{i}", "nic", 25)
    return _doc(f"ring-{n}-nic", "g0", links, ["nic"])


def fabrics() -> dict:
    """name -> a Platform, a platform document (dict) or SimGrid XML text."""
    out: dict = {}
    for seed in range(31, 131):
        out[f"cluster-{seed}-mp"] = switched_cluster(seed, MULTI_PORT)
        out[f"cluster-{seed}-op"] = switched_cluster(seed, ONE_PORT)
    for k in (4, 6):
        for o in (1, 2, F(3, 2)):
            out[f"fat-tree-{k}-{str(o).replace('/', '_')}"] = fat_tree_platform(k, oversubscription=o)
    for boxes in (3, 5, 6, 8):
        out[f"a100-{boxes}"] = a100_platform(boxes)
    out["mi250-3"] = mi250_platform(3)
    for boxes in (2, 3, 4):
        out[f"dgx-h100-{boxes}-rails"] = dgx_h100(boxes, True)
        out[f"dgx-h100-{boxes}-leaf"] = dgx_h100(boxes, False)
    out["torus-3x3-nic"] = torus_nic(3, 3)
    out["torus-4x4-nic"] = torus_nic(4, 4)
    out["ring-8-nic"] = ring_nic(8)
    out.update(SIMGRID)
    return out


def write(out_dir: Path, names) -> dict:
    """Write the chosen fabrics; name -> platform file path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    known = fabrics()
    unknown = sorted(set(names or ()) - set(known))
    if unknown:
        raise SystemExit(f"unseen_fabrics: --only: unknown fabric(s) {', '.join(unknown)}")
    paths = {}
    for name, value in known.items():
        if names and name not in names:
            continue
        path = out_dir / f"{name}.json"
        if isinstance(value, Platform):
            path.write_text(json.dumps(value.to_dict(), indent=1))
        elif isinstance(value, dict):
            path.write_text(json.dumps(value, indent=1))
        else:
            xml = out_dir / f"{name}.xml"
            xml.write_text(value)
            run(["import", "simgrid", str(xml), "--size", "1GB", "--ports", "multi-port",
                 "-o", str(path), "--quiet"], 600)
        paths[name] = path
    return paths


def run(args, timeout):
    """One CLI call: (exit code, stdout, stderr, CPU s of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        p = subprocess.run([sys.executable, "-m", "steady", *args], capture_output=True,
                           text=True, timeout=timeout)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        rc, out, err = "timeout", "", ""
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return rc, out, err, cpu


# -- the independent check of a multi-port certificate (from the JSON only) ------------

def independent_check(platform: dict, answer: dict) -> str:
    """'ok', or what failed.  The rows (proofs/collectives.md §1, restated here from the
    model, not from steady's code): multi-port, every link; one-port, every compute
    node's out-port and in-port and every link between two switches; both, every shared
    link of a ``network`` section.  Primal: every tree spans the compute nodes from its
    root (in trees: towards it), its edges follow links or their routes (interior nodes
    switches), every root's trees sum to x times its relative rate, every row's load
    <= 1 (a route of rate l loads its links l*c, one-port its sender's out-port and
    its receiver's in-port l*c_P, c_P its slowest link).  Dual: prices >= 0; w_r <= the
    minimum arborescence of root r (networkx's Edmonds on exact Fractions) under the
    cheapest route's price (one-port: min over thresholds t of t*(y_out + y_in) + the
    shortest path over the links of cost <= t); sum(prices) / sum_r rho_r w_r = x."""
    import networkx as nx

    one_port = platform.get("ports", "one-port") != "multi-port"
    network = platform.get("network") or {"links": [], "routes": []}
    shared = {link["id"]: F(link["cost"]) if "cost" in link else 1 / F(link["bandwidth"])
              for link in network["links"]}
    crosses = {(r["from"], r["to"]): r["links"] for r in network["routes"]}
    switches = set(platform.get("switches", []))
    cost = {}
    for link in platform["links"]:
        c = F(link["cost"]) if "cost" in link else 1 / F(link["bandwidth"])
        cost[(link["from"], link["to"])] = c
    nodes = {a for a, _ in cost} | {b for _, b in cost} | set(platform.get("nodes", []))
    compute = sorted(nodes - switches)

    def arc_row(a, b):
        return ("arc", a, b) if not one_port or (a in switches and b in switches) else None

    def route_rows(path):
        """(row, coefficient per unit rate) of one route."""
        out = []
        for a, b in zip(path, path[1:]):
            if arc_row(a, b):
                out.append((arc_row(a, b), cost[(a, b)]))
            out += [(("link", n), shared[n]) for n in crosses.get((a, b), [])]
        if one_port:
            slowest = max(cost[(a, b)] for a, b in zip(path, path[1:]))
            out += [(("out", path[0]), slowest), (("in", path[-1]), slowest)]
        return out

    x = F(answer["rate"])
    rho = {(r["root"], r["direction"]): F(r["relative_rate"]) for r in answer["roots"]}
    load: dict = {}
    given = {key: F(0) for key in rho}
    for tree in answer["trees"]:
        root, way, rate = tree["root"], tree["direction"], F(tree["rate"])
        given[(root, way)] += rate
        routes = tree.get("routes", {})
        kids = {}
        for parent, child in tree["edges"]:
            if child in kids:
                return f"tree of {root}: {child} has two parents"
            kids[child] = parent
        if root in kids or set(kids) | {root} != set(compute):
            return f"tree of {root}: does not span the compute nodes"
        for child, parent in kids.items():
            ends = (parent, child) if way == "out" else (child, parent)
            path = routes.get(child, list(ends))
            if (path[0], path[-1]) != ends:
                return f"tree of {root}: route of {child} has the wrong ends {path}"
            if any(v not in switches for v in path[1:-1]):
                return f"tree of {root}: route {path} crosses a compute node"
            if any((a, b) not in cost for a, b in zip(path, path[1:])):
                return f"tree of {root}: route {path} uses a link that does not exist"
            for row, c in route_rows(path):
                load[row] = load.get(row, F(0)) + rate * c
    for key, total in given.items():
        if total != x * rho[key]:
            return f"root {key}: trees sum to {total}, not x*rho = {x * rho[key]}"
    over = [row for row, v in load.items() if v > 1]
    if over:
        return f"row {over[0]} loaded {load[over[0]]} > 1"
    price: dict = {}
    for text, value in answer["certificate"]["prices"].items():
        if text.startswith("arc "):
            row = ("arc", *text[4:].split("->"))
        elif text.startswith("link ") and text[5:] in shared:
            row = ("link", text[5:])
        elif text.startswith("out-port of ") and one_port:
            row = ("out", text[len("out-port of "):])
        elif text.startswith("in-port of ") and one_port:
            row = ("in", text[len("in-port of "):])
        else:
            return f"unknown row {text!r}"
        price[row] = F(value)
        if price[row] < 0:
            return f"negative price on {text}"
    total_price = sum(price.values(), F(0))

    def additive(a, b):
        w = price.get(arc_row(a, b), F(0)) * cost[(a, b)] if arc_row(a, b) else F(0)
        return w + sum((price.get(("link", n), F(0)) * shared[n]
                        for n in crosses.get((a, b), [])), F(0))

    def shortest_from(u, most):
        """Bellman-Ford from u over the links of cost <= most, interiors switches."""
        d = {u: F(0)}
        changed = True
        while changed:
            changed = False
            for v in list(d):
                if v != u and v not in switches:
                    continue
                for (a, b), c in cost.items():
                    if a == v and c <= most:
                        nd = d[v] + additive(a, b)
                        if b not in d or nd < d[b]:
                            d[b] = nd
                            changed = True
        return d

    thresholds = sorted(set(cost.values())) if one_port else [max(cost.values())]
    dist: dict = {}
    for t in thresholds:
        for u in compute:
            d = shortest_from(u, t)
            for v in compute:
                if v == u or v not in d:
                    continue
                p = d[v] + (t * (price.get(("out", u), F(0)) + price.get(("in", v), F(0)))
                            if one_port else F(0))
                if (u, v) not in dist or p < dist[(u, v)]:
                    dist[(u, v)] = p
    denominator = F(0)
    for r in answer["certificate"]["root_costs"]:
        root, way, w = r["root"], r["direction"], F(r["w"])
        h = nx.DiGraph()
        for (u, v), d in dist.items():
            if way == "out" and v != root:
                h.add_edge(u, v, weight=d)
            if way == "in" and u != root:
                h.add_edge(v, u, weight=d)   # an in-tree is an out-tree of the reversal
        best = nx.minimum_spanning_arborescence(h, attr="weight", preserve_attrs=True)
        weight = sum((h[a][b]["weight"] for a, b in best.edges), F(0))
        if w > weight:
            return f"root {root}: w {w} > its minimum arborescence {weight}"
        denominator += rho[(root, way)] * w
    if len(answer["certificate"]["root_costs"]) != len(rho):
        return "root_costs does not list every root"
    if denominator <= 0 or total_price / denominator != x:
        return f"dual bound {total_price}/{denominator} != x {x}"
    return "ok"


def sweep(paths: dict, collectives, most: int, timeout: int, work: Path) -> None:
    print(f"# load {os.getloadavg()[0]:.2f}, M <= {most}")
    print("fabric | collective | x* | steady check | own check | CPU s opt (solve s) | ratio | "
          "chunks | CPU s table | verify | simulate | exit codes")
    for name, path in paths.items():
        doc = json.loads(path.read_text())
        compute = [n for n in {link["from"] for link in doc["links"]}
                   if n not in set(doc.get("switches", []))]
        for kind in collectives:
            extra = ["--collective", kind]
            if kind == "broadcast":
                extra = ["--sources", ",".join(sorted(compute)[:2])]
            codes = []
            rc, out, err, cpu_opt = run(["throughput", str(path), *extra, "--json"], timeout)
            codes.append(f"thr {rc}")
            if rc != 0:
                print(f"{name} | {kind} | - | - | - | {cpu_opt:.1f} | - | - | - | - | - | "
                      f"throughput exit {rc}: {err.strip()[-300:]}", flush=True)
                continue
            answer = json.loads(out)
            (work / f"{name}.{kind}.throughput.json").write_text(out)
            try:
                own = independent_check(doc, answer)
            except Exception as e:   # noqa: BLE001 - a row, not a crash of the sweep
                own = f"checker error {e!r}"
            table = work / f"{name}.{kind}.json"
            rc, out, err, cpu_tt = run(["schedule", str(path), *extra, "--max-messages",
                                        str(most), "-o", str(table), "--json", "--quiet"],
                                       timeout)
            codes.append(f"sch {rc}")
            ratio = chunks = "-"
            verdict = simulated = "-"
            if rc == 0:
                s = json.loads(out)
                ratio, chunks = s["ratio_decimal"], s["chunks_per_root"]
                rc, out, err2, _ = run(["verify", str(path), str(table), "--json"], timeout)
                codes.append(f"ver {rc}")
                verdict = (json.loads(out).get("valid") if rc in (0, 1) and out else err2.strip())
                period = F(s["period"])
                horizon = max(1, int(20 * period) + 1)
                rc, out, err2, _ = run(["simulate", "--schedule", str(table),
                                        "--horizon", str(horizon), "--json", "--quiet"],
                                       timeout)
                codes.append(f"sim {rc}")
                simulated = (json.loads(out).get("ratio") if rc == 0 and out else
                             err2.strip()[-200:])
                if isinstance(simulated, str) and "/" in simulated:
                    simulated = f"{float(F(simulated)):.4f}"
            else:
                verdict = err.strip()[-300:]
            print(f"{name} | {kind} | {answer['rate']} | {answer['certified']} | {own} | "
                  f"{cpu_opt:.1f} ({answer['statistics'].get('seconds', '-')}) | {ratio} | {chunks} | {cpu_tt:.1f} | {verdict} | "
                  f"{simulated} | {' '.join(codes)}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("--run", action="store_true")
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--collectives", nargs="+",
                    default=["allgather", "reduce-scatter", "allreduce", "broadcast"])
    ap.add_argument("--max-messages", type=int, default=64)
    ap.add_argument("--timeout", type=int, default=None,
                    help="wall seconds per command before its row says 'timeout' "
                         "(default none: a loaded machine would make rows differ)")
    args = ap.parse_args()
    t0 = time.time()
    paths = write(args.out_dir, set(args.only) if args.only else None)
    print(f"# {len(paths)} fabrics written to {args.out_dir} in {time.time() - t0:.1f} s")
    if args.run:
        sweep(paths, args.collectives, args.max_messages, args.timeout, args.out_dir)


if __name__ == "__main__":
    main()
