"""Running schedules for real: ``steady run`` and ``steady calibrate`` (MPI), and the
``--trace`` drawing of ``steady show``.

Only argparse wiring and presentation live here; the MPI program is
:mod:`steady.run` (the one package that imports mpi4py), imported when a command runs.
Under ``mpiexec`` only rank 0 prints; the other ranks stay silent, even on bad input.
"""

from __future__ import annotations

import os
import sys
import traceback

from fractions import Fraction

from ..errors import InputError, one_line
from ..numbers import format_exact
from . import options
from ..present.sheet import IN_JSON, number, percent, plural, print_json, print_sheet
from .files import write_error

#: ``run --broadcasts``: at most this many (the plan and the source's messages grow
#: with K; docs/limits.md), and at most :data:`steady.run.job.MAX_DELIVERIES`
#: message deliveries K x (nodes - 1).
MAX_BROADCASTS = 10 ** 6
#: ``calibrate --repeats``: round trips per pair and kind.
MAX_REPEATS = 10 ** 4
#: ``--launch``: ranks started on this machine (``calibrate --launch P``; for ``run``
#: the schedule's nodes).
MAX_LAUNCH_RANKS = 256


def add_commands(sub) -> None:
    """Add ``steady run`` and ``steady calibrate`` to the ``steady`` subparsers."""
    ru = sub.add_parser(
        "run", help="execute a schedule as an MPI program with real messages "
        "(needs the 'mpi' extra)",
        description="Run the finite-horizon plan of a schedule (002 §5.5: warm-up, "
                    "periods, clean-up) with real payloads between MPI ranks: launched "
                    "as mpiexec -n P python -m steady run ... (P = the platform's "
                    "nodes; rank i plays node i) or with --launch.  Every rank checks "
                    "that it got broadcasts 0..K-1 exactly once, in order, with good "
                    "checksums; rank 0 prints the measured throughput against the "
                    "prediction and the optimum.  Exit 0 delivered, 1 a delivery check "
                    "failed or a rank died or timed out, 2 bad input.")
    ru.add_argument("schedule", type=options.input_file,
                    help="steady-schedule file (version 1 or 2), or a steady-plan file "
                         "written by steady simulate --plan (run as it is)")
    ru.add_argument("--broadcasts", type=options.integer(1, MAX_BROADCASTS), metavar="K",
                    help=f"number of broadcasts (messages) to send, 1 to {MAX_BROADCASTS} "
                         "(required with a schedule; a plan carries its own)")
    ru.add_argument("--size", default="64KB", metavar="BYTES", help="bytes per message "
                    "(default 64KB; KB = 1024 bytes; at least 16)")
    mode = ru.add_mutually_exclusive_group()
    mode.add_argument("--time-unit", default="1ms", metavar="DURATION",
                      help="emulate the platform: one time unit of its costs lasts this "
                           "long (default 1ms; use 1 ms or more on a loaded machine)")
    mode.add_argument("--native", action="store_true", help="no emulation: as fast as "
                      "the hardware goes, in the plan's order")
    ru.add_argument("--map", metavar="FILE", type=options.input_file,
                    help="JSON list of node names (rank i plays the i-th) or object "
                         "{node: rank}")
    ru.add_argument("--trace", metavar="FILE", type=options.output_file,
                    help="write every transfer with its "
                    "planned and real times (steady-trace v1; steady show --trace)")
    ru.add_argument("--compare", action="store_true", help="also run K x MPI_Bcast and a "
                    "pipelined chain under the same emulation, side by side")
    ru.add_argument("--timeout", metavar="S", help="end with one line and exit 1 if the "
                    "run is not over after S seconds (default: 30 s + 3 x the planned "
                    "duration)")
    ru.add_argument("--launch", action="store_true", help="start mpiexec with the right "
                    "number of ranks yourself")
    ru.add_argument("--json", action="store_true", help="machine-readable output")
    options.add_effort(ru)
    ru.set_defaults(run=_cmd_run)

    ca = sub.add_parser(
        "calibrate", help="measure a platform by MPI ping-pong (needs the 'mpi' extra)",
        description="Under mpiexec: a ping-pong between every ordered pair of ranks (or "
                    "the pairs of --pairs); each link's cost is the median one-way time "
                    "of a --size message, its startup the median one-way latency, in "
                    "seconds.  Writes a steady-platform v1 file (source: rank 0; nodes: "
                    "host:rank).")
    ca.add_argument("--size", default="1MB", metavar="BYTES", help="bytes of the "
                    "measured message: the platform's unit message (default 1MB)")
    ca.add_argument("--repeats", type=options.integer(1, MAX_REPEATS), default=10,
                    metavar="N", help=f"round trips per pair and kind, 1 to {MAX_REPEATS} "
                                      "(default 10; the median is kept)")
    ca.add_argument("--pairs", metavar="FILE", type=options.input_file,
                    help="JSON list of rank pairs [i, j] to measure (default: every "
                         "ordered pair)")
    ca.add_argument("-o", "--output", required=True, metavar="FILE",
                    type=options.output_file, help="the steady-platform file to write")
    ca.add_argument("--timeout", default="600", metavar="S", help="end with one line and "
                    "exit 1 after S seconds (default 600)")
    ca.add_argument("--launch", type=options.integer(2, MAX_LAUNCH_RANKS), metavar="P",
                    help=f"start mpiexec with P ranks yourself (2 to {MAX_LAUNCH_RANKS})")
    ca.add_argument("--json", action="store_true", help="machine-readable output")
    ca.set_defaults(run=_cmd_calibrate)


