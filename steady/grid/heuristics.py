"""The scheduling heuristics of seed 001 §4-§5 and §7, on the cluster model.

Each takes a :class:`~steady.grid.model.Grid` and returns the full
:class:`~steady.grid.schedule.GridSchedule` (who sends to whom, when) and its exact
makespan, checked by the independent checker (:func:`steady.grid.check.check`) and
against the shortest-arrival lower bound before it is returned.

Shared rules (our choices where the paper leaves one open):

* One decision is a pair (i in A, j in B); the send is timed by
  :class:`~steady.grid.schedule.Broadcast` (it starts at RT_i).  A heuristic that ignores
  ready times (Flat Tree, FEF, BottomUp) still waits for them: a sender chosen before it
  has the message or is free blocks until it is (001 §4.3's remark on FEF).
* Ties: the pair whose receiver comes first in the file, then whose sender does.
* c_ij = g_ij(m) + L_ij, the time from the start of a send to its arrival.
* Lookahead functions F_j range over k in B \\ {j}; F_j = 0 when j is the last cluster of
  B (then every candidate pair has the same j, so F_j cannot change the choice).
"""

from __future__ import annotations

from typing import Callable

from .check import check
from .model import Grid
from .schedule import Broadcast, GridSchedule, lower_bound


def _transfers(grid: Grid) -> list[list]:
    """c_ij = g_ij + L_ij for every pair."""
    n = grid.size
    return [[grid.g[i][j] + grid.L[i][j] for j in range(n)] for i in range(n)]


def _checked(grid: Grid, state: Broadcast, heuristic: str) -> GridSchedule:
    schedule = state.schedule(heuristic)
    check(grid, schedule)
    if schedule.makespan < lower_bound(grid):
        raise AssertionError(f"postcondition ({heuristic}): makespan {schedule.makespan} "
                             "below the shortest-arrival bound")
    return schedule


class _Senders:
    """For every j in B its best sender: min over i in A of (offset_i + w_ij, i), with
    offset_i = RT_i (``use_ready``) or 0.  Kept up to date after each send: the new
    member of A is one more candidate, and a sender whose RT grew is only looked at again
    for the receivers whose best it was (an RT never decreases).  This makes a heuristic
    O(n^2) on typical grids instead of O(n^3), with the same ties: smallest i."""

    __slots__ = ("state", "w", "use_ready", "best")

    def __init__(self, state: Broadcast, w, use_ready: bool):
        self.state, self.w, self.use_ready = state, w, use_ready
        root = state.grid.root
        self.best = {j: (self._offset(root) + w[root][j], root) for j in state.B}

    def _offset(self, i):
        return self.state.ready[i] if self.use_ready else 0

    def send(self, i0: int, j0: int) -> None:
        """``state.send(i0, j0)``, then update the best senders."""
        state, w = self.state, self.w
        state.send(i0, j0)
        del self.best[j0]
        offset = self._offset(j0)
        for j in state.B:
            if self.use_ready and self.best[j][1] == i0:
                self.best[j] = min((state.ready[i] + w[i][j], i) for i in state.A)
            else:
                self.best[j] = min(self.best[j], (offset + w[j0][j], j0))


class _Lookahead:
    """F_j = min (or max, ``largest``) over k in B \\ {j} of w_jk, 0 when B = {j}.  Each j
    walks its own row sorted by w, skipping the clusters that left B: amortised O(1)."""

    __slots__ = ("w", "in_B", "order", "pos")

    def __init__(self, w, B, largest: bool):
        self.w = w
        self.in_B = set(B)
        self.order = {j: sorted((k for k in B if k != j), key=w[j].__getitem__,
                                reverse=largest) for j in B}
        self.pos = dict.fromkeys(B, 0)

    def __call__(self, j):
        row, p = self.order[j], self.pos[j]
        while p < len(row) and row[p] not in self.in_B:
            p += 1
        self.pos[j] = p
        return self.w[j][row[p]] if p < len(row) else 0

    def leave(self, j) -> None:
        self.in_B.discard(j)


def flat_tree(grid: Grid) -> GridSchedule:
    """Flat Tree (001 §4.1, the ECO / MagPIe baseline): the root's coordinator sends to
    every other cluster itself, one after the other, in the order of the cluster list
    (the paper notes the result depends on that order), ignoring every other source."""
    state = Broadcast(grid)
    for j in list(state.B):
        state.send(grid.root, j)
    return _checked(grid, state, "flat")


