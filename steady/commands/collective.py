"""Collectives on the command line (issue 43): ``--collective``, ``--sources`` and
``--rates`` on ``steady schedule``, ``tradeoff`` and ``simulate``; what ``steady verify``
prints for a collective's schedule.

Only argparse wiring and presentation live here; the constructions are
:mod:`steady.schedule.collective` (timetables) and :mod:`steady.simulate.collective`
(finite horizons), imported when a command runs.  A broadcast from the platform's
source on a one-port platform without switches is today's problem: the commands run
today's code for it, unchanged.
"""

from __future__ import annotations

import sys
from fractions import Fraction

from ..errors import InputError
from ..numbers import decimal_text, floor_decimal, format_exact, ratio_text
from . import options
from .files import rejected, write_output
from ..present.sheet import (IN_JSON, column_exact, number, per_time_unit, plural, print_json,
                             print_sheet)

KINDS = ("broadcast", "allgather", "reduce-scatter", "allreduce")
#: nccl-tests' busbw factor (as steady.throughput.BUS_FACTOR) of each collective.
_BUS_WORDS = {"broadcast": "= algbw", "allgather": "algbw·(N-1)/N, as nccl-tests",
              "reduce-scatter": "algbw·(N-1)/N, as nccl-tests",
              "allreduce": "algbw·2(N-1)/N, as nccl-tests"}


def comma_list(text: str) -> str:
    """An argparse check of ``--sources`` and ``--rates``: a comma-separated list with
    no empty item (an empty value, e.g. an unset shell variable, would otherwise read
    as "not given" and silently run the default collective)."""
    if not text or "" in text.split(","):
        raise ValueError(f"an empty item in {text!r} (a comma-separated list "
                         "without empty items)")
    return text


#: The argparse ``type=`` of ``--sources`` and ``--rates``.
COMMA_LIST = options.checked_type(comma_list, "comma list")


def add_options(parser, size: bool = True) -> None:
    """``--collective``, ``--sources``, ``--rates`` (and ``--size``)."""
    group = parser.add_argument_group("collectives (issue 43: multi-port or switched "
                                      "fabrics, several roots)")
    group.add_argument("--collective", choices=KINDS,
                       help="the collective the schedule serves (the default on a "
                            "multi-port or switched platform: broadcast); its period holds "
                            "at most --max-messages chunks per root")
    group.add_argument("--sources", metavar="A,B,...", type=COMMA_LIST,
                       help="a broadcast from these compute nodes (default: the source)")
    group.add_argument("--rates", metavar="R1,R2,...", type=COMMA_LIST,
                       help="relative rates of --sources (exact numbers > 0; default all 1)")
    if size:
        group.add_argument("--size", metavar="S", type=options.exact(),
                           help="also the time of a collective of S units of data at the "
                                "schedule's rate (S / algbw)")


def wanted(args, platform) -> bool:
    """A collective other than today's broadcast was asked for, or the platform is
    multi-port or switched (where the default is a broadcast from the source)."""
    if not (getattr(args, "collective", None) or getattr(args, "sources", None)
            or getattr(args, "rates", None) or not platform.classic):
        return False
    return not (platform.classic and (args.collective in (None, "broadcast"))
                and not args.sources and not args.rates)


def collective_of(args) -> tuple[str, list | None, list | None]:
    """(kind, sources, rates) of the command line, checked (one line, exit 2)."""
    kind = args.collective or "broadcast"
    if (args.sources or args.rates) and kind != "broadcast":
        given = "--sources" if args.sources else "--rates"   # blame the option given
        raise InputError("<command line>", given, f"{kind}: every compute node is "
                         "a root (--sources and --rates are for a broadcast)")
    sources = args.sources.split(",") if args.sources else None
    rates = args.rates.split(",") if args.rates else None
    if rates is not None and sources is None:
        raise InputError("<command line>", "--rates", "give --sources too")
    return kind, sources, rates


def optimum(platform, origin, kind, sources, rates):
    """The exact optimum of the collective, its certificate checked independently."""
    from ..certificate import check_collective
    from ..throughput import collective_throughput

    result = collective_throughput(platform, kind, sources, rates, origin=origin)
    report = check_collective(platform, result)
    if not report.ok:  # pragma: no cover - the solver's postconditions hold
        raise AssertionError(f"certificate: {report.problems[0]}")
    return result