def add_show_options(parser) -> None:
    """``steady show --trace TRACE --gantt FILE``."""
    parser.add_argument("--trace", metavar="TRACE", type=options.input_file,
                        help="a steady run --trace file: with "
                        "--gantt, draw the real execution beside the planned one")


def show_trace(args) -> int:
    """``steady show --trace``: the trace's summary, and its Gantt chart."""
    from ..run.gantt import draw_trace, planned_text, read_trace

    doc = read_trace(args.trace)
    sends = sum(1 for t in doc["transfers"] if "begin_ns" in t)
    print_sheet([("trace", f"{args.trace}: {doc.get('algorithm', '?')}, "
                           f"{doc.get('broadcasts', '?')} broadcasts on "
                           f"{len(doc['nodes'])} ranks, {doc['mode']}"),
                 ("transfers", f"{len(doc['transfers'])} planned, {sends} run"),
                 ("makespan", f"{doc.get('makespan_ns', 0) / 1e9:.6f} s measured, "
                              f"{planned_text(doc)} time units planned"
                              + (" (exact in the trace)" if "~" in planned_text(doc)
                                 else "")),
                 ("delivered", "yes" if doc.get("delivered_ok") else "NO")])
    if args.gantt:
        try:
            draw_trace(doc, args.gantt)
        except OSError as exc:
            raise write_error(args.gantt, exc) from None
        print(f"Gantt chart written to {args.gantt}")
    return 0


# -- steady run ---------------------------------------------------------------------

def _options(args):
    from ..run.job import Options, check_memory
    from ..run.units import duration_ns, seconds, size_bytes
    from ..run.payload import MIN_SIZE

    size = size_bytes(args.size, least=MIN_SIZE)
    unit = None if args.native else duration_ns(args.time_unit, "--time-unit")
    timeout = None if args.timeout is None else float(seconds(args.timeout, "--timeout"))
    if args.broadcasts is not None:   # a plan's own are checked when it is read
        check_memory(args.broadcasts, size)
    return Options(args.schedule, args.broadcasts, size, unit, args.map, args.compare,
                   timeout, args.effort)


def _cmd_run(args) -> int:
    options = _options(args)
    if args.launch:
        return _launch_run(args, options)
    from ..run.mpi import load_mpi

    load_mpi()
    return _as_rank(lambda: _run_rank(args, options))


def _launch_run(args, options) -> int:
    from ..fileio import load_json
    from ..run.job import check_deliveries, read_plan, refuse_collective_schedule
    from ..run.launch import launch
    from ..schedule_file import Schedule

    doc = load_json(args.schedule)   # bad input: here, before any rank starts
    if isinstance(doc, dict) and doc.get("format") == "steady-plan":
        plan = read_plan(args.schedule, args.broadcasts)[0]   # read and checked
        nodes, broadcasts = plan.nodes, plan.broadcasts
        if plan.collective is not None and plan.platform is not None:   # issue 43
            nodes = plan.platform.compute_nodes
    else:
        schedule = Schedule.from_dict(doc, str(args.schedule))
        refuse_collective_schedule(schedule, args.schedule)
        nodes = schedule.platform.nodes
        if args.broadcasts is None:
            raise InputError("<command line>", "--broadcasts", "required with a schedule "
                             f"({args.schedule} is not a steady-plan file)")
        broadcasts = options.broadcasts
    check_deliveries(broadcasts, len(nodes))
    if len(nodes) > MAX_LAUNCH_RANKS:
        raise InputError(args.schedule, "platform", f"{len(nodes)} nodes: --launch starts "
                         f"at most {MAX_LAUNCH_RANKS} ranks on this machine; run it with "
                         "mpiexec on a cluster (docs/limits.md)")
    return launch(_run_argv(args), len(nodes), options.timeout, _names(args.map, nodes))


