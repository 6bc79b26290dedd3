"""What rank 0 makes of the outcomes of a run (ours): delivery verdict, measured and
predicted throughputs, port busy fractions, lateness of the emulation, and the trace
document (steady-trace version 1, docs/formats.md).

Measured times are integers (nanoseconds of the monotonic clock), so every rate is an
exact fraction of measured integers: broadcasts per second = K·10^9 / makespan, per
platform time unit = K·unit / makespan (unit = the time unit in nanoseconds).  The
*makespan* is the real time from the common start until the last rank held every
message (its last transfer's emulated end had passed and its data was there).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from ..numbers import format_exact
from .units import ns_text

TRACE_FORMAT = "steady-trace"
TRACE_VERSION = 1


@dataclass
class Measured:
    """One algorithm's run: its plan (None for the library's own MPI_Bcast) and every
    rank's :class:`~steady.run.engine.Outcome` (by rank)."""

    name: str
    plan: object
    outcomes: list
    broadcasts: int
    source_rank: int
    unit_ns: int | None
    predicted: Fraction | None = None      # broadcasts per time unit, planned
    notes: dict = field(default_factory=dict)

    @property
    def emulated(self) -> bool:
        return self.unit_ns is not None

    @property
    def makespan_ns(self) -> int:
        return max(o.done_ns for r, o in enumerate(self.outcomes) if r != self.source_rank)

    @property
    def delivered_ok(self) -> bool:
        """Every rank got every broadcast exactly once, in order, with good checksums."""
        return all(o.ok and o.missing == 0 and o.delivered == self.broadcasts
                   for o in self.outcomes)

    @property
    def per_second(self) -> Fraction:
        return Fraction(self.broadcasts * 10 ** 9, max(self.makespan_ns, 1))

    @property
    def per_unit(self) -> Fraction | None:
        if not self.emulated:
            return None
        return Fraction(self.broadcasts * self.unit_ns, max(self.makespan_ns, 1))

    @property
    def ratio_to_predicted(self) -> Fraction | None:
        if self.per_unit is None or not self.predicted:
            return None
        return self.per_unit / self.predicted

    def late(self) -> tuple[int, int, int]:
        """(transfers whose data arrived after their emulated end, how many
        transfers, the largest delay in ns)."""
        late = sum(o.late for o in self.outcomes)
        total = sum(len(o.receives) for o in self.outcomes)
        return late, total, max((o.late_max_ns for o in self.outcomes), default=0)

    def problems(self) -> list[str]:
        """What went wrong with delivery, rank by rank (empty when delivered_ok)."""
        out = []
        for o in self.outcomes:
            kinds = [(o.missing, "missing"), (o.duplicates, "duplicated"),
                     (o.bad_checksums, "with a bad checksum"),
                     (o.out_of_order, "out of order"), (o.unplanned, "not the planned one")]
            said = [f"{n} {what}" for n, what in kinds if n]
            if o.delivered != self.broadcasts and not o.missing:
                said.append(f"{o.delivered} delivered in order")
            said += o.problems[:3]
            if said:
                out.append(f"rank {o.rank}: " + ", ".join(said))
        return out

    def port_busy(self, nodes) -> dict:
        """{node: (out fraction, in fraction)} of the makespan during which the port
        was held: a send from its begin to its emulated end (native: to its
        completion), a receive from the sender's begin until its data was available;
        overlapping holds (native runs keep several receives open) count once."""
        begins = {}
        for o in self.outcomes:
            for tid, begin, end, posted, completed in o.sends:
                begins[tid] = begin
        span = max(self.makespan_ns, 1)
        busy = {}
        for o in self.outcomes:
            out = _union([(begin, end if self.emulated else max(end, completed))
                          for tid, begin, end, posted, completed in o.sends])
            inn = _union([(begins[tid], available) for tid, arrival, available
                          in o.receives if tid in begins])
            busy[nodes[o.node]] = (Fraction(out, span), Fraction(inn, span))
        return busy

    def summary(self, optimum: Fraction | None) -> dict:
        """The exact numbers of this algorithm, as text (the --json entries)."""
        def text(x):
            return None if x is None else format_exact(x)

        late, total, worst = self.late()
        doc = {"algorithm": self.name, "delivered_ok": self.delivered_ok,
               "makespan_s": ns_text(self.makespan_ns),
               "measured_per_second": text(self.per_second),
               "measured_throughput": text(self.per_unit),
               "predicted_throughput": text(self.predicted),
               "ratio_to_predicted": text(self.ratio_to_predicted),
               "ratio_to_optimum": text(self.per_unit / optimum)
               if self.per_unit is not None and optimum else None}
        if self.emulated:
            doc.update({"late_transfers": late, "transfers": total,
                        "late_max_s": ns_text(worst)})
        return doc


def trace_document(measured: Measured, schedule_path: str, nodes, rank_of, size: int,
                   optimum: Fraction | None) -> dict:
    """Every transfer of the run with its planned and real times (docs/formats.md,
    steady-trace v1)."""
    plan = measured.plan
    sent = {}
    for o in measured.outcomes:
        for tid, begin, end, posted, completed in o.sends:
            sent[tid] = (begin, end, posted, completed)
    got = {}
    for o in measured.outcomes:
        for tid, arrival, available in o.receives:
            got[tid] = (arrival, available)
    rows = []
    for t in plan.transfers:
        row = {"id": t.id, "from": nodes[t.tail], "to": nodes[t.head], "tree": t.tree,
               "first": t.first, "count": t.count,
               "planned_start": format_exact(Fraction(t.release, plan.unit)),
               "planned_end": format_exact(Fraction(t.end, plan.unit))}
        if t.id in sent:
            begin, end, posted, completed = sent[t.id]
            row.update({"begin_ns": begin, "end_ns": end, "posted_ns": posted,
                        "completed_ns": completed})
        if t.id in got:
            row.update({"arrival_ns": got[t.id][0], "available_ns": got[t.id][1]})
        rows.append(row)
    return {"format": TRACE_FORMAT, "version": TRACE_VERSION, "schedule": schedule_path,
            "algorithm": measured.name, "nodes": list(nodes),
            "ranks": {nodes[n]: r for n, r in enumerate(rank_of)},
            "source": nodes[plan.source], "broadcasts": measured.broadcasts,
            "size_bytes": size,
            "mode": "emulated" if measured.emulated else "native",
            "time_unit_ns": measured.unit_ns,
            "planned_makespan": format_exact(plan.makespan_time),
            "makespan_ns": measured.makespan_ns,
            "optimum": None if optimum is None else format_exact(optimum),
            "delivered_ok": measured.delivered_ok,
            "transfers": rows}


def _union(spans) -> int:
    """Total length of the union of [begin, end) intervals."""
    total, reach = 0, None
    for begin, end in sorted(spans):
        if reach is None or begin > reach:
            total += end - begin
            reach = end
        elif end > reach:
            total += end - reach
            reach = end
    return total
