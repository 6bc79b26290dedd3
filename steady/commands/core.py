"""The commands of seed 002's pipeline: ``steady throughput``, ``schedule``, ``verify``,
``show``, ``pipe`` and ``simulate``.

Only argparse wiring and the choice of what to show live here (:mod:`steady.present`
prints it); each command imports the computing modules when it runs, so that
``steady --help`` stays fast.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from fractions import Fraction

from ..errors import InputError, one_line
from ..numbers import format_exact
from ..platform import Platform, load_platform, load_tree
from . import collective, mpi, options, runtimes, timed
from .files import rejected, write_error, write_output
from ..present.sheet import (IN_JSON, IN_THE_FILE, bottleneck_words, exact, number,
                             per_time_unit, platform_text, plural, print_json, print_sheet)


def _cmd_throughput(args) -> int:
    from ..throughput import dag_throughput, throughput, tree_throughput

    platform, origin = load_platform(args.platform)
    if args.collective or args.sources or args.rates or not platform.classic:
        return _cmd_collective(args, platform, origin)
    if args.size is not None:
        raise InputError("<command line>", "--size", "applies to --collective only")
    from ..progress import StageBar

    with StageBar(["exact optimum and its certificate"], args.quiet) as bar:
        bar.stage("exact optimum and its certificate")
        if args.tree is not None:
            result = tree_throughput(platform, load_tree(args.tree, platform),
                                     str(args.tree))
        elif args.dag:
            result = dag_throughput(platform, origin)
        else:
            result = throughput(platform, args.method or "cuts")
    if args.json:
        doc = {"platform": platform.name or origin}
        doc.update(result.to_dict())
        print_json(doc)
        return 0
    problem = {"graph": "broadcasts over the whole platform, any number of trees at "
                        "once (the paper's SSB(G), 002 §5.2)",
               "dag": "broadcasts on an acyclic platform (the paper's SSBPDAG, 002 §4.1)",
               "tree": "broadcasts along this one tree (the paper's TP(T), 002 §3.1.2)"
               }[result.scope]
    print_sheet([
        ("platform", platform_text(platform, origin)),
        ("problem", f"{problem}; LP formulation: {result.formulation}"),
        ("throughput", per_time_unit(result.throughput, where=IN_JSON)),
        ("period T*", f"{number(result.period, IN_JSON)} (1 / throughput: the time per "
                      "broadcast; steady schedule's period is one round of a schedule, "
                      "which may carry several)"),
        ("bottleneck", ", ".join(bottleneck_words(b) for b in result.bottleneck) or "-"),
        ("certified", "yes: exact rates on the links, and prices on the ports under "
                      "which every broadcast tree costs at least 1 (cheapest: "
                      f"{format_exact(result.certificate.min_tree_cost)}), checked exactly"),
    ])
    return 0


def _cmd_collective(args, platform, origin) -> int:
    """``steady throughput --collective``: the exact optimal rate of a collective
    (issue 43), its certificate checked independently before anything is printed."""
    from ..certificate import check_collective
    from ..throughput import collective_throughput

    kind = args.collective or "broadcast"
    for flag, given in (("--dag", args.dag), ("--tree", args.tree is not None),
                        ("--method", args.method is not None)):
        if given:
            raise InputError("<command line>", flag, "does not apply to a collective "
                             "(--collective, --sources, or a multi-port or switched "
                             "platform)")
    kind, sources, rates = collective.collective_of(args)   # one reading, as schedule's
    from ..progress import StageBar

    with StageBar(["exact optimum", "independent check"], args.quiet) as bar:
        bar.stage("exact optimum")
        bar.note(kind)
        result = collective_throughput(platform, kind, sources, rates,
                                       symmetry=not args.no_symmetry, origin=origin)
        bar.stage("independent check")
        report = check_collective(platform, result)
    if not report.ok:  # pragma: no cover - the solver's postconditions hold
        print(f"steady: {origin}: certificate: {report.problems[0]}", file=sys.stderr)
        return 1
    if args.json:
        doc = {"platform": platform.name or origin}
        doc.update(result.to_dict())
        if args.size is not None:
            doc["size"] = format_exact(args.size)
            doc["time"] = format_exact(result.time(args.size))
        print_json(doc)
        return 0
    n = len(result.compute)
    roots = len(result.sources)
    per_root = {}
    for tree, _ in result.trees:
        per_root[tree.root] = per_root.get(tree.root, 0) + 1
    switches = len(platform.switches)
    model = (f"{platform.ports}, {n} {plural(n, 'compute node')}"
             + (f", {switches} {plural(switches, 'switch')}" if switches else ""))
    rows = [("platform", platform_text(platform, origin)),
            ("collective", f"{kind} ({model}; {roots} {plural(roots, 'root')})"),
            ("rate per root", per_time_unit(result.rate, "unit", IN_JSON)
             + (" (x·relative rate)" if kind == "broadcast" and roots > 1 else "")),
            ("algbw", per_time_unit(result.algorithmic_bandwidth, "unit", IN_JSON)),
            ("busbw", per_time_unit(result.bus_bandwidth, "unit", IN_JSON)
                      + f" ({_BUS_WORDS[kind]})")]
    if args.size is not None:
        rows.append((f"time for {format_exact(args.size)}",
                     f"{number(result.time(args.size), IN_JSON)} time units "
                     "(size / algbw: steady state, no start-up)"))
    rows.append(("trees", f"{len(result.trees)} ({max(per_root.values())} at most per "
                          f"root); symmetry: {result.stats['symmetry']}"))
    cut = result.certificate.cut
    proof = ("yes: prices on the capacity rows summing to the rate, under which the "
             "trees of every root r cost >= w_r with sum ρ_r·w_r >= 1 (Edmonds' dual per "
             "root); checked independently")
    if cut is not None:
        edge = "leaving" if cut.direction == "out" else "entering"
        proof += (f"; a cut binds: {len(cut.side)} nodes whose links {edge} them carry "
                  f"{number(cut.capacity, IN_JSON)} = {number(cut.share, IN_JSON)} x rate")
    rows.append(("certified", proof))
    bound = result.stats.get("information_bound")
    if bound is not None:
        rows.append(("bound", f"any allreduce: rate per root <= min over cuts S of "
                              f"min(B+(S), B-(S))/N = {number(Fraction(bound), IN_JSON)}"
                              + (" (reached)" if cut is not None else "")))
    bound = result.stats.get("cut_bound")
    if bound is not None:
        edge = "B-(S)" if kind == "reduce-scatter" else "B+(S)"
        rows.append(("cut bound", f"min over cuts S of {edge} / (relative rates of the "
                                  f"roots in S) = {number(Fraction(bound), IN_JSON)}"
                                  + (" (reached)" if cut is not None else
                                     ": not reached (switches that cannot replicate "
                                     "bind first)")))
    print_sheet(rows)
    return 0


_BUS_WORDS = {"broadcast": "= algbw", "allgather": "algbw·(N-1)/N, as nccl-tests",
              "reduce-scatter": "algbw·(N-1)/N, as nccl-tests",
              "allreduce": "algbw·2(N-1)/N, as nccl-tests"}


def _cmd_schedule(args) -> int:
    from ..schedule.periodic import optimal_schedule
    from ..throughput import throughput
    from ..verify import verify

    from ..progress import StageBar

    platform, origin = load_platform(args.platform)
    if collective.wanted(args, platform):   # issue 43: roots, switches, multi-port
        return collective.run_schedule(args, platform, origin)
    if args.size is not None:   # today's broadcast schedule has no time for S units
        raise InputError("<command line>", "--size", "applies to a collective's schedule "
                         "only (a broadcast from the source of a one-port platform "
                         "without switches is today's schedule: --sources SOURCE makes it "
                         "a collective's)")
    if timed.wants_short(args):  # at most M messages per period: a timetable (v2)
        return timed.run_schedule(args, platform, origin)
    with StageBar(["exact throughput", "trees and matchings", "verifier", "file"],
                  args.quiet) as bar:
        bar.stage("exact throughput")
        if args.dag:  # 002 §4.3 Theorem 2: layers, their trees, the edge colouring
            from ..schedule.dag import dag_schedule

            schedule, stats = dag_schedule(platform, origin)
        else:
            result = throughput(platform, args.method)
            bar.stage("trees and matchings")
            schedule, stats = optimal_schedule(platform, result)
        bar.stage("verifier")
        report = verify(platform, schedule)  # the independent checker, before any write
        bar.stage("file")
        text = schedule.to_json() if report.ok else ""
    if rejected(report):
        return 1
    write_output(args.output, text)
    summary = {"platform": platform.name or origin,
               "throughput": format_exact(schedule.throughput),
               "period": format_exact(schedule.period),
               "messages_per_period": str(schedule.messages_per_period),
               "trees": stats["trees"], "trees_built": stats["trees_built"],
               "tree_bound": stats["tree_bound"], "matchings": stats["matchings"],
               "matching_bound": stats["matching_bound"], "steps": len(schedule.steps),
               "transfers": schedule.transfer_count, "file_bytes": len(text.encode()),
               "file": args.output, "verified": True}
    if "ratio" in stats:   # steps fitted to shared network links: a certified ratio
        summary["ratio"] = format_exact(stats["ratio"])
    if args.dag:
        summary.update({"q": stats["q"], "heights": stats["heights"],
                        "layers": stats["layer_table"]})
    if args.json:
        print_json(summary)
        return 0
    # The paper's bound on the number of trees stays in --json: a first screen is for
    # what the schedule is, not for how loose a theorem's bound is.
    where = IN_THE_FILE if args.output else IN_JSON   # the full value of a long number
    rated = "ratio" in stats   # steps fitted to shared network links: a certified ratio
    rows = [("platform", summary["platform"]),
            ("throughput", per_time_unit(schedule.throughput, where=where)),
            ("period", f"{number(schedule.period, where)} (one round of the schedule, "
                       "which repeats: messages per period / throughput)"),
            ("messages/period", number(schedule.messages_per_period, where)),
            ("trees", f"{stats['trees']} (built {stats['trees_built']} by "
                      f"{stats['construction']})"),
            ("matchings", f"{stats['matchings']} steps, each a matching of links "
                          f"(at most {stats['matching_bound']}: one per link)"),
            ("file", f"{args.output or '(not written: use -o FILE)'}, "
                     f"{summary['file_bytes']} bytes"),
            ("verified", "yes (steady verify: every rule, and the ratio by the optimum's "
                         "prices)" if rated else
                         "yes (steady verify: every rule, and optimality)")]
    if rated:
        rows.insert(2, ("ratio", f"{timed.ratio_text(stats['ratio'])} of the optimum "
                                 "(certified: steps must fit the shared links)"))
    note = timed.huge_period_note(schedule.messages_per_period, schedule.period)
    if note:
        rows.append(("runnable", note))
    if args.dag:
        rows[4:4] = [("q", f"{stats['q']} (makes every rate, time and the throughput a "
                           "whole number: the paper's q, 002 §4.3)"),
                     ("heights", ", ".join(f"{v} {h}" for v, h in stats["heights"].items())),
                     ("layers", f"{stats['layer_count']} of q time units, "
                                f"{len(stats['layer_table'])} transfers (--json lists them)")]
    print_sheet(rows)
    return 0


def _cmd_verify(args) -> int:
    from ..schedule_file import Schedule
    from ..verify import verify

    if args.msccl is not None:
        return runtimes.verify_msccl(args)
    if args.platform is None or args.schedule is None:
        raise InputError("<command line>", "verify", "give PLATFORM and SCHEDULE (or "
                         "--msccl FILE.xml [PLATFORM])")
    from ..fileio import load_json

    platform = Platform.from_file(args.platform)
    doc = load_json(args.schedule)
    if isinstance(doc, dict) and doc.get("format") == "steady-plan":
        return _verify_plan(args, platform, doc)
    schedule = Schedule.from_dict(doc, str(args.schedule))
    _same_collective(args, schedule.collective, "schedule")
    min_ratio = None if args.min_ratio is None else options.positive_exact(args.min_ratio, "--min-ratio")
    report = verify(platform, schedule, optimality=not args.no_optimality,
                    min_ratio=min_ratio)
    # a claimed ratio the verifier did not check (--no-optimality, no certificate) is
    # said so, never passed over in silence
    claimed = schedule.extra.get("ratio") if not report.rated else None
    if args.json:
        doc = report.to_dict()
        if report.version == 2:
            doc["steps"] = None          # a timetable has no steps (schedule --json too)
        doc["ratio_checked"] = report.ratio is not None
        if claimed is not None:
            doc["claimed_ratio"] = format_exact(claimed)
        print_json(doc)
        return 0 if report.ok else 1
    shape = "timed" if report.version == 2 else f"{report.steps} steps"
    if report.ok and (schedule.is_collective or not platform.classic):
        print(collective.verify_line(report, schedule))
    elif report.ok and report.rated and report.ratio is not None:
        print(f"valid: {shape}, {report.transfers} transfers, {report.trees} trees; "
              f"throughput {format_exact(schedule.throughput)}, certified ratio "
              f"{timed.ratio_text(report.ratio)} of the optimum")
    elif report.ok:
        unchecked = ""
        if claimed is not None:
            unchecked = (f", nor the ratio {exact(claimed)} the file claims: it has no "
                         "certificate")
        print(f"valid: {shape}, {report.transfers} transfers, "
              f"{report.trees} trees; throughput {format_exact(schedule.throughput)}"
              + (" is optimal" if report.optimality else
                 f" (optimality not checked{unchecked})"))
    elif _other_platform(report):
        built, given = schedule.platform.name, platform.name or args.platform
        names = f" ({built}, not {given})" if built and built != given else ""
        print(f"invalid: the schedule was built for another platform{names}: "
              f"{_other_platform(report)}; verify it against the platform it was made "
              "for (--json lists every violation)")
    else:
        print(f"invalid: {len(report.violations)} violation(s)")
        for violation in report.violations:
            print(f"  {violation}")
    return 0 if report.ok else 1


def _same_collective(args, spec, what: str) -> None:
    """``--collective``, when given, must be the collective the file serves (one line,
    exit 2, as replay says it)."""
    kind = spec.kind if spec is not None else "broadcast"
    if args.collective not in (None, kind):
        raise InputError(args.schedule, "collective", f"the file's {what} serves the "
                         f"{kind}, not the {args.collective}")


def _verify_plan(args, platform, doc) -> int:
    """``steady verify PLATFORM PLAN``: a steady-plan file by the plan's own checker
    (:func:`steady.simulate.plan.check_plan`, which the independent schedule verifier
    below simulate cannot import), against the given platform."""
    from ..simulate.plan import Plan, check_plan

    plan = Plan.from_dict(doc, str(args.schedule))
    _same_collective(args, plan.collective, "plan")
    if args.min_ratio is not None:
        raise InputError("<command line>", "--min-ratio", "a plan has no certified ratio "
                         "(it applies to a schedule file)")
    if plan.platform is not None and plan.platform != platform:
        built = plan.platform.name or "its own"
        problems = [f"the plan was built for another platform ({built}, not "
                    f"{platform.name or args.platform})"]
    elif plan.platform is None and tuple(plan.nodes) != tuple(platform.nodes):
        # the checker reads the platform by the plan's node indices (as the loader
        # requires of an embedded platform)
        problems = ["the plan's nodes are not the platform's nodes in its order"]
    else:
        problems = check_plan(plan if plan.platform is not None
                              else replace(plan, platform=platform))
    what = (f"a plan of {plan.broadcasts} broadcasts" if plan.collective is None
            else f"a plan of the {plan.collective.kind}, {len(plan.collective.chunks)} roots")
    if args.json:
        print_json({"valid": not problems, "format": "steady-plan",
                    "collective": plan.collective.kind if plan.collective else "broadcast",
                    "transfers": len(plan.transfers),
                    "makespan": format_exact(plan.makespan_time),
                    "violations": problems})
    elif problems:
        print(f"invalid: {len(problems)} violation(s)"
              + (" (the checker lists 20 at most)" if len(problems) >= 20 else ""))
        for problem in problems:
            print(f"  {problem}")
    else:
        print(f"valid: {what}, {len(plan.transfers)} transfers, makespan "
              f"{exact(plan.makespan_time)} (steady-plan: ports or links within capacity, "
              "causality, every chunk delivered once)")
    return 1 if problems else 0


#: The largest horizon `simulate --plot` draws (a float axis ends near 10^308).
MAX_PLOT_HORIZON = 10 ** 300
#: Transfers of a schedule file `steady simulate --schedule` takes (each is unrolled,
#: timed and checked several times in exact arithmetic: 80000 transfers took 24 s,
#: 800000 took 148 s on a loaded 2-core machine; docs/limits.md).
MAX_SIMULATED_TRANSFERS = 200_000
#: Transfers `steady show --gantt` draws (two bars each: 80000 took 56 s).
MAX_GANTT_TRANSFERS = 20_000


def bounded_schedule(path, most: int, option: str, what: str):
    """The schedule file ``path``, refused in one line (before it is built) when it has
    more than ``most`` transfers (a version 1 file's steps counted transfer by
    transfer)."""
    from ..fileio import load_json
    from ..schedule_file import Schedule

    doc = load_json(path)
    count = 0
    if isinstance(doc, dict):
        steps, timed_ = doc.get("steps"), doc.get("transfers")
        if isinstance(steps, list):
            count += sum(len(st.get("transfers", ())) if isinstance(st, dict)
                         and isinstance(st.get("transfers"), list) else 1 for st in steps)
        if isinstance(timed_, list):
            count += len(timed_)
    if count > most:
        raise InputError(str(path), "transfers", f"{count} transfers, more than the "
                         f"{most} {what} ({option}; docs/limits.md)")
    return Schedule.from_dict(doc, str(path))


def _other_platform(report) -> str | None:
    """One line when the schedule embeds another platform than the one given: every
    rule then fails in cascade, and listing them all hides the one cause (issue 45)."""
    differences = [v for v in report.violations if v.kind == "platform"]
    if not differences:
        return None
    more = len(differences) - 1
    first = differences[0]
    return (f"{first.where.removeprefix('platform ')}: {first.message}"
            + (f", and {more} more {plural(more, 'difference')}" if more else ""))


def _cmd_show(args) -> int:
    from ..schedule_file import Schedule
    from ..present.show import check_links, gantt, period_table

    if args.trace:  # a steady run trace: the real execution beside the plan
        return mpi.show_trace(args)
    if args.schedule is None:
        raise InputError("<command line>", "schedule", "give a schedule file (or --trace)")
    schedule = (bounded_schedule(args.schedule, MAX_GANTT_TRANSFERS, "--gantt",
                                 "a Gantt chart draws")
                if args.gantt else Schedule.from_file(args.schedule))
    if args.gantt or schedule.version == 2:  # they need the links' costs
        check_links(schedule, args.schedule)
    print(period_table(schedule))
    note = timed.huge_period_note(schedule.messages_per_period, schedule.period)
    if note:   # an exact optimum shown as if it could run: it cannot (issue 45)
        print(f"runnable: {note}")
    if args.gantt:
        try:
            gantt(schedule, args.gantt, args.schedule)
        except OSError as exc:
            raise write_error(args.gantt, exc) from None
        print(f"Gantt chart written to {args.gantt}")
    return 0


def _cmd_simulate(args) -> int:
    """``steady simulate``: a finite horizon (002 §5.5, Lemma 7).  A schedule file runs
    under its own rule unless --forwarding says otherwise; for a platform, the plan that
    delivers the most by K is chosen among the candidates of steady.simulate.choose."""
    from ..simulate.horizon import certified_optimum
    from ..verify import verify

    from ..progress import StageBar

    horizon = options.positive_exact(args.horizon, "--horizon")
    if args.plot and horizon > MAX_PLOT_HORIZON:
        raise InputError("<command line>", "--plot", f"a horizon of about 10^"
                         f"{int(horizon.numerator.bit_length() * 0.30103)} time "
                         "units cannot be drawn (a plot's axes end near 10^308); give a "
                         "horizon up to 10^300, or drop --plot (docs/limits.md)")
    most = _most_messages(args.max_messages)
    if args.schedule is None:
        platform, origin = load_platform(args.platform)
        if collective.wanted(args, platform):   # issue 43: a collective's timetable
            return collective.run_simulate(args, platform, origin, horizon)
    stages = (["verifier", "the schedule's plan", "count and check"] if args.schedule
              else ["exact throughput", "timed schedules", "count and check"])
    with StageBar(stages, args.quiet) as bar:
        if args.schedule is not None:
            from ..simulate.choose import schedule_choice
            from ..simulate.plan import TooLarge
            from ..simulate.unroll import MAX_SLOTS, TooManySlots

            if most is not None or args.output:
                raise InputError("<command line>", "--max-messages" if most is not None
                                 else "--output", "applies to a platform, not to "
                                 "--schedule (the file's schedule is simulated as it is)")
            schedule = bounded_schedule(args.schedule, MAX_SIMULATED_TRANSFERS,
                                        "--schedule", "steady simulate follows")
            bar.stage("verifier")
            checked = verify(schedule.platform, schedule, optimality=False)
            # a rejected schedule, or a collective's (issue 43: counted from its
            # timetable), is answered once the bar is gone
            if not checked.ok or schedule.is_collective or not schedule.platform.classic:
                choice = None
            else:
                bar.stage("the schedule's plan")
                optimum, source = ((checked.bound, "certificate")
                                   if checked.bound is not None
                                   else certified_optimum(schedule))
                try:
                    choice = schedule_choice(schedule, horizon, optimum,
                                             args.forwarding or "period", args.max_events)
                except TooLarge as exc:
                    raise InputError("<command line>", "--forwarding listed",
                                     str(exc)) from None
                except TooManySlots as exc:
                    raise InputError(args.schedule, "--forwarding pipelined",
                                     f"the lags read every message slot of a period, "
                                     f"{_magnitude(exc.slots)} here (at most {MAX_SLOTS}): "
                                     "use --forwarding period or listed") from None
            platform, shown = schedule.platform, schedule
        else:
            platform, choice, source = _planned_horizon(args, horizon, most, bar)
            shown = None
        if choice is not None:
            bar.stage("count and check")
            report, plan = _horizon_report(platform, choice, source, args.max_events,
                                           args.schedule is None)
    if choice is None:
        if rejected(checked):
            return 1
        return collective.simulate_file(args, schedule, checked, horizon)
    if shown is None:
        shown = choice.best.table.schedule(choice.result)
    if args.output:
        _write_chosen(platform, choice, args.output)
    if args.plan:
        if plan is None:
            raise InputError("<command line>", "--plan", f"the plan needs "
                             f"{report.transfers} message transfers, more than "
                             f"--max-events {args.max_events}: raise it")
        write_output(args.plan, plan.to_json())
    if args.plot:
        _horizon_plot(shown, report, args.plot)
    if args.json:
        print_json(report.to_dict())
    else:
        _print_simulation(report, shown, args.output, args.plan)
    for violation in report.violations[:20]:
        print(one_line(f"steady: simulation: {violation}"), file=sys.stderr)
    return 1 if report.violations else 0


def _most_messages(text):
    """--max-messages: the largest M tried (None: the effort's ladder)."""
    if text is None:
        return None
    return options.check_integer(text, "--max-messages", 1, 10 ** 6)


def _magnitude(n: int) -> str:
    """``n`` in words short enough for one line, whatever its size (no str() of a
    4000-digit int)."""
    if n < 10 ** 12:
        return str(n)
    return f"about 10^{int(n.bit_length() * 0.30103)}"


def _planned_horizon(args, horizon, most, bar):
    """(platform, choice, optimum's source) for a platform: the candidate table of
    steady.simulate.choose at the asked effort (``bar`` shows the M under way, out of
    the effort's ladder: the chooser may stop it early)."""
    from ..schedule.effort import effort
    from ..simulate.choose import LISTED, horizon_choice
    from ..simulate.plan import TooLarge
    from ..throughput import throughput

    platform, _ = load_platform(args.platform)
    rules = (args.forwarding,) if args.forwarding else None
    ladder = [m for m in effort(args.effort).ladder if most is None or m < most]
    ladder += [most] if most is not None else []
    bar.stage("exact throughput")
    result = throughput(platform, "trees")
    bar.stage("timed schedules")

    def tried(m):
        bar.item(ladder.index(m) if m in ladder else 0, len(ladder), f"M = {m}")

    try:
        choice = horizon_choice(platform, result, horizon, args.effort, rules, most,
                                tried, args.max_events)
    except TooLarge as exc:
        raise InputError("<command line>", "--forwarding listed", str(exc)) from None
    if rules == (LISTED,) and choice.best.forwarding != LISTED:   # pragma: no cover
        raise AssertionError("the list run was asked for")
    return platform, choice, "exact optimum"


def _horizon_report(platform, choice, source: str, max_events: int, chosen: bool):
    """(report, plan or None): the chosen candidate's plan materialised, checked and
    counted when it fits ``max_events`` message transfers, else its exact count; with
    shared links whose k-rows bind, the fixed-speed bound beside it."""
    from ..simulate.choose import LISTED, message_transfers
    from ..simulate.horizon import counted_report, largest_checkable, plan_report, \
        with_fixed_speed

    best = choice.best
    k, optimum = choice.horizon, choice.optimum
    lengths = best.phases
    if best.routed_cleanup:   # J is the clean-up routed afresh, the same for every B
        from ..simulate.rerouted import routed_cleanup

        lengths = replace(lengths, cleanup=routed_cleanup(best.pattern,
                                                          best.pattern.warmup).length)
    fields = dict(batches=best.batches or 0, phases=lengths,
                  forwarding=best.forwarding,
                  throughput=Fraction(best.table.messages) / best.table.period_time,
                  choice=choice.to_dict() if chosen else None)
    needed = message_transfers(best, k, optimum)
    plan = None
    if needed > max_events:
        largest = (None if best.forwarding == LISTED
                   else largest_checkable(best.pattern, lengths, max_events))
        report = counted_report(k, optimum, best.delivered, needed, largest, source,
                                **fields)
    else:
        plan = best.plan(k, optimum)
        if best.forwarding == LISTED:
            fields.update(_listed_fields(plan, k, best.table.period_time))
        report = plan_report(plan, k, optimum, best.delivered, source, **fields)
    return with_fixed_speed(report, platform), plan


def _listed_fields(plan, horizon, period) -> dict:
    """What a list run's report shows: no phases, the broadcasts placed, the first and
    last counted completions."""
    limit = Fraction(horizon) * plan.unit
    done = sorted(Fraction(c, plan.unit) for c in plan.completion()
                  if c is not None and c <= limit)
    return {"phases": None, "batches": 0, "completion": tuple(done),
            "listed": {"broadcasts": plan.broadcasts,
                       "first": done[0] if done else Fraction(0),
                       "last": done[-1] if done else Fraction(0),
                       "period": period,
                       "messages_per_period": plan.about["messages_per_period"]}}


def _write_chosen(platform, choice, path) -> None:
    """-o: the chosen timetable as a version 2 file, verified first."""
    from ..verify import verify

    schedule = choice.best.table.schedule(choice.result)
    checked = verify(platform, schedule)   # the independent checker first
    if rejected(checked):  # pragma: no cover - the timetable is checked already
        raise AssertionError("the chosen timed schedule is rejected by the verifier")
    write_output(path, schedule.to_json())


def _rejected(platform, schedule, optimality: bool) -> int:
    """Exit code 1 after listing the violations if ``steady verify`` rejects it, else 0."""
    from ..verify import verify

    return 1 if rejected(verify(platform, schedule, optimality=optimality)) else 0


def _print_simulation(report, schedule, written=None, plan_file=None) -> None:
    def n(x):   # no file here: an abbreviated number is in full with --json
        return number(x, IN_JSON)

    if report.simulated:
        rules = ("one-port, causality and shared links"
                 if getattr(schedule.platform, "network", None) else "one-port and causality")
        checked = (f"yes: {report.transfers} message transfers, {rules} "
                   f"checked" + ("" if not report.violations else ", VIOLATIONS below"))
    else:
        fits = report.largest_checkable
        checked = (f"no: {n(report.batches)} batches need {n(report.transfers)} message "
                   f"transfers (> --max-events); "
                   + (f"horizons up to {exact(fits, IN_JSON)} can be simulated"
                      if fits is not None else "not even one batch fits: raise --max-events"))
    shape = (f"timed, {schedule.transfer_count} transfers" if schedule.version == 2
             else f"{len(schedule.steps)} steps")
    m = schedule.messages_per_period
    own = report.throughput / report.optimum if report.optimum else None
    # The ladder of M stops early (a period longer than K, or values that cannot catch
    # up with the best): say so, or "tried M = 1, 2" looks like a truncated list.
    ladder = ("up the ladder of M of --effort, until larger M could not deliver more "
              "by K")
    if report.choice is not None:
        tried = sorted({c["max_messages"] for c in report.choice["candidates"]})
        grown = report.choice.get("regrown")
        which = (f"picked for K: M <= {report.choice['max_messages']} gives "
                 f"{m} {plural(m, 'message')} per period ({shape}"
                 + (f"; trees regrown by earliest arrival {grown}" if grown else "")
                 + f"); tried M = {', '.join(map(str, tried))} ({ladder})")
        if report.listed is not None:
            which = ("picked for K: the trees of the best ratio tried"
                     + (f", regrown by earliest arrival {grown}" if grown else "")
                     + f", {m} {plural(m, 'message')} per period ({shape}); tried M = "
                     f"{', '.join(map(str, tried))} ({ladder})")
    else:
        which = f"the file's ({shape})"
    source = {"exact optimum": "solved exactly",
              "certificate": "from the schedule's certificate"}.get(
                  report.optimum_source, report.optimum_source)
    rows = [
        ("horizon K", f"{n(report.horizon)} time units"),
        ("delivered", f"{n(report.delivered)} {plural(report.delivered, 'message')} "
                      + (f"({n(report.batches)} {plural(report.batches, 'batch')} unrolled), "
                         if report.listed is None else "")
                      + "each held by every node by K"),
        ("upper bound", f"{n(report.bound)}: K x the optimal throughput "
                        f"{n(report.optimum)} ({source}); no schedule delivers more "
                        "(K·TP*, 002 Lemma 7)"),
        ("ratio", "-" if report.ratio is None else n(report.ratio)),
        *_fixed_speed_rows(report, n),
        ("schedule", which),
        ("its ratio", ("-" if own is None else f"{n(own)} of the optimum (throughput "
                       f"{n(report.throughput)})") + f"; {_rule_text(report)}")]
    rows += _phase_rows(report, n) + [("simulated", checked)]
    hint = _cannot_run_hint(report, schedule)
    if hint:
        rows.append(("note", hint))
    if written:
        rows.append(("file", f"{written} (the schedule, steady-schedule version 2)"))
    if plan_file:
        rows.append(("plan", f"{plan_file} (steady-plan: steady run {plan_file} executes "
                             "it)"))
    print_sheet(rows)


def _cannot_run_hint(report, schedule) -> str | None:
    """Why nothing (or almost nothing) was delivered, when the schedule's period is
    too long for the horizon: say so and name the short periods (issue 45)."""
    if report.listed is not None or report.batches or report.delivered:
        return None
    if schedule.period <= report.horizon and schedule.messages_per_period <= timed.HUGE:
        return None
    return (f"one period of this schedule lasts {timed.magnitude(schedule.period)} time "
            f"units, longer than K: nothing can be delivered"
            + (" (it cannot run in any horizon of practical length)"
               if schedule.messages_per_period > timed.HUGE else "")
            + "; a short period runs: steady schedule PLATFORM --max-messages 1000, or "
              "steady simulate PLATFORM, which picks one for K")


def _fixed_speed_rows(report, n) -> list[tuple[str, str]]:
    """With shared links whose k-rows bind: K times the fixed-speed bound (no schedule
    whose transfers keep their speed delivers more) and the ratio to it."""
    total = report.fixed_speed_total
    if total is None:
        return []
    return [("fixed-speed bound", f"{n(total)} (K x {n(report.fixed_speed)}: transfers "
                                  "keep their speed, so arcs holding more than 1/(k+1) of "
                                  "a shared link run at most k at once; "
                                  "proofs/network-links.md)"),
            ("ratio to it", n(report.delivered / total))]


def _rule_text(report) -> str:
    if report.listed is not None:
        return "no periods: the broadcasts list scheduled over its trees"
    rule = {"period": "forwarding one period later (002 §5.5)",
            "pipelined": "pipelined forwarding (lags from the timetable)"}[report.forwarding]
    if (report.choice or {}).get("routed_cleanup"):
        rule += "; clean-up routed afresh, off the trees"
    return rule


def _phase_rows(report, n) -> list[tuple[str, str]]:
    """I, J and the period beside the two constructions they improve on (the plain
    unrolling, W whole periods, and the paper's routing one message at a time, §5.5);
    for a list run, what it placed and when the first and last counted broadcasts
    reached every node."""
    run = report.listed
    if run is not None:
        rows = [("list run", f"{run['broadcasts']} broadcasts placed (as many as the upper "
                             "bound allows); the "
                             f"first held by every node at {n(run['first'])}, the last "
                             f"counted at {n(run['last'])}")]
        periods = [c["delivered"] for c in (report.choice or {}).get("candidates", ())
                   if c["forwarding"] != "listed"]
        if periods:
            rows.append(("periods", f"the best unrolled periods deliver {max(periods)}"))
        return rows
    p = report.phases
    plain = f"whole periods, W x period: {n(p.pipelined)}"
    return [("warm-up", f"{n(p.init)} time units ({plain}; the paper's construction, one "
                        f"message at a time: {n(p.paper_init)}; its I)"),
            ("clean-up", f"{n(p.cleanup)} time units ({plain}; the paper's construction: "
                         f"{n(p.paper_cleanup)}; its J)"),
            ("period", f"{n(p.period)} time units, {n(p.messages_per_period)} "
                       f"{plural(p.messages_per_period, 'message')}; W = "
                       f"{p.warmup_periods} {plural(p.warmup_periods, 'period')} of "
                       "warm-up")]


def _horizon_plot(schedule, report, path) -> None:
    from ..present.horizon import horizon_plot

    try:
        horizon_plot(schedule, report, path)
    except OSError as exc:
        raise write_error(path, exc) from None


def _cmd_pipe(args) -> int:
    """``steady pipe``: one message of size L cut into slices (002 §6, Theorem 8)."""
    from ..simulate.pipe import PipePlanner, best_slices, pipe_makespan, pipe_paper
    from ..progress import StageBar

    size = options.positive_exact(args.size, "--size")
    choice, slices = _slices_option(args.slices)
    platform, origin = load_platform(args.platform)
    with StageBar(["exact throughput", "exhaustive", "paper's slicing", "geometric scan",
                   "refinement"], args.quiet) as bar:
        bar.stage("exact throughput")
        planner = PipePlanner(platform)
        if choice == "auto":
            result = best_slices(platform, size, planner=planner, progress=bar.stage)
        elif choice == "paper":
            result = pipe_paper(platform, size, planner=planner)
        else:
            result = pipe_makespan(platform, size, slices, planner=planner)
    if args.json:
        doc = {"platform": platform.name or origin, "choice": choice}
        doc.update(result.to_dict())
        print_json(doc)
        return 0
    _print_pipe(platform, origin, choice, result)
    return 0


#: The largest --slices accepted (a finite schedule of that many slices is simulated).
MAX_SLICES = 10 ** 6


def _slices_option(text: str) -> tuple[str, int | None]:
    """``--slices``: ("auto", None), ("paper", None) or ("given", N) with N >= 1."""
    choice = text
    if choice in ("auto", "paper"):
        return choice, None
    try:
        return "given", options.check_integer(choice, "--slices", 1, MAX_SLICES)
    except InputError as exc:
        raise InputError("<command line>", "--slices",
                         f"expected auto, paper or an integer: {exc.reason}") from None


def _print_pipe(platform, origin, choice: str, result) -> None:
    def both(x):   # no file here: an abbreviated number is in full with --json
        return number(x, IN_JSON)

    how = {"auto": f"best of {result.evaluated} slice counts scanned",
           "paper": "the paper's ν = ceil(sqrt L) slices of size ν",
           "given": "--slices"}[choice]
    slice_text = both(result.slice_size)
    if result.padded:
        slice_text += f", padded message {both(result.slices * result.slice_size)}"
    rows = [("platform", platform_text(platform, origin)),
            ("size L", both(result.size)),
            ("slices", f"{result.slices} ({how})"),
            ("slice size", slice_text),
            ("makespan", both(result.makespan)),
            ("lower bound", f"{both(result.lower_bound)}: L x the time per unit of "
                            "message at the optimal throughput; no schedule is faster "
                            "(L·T*, 002 Lemma 7)"),
            ("ratio", f"{both(result.ratio)} (makespan / lower bound; 002 Theorem 8: "
                      "it tends to 1 as L grows)"),
            ("schedule", f"{result.pattern} periodic pattern: M = "
                         f"{exact(result.messages_per_period, IN_JSON)} "
                         f"{plural(result.messages_per_period, 'slice')} per period, "
                         f"{result.batches} batches, "
                         + per_time_unit(result.throughput_of_slices, "slice", IN_JSON)
                         + {"period": "; forwarding one period later (002 §5.5)",
                            "pipelined": "; pipelined forwarding (lags from the "
                                         "timetable)"}[result.forwarding])]
    if result.scan_limit is not None:
        rows.append(("scan", _scan_text(result)))
    print_sheet(rows)


def _scan_text(result) -> str:
    """Why no slice count beyond the scan does better, in words (--json keeps the
    proof's terse form)."""
    limit = result.scan_limit
    if result.scan_proof.startswith("bound"):
        return (f"slice counts up to {limit}; more cannot do better: from {limit} slices "
                "on, the start-ups and transfers some node must receive already take at "
                "least the makespan found")
    return f"slice counts up to {limit} (the cap); larger counts were not tried"


def _optional_platform(parser) -> None:
    parser.add_argument("platform", nargs="?", type=options.input_file,
                        help="steady-platform v1 file "
                        "(default: the embedded platform of 002 Figure 1)")


def add_commands(sub) -> None:
    """Add the commands of seed 002's pipeline to the ``steady`` subparsers ``sub``."""
    tp = sub.add_parser("throughput", help="exact optimal steady-state throughput",
                        description="Exact optimal number of broadcasts per time unit "
                                    "from the platform's source, with a certificate "
                                    "checked exactly (paper 002 §5.2). Words: "
                                    "docs/glossary.md.")
    _optional_platform(tp)
    mode = tp.add_mutually_exclusive_group()
    mode.add_argument("--dag", action="store_true",
                      help="the problem on an acyclic platform (SSBPDAG, 002 §4.1); "
                           "the platform must be a DAG")
    mode.add_argument("--tree", metavar="TREEFILE", type=options.input_file,
                      help="the throughput of this one broadcast tree (002 §3.1.2)")
    tp.add_argument("--method", choices=("cuts", "trees", "flow"), default=None,
                    help="LP formulation for the graph problem: min-cut cutting planes "
                         "(default, fastest), tree column generation, or the paper's "
                         "per-destination flow LP (reference; small platforms)")
    tp.add_argument("--collective", choices=("broadcast", "allgather", "reduce-scatter",
                                             "allreduce"),
                    help="the exact optimal rate of a collective (the default "
                         "on a multi-port or switched platform: broadcast)")
    tp.add_argument("--sources", metavar="A,B,...", type=collective.COMMA_LIST,
                    help="broadcast from these compute nodes (default: the source)")
    tp.add_argument("--rates", metavar="R1,R2,...", type=collective.COMMA_LIST,
                    help="relative rates of --sources (exact numbers > 0; default all 1)")
    tp.add_argument("--size", metavar="S", type=options.exact(),
                    help="also the time of a collective of S units of data (S / algbw)")
    tp.add_argument("--no-symmetry", action="store_true",
                    help="ignore the platform's symmetry (solve every root)")
    tp.add_argument("--json", action="store_true", help="machine-readable output")
    tp.add_argument("--quiet", action="store_true", help="no progress on stderr")
    tp.set_defaults(run=_cmd_throughput)

    sc = sub.add_parser("schedule", help="the optimal periodic schedule, verified "
                        "(002 §5.4.2)",
                        description="The exact optimum, its broadcast trees with their "
                                    "weights (002 Theorem 5), the steps of one period in "
                                    "which each node sends and receives on one link at a "
                                    "time (matchings, Theorem 6), and the period "
                                    "(002 §5.4.2); the independent verifier runs before "
                                    "anything is written. Words: docs/glossary.md.")
    _optional_platform(sc)
    sc.add_argument("-o", "--output", metavar="FILE", type=options.output_file,
                    help="write the schedule: a steady-schedule version 1 file (steps); "
                         "version 2 (a timetable) with --max-messages, --max-period or "
                         "--ratio, unless --steps")
    sc.add_argument("--method", choices=("trees", "cuts", "flow"), default="trees",
                    help="throughput formulation: trees (default; its trees are reused), "
                         "or cuts / flow followed by the combinatorial construction of "
                         "the trees (002 Theorem 5)")
    sc.add_argument("--dag", action="store_true",
                    help="the schedule of an acyclic platform (002 §4.3 Theorem 2): "
                         "node heights, layers of q time units, their trees (--method "
                         "does not apply); the platform must be a DAG")
    sc.add_argument("--json", action="store_true", help="machine-readable summary")
    sc.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    timed.add_schedule_options(sc)
    collective.add_options(sc)
    sc.set_defaults(run=_cmd_schedule)

    ve = sub.add_parser("verify", help="check a schedule file independently",
                        description="Check every rule of steady-schedule v1 and (unless "
                                    "--no-optimality) the optimality certificate; with "
                                    "--msccl FILE.xml, an MSCCL algorithm file instead. "
                                    "Exit 0 valid, 1 invalid, 2 unreadable input.")
    ve.add_argument("platform", nargs="?", type=options.input_file,
                    help="steady-platform v1 file")
    ve.add_argument("schedule", nargs="?", type=options.input_file,
                    help="steady-schedule file, or a steady-plan file (steady simulate "
                         "--plan)")
    ve.add_argument("--min-ratio", metavar="R", help="a timed (version 2) schedule's "
                    "certified ratio to the optimum must be >= R (exit 1 below it)")
    ve.add_argument("--no-optimality", action="store_true",
                    help="do not require the throughput to be the platform's optimum")
    ve.add_argument("--json", action="store_true", help="machine-readable report")
    ve.add_argument("--collective", choices=collective.KINDS,
                    help="the collective the file (a schedule or a plan) must serve "
                         "(recognised from it; a mismatch exits 2)")
    runtimes.add_verify_options(ve)
    ve.set_defaults(run=_cmd_verify)

    sh = sub.add_parser("show", help="print one period of a schedule, draw its Gantt chart")
    sh.add_argument("schedule", nargs="?", type=options.input_file,
                    help="steady-schedule v1 file")
    sh.add_argument("--gantt", metavar="FILE", type=options.output_file,
                    help="write a Gantt chart (.png or .svg; "
                    "needs the 'plot' extra: pip install 'steady[plot]')")
    mpi.add_show_options(sh)
    sh.set_defaults(run=_cmd_show)

    pi = sub.add_parser("pipe", help="broadcast one message of size L in slices "
                        "(PIPE, 002 §6)",
                        description="Cut a message of size L into slices (a slice of size m "
                                    "costs startup + m·cost on a link) and broadcast them "
                                    "with an unrolled periodic schedule; the exact "
                                    "makespan against the lower bound L x the time per "
                                    "unit at the optimal throughput (002 §6, Lemma 7).")
    _optional_platform(pi)
    pi.add_argument("--size", required=True, metavar="L",
                    type=options.exact(options.MAX_PIPE_SIZE, options.MAX_PIPE_DIGITS),
                    help="message size L (exact: integer, p/q or decimal; > 0, at most "
                         "10^15: docs/limits.md)")
    pi.add_argument("--slices", default="auto", metavar="auto|paper|N",
                    help="auto (default): search the number of equal slices; paper: "
                         "ν = ceil(sqrt L) slices of size ν (002 §6); N: N equal slices")
    pi.add_argument("--json", action="store_true", help="machine-readable output")
    pi.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    pi.set_defaults(run=_cmd_pipe)

    si = sub.add_parser("simulate", help="a finite horizon: warm-up, steady state, "
                        "clean-up, simulated message by message (002 §5.5)",
                        description="Messages every node holds by the horizon K, against "
                                    "K x the optimal throughput, which no schedule beats "
                                    "(002 Lemma 7); the lengths of warm-up and clean-up; a "
                                    "message-level simulation checking one-port and "
                                    "causality when it fits. With a platform, the short "
                                    "timed schedule (M messages per period) that delivers "
                                    "the most by K is picked. Words: docs/glossary.md.")
    source = si.add_mutually_exclusive_group()
    source.add_argument("platform", nargs="?", type=options.input_file,
                        help="steady-platform v1 file: simulate the "
                        "short timed schedule that suits the horizon best (default: the "
                        "embedded platform of 002 Figure 1)")
    source.add_argument("--schedule", metavar="FILE", type=options.input_file,
                        help="simulate this steady-schedule "
                        "file, version 1 or 2 (it is verified first, optimality not "
                        "required)")
    si.add_argument("--horizon", required=True, metavar="K", type=options.exact(),
                    help="time bound K (exact)")
    si.add_argument("--max-events", type=options.integer(1, options.MAX_EVENTS),
                    default=1_000_000, metavar="N",
                    help="budget of message transfers for the simulation (default 10^6)")
    si.add_argument("--plot", metavar="FILE", type=options.output_file,
                    help="draw the ratio against K (.png or .svg; "
                    "needs the 'plot' extra)")
    si.add_argument("--max-messages", metavar="M", help="with a platform: try timed "
                    "schedules of at most M messages per period (default: the effort's "
                    "ladder, up to 1000)")
    options.add_effort(si)
    si.add_argument("--forwarding", choices=("period", "pipelined", "listed"),
                    help="period: a node forwards one period after receiving (002 §5.5, "
                         "the files' rule; the default with --schedule); pipelined: as soon "
                         "as the timetable allows (lags computed from it); listed: no "
                         "periods, the broadcasts list scheduled over the schedule's trees "
                         "(each port waits only for data); default with a platform: the "
                         "best of those --effort tries (pipelined at fast and default, "
                         "all three at thorough)")
    si.add_argument("-o", "--output", metavar="FILE", type=options.output_file,
                    help="with a platform: write the chosen timed schedule (version 2)")
    si.add_argument("--plan", metavar="FILE", type=options.output_file,
                    help="write the plan counted here (steady-plan: every transfer with "
                         "its planned start; steady run FILE executes it)")
    si.add_argument("--json", action="store_true", help="machine-readable output")
    si.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    collective.add_options(si, size=False)
    si.set_defaults(run=_cmd_simulate)