def _refuse(args, flags) -> None:
    for flag, attr in flags:
        if getattr(args, attr, None) not in (None, False):
            raise InputError("<command line>", flag, "does not apply to a collective's "
                             "schedule (give --max-messages M: at most M chunks per root "
                             "per period)")


#: Chunks per root per period of a collective's timetable when ``--max-messages`` is not
#: given: the issue's bound, and what fits MSCCL's 64 steps per threadblock (a
#: collective has no exact periodic schedule to write instead, as a broadcast has).
DEFAULT_CHUNKS = 64


#: ``simulate --collective`` without ``--max-messages``: the chunk counts tried, in
#: order (a short horizon loses its warm-up periods, so fewer chunks per period can
#: deliver more by K), and the share of the timetable's own ratio that the warm-up may
#: lose before a smaller count is tried.
SIMULATE_COUNTS = (DEFAULT_CHUNKS, 16, 4, 1)
WARMUP_LOSS = Fraction(1, 100)


def _most(args) -> int:
    if args.max_messages is None:
        return DEFAULT_CHUNKS
    return options.check_integer(str(args.max_messages).strip(), "--max-messages", 1,
                                 options.MAX_MESSAGES)


def units(schedule_rate: Fraction, result) -> dict:
    """The field's units of a rate per root x (nccl-tests' conventions, as
    :class:`steady.throughput.CollectiveResult`): algbw = x·N (x·sum of ρ for a
    broadcast), busbw = algbw × the collective's factor."""
    from ..throughput import BUS_FACTOR

    n = len(result.compute)
    algbw = (schedule_rate * sum(result.roots.values()) if result.kind == "broadcast"
             else schedule_rate * n)
    return {"algorithmic_bandwidth": algbw,
            "bus_bandwidth": algbw * BUS_FACTOR[result.kind](n)}


# -- steady schedule --collective -------------------------------------------------------

def run_schedule(args, platform, origin) -> int:
    """``steady schedule`` of a collective: build, verify, write, report."""
    from ..progress import StageBar
    from ..schedule.collective import collective_schedule
    from ..verify import verify

    _refuse(args, (("--dag", "dag"), ("--steps", "steps"), ("--max-period", "max_period"),
                   ("--ratio", "ratio")))
    kind, sources, rates = collective_of(args)
    most = _most(args)
    with StageBar(["exact optimum", "timetable", "verifier", "file"], args.quiet) as bar:
        bar.stage("exact optimum")
        result = optimum(platform, origin, kind, sources, rates)
        bar.stage("timetable")
        try:
            schedule, stats = collective_schedule(platform, result, most, args.effort)
        except ValueError as exc:   # relative rates that need more messages
            raise InputError("<command line>", "--max-messages", str(exc)) from None
        bar.stage("verifier")
        report = verify(platform, schedule)   # the independent checker, before any write
        bar.stage("file")
        text = schedule.to_json() if report.ok else ""
    if rejected(report):
        return 1
    write_output(args.output, text)
    summary = _summary(platform, origin, result, schedule, report, stats, text,
                       args.output, getattr(args, "size", None))
    if args.json:
        print_json(summary)
        return 0
    print_sheet(_rows(platform, origin, result, schedule, report, stats, summary, args))
    return 0


def _rate(schedule, result) -> Fraction:
    return schedule.extra["ratio"] * result.rate


def _summary(platform, origin, result, schedule, report, stats, text, output, size) -> dict:
    rate = _rate(schedule, result)
    doc = {"platform": platform.name or origin, "collective": result.kind,
           "ports": platform.ports, "version": schedule.version,
           "rate_per_root": format_exact(rate), "optimum": format_exact(report.bound),
           "ratio": format_exact(report.ratio), "ratio_decimal": floor_decimal(report.ratio, 6),
           "period": format_exact(schedule.period),
           "chunks_per_root": stats["chunks_per_root"],
           "messages_per_period": schedule.messages_per_period,
           "trees": len(schedule.trees), "transfers": schedule.transfer_count,
           **{k: format_exact(v) for k, v in units(rate, result).items()},
           "file_bytes": len(text.encode()), "file": output, "verified": True,
           "construction": stats["construction"]}
    if stats.get("cap") is not None:   # no timetable's ratio beats it (majority rows)
        doc["ratio_cap"] = format_exact(stats["cap"])
    if size is not None:
        doc["size"] = format_exact(size)
        doc["time"] = format_exact(Fraction(size) / units(rate, result)["algorithmic_bandwidth"])
    return doc