def _names(path, nodes) -> list:
    """What each rank plays, for the launcher's messages."""
    from ..run.job import node_ranks

    rank_of = node_ranks(path, nodes)
    names = [None] * len(nodes)
    for n, r in enumerate(rank_of):
        names[r] = nodes[n]
    return names


def _run_argv(args) -> list[str]:
    """The command line each rank runs: this one without --launch."""
    argv = ["run", str(args.schedule), "--size", str(args.size)]
    argv += ["--native"] if args.native else ["--time-unit", str(args.time_unit)]
    for flag, value in (("--broadcasts", args.broadcasts), ("--map", args.map),
                        ("--trace", args.trace), ("--timeout", args.timeout),
                        ("--effort", args.effort)):
        if value is not None:
            argv += [flag, str(value)]
    argv += [f for f, on in (("--compare", args.compare), ("--json", args.json)) if on]
    return argv


def _as_rank(work) -> int:
    """Run ``work`` on an MPI rank: bad input reported by rank 0 only; Ctrl-C and
    internal errors end the rank at once (MPI_Finalize would wait for the others)."""
    from ..run.launch import before_abort, note_rank
    from ..run.mpi import load_mpi

    MPI = load_mpi()
    rank = MPI.COMM_WORLD.Get_rank()
    note_rank(rank, "running")
    try:
        return work()
    except InputError:
        if rank == 0:
            raise
        return 2
    except SystemExit as exc:
        return int(exc.code or 0)
    except KeyboardInterrupt:
        if rank == 0:
            print("steady: interrupted", file=sys.stderr, flush=True)
        sys.stdout.flush()
        os._exit(130)
    except Exception:
        from ..run.session import abort

        print(f"steady: run: rank {rank}: internal error:", file=sys.stderr)
        traceback.print_exc()
        note_rank(rank, "failed")  # not a silent death (the launcher's watch)
        before_abort()
        abort(MPI.COMM_WORLD, None)
    finally:
        note_rank(rank, "done")


def _run_rank(args, options) -> int:
    from ..run.job import run_job

    session, found = run_job(options)
    try:
        if found is not None and getattr(found[0], "collective", False):   # issue 43
            return _report_collective_run(args, options, *found)
        return 0 if found is None else _report_run(args, options, *found)
    finally:
        session.finish()


def _report_run(args, options, setup, results) -> int:
    from ..fileio import atomic_write_text
    from ..run.report import trace_document

    if args.trace:
        import json

        doc = trace_document(results[0], options.schedule, setup.nodes, setup.rank_of,
                             options.size, setup.optimum)
        try:
            atomic_write_text(args.trace, json.dumps(doc) + "\n")
        except OSError as exc:
            raise write_error(args.trace, exc) from None
    main = results[0]
    if args.json:
        print_json(_run_document(args, options, setup, results))
    else:
        _print_run(args, options, setup, results)
    for line in main.problems()[:20]:
        print(one_line(f"steady: run: {line}"), file=sys.stderr)
    return 0 if all(r.delivered_ok for r in results) else 1


def _report_collective_run(args, options, setup, outcomes) -> int:
    """``steady run`` of a collective's plan: chunks right per root, makespans."""
    from ..run.collective import summary
    from ..run.units import ns_text

    if args.trace:
        raise InputError("<command line>", "--trace", "a collective's plan runs without "
                         "a trace (docs/limits.md)")
    doc = summary(setup, outcomes, options)
    if args.json:
        print_json({"schedule": str(options.schedule),
                    **{k: format_exact(v) if isinstance(v, Fraction) else v
                       for k, v in doc.items()}})
    else:
        fewest = min(doc["delivered"].values(), default=0)
        print_sheet([
            ("plan", f"{options.schedule}: {doc['platform']}, the {doc['collective']} on "
                     f"{doc['ranks']} ranks (the compute nodes)"),
            ("run", f"chunks of {doc['size_bytes']} bytes (int64 words), {doc['mode']}"),
            ("delivered", f"{fewest} to {max(doc['delivered'].values(), default=0)} chunks "
                          "per root, each checked word for word at every rank that must "
                          "hold it" + ("" if doc["delivered_ok"] else ": NOT all")),
            ("makespan", f"planned {number(doc['planned_makespan'], IN_JSON)} time units, "
                         f"measured {ns_text(doc['makespan_ns'])} s")])
    for line in doc["problems"]:
        print(one_line(f"steady: run: {line}"), file=sys.stderr)
    return 0 if doc["delivered_ok"] else 1


