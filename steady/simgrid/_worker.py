"""The SimGrid side of ``steady import simgrid`` and ``steady replay``: a script run in
its own process (ours).

SimGrid's engine is one per process (a platform cannot be unloaded) and some example
platforms crash it (a segmentation fault asking for a route a Full zone lacks), so
steady never loads SimGrid into its own process: it runs this file with the same
Python, SimGrid's directory appended to ``sys.path`` (after the virtual environment's,
so nothing else is shadowed), a JSON request on stdin, and one JSON object per line on
stdout.  This file imports nothing from steady.

Requests:
* ``{"op": "hosts", "platform"}``: ``{"hosts": [every host, in natural order]}``;
* ``{"op": "routes", "platform", "selected": [names], "start": k, "skip": [k...]}``:
  per ordered pair k of the selected hosts (row-major, from ``start``, pairs in
  ``skip`` left out) ``{"pair": k, "links": [i...], "lat": x}`` or ``{"pair": k,
  "error": text}``, each link first described by ``{"link": i, "name", "bw", "lat"}``;
* ``{"op": "replay", "platform", "config": [...], "arcs", "periods", "steps"|"timed"}``:
  prints ``{"routes": {"u\tv": [[link name, bandwidth], ...]}}``, runs the schedule
  (see steady.simgrid.replay; a ``timed`` row is [tail, head, bytes, start] or, for a
  transfer slower than its route, [tail, head, bytes, start, rate in bytes/s]) and prints ``{"steps": [end times]}`` or
  ``{"transfers": [end times]}``; ``{"missing": [hosts]}`` when the schedule names
  hosts the platform lacks.
Every answer ends with ``{"done": true}``.  A platform SimGrid cannot load is answered
``{"load_error": SimGrid's message}``.
"""

import json
import re
import sys


def _natural(name):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def _emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


class LoadError(Exception):
    """SimGrid refused the platform file (its message)."""


def _engine(simgrid, platform, config):
    args = ["steady", "--log=root.thres:critical"] + [f"--cfg={c}" for c in config]
    engine = simgrid.Engine(args)
    try:
        engine.load_platform(platform)
    except UnicodeDecodeError:   # SimGrid's message quoted bytes that are not UTF-8
        raise LoadError("SimGrid's parser stopped on bytes that are not UTF-8 text") \
            from None
    except Exception as exc:  # SimGrid reports a bad file as RuntimeError (or worse)
        raise LoadError(str(exc)) from None
    return engine


def hosts(simgrid, request):
    engine = _engine(simgrid, request["platform"], [])
    _emit({"hosts": sorted((h.name for h in engine.all_hosts), key=_natural)})
    _emit({"done": True})


def routes(simgrid, request):
    engine = _engine(simgrid, request["platform"], [])
    by_name = {h.name: h for h in engine.all_hosts}
    selected = [by_name[name] for name in request["selected"]]
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
    found = {}   # each arc's route: the schedule's platform is checked against it
    for u, v in request["arcs"]:
        route, _ = by_name[u].route_to(by_name[v])
        found[f"{u}\t{v}"] = [[link.name, link.bandwidth] for link in route]
    _emit({"routes": found})
    periods = request["periods"]
    out = {}

    def send(u, v, size):
        return simgrid.Comm.sendto_async(by_name[u], by_name[v], size)

    def capped(v, size, rate):
        # slower than its route (a share of it, issue 43): capped at ``rate`` bytes/s.
        # SimGrid 3.32 refuses set_rate on sendto_init's comm (already "starting"), so
        # this one goes through the mailbox of its head host, whose receiver (below)
        # has posted a reception for each such transfer: it starts when it is put
        comm = simgrid.Mailbox.by_name(f"steady-to-{v}").put_init(None, size)
        comm.set_rate(rate)
        return comm.start()

    def receiver(v, count):
        # one actor per head host (actors are threads): every reception posted at once
        def run():
            box = simgrid.Mailbox.by_name(f"steady-to-{v}")
            posted = [box.get_async() for _ in range(count)]   # (comm, data): kept alive
            simgrid.Comm.wait_all([comm for comm, _ in posted])
        return run

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

        def transfer(index, at, u, v, size, rate):
            # one actor per transfer, so that its end is read when it happens (one
            # actor waiting on all of them would only see the ends after its last start)
            def run():
                if at > engine.clock:
                    simgrid.this_actor.sleep_until(at)
                (send(u, v, size) if rate is None else capped(v, size, rate)).wait()
                ends[index] = engine.clock
                if all(e is not None for e in ends):
                    out["transfers"] = ends
            return run

        def run():
            heads = {}
            for u, v, size, start, *rate in timed:
                if rate:
                    heads[v] = heads.get(v, 0) + periods
            for v, count in sorted(heads.items()):
                simgrid.Actor.create(f"r.{v}", by_name[v], receiver(v, count))
            for p in range(periods):
                for k, (u, v, size, start, *rate) in enumerate(timed):
                    simgrid.Actor.create(f"t{p}.{k}", by_name[u],
                                         transfer(p * len(timed) + k, p * period + start,
                                                  u, v, size, rate[0] if rate else None))

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
    try:
        {"hosts": hosts, "routes": routes, "replay": replay}[request["op"]](simgrid,
                                                                             request)
    except LoadError as exc:
        _emit({"load_error": str(exc)[:2000]})
        _emit({"done": True})


if __name__ == "__main__":
    main()
