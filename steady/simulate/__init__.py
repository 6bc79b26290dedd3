"""Running a periodic schedule over a finite time (002 §5.5, §6), after the schedule
stage:

- :mod:`.unroll`: the periodic pattern unrolled into a finite schedule (warm-up,
  periods, clean-up);
- :mod:`.engine`: a message-level simulation that checks one-port and causality;
- :mod:`.horizon`: steady(G, K) against Lemma 7's bound K·TP (Theorem 7);
- :mod:`.pipe`: one large message cut into slices with start-up costs (PIPE, Thm 8).
"""

from .engine import MAX_EVENTS, Simulation, TooLarge, check_blocks, simulate, transfers_needed

__all__ = ["MAX_EVENTS", "Simulation", "TooLarge", "check_blocks", "simulate",
           "transfers_needed"]