def fastest_edge_first(grid: Grid) -> GridSchedule:
    """Fastest Edge First (001 §4.2, Bhat et al.): the pair (i in A, j in B) of smallest
    edge weight, then j joins A at once (ready times are ignored).  The edge weight is
    the latency L_ij: the paper says the weight "usually corresponds to the communication
    latency" and explains FEF's poor results by "communication latency is not a
    sufficient parameter" (001 §6); :func:`fastest_edge_first_transfer` weighs g_ij + L_ij
    instead."""
    return _fastest_edge(grid, grid.L, "fef")


def fastest_edge_first_transfer(grid: Grid) -> GridSchedule:
    """FEF weighing each edge by its whole transmission time g_ij + L_ij (our variant)."""
    return _fastest_edge(grid, _transfers(grid), "fef-transfer")


def _fastest_edge(grid: Grid, weight, heuristic: str) -> GridSchedule:
    state = Broadcast(grid)
    senders = _Senders(state, weight, use_ready=False)
    while state.B:
        _, j = min((senders.best[j][0], j) for j in state.B)   # ties: the smallest j
        senders.send(senders.best[j][1], j)
    return _checked(grid, state, heuristic)


def _ecef(grid: Grid, lookahead: _Lookahead | None, heuristic: str) -> GridSchedule:
    """The ECEF family (001 §4.3-§5.2): the pair minimising RT_i + g_ij + L_ij + F_j;
    ties: the smallest j, then the smallest i."""
    state = Broadcast(grid)
    senders = _Senders(state, _transfers(grid), use_ready=True)
    best = senders.best
    while state.B:
        if lookahead is None:
            _, j = min((best[j][0], j) for j in state.B)
        else:
            _, j = min((best[j][0] + lookahead(j), j) for j in state.B)
            lookahead.leave(j)
        senders.send(best[j][1], j)
    return _checked(grid, state, heuristic)


def early_completion_edge_first(grid: Grid) -> GridSchedule:
    """ECEF (001 §4.3, Bhat et al.): the pair with the earliest arrival
    RT_i + g_ij + L_ij."""
    return _ecef(grid, None, "ecef")


def _non_root(grid: Grid) -> list[int]:
    return [k for k in range(grid.size) if k != grid.root]


def ecef_la(grid: Grid) -> GridSchedule:
    """ECEF-LA (001 §4.4, Bhat's lookahead): minimise RT_i + g_ij + L_ij + F_j with
    F_j = min_{k in B} (g_jk + L_jk), how fast j could pass the message on."""
    return _ecef(grid, _Lookahead(_transfers(grid), _non_root(grid), largest=False),
                 "ecef-la")


def _transfers_and_broadcast(grid: Grid) -> list[list]:
    """g_jk + L_jk + T_k: from the start of a send j -> k to the end of k's broadcast."""
    c, T = _transfers(grid), grid.T
    return [[x + T[k] for k, x in enumerate(row)] for row in c]


def ecef_lat_min(grid: Grid) -> GridSchedule:
    """ECEF-LAt (001 §5.1, grid-aware): minimise RT_i + g_ij + L_ij + F_j with
    F_j = min_{k in B} (g_jk + L_jk + T_k), j's fastest way to a finished cluster."""
    return _ecef(grid, _Lookahead(_transfers_and_broadcast(grid), _non_root(grid),
                                  largest=False), "ecef-lat-min")


def ecef_lat_max(grid: Grid) -> GridSchedule:
    """ECEF-LAT (001 §5.2, grid-aware): minimise RT_i + g_ij + L_ij + F_j with
    F_j = max_{k in B} (g_jk + L_jk + T_k).  The text's "tries to maximise the sum of
    the parameters from the lookahead function" is the max over k inside F_j (as the
    small "t" of ECEF-LAt means the min, 001 §5.1): text and formula agree, and the pair
    still minimises RT_i + g_ij + L_ij + F_j (proofs/grid-model.md)."""
    return _ecef(grid, _Lookahead(_transfers_and_broadcast(grid), _non_root(grid),
                                  largest=True), "ecef-lat-max")


def bottom_up(grid: Grid) -> GridSchedule:
    """BottomUp (001 §5.3): the receiver j in B maximising min_{i in A} (g_ij + L_ij + T_j),
    sent by the i reaching the minimum (the smallest i on ties; the smallest j on ties of
    the maximum).  As in the paper's formula, ready times are not part of the choice (the
    sender still waits for its RT_i to send); :func:`bottom_up_ready` puts RT_i in the
    inner minimum."""
    return _bottom_up(grid, use_ready=False, heuristic="bottomup")