def _rows(platform, origin, result, schedule, report, stats, summary, args) -> list:
    n = len(result.compute)
    rate = _rate(schedule, result)
    field = units(rate, result)
    switches = len(platform.switches)
    model = (f"{platform.ports}, {n} {plural(n, 'compute node')}"
             + (f", {switches} {plural(switches, 'switch')}" if switches else ""))
    rows = [("platform", summary["platform"]),
            ("collective", f"{result.kind} ({model}; {len(result.roots)} "
                           f"{plural(len(result.roots), 'root')})"),
            ("schedule", "steady-schedule v2, a timetable"),
            ("rate per root", per_time_unit(rate, "unit", IN_JSON)),
            ("optimum x*", f"{number(report.bound, IN_JSON)} (certified: prices and "
                           "Edmonds' families per root)"),
            ("ratio", f"{ratio_text(report.ratio)}, certified"
                      + ("" if stats.get("cap") is None else
                         f"; no timetable beats {ratio_text(stats['cap'])} (the "
                         "certificate's prices on majority rows)")),
            ("period", number(schedule.period, IN_JSON)),
            ("chunks/root", f"{stats['chunks_per_root']} per period (at most "
                            f"{_most(args)}"
                            + (", the default" if args.max_messages is None else "") + ")"),
            ("algbw", per_time_unit(field['algorithmic_bandwidth'], "unit", IN_JSON)),
            ("busbw", per_time_unit(field['bus_bandwidth'], "unit", IN_JSON)
                      + f" ({_BUS_WORDS[result.kind]})")]
    if getattr(args, "size", None) is not None:
        rows.append((f"time for {format_exact(args.size)}",
                     f"{number(Fraction(args.size) / field['algorithmic_bandwidth'], IN_JSON)}"
                     " time units (size / algbw: steady state, no start-up)"))
    rows += [("trees", str(len(schedule.trees))),
             ("transfers", f"{schedule.transfer_count} ({stats['construction']})"),
             ("file", f"{args.output or '(not written: use -o FILE)'}, "
                      f"{summary['file_bytes']} bytes"),
             ("verified", "yes (steady verify: every rule; the ratio by the optimum's "
                          "certificate)")]
    return rows


# -- steady tradeoff --collective --------------------------------------------------------

def run_tradeoff(args, platform, origin, counts: list[int]) -> int:
    """``steady tradeoff --collective``: per M, the timetable's certified ratio."""
    from ..progress import CountBar
    from ..present.plots import tradeoff_plot
    from ..schedule.collective import collective_schedule
    from ..verify import verify

    kind, sources, rates = collective_of(args)
    result = optimum(platform, origin, kind, sources, rates)
    rows = []
    with CountBar(len(counts), "short-period timetables", args.quiet) as bar:
        for m in counts:
            try:
                schedule, stats = collective_schedule(platform, result, m, args.effort)
            except ValueError as exc:
                raise InputError("<command line>", "--max-messages", str(exc)) from None
            report = verify(platform, schedule)
            if rejected(report):  # pragma: no cover - the timetable is checked already
                return 1
            rows.append({"max_messages": m, "chunks_per_root": stats["chunks_per_root"],
                         "messages_per_period": schedule.messages_per_period,
                         "ratio": report.ratio, "period": schedule.period,
                         "transfers": len(schedule.transfers),
                         "file_bytes": len(schedule.to_json().encode())})
            bar.advance()
    if args.plot:
        tradeoff_plot(rows, args.plot, platform.name or origin)
        if not args.json:
            print(f"plot written to {args.plot}")
    if args.json:
        print_json({"platform": platform.name or origin, "collective": kind,
                    "optimum": format_exact(result.rate),
                    "schedules": [{k: (format_exact(v) if isinstance(v, Fraction) else v)
                                   for k, v in row.items()} for row in rows]})
        return 0
    print(f"{platform.name or origin}: {kind}, optimum {decimal_text(result.rate)} units "
          "per time unit per root")
    print(f"{'M':>8} {'chunks':>7} {'ratio':>10} {'period':>16} {'transfers':>9} "
          f"{'file bytes':>11}")
    for row in rows:
        print(f"{row['max_messages']:>8} {row['chunks_per_root']:>7} "
              f"{floor_decimal(row['ratio'], 6):>10} {column_exact(row['period'], 16):>16} "
              f"{row['transfers']:>9} {row['file_bytes']:>11}")
    print("chunks: per root per period (at most M); ratio: rate per root / x*, certified")
    print("period: exact, or ~ rounded (--json: exact)")
    return 0


