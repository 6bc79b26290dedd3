"""Step 1 on the candidate `steady simulate` chooses (horizon_choice in process, default
effort): its trees' lags in time vs the physical floor and one tree alone through its
slots.  usage: python benchmarks/spread41/chosen.py mesh-50-s31"""
import sys
import time

from common import K, load
from floors import floors
from steady.simulate.choose import horizon_choice

name = sys.argv[1]
platform, result, opt, cap = load(name)
t0 = time.process_time()
b = horizon_choice(platform, result, K).best
tab, T = b.table, b.table.period_time
lt = [max(lag.values()) * T / tab.trees[i].weight for i, lag in enumerate(b.pattern.lag)]
phys, alone = floors(platform, tab)
print(f"{name}: M={b.max_messages} N={tab.messages} T={float(T):.1f} "
      f"rate={float(b.ratio):.5f} delivered={b.delivered} ({float(b.delivered / cap):.5f}) "
      f"W={b.pattern.warmup} I={float(b.phases.init):.0f} J={float(b.phases.cleanup):.0f} "
      f"routed={b.routed_cleanup} [{time.process_time() - t0:.0f} CPU s] | physical floor "
      f"{phys:.1f} | one tree alone {alone:.0f} | its trees' largest lag mean "
      f"{float(sum(lt) / len(lt)):.0f}, max {float(max(lt)):.0f} time units, sum "
      f"{sum(max(lag.values()) for lag in b.pattern.lag)} messages")
