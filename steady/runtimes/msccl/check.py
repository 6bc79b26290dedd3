"""``steady verify --msccl FILE [PLATFORM]``: an independent checker of MSCCL algorithm
files (ours).  It imports no exporter: it reads the file as the executor does
(:mod:`.check_lexer`), applies the executor's structural rules and the ones it should
have (:mod:`.check_rules`), then runs one loop on symbolic chunks, in place and out of
place as the file declares (:mod:`.check_run`): no deadlock, no data race, and every
rank ends with what the collective promises (broadcast, allgather, reducescatter,
allreduce).  Given a platform, it also predicts the time of one loop.

A file the executor cannot read at all (or that has no ``<algo>``) is bad input
(:class:`~steady.errors.InputError`, exit code 2); everything else is a list of
violations (exit code 1 when there is one).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from ...errors import InputError, echo
from ...numbers import format_exact
from .check_lexer import Unreadable, read, xml_problem
from .check_rules import CProgram, Violation, program_of
from .check_run import run, semantic_violations
from .ranks import compute_nodes, rank_map, switches_of
from .runtime import SEMANTICS

#: The largest file read: a program within the executor's limits (64 ranks... 1024
#: ranks x 64 threadblocks x 64 steps of ~150 bytes) stays far below it.
MAX_FILE_BYTES = 64 * 2 ** 20


@dataclass
class MscclReport:
    """What ``steady verify --msccl`` found."""

    file: str
    violations: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    program: CProgram | None = None
    root: int | None = None
    modes: tuple = ()
    nodes: dict | None = None          # rank -> platform node
    makespan: Fraction | None = None
    busiest_port: Fraction | None = None
    busiest_threadblock: Fraction | None = None

    @property
    def ok(self) -> bool:
        return not self.violations

    @property
    def threadblocks(self) -> int:
        return sum(len(g.threadblocks) for g in self.program.gpus) if self.program else 0

    @property
    def steps(self) -> int:
        return len(self.program.steps) if self.program else 0

    def to_dict(self) -> dict:
        p = self.program
        doc = {"file": self.file, "valid": self.ok,
               "violations": [str(v) for v in self.violations], "notes": self.notes}
        if p is not None:
            doc.update({"collective": p.coll, "ranks": p.ngpus, "chunks_per_loop": p.chunks,
                        "protocol": p.proto, "channels": p.nchannels,
                        "threadblocks": self.threadblocks, "steps": self.steps,
                        "modes": list(self.modes), "root": self.root,
                        "semantics_checked": p.coll in SEMANTICS})
        if self.makespan is not None:
            doc.update({"loop_makespan": format_exact(self.makespan),
                        "busiest_port": format_exact(self.busiest_port),
                        "busiest_threadblock": format_exact(self.busiest_threadblock)})
        if self.nodes is not None:
            doc["nodes"] = {str(r): v for r, v in sorted(self.nodes.items())}
        return doc


def check_msccl(path, platform=None, given=None) -> MscclReport:
    """Check the MSCCL file at ``path``; ``platform`` (optional) gives the predicted
    time, ``given`` a partial node -> rank map (default: the file's ``node``
    attributes, else the platform's source first)."""
    origin = str(path)
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise InputError(origin, "file", f"cannot read: {exc.strerror or exc}") from None
    if len(data) > MAX_FILE_BYTES:
        raise InputError(origin, "file", f"larger than {MAX_FILE_BYTES // 2 ** 20} MiB "
                         "(docs/limits.md)")
    return check_bytes(data, origin, platform, given)


def check_bytes(data: bytes, origin: str = "<bytes>", platform=None,
                given=None) -> MscclReport:
    """:func:`check_msccl` on the file's content."""
    try:
        top = read(data)
    except Unreadable as exc:
        raise InputError(origin, f"line {exc.line}", "the MSCCL executor cannot read "
                         f"this file: {exc.reason}") from None
    if not any(e.name == "algo" for e in top):
        raise InputError(origin, "algo", "no <algo> element: not an MSCCL algorithm file")
    report = MscclReport(origin)
    problem = xml_problem(data)
    if problem is not None:
        report.violations.append(Violation("xml", "file", f"the executor reads it, but it "
                                           f"is not well-formed XML for other tools: {problem}"))
    program, found = program_of(top)
    report.violations += found
    if program is None:
        return report
    report.program = program
    pair_time = None
    if platform is not None:
        pair_time = _platform_times(program, platform, given, origin, report)
    report.modes = tuple(m for m, on in (("inplace", program.inplace),
                                         ("outofplace", program.outofplace)) if on)
    for k, mode in enumerate(report.modes):
        result = run(program, mode, pair_time if k == 0 else None)
        if k == 0:
            report.violations += result.deadlock
            if result.makespan is not None and pair_time is not None and not result.deadlock:
                report.makespan = result.makespan
                report.busiest_port = max(result.ports.values(), default=Fraction(0))
                report.busiest_threadblock = max(result.busy.values(), default=Fraction(0))
        if result.deadlock:
            break
        report.violations += result.races
        root, wrong = semantic_violations(program, result)
        report.root = root if report.root is None else report.root
        report.violations += wrong
    _notes(program, report)
    return report


def _notes(program: CProgram, report: MscclReport) -> None:
    n = program.chunks
    if n & (n - 1):
        report.notes.append(f"nchunksperloop is {n}: the executor takes this file only "
                            f"for calls whose element count"
                            + (" x ngpus" if program.coll in ("allgather", "reducescatter",
                                                              "alltoall") else "")
                            + f" is a multiple of {n} (msccl_lifecycle.cc:334)")
    if program.coll == "broadcast" and report.root is not None:
        report.notes.append(f"a broadcast from rank {report.root}: call it with root "
                            f"{report.root} (the executor selects the file for any root)")
    if program.coll not in SEMANTICS:
        report.notes.append(f"no model of '{program.coll}': structure and deadlock "
                            "checked, not the result")


def _platform_times(program: CProgram, platform, given, origin: str, report):
    """rank -> node, and the time of a meeting between two ranks on ``platform``; a
    rank pair the platform does not link is a violation."""
    nodes = compute_nodes(platform)
    if len(nodes) != program.ngpus:
        raise InputError(origin, "ngpus", f"{program.ngpus} ranks, but the platform has "
                         f"{len(nodes)} compute nodes")
    named = [g.node for g in program.gpus]
    if given is None and all(v is not None for v in named):
        unknown = [v for v in named if v not in nodes]
        if unknown or len(set(named)) != len(named):
            raise InputError(origin, "gpu node", f"the file's node names do not match the "
                             f"platform's compute nodes ({echo(unknown[:3] or named)})")
        node_of = dict(enumerate(named))
    else:
        node_of = {r: v for v, r in rank_map(platform, platform.source, given).items()}
    report.nodes = node_of
    links = _paths(platform)
    missing = set()
    for st in program.steps:
        if st.partner_out is not None:
            a, b = st.rank, st.partner_out.rank
            if (node_of[a], node_of[b]) not in links and (a, b) not in missing:
                missing.add((a, b))
                report.violations.append(Violation(
                    "platform", st.where, f"gpu {a} ({echo(node_of[a])}) sends to gpu {b} "
                    f"({echo(node_of[b])}): the platform has no link between them"))
    if missing:
        return None

    def pair_time(a: int, b: int, cnt: int) -> Fraction:
        cost, startup = links[node_of[a], node_of[b]]
        return startup + cnt * cost

    return pair_time


def _paths(platform) -> dict:
    """(u, v) -> (cost, start-up) between compute nodes: the arc u -> v, or a path
    whose inner nodes are all switches, at its slowest link (switches forward without
    storing) plus its links' start-ups; the path with the cheapest slowest link."""
    switches = switches_of(platform)
    out = {}
    for link in platform.links:
        out.setdefault(link.tail, []).append(link)
    found = {}
    for u in compute_nodes(platform):
        best = {u: (Fraction(0), Fraction(0))}
        frontier = [u]
        while frontier:
            x = frontier.pop()
            for link in out.get(x, ()):
                v = link.head
                cand = (max(best[x][0], link.cost), best[x][1] + link.startup)
                if v != u and (v not in best or cand < best[v]):
                    best[v] = cand
                    if v in switches:
                        frontier.append(v)
        for v, value in best.items():
            if v != u and v not in switches:
                found[u, v] = value
    return found