# -- steady simulate --collective / --schedule COLLECTIVE ---------------------------------

def _refuse_simulate(args) -> None:
    if getattr(args, "plot", None):
        raise InputError("<command line>", "--plot", "a collective's horizon is counted "
                         "exactly from its timetable, without a chart (docs/limits.md)")
    if getattr(args, "forwarding", None) not in (None, "period"):
        raise InputError("<command line>", "--forwarding", "a collective's schedule runs "
                         "under the period rule only (docs/limits.md)")


def run_simulate(args, platform, origin, horizon) -> int:
    """``steady simulate PLATFORM --collective``: the collective's timetable of at most
    --max-messages chunks per root, run over the horizon."""
    from ..schedule.collective import collective_schedule
    from ..verify import verify

    from ..simulate.collective import collective_horizon

    _refuse_simulate(args)
    kind, sources, rates = collective_of(args)
    result = optimum(platform, origin, kind, sources, rates)
    counts = [_most(args)] if args.max_messages is not None else list(SIMULATE_COUNTS)
    best, tried = None, []
    for most in counts:
        try:
            schedule, _ = collective_schedule(platform, result, most, args.effort)
        except ValueError as exc:
            raise InputError("<command line>", "--max-messages", str(exc)) from None
        found = collective_horizon(schedule, horizon, result.rate)
        tried.append((most, found.ratio))
        if best is None or found.ratio > best[1].ratio:
            best = (schedule, found)
        # fewer chunks only while the warm-up loses more than WARMUP_LOSS of what the
        # timetable delivers (a short horizon): a shorter period starts sooner
        if found.ratio >= (1 - WARMUP_LOSS) * schedule.extra["ratio"]:
            break
    schedule, found = best
    report = verify(platform, schedule)
    if rejected(report):  # pragma: no cover - the timetable is checked already
        return 1
    if args.output:
        write_output(args.output, schedule.to_json())
    return _horizon(schedule, horizon, report.bound, "exact optimum", args,
                    found if report.bound == result.rate else None, tried)


def simulate_file(args, schedule, report, horizon) -> int:
    """``steady simulate --schedule FILE`` of a collective's schedule (verified)."""
    _refuse_simulate(args)
    kind = schedule.collective.kind if schedule.collective is not None else "broadcast"
    if args.collective not in (None, kind) or args.sources or args.rates:
        other = "" if args.collective in (None, kind) else f", not the {args.collective}"
        raise InputError(args.schedule, "collective", f"the file's schedule serves the "
                         f"{kind}{other}: its collective comes from the file (drop "
                         "--collective, --sources, --rates)")
    if report.bound is None:
        raise InputError(args.schedule, "certificate", "a collective's schedule carries "
                         "the optimum's certificate: its horizon is compared with K·x*")
    return _horizon(schedule, horizon, report.bound, "certificate", args)