def _run_document(args, options, setup, results) -> dict:
    from ..run.units import ns_text

    main = results[0]
    doc = {"schedule": str(options.schedule), "platform": setup.about["platform"],
           "ranks": len(setup.nodes), "broadcasts": options.broadcasts,
           "size_bytes": options.size,
           "mode": "emulated" if options.unit_ns else "native",
           "time_unit_s": ns_text(options.unit_ns) if options.unit_ns else None,
           "optimum": format_exact(setup.optimum)}
    doc.update(main.summary(setup.optimum))
    doc["planned_makespan"] = format_exact(setup.about["planned_makespan"])
    doc["plan"] = {k: format_exact(v) if hasattr(v, "denominator") and not
                   isinstance(v, int) else v for k, v in setup.about["plan"].items()}
    doc["ports"] = {v: {"out": format_exact(o), "in": format_exact(i)}
                    for v, (o, i) in main.port_busy(setup.nodes).items()}
    doc["ranks_detail"] = [{"rank": o.rank, "node": setup.nodes[o.node],
                            "received": o.received, "delivered": o.delivered,
                            "duplicates": o.duplicates, "bad_checksums": o.bad_checksums,
                            "out_of_order": o.out_of_order, "missing": o.missing,
                            "done_s": ns_text(o.done_ns), "cpu_s": ns_text(o.cpu_ns),
                            "loops": o.loops} for o in main.outcomes]
    if options.compare:
        doc["compare"] = [r.summary(setup.optimum) for r in results]
        doc["compare_skipped"] = setup.about["skipped"]
    doc["trace"] = args.trace
    return doc


def _print_run(args, options, setup, results) -> None:
    from ..run.units import ns_text

    main = results[0]
    about = setup.about
    plan = about["plan"]
    unit = options.unit_ns
    mode = (f"emulated: 1 time unit = {ns_text(unit)} s" if unit else
            "native (no emulation)")
    what = ("a steady-plan file" if about["version"] == "plan"
            else f"version {about['version']}")
    rows = [("schedule", f"{options.schedule}: {about['platform']} ({len(setup.nodes)} "
                         f"nodes, source {about['source']}), {what}, "
                         f"{about['messages_per_period']} "
                         f"{plural(about['messages_per_period'] or 0, 'message')} per "
                         "period"),
            ("run", f"{options.broadcasts} {plural(options.broadcasts, 'broadcast')} of "
                    f"{options.size} bytes on {len(setup.nodes)} ranks, {mode}"),
            ("plan", f"{_plan_text(plan)}; planned makespan "
                     f"{number(about['planned_makespan'])} time units"),
            ("delivered", "yes: every rank got broadcasts 0..K-1 exactly once, in order, "
                          "checksums good" if main.delivered_ok else
                          "NO (see the lines below)"),
            ("makespan", f"{ns_text(main.makespan_ns)} s (measured)"),
            ("measured", f"{_decimal(main.per_second)} broadcasts per second"
                         + (f" = {number(main.per_unit)} per time unit" if unit else ""))]
    if unit:
        rows += [("predicted", f"K / planned makespan = {number(main.predicted)} per time "
                               f"unit; measured / predicted = "
                               f"{_decimal(main.ratio_to_predicted)}"),
                 ("optimum TP*", f"{number(setup.optimum)} per time unit; measured / TP* = "
                                 f"{_decimal(main.per_unit / setup.optimum)}")]
        late, total, worst = main.late()
        rows.append(("emulation", f"{late} of {total} transfers arrived after their "
                                  f"emulated end (largest delay {ns_text(worst)} s)"
                     + ("; faithful" if not late else
                        "; raise --time-unit if this is large")))
    else:
        rows.append(("optimum TP*", f"{number(setup.optimum)} per time unit (not "
                                    "comparable to a native run)"))
    busy = main.port_busy(setup.nodes)
    rows.append(("ports busy", "; ".join(f"{v} out {percent(o)} in {percent(i)}"
                                          for v, (o, i) in busy.items())))
    if args.trace:
        rows.append(("trace", f"{args.trace} (steady show --trace {args.trace} "
                              "--gantt FILE.png)"))
    print_sheet(rows)
    if options.compare:
        print()
        _print_compare(results, setup, unit)


