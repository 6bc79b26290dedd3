"""Running a periodic schedule over a finite time (002 §5.5, §6), after the schedule
stage:

- :mod:`.unroll`: the periodic pattern (v1 steps or a v2 timetable) unrolled into a
  finite schedule (warm-up, periods, clean-up) under a forwarding rule (002 §5.5's
  "one period later", or pipelined);
- :mod:`.engine`: a message-level simulation that checks one-port and causality;
- :mod:`.horizon`: delivered(K) against Lemma 7's bound K·TP* (Theorem 7);
- :mod:`.choose`: the short timed schedule and rule that deliver the most by K;
- :mod:`.pipe`: one large message cut into slices with start-up costs (PIPE, Thm 8).
"""

from .engine import MAX_EVENTS, Simulation, TooLarge, check_blocks, simulate, transfers_needed

__all__ = ["MAX_EVENTS", "Simulation", "TooLarge", "check_blocks", "simulate",
           "transfers_needed"]