def bottom_up_ready(grid: Grid) -> GridSchedule:
    """BottomUp with ready times (our variant): the receiver j maximising
    min_{i in A} (RT_i + g_ij + L_ij + T_j), the cluster that would finish last if it were
    reached now, sent by its earliest possible sender."""
    return _bottom_up(grid, use_ready=True, heuristic="bottomup-ready")


def _bottom_up(grid: Grid, use_ready: bool, heuristic: str) -> GridSchedule:
    state = Broadcast(grid)
    senders = _Senders(state, _transfers(grid), use_ready)
    best, T = senders.best, grid.T
    while state.B:
        # max over j of (reach + T_j), the smallest j on ties
        _, minus_j = max((best[j][0] + T[j], -j) for j in state.B)
        senders.send(best[-minus_j][1], -minus_j)
    return _checked(grid, state, heuristic)


def binomial_tree(grid: Grid) -> GridSchedule:
    """The grid-unaware binomial tree of MPI_Bcast (001 §7), on the coordinators.  With
    ranks r relative to the root in the cluster list's (cyclic) order, as in MPICH's
    binomial broadcast: r receives from r minus its lowest set bit, and sends to r + 2^k
    for every 2^k below its lowest set bit (the root: every 2^k < n), the largest 2^k
    first, so the largest subtree starts first; costs are not looked at.  The paper's
    MPI_Bcast runs this tree over all 88 processes; at the cluster level it is an
    optimistic model of it (only the coordinators cross the wide area)."""
    n, root = grid.size, grid.root
    cluster = [(root + r) % n for r in range(n)]
    state = Broadcast(grid)
    for r in range(n):      # increasing ranks: a parent has a smaller rank than its children
        for k in _binomial_children(r, n):
            state.send(cluster[r], cluster[k])
    return _checked(grid, state, "binomial")


def _binomial_children(r: int, n: int) -> list[int]:
    """Ranks r + 2^k < n with 2^k below the lowest set bit of r (any 2^k for the root),
    the largest first."""
    lowest = r & -r if r else 1 << n.bit_length()
    children = []
    mask = lowest >> 1
    while mask:
        if r + mask < n:
            children.append(r + mask)
        mask >>= 1
    return children


#: key -> (the paper's name, function); in the order of the paper's figures.
HEURISTICS: dict[str, tuple[str, Callable[[Grid], GridSchedule]]] = {
    "flat": ("Flat Tree", flat_tree),
    "fef": ("FEF", fastest_edge_first),
    "ecef": ("ECEF", early_completion_edge_first),
    "ecef-la": ("ECEF-LA", ecef_la),
    "ecef-lat-min": ("ECEF-LAt", ecef_lat_min),
    "ecef-lat-max": ("ECEF-LAT", ecef_lat_max),
    "bottomup": ("BottomUp", bottom_up),
    "binomial": ("Binomial (MPI_Bcast)", binomial_tree),
}

#: Our readings of the paper where it leaves a choice open (``--variants``).
VARIANTS: dict[str, tuple[str, Callable[[Grid], GridSchedule]]] = {
    "fef-transfer": ("FEF (g+L)", fastest_edge_first_transfer),
    "bottomup-ready": ("BottomUp (RT)", bottom_up_ready),
}

#: The seven heuristics of the paper's simulations (001 §6, Figures 1-4).
PAPER_SIMULATED = ("flat", "fef", "ecef", "ecef-la", "ecef-lat-min", "ecef-lat-max",
                   "bottomup")


def resolve(name: str) -> str:
    """The key of the heuristic called ``name``: a key of :data:`HEURISTICS` or
    :data:`VARIANTS`, or the paper's name in any case unless that is ambiguous ("ecef-lat"
    could be ECEF-LAt or ECEF-LAT).  Raises ValueError listing the choices."""
    table = {**HEURISTICS, **VARIANTS}
    if name in table:
        return name
    exact_label = [k for k, (label, _) in table.items() if label == name]
    folded = [k for k, (label, _) in table.items() if label.lower() == name.lower()]
    found = exact_label or folded
    if len(found) == 1:
        return found[0]
    reason = "ambiguous" if found else "unknown heuristic"
    raise ValueError(f"{reason} {name!r}; choose one of " + ", ".join(table) + " or all")


def run(grid: Grid, key: str) -> GridSchedule:
    """The schedule of heuristic ``key`` (a key of HEURISTICS or VARIANTS) on ``grid``."""
    return {**HEURISTICS, **VARIANTS}[key][1](grid)