def _print_compare(results, setup, unit) -> None:
    head = ["algorithm", "delivered", "broadcasts/s", "per time unit", "predicted",
            "measured / TP*"]
    table = [head]
    for r in results:
        table.append([r.name, "yes" if r.delivered_ok else "NO",
                      _decimal(r.per_second),
                      _decimal(r.per_unit) if unit else "-",
                      _decimal(r.predicted) if r.predicted else "-",
                      _decimal(r.per_unit / setup.optimum) if unit else "-"])
    widths = [max(len(row[c]) for row in table) for c in range(len(head))]
    for row in table:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    for name, why in setup.about["skipped"].items():
        print(f"{name}: not run ({why})")


def _plan_text(plan: dict) -> str:
    """How the plan was built, in words (the plan's ``about``)."""
    rule = plan.get("forwarding")
    if rule == "listed":
        return "the broadcasts list scheduled on the schedule's trees (no periods)"
    text = (f"{plan.get('batches')} batches of the period, forwarding {rule}, warm-up "
            f"{plan.get('warmup_periods')} periods")
    if plan.get("cleanup"):
        text += f", clean-up {plan['cleanup']}"
    return text


def _decimal(x) -> str:
    from ..numbers import decimal_text

    return "-" if x is None else decimal_text(x, 4)


# -- steady calibrate ------------------------------------------------------------------

def _cmd_calibrate(args) -> int:
    from ..run.units import seconds, size_bytes

    size = size_bytes(args.size)
    timeout = float(seconds(args.timeout, "--timeout"))
    if args.launch is not None:
        from ..run.launch import launch

        argv = ["calibrate", "--size", str(args.size), "--repeats", str(args.repeats),
                "-o", str(args.output), "--timeout", str(args.timeout)]
        if args.pairs:
            argv += ["--pairs", str(args.pairs)]
        if args.json:
            argv.append("--json")
        return launch(argv, args.launch, timeout)
    from ..run.mpi import load_mpi

    load_mpi("steady calibrate")
    return _as_rank(lambda: _calibrate_rank(args, size, timeout))


def _calibrate_rank(args, size: int, timeout: float) -> int:
    from ..run.calibrate import measure, read_pairs
    from ..run.mpi import load_mpi
    from ..run.session import Session

    MPI = load_mpi("steady calibrate")
    session = Session(MPI, timeout)
    if session.size < 2:
        raise InputError("steady calibrate", "ranks", "needs at least 2 MPI ranks: run "
                         "it with mpiexec -n P python -m steady calibrate ... (or --launch P)")
    if args.pairs:
        pairs = read_pairs(args.pairs, session.size)   # every rank reads the same file
    else:
        pairs = [(i, j) for i in range(session.size) for j in range(session.size) if i != j]
    hosts = session.comm.allgather(MPI.Get_processor_name())
    samples = measure(session, size, args.repeats, pairs)
    try:
        return _report_calibration(args, session, samples, hosts, size)
    finally:
        session.finish()


def _report_calibration(args, session, samples, hosts, size: int) -> int:
    from ..run.calibrate import platform_of, summary

    if session.rank != 0:
        return 0
    cal = platform_of(samples, hosts, size)
    try:
        cal.platform.write(args.output)
    except OSError as exc:
        raise write_error(args.output, exc) from None
    s = summary(cal)
    if args.json:
        print_json({"file": args.output, "ranks": session.size, "size_bytes": size,
                    "repeats": args.repeats, "time_unit": "second",
                    **{k: format_exact(v) if not isinstance(v, (int, list)) else v
                       for k, v in s.items()}})
        return 0
    print_sheet([("platform", f"{args.output}: {session.size} ranks "
                              f"({len(set(hosts))} {plural(len(set(hosts)), 'host')}), "
                              f"{s['links']} links, source {cal.platform.source}"),
                 ("message", f"{size} bytes, {args.repeats} round trips per pair and kind "
                             "(medians)"),
                 ("cost", f"min {_seconds(s['cost_min'])}, median "
                          f"{_seconds(s['cost_median'])}, max {_seconds(s['cost_max'])} "
                          "(one-way time of one message; the time unit is the second)"),
                 ("startup", f"median {_seconds(s['startup_median'])} (one-way latency)")]
                + ([("raised", f"{len(s['raised_to_1ns'])} cost(s) measured <= 0, raised "
                               f"to 1 ns: {', '.join(s['raised_to_1ns'])}")]
                   if s["raised_to_1ns"] else []))
    return 0


def _seconds(x) -> str:
    from ..numbers import decimal_text

    return f"{decimal_text(x * 10 ** 6, 3)} us"
