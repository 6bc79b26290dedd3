"""Shared by the spread41 prototypes (issue 41, not part of the package): a platform of
/work/plat by name and its exact optimum with trees (cached under $SPREAD41_CACHE, default
/tmp/spread41-cache), and the count of one timetable as the chooser counts it (pipelined,
whole batches refined, the clean-up routed afresh)."""
import os
import pickle
from fractions import Fraction

from steady.platform import load_platform
from steady.simulate.choose import _counted, _refined, _routed, with_trees
from steady.simulate.horizon import bound
from steady.simulate.unroll import PIPELINED
from steady.throughput import throughput

K = Fraction(100000)
PLAT = os.environ.get("SPREAD41_PLAT", "/work/plat")
CACHE = os.environ.get("SPREAD41_CACHE", "/tmp/spread41-cache")


def load(name):
    """(platform, result with trees, optimum, K·TP*)."""
    platform, _ = load_platform(f"{PLAT}/{name}.json")
    path = f"{CACHE}/{name}.pkl"
    if os.path.exists(path):
        with open(path, "rb") as f:
            result = pickle.load(f)
    else:
        result = throughput(platform, "trees")
        os.makedirs(CACHE, exist_ok=True)
        with open(path, "wb") as f:
            pickle.dump(result, f)
    result = with_trees(platform, result)
    return platform, result, result.throughput, bound(result.throughput, K)


def count(m, table, optimum, cap):
    """The best candidate of ``table`` (pipelined, as built, routed or not)."""
    ratio = table.throughput / optimum
    c = _refined(_counted(m, table, ratio, "", (PIPELINED,), K, cap), K, cap)
    return max(c + _routed(c, K, 1), key=lambda x: x.delivered)