def _horizon(schedule, horizon, bound, source: str, args, found=None,
             tried=()) -> int:
    from ..simulate.collective import collective_horizon

    if found is None:
        found = collective_horizon(schedule, horizon, bound)
    plan = _write_plan(schedule, horizon, found, args)
    if args.json:
        doc = {"platform": schedule.platform.name, "optimum_source": source,
               **found.to_dict()}
        if len(tried) > 1:   # chunk counts tried without --max-messages
            doc["counts_tried"] = [{"max_messages": m, "ratio": format_exact(r)}
                                   for m, r in tried]
        if plan is not None:
            doc.update(plan=args.plan, planned_makespan=format_exact(plan.makespan_time),
                       transfers=len(plan.transfers))
        print_json(doc)
        return 0
    worst = min(found.rates, key=lambda r: (Fraction(found.delivered[r])
                                            / found.bound[r], r))
    rows = [("horizon K", number(found.horizon, IN_JSON)),
            ("collective", f"{found.kind}, {len(found.rates)} "
                           f"{plural(len(found.rates), 'root')}, period "
                           f"{number(found.period, IN_JSON)} (its timetable repeated "
                           "under the period rule)"),
            ("delivered", f"{found.delivered[worst]} chunks of root {worst} by K (the "
                          "fewest relative to its rate); "
                          f"{min(found.delivered.values())} to "
                          f"{max(found.delivered.values())} over the roots, counted "
                          "exactly"),
            ("bound", f"K·x*·ρ = {number(found.bound[worst], IN_JSON)} (x* = "
                      f"{number(found.optimum, IN_JSON)}, {source})"),
            ("ratio", f"{ratio_text(found.ratio)} (min over roots of delivered / "
                      "K·x*·ρ)"),
            ("warm-up", f"{max(found.warmup.values())} periods before every root's "
                        "first batch is complete")]
    if len(tried) > 1:
        rows.append(("chunks", "at most " + ", ".join(
            f"{m}: {ratio_text(r)}" for m, r in tried) + " per root and period tried "
            f"(no --max-messages); kept the best"))
    if plan is not None:
        rows.append(("plan", f"{args.plan}: {len(plan.transfers)} transfers, makespan "
                             f"{number(plan.makespan_time, IN_JSON)} (the chunks counted "
                             "above, each at its planned time)"))
    print_sheet(rows)
    return 0


def _write_plan(schedule, horizon, found, args):
    """``--plan FILE``: the plan of exactly the chunks counted (None without it)."""
    from ..simulate.collective import collective_plan
    from ..simulate.plan import TooLarge

    if not getattr(args, "plan", None):
        return None
    if not any(found.delivered.values()):
        raise InputError("<command line>", "--plan", f"the horizon "
                         f"{format_exact(found.horizon)} completes no chunk: nothing to "
                         "plan (a longer --horizon)")
    try:
        plan = collective_plan(schedule, horizon, getattr(args, "max_events", None))
    except TooLarge as exc:
        raise InputError("<command line>", "--plan", f"{exc}: raise --max-events or "
                         "shorten --horizon") from None
    counted = (plan.delivered_per_root(horizon) if plan.collective is not None
               else {plan.nodes[plan.source]: plan.delivered_by(horizon)})
    if {r: counted.get(r, 0) for r in found.delivered} != found.delivered:
        raise AssertionError("postcondition: the plan delivers what was counted")
    write_output(args.plan, plan.to_json())
    return plan


# -- steady verify ---------------------------------------------------------------------

def verify_line(report, schedule) -> str:
    """One line for a valid collective's schedule."""
    kind = schedule.collective.kind if schedule.collective is not None else "broadcast"
    shape = "timed" if report.version == 2 else f"{report.steps} steps"
    text = (f"valid: {shape}, {report.transfers} transfers, {report.trees} trees; {kind}")
    if report.ratio is not None:
        text += (f", rate per root {format_exact(report.ratio * report.bound)}, certified "
                 f"ratio {ratio_text(report.ratio)} of the optimum "
                 f"{format_exact(report.bound)}")
    return text


def refuse_on_fabric(platform, origin, what: str) -> None:
    """A command that has no collective form yet: one line on a multi-port or switched
    platform."""
    if not platform.classic:
        raise InputError(origin, "ports", f"{what} runs the broadcast of 002 on a one-port "
                         "platform without switches; this one is "
                         f"{platform.ports}{' with switches' if platform.switches else ''}")


def stderr(text: str) -> None:
    print(text, file=sys.stderr)
