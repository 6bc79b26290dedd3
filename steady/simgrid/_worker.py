"""The SimGrid side of ``steady import simgrid`` and ``steady replay``: a script run in
its own process (ours).

SimGrid's engine is one per process (a platform cannot be unloaded) and some example
platforms crash it (a segmentation fault asking for a route a Full zone lacks), so
steady never loads SimGrid into its own process: it runs this file with the same
Python, SimGrid's directory appended to ``sys.path`` (after the virtual environment's,
so nothing else is shadowed), a JSON request on stdin, and one JSON object per line on
stdout.  This file imports nothing from steady.

Requests:
* ``{"op": "routes", "platform", "hosts": regex|null, "start": k, "skip": [k...]}``:
  lines ``{"hosts": [all], "selected": [...]}``, then per ordered pair k of selected
  hosts (row-major, from ``start``, pairs in ``skip`` left out) ``{"pair": k, "links":
  [i...], "lat": x}`` or ``{"pair": k, "error": text}``, each link first described by
  ``{"link": i, "name", "bw", "lat"}``; ``{"done": true}`` at the end.
* ``{"op": "replay", "platform", "config": [...], "arcs", "periods", "steps"|"timed"}``:
  prints ``{"bandwidth": {"u\tv": slowest link on the route}}``, runs the schedule
  (see steady.simgrid.replay) and prints ``{"steps": [end times]}`` or
  ``{"transfers": [end times]}``, then ``{"done": true}``; ``{"missing": [hosts]}``
  when the schedule names hosts the platform lacks.
"""

import json
import re
import sys


def _natural(name):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def _emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def _engine(simgrid, platform, config):
    args = ["steady", "--log=root.thres:critical"] + [f"--cfg={c}" for c in config]
    engine = simgrid.Engine(args)
    engine.load_platform(platform)
    return engine


def routes(simgrid, request):
    engine = _engine(simgrid, request["platform"], [])
    hosts = sorted(engine.all_hosts, key=lambda h: _natural(h.name))
    pattern = request.get("hosts")
    selected = [h for h in hosts if pattern is None or re.search(pattern, h.name)]
    limit = request.get("max_hosts")
    _emit({"hosts": len(hosts), "selected": [h.name for h in selected]})
    if limit is not None and len(selected) > limit:
        _emit({"done": True})
        return
    skip = set(request.get("skip", ()))
    links = {}
    n = len(selected)
    for k in range(request.get("start", 0), n * n):
        i, j = divmod(k, n)
        if i == j or k in skip:
            continue
        try:
            route, latency = selected[i].route_to(selected[j])
        except Exception as exc:  # SimGrid reports a missing route as an exception
            _emit({"pair": k, "error": str(exc)[:200]})
            continue
        ids = []
        for link in route:
            name = link.name
            if name not in links:
                links[name] = len(links)
                _emit({"link": links[name], "name": name, "bw": link.bandwidth,
                       "lat": link.latency})
            ids.append(links[name])
        _emit({"pair": k, "links": ids, "lat": latency})
    _emit({"done": True})


def replay(simgrid, request):
    engine = _engine(simgrid, request["platform"], request["config"])
    by_name = {h.name: h for h in engine.all_hosts}
    missing = sorted({x for u, v in request["arcs"] for x in (u, v) if x not in by_name})
    if missing:
        _emit({"missing": missing})
        _emit({"done": True})
        return
    bandwidth = {}   # the route's slowest link, per arc: the schedule's cost check
    for u, v in request["arcs"]:
        route, _ = by_name[u].route_to(by_name[v])
        bandwidth[f"{u}\t{v}"] = min(link.bandwidth for link in route) if route else None
    _emit({"bandwidth": bandwidth})
    periods = request["periods"]
    out = {}

    def send(u, v, size):
        return simgrid.Comm.sendto_async(by_name[u], by_name[v], size)

    if "steps" in request:
        def run():
            ends = []
            for _ in range(periods):
                for step in request["steps"]:
                    comms = [send(u, v, size) for u, v, size in step]
                    if comms:
                        simgrid.Comm.wait_all(comms)
                    ends.append(engine.clock)
            out["steps"] = ends
    else:
        period = request["period"]
        timed = request["timed"]
        ends = [None] * (periods * len(timed))

        def transfer(index, at, u, v, size):
            # one actor per transfer, so that its end is read when it happens (one
            # actor waiting on all of them would only see the ends after its last start)
            def run():
                if at > engine.clock:
                    simgrid.this_actor.sleep_until(at)
                send(u, v, size).wait()
                ends[index] = engine.clock
                if all(e is not None for e in ends):
                    out["transfers"] = ends
            return run

        def run():
            for p in range(periods):
                for k, (u, v, size, start) in enumerate(timed):
                    simgrid.Actor.create(f"t{p}.{k}", by_name[u],
                                         transfer(p * len(timed) + k, p * period + start,
                                                  u, v, size))

    first = next(iter(by_name.values()))
    simgrid.Actor.create("steady-replay", first, run)
    engine.run()
    _emit(out)
    _emit({"done": True})


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else ""
    if path and path != "-":
        sys.path.append(path)
    import simgrid

    request = json.loads(sys.stdin.readline())
    {"routes": routes, "replay": replay}[request["op"]](simgrid, request)


if __name__ == "__main__":
    main()
