"""The independent checker of hierarchical-broadcast schedules (001 §3, our model).

It reads only the grid and the schedule's recorded numbers, never the code that built
them, and lists every broken rule:

1. every cluster but the root's receives the message exactly once; the root's never;
2. a sender has the message when its send starts (the root from time 0 on);
3. a send from i to j ends at start + g_ij and arrives at end + L_ij;
4. no coordinator sends two messages at once (its [start, end) intervals are disjoint);
5. a coordinator starts its intra-cluster broadcast once it has the message and its
   sends are over, and finishes it T_k later;
6. the makespan is the latest finish.

:func:`check` is the runtime postcondition of every heuristic and of the exact optimum.
"""

from __future__ import annotations

from .model import Grid


def violations(grid: Grid, schedule) -> list[str]:
    """The broken rules of ``schedule`` on ``grid``, in words (empty when it is valid)."""
    n, names = grid.size, grid.names
    found: list[str] = []
    arrival = [None] * n
    arrival[grid.root] = 0
    for s in schedule.sends:
        if not (0 <= s.sender < n and 0 <= s.receiver < n) or s.sender == s.receiver:
            found.append(f"send {s.sender}->{s.receiver}: not a pair of distinct clusters")
            continue
        if s.receiver == grid.root:
            found.append(f"{names[s.receiver]} (the root's cluster) receives the message")
        elif arrival[s.receiver] is not None:
            found.append(f"{names[s.receiver]} receives the message twice")
        else:
            arrival[s.receiver] = s.arrival
    if found:
        return found
    missing = [names[k] for k in range(n) if arrival[k] is None]
    if missing:
        found.append("never receive the message: " + ", ".join(missing))
        return found
    busy: dict[int, list] = {}
    for s in schedule.sends:
        i, j = s.sender, s.receiver
        pair = f"{names[i]}->{names[j]}"
        if s.start < arrival[i]:
            found.append(f"{pair} starts at {s.start}, before {names[i]} has the message "
                         f"({arrival[i]})")
        if s.end != s.start + grid.g[i][j]:
            found.append(f"{pair} ends at {s.end}, not start + g = {s.start + grid.g[i][j]}")
        if s.arrival != s.end + grid.L[i][j]:
            found.append(f"{pair} arrives at {s.arrival}, not end + L = "
                         f"{s.end + grid.L[i][j]}")
        busy.setdefault(i, []).append((s.start, s.end))
    for i, intervals in busy.items():
        intervals.sort()
        for (_, end), (start, _) in zip(intervals, intervals[1:]):
            if start < end:
                found.append(f"{names[i]} sends two messages at once (at {start})")
    for k in range(n):
        free = max([arrival[k]] + [end for _, end in busy.get(k, [])])
        if schedule.broadcast_start[k] < free:
            found.append(f"{names[k]} broadcasts inside its cluster at "
                         f"{schedule.broadcast_start[k]}, before {free}")
        if schedule.finish[k] != schedule.broadcast_start[k] + grid.T[k]:
            found.append(f"{names[k]} finishes at {schedule.finish[k]}, not its start + T")
    if schedule.makespan != max(schedule.finish):
        found.append(f"makespan {schedule.makespan} is not the latest finish "
                     f"{max(schedule.finish)}")
    return found


def check(grid: Grid, schedule) -> None:
    """Runtime postcondition: raise AssertionError naming the first broken rule."""
    found = violations(grid, schedule)
    if found:
        raise AssertionError(f"postcondition ({schedule.heuristic}): {found[0]}")
