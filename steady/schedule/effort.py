"""How much searching a timed schedule or a finite-horizon plan may do (ours).

Every search in :mod:`steady.schedule` and :mod:`steady.simulate` is bounded by
deterministic work -- list-schedule placements, exchanges of regrown trees, the
solvers' branch-and-bound nodes or deterministic time -- never by wall-clock time, so
the same input gives the same file on any machine at any load.  An :class:`Effort`
gathers those bounds; three levels are named:

``fast``
    one family of trees, the list schedule with few rounds, trees regrown with a small
    exchange budget, a short ladder of periods: seconds on 65 nodes;
``default``
    what ``steady schedule --max-messages`` and ``steady simulate`` do unless told:
    the layers that pay for their time on generated 50- to 65-node platforms
    (benchmarks/layers.py measures each);
``thorough``
    adds what buys little for much: a second family of optimal trees, link counts chosen
    over the cuts by a MILP for short periods, port orders searched by CP-SAT, a longer
    ladder: minutes on 65 nodes; a finite horizon builds its ladder
    without the MILP and the CP-SAT search and gives those to its few most promising
    periods only (``deep``), and also counts the ``default`` candidates
    (``floor_level``), so it never delivers less than ``default``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction


@dataclass(frozen=True)
class Effort:
    """The work bounds of one effort level (see the module docstring)."""

    name: str
    #: Tree families built on (1: the optimum's trees; 2: also the cut method's).
    families: int
    #: Rounds per priority rule of the list schedule, at most.
    list_rounds: int
    #: The same for counts tight on many ports (searched over the cuts), where later
    #: rounds close the gaps the first leave.
    tight_rounds: int
    #: Priority rules tried (their first round), and those that get more rounds.
    rules: int
    round_rules: int
    #: Placements of one list-schedule run before a placement carries several messages.
    run_placements: int
    #: Placements of all the list-schedule runs of one timetable together.
    all_placements: int
    #: Tree weights improved by the bounded Dinkelbach MILP of :mod:`.packing`.
    dinkelbach: bool
    #: Kicks of the local search over the cuts for link counts (:mod:`.count_search`);
    #: None: no search.
    count_kicks: int | None
    #: Link counts chosen over the cuts by a MILP (short periods only).
    cut_counts: bool
    #: CP-SAT's deterministic time per port-order search (0: no search).
    order_search: float
    #: Exchanges the regrowth of trees may evaluate (0: trees are not regrown).
    swap_moves: int
    #: Regrow through the idle slots too, and also without them (both counted).
    regrow_both: bool
    #: Messages per period tried by the finite-horizon chooser, increasing.
    ladder: tuple
    #: Timetables of the ladder whose trees are regrown (the most promising ones).
    regrown: int
    #: Stop the ladder after this many values in a row that do not beat the best.
    patience: int
    #: Also try the list run (no periods) on the trees of the best ratio.
    list_run: bool
    #: Candidates (the best under pipelined forwarding) whose clean-up is also routed
    #: afresh.
    routed: int
    #: Also count the period rule (002 §5.5's "one period later"), which pipelined
    #: forwarding never lags behind.
    period_rule: bool
    #: Timetables of the ladder (the most promising, ratio below 1) built again from
    #: the second family of optimal trees (:func:`steady.simulate.choose.rebuilt_timetables`).
    rebuilt: int = 0
    #: Periods of the ladder (the chosen one's M and the values below it, at most this
    #: many) built again on link counts chosen over the cuts by the MILP of
    #: :mod:`.cut_counts` when the chosen timetable's counts lose
    #: (:func:`steady.simulate.choose.recounted_timetables`); 0: not tried.
    recounted: int = 0
    #: Collectives (issue 43, :mod:`.collective`): chunk counts per root scored, trees
    #: added to the optimum's for the integer packing (moved edges, perturbed pricing
    #: rounds), the packing MILP's branch-and-bound nodes, timetables built.
    collective_counts: int = 8
    collective_neighbours: int = 300
    collective_pricing: int = 16
    collective_nodes: int = 300
    collective_built: int = 8
    #: Chunk counts most/2, most/4, ... also built when they can beat the rest.
    collective_halvings: int = 3
    #: CP-SAT's deterministic time for the blocks of :mod:`.config_blocks` (trees and
    #: configurations chosen together), tried on small fabrics whose timetable is below
    #: :data:`.collective.BLOCKS_BELOW`; 0: not tried.
    collective_blocks: float = 5.0
    #: Orders of those blocks scored at most (:func:`.config_blocks.ordered_blocks`:
    #: one block moved at a time, each order justified), searched only where the
    #: blocks in the model's order stay below :data:`.config_blocks.ORDER_BELOW`, until
    #: an order reaches it; 0: the model's order alone.
    collective_block_orders: int = 1_500
    #: Route checks of the searches for ring steps and source paths
    #: (:mod:`.ring_steps`: a Hamiltonian order of the compute nodes whose routes fit),
    #: tried where they could beat the other constructions; 0: not tried (``fast``,
    #: which runs no search beyond the list schedule's).
    collective_ring_checks: int = 200_000
    #: Chunk counts (best bound first) whose trees are streamed on a multi-port
    #: platform where the full-speed constructions stay below 1
    #: (:mod:`.fluid`: each reaches its trees' largest load exactly); 0: not tried.
    collective_streamed: int = 3
    #: Periods of more messages than this whose link counts are also searched over the
    #: cuts (:mod:`.count_search`) skip the Dinkelbach MILP; None (every level: it
    #: shortens the longest runs only and lowers some ratios, docs/limits.md).
    dinkelbach_most: int | None = None
    #: A broadcast's list schedule of at most this many rounds per rule, still more than
    #: :data:`.list_schedule.SLACK` above its load bound, gets as many rounds again.
    slack_rounds: int = 0
    #: CP-SAT's deterministic time for the large neighbourhood search of port orders
    #: (:func:`.order_search.neighbourhood_searched`) on the timetable of the candidate
    #: that delivers the most, when its period is well above its largest port load
    #: (:func:`steady.simulate.choose.searched_timetables`); 0: not tried.
    order_lns: float = 0.0
    #: Exchanges evaluated when the trees of the candidate that delivers the most are
    #: regrown once more, through their own and idle slots
    #: (:func:`steady.simulate.choose.regrown_again`); 0: not tried.
    again_swaps: int = 0
    #: A level (its name) whose candidate table :func:`steady.simulate.choose.horizon_choice`
    #: also builds and counts beside this one's, so that this level never delivers less
    #: by the horizon than that one (its ladder, trees and rebuilds differ: on
    #: samples/mesh-65 ``thorough`` alone delivers 7292, ``default`` 7293), and whose
    #: collective timetable :func:`steady.schedule.collective.collective_timetable`
    #: also builds where this one's stays below 1, keeping the better; None: none.
    floor_level: str | None = None
    #: Timetables of the finite-horizon ladder searched deeply: the ladder is built
    #: without link counts chosen over the cuts and without port orders searched
    #: (``cut_counts``, ``order_search``, the costly part: minutes per platform on 65
    #: nodes), and only these many, the most promising of ratio below 1 from half the
    #: best candidate's M to it, are built again with both
    #: (:func:`steady.simulate.choose.deepened_timetables`); 0: every M of the ladder is
    #: built with them.  ``steady schedule`` (one M) always uses both.
    deep: int = 0
    #: CP-SAT's deterministic time for all the port-order searches of those periods
    #: together (each at most ``order_search``; its large neighbourhood search,
    #: :func:`.order_search.neighbourhood_searched`).
    deep_time: float = 0.0

    #: One long period asked for alone (``steady schedule --max-messages M``, M above
    #: :data:`.timed.PACKED_MESSAGES`, no ``--ratio`` or ``--max-period``; the command
    #: sets it with ``Effort.but``): the timetable search may stop early
    #: (``milp_enough``), and a list schedule still above :data:`.list_schedule.SLACK`
    #: after its slack rounds gets its links' messages moved between their runs
    #: (:mod:`.resize_runs`).  Not on ``simulate``'s ladder: there the resizing changed
    #: candidates that were not chosen, and was not measured across the hold-outs.
    one_period: bool = False
    #: With ``one_period``: when the timetable of best ratio bound before the Dinkelbach
    #: MILP is certified at least this, it is kept and the MILP not solved (where that
    #: MILP does not prove its optimum within a few nodes); None: the MILP always runs.
    milp_enough: Fraction | None = None

    def but(self, **changes) -> "Effort":
        """This level with some bounds changed (benchmarks switch layers this way)."""
        return replace(self, **changes)


FAST = Effort("fast", families=1, list_rounds=2, tight_rounds=8, rules=2, round_rules=1, run_placements=200_000,
              all_placements=400_000, dinkelbach=False, count_kicks=0, cut_counts=False, order_search=0.0,
              swap_moves=10_000, regrow_both=False,
              ladder=(2, 5, 10, 20, 40), regrown=1, patience=2, list_run=False,
              routed=1, period_rule=False, collective_counts=4, collective_neighbours=0,
              collective_pricing=0, collective_nodes=0, collective_built=1,
              collective_halvings=1, collective_blocks=0.0, collective_block_orders=0,
              collective_ring_checks=0)
DEFAULT = Effort("default", families=1, list_rounds=4, tight_rounds=40, rules=2, round_rules=2, run_placements=400_000,
                 all_placements=800_000, dinkelbach=True, count_kicks=20, cut_counts=False, order_search=0.0,
                 swap_moves=30_000, regrow_both=False,
                 ladder=(1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 100, 200, 500, 1000),
                 regrown=3, patience=2, list_run=False, routed=4, period_rule=False,
                 slack_rounds=4, rebuilt=2, recounted=3, order_lns=2.0,
                 again_swaps=300_000, milp_enough=Fraction(999, 1000))
THOROUGH = Effort("thorough", families=2, list_rounds=40, tight_rounds=200, rules=8, round_rules=8, run_placements=400_000,
                  all_placements=1_200_000, dinkelbach=True, count_kicks=100, cut_counts=True, order_search=2.0,
                  swap_moves=300_000, regrow_both=False,
                  ladder=(1, 2, 3, 5, 8, 10, 12, 15, 20, 24, 30, 40, 50, 70, 100, 200,
                          500, 1000),
                  regrown=6, patience=4, list_run=True, routed=12, period_rule=True,
                  collective_counts=24, collective_neighbours=2000, collective_pricing=64,
                  collective_nodes=2000, collective_built=12, collective_halvings=5,
                  collective_blocks=20.0, collective_block_orders=4_000,
                  floor_level="default", deep=3,
                  deep_time=4.0)

LEVELS = {e.name: e for e in (FAST, DEFAULT, THOROUGH)}


def effort(name_or_effort) -> Effort:
    """An :class:`Effort` from its name (``fast``, ``default``, ``thorough``) or itself."""
    if isinstance(name_or_effort, Effort):
        return name_or_effort
    try:
        return LEVELS[name_or_effort or "default"]
    except KeyError:
        raise ValueError(f"effort {name_or_effort!r}: one of {', '.join(LEVELS)}") from None
