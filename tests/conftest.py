"""Test settings.

* Markers: ``slow`` (a whole pipeline or a long search: more than a few seconds) and
  ``timing`` (a wall-clock measurement, compared with its own baseline measured in the
  same run).  ``python -m pytest`` skips both; ``.ci/run`` sets STEADY_CI=1, which runs
  them (``--all`` does too).  ``campaign`` (the drift test of the figures that come
  from the papers' campaigns and the SimGrid replay: up to 21 minutes each) runs only
  with ``--campaigns``.
* Progress: ``STEADY_PROGRESS=terminal`` (no status lines in captured stderr).
* Hypothesis: no deadline and no too-slow health check (a loaded machine must not turn a
  slow example into a failure); CI runs the properties derandomized: the same examples
  on every run, so that a verdict is reproducible; local runs keep drawing fresh
  examples and find what CI does not (40 where a test sets no number, CI 100; where a
  test sets its number, ``helpers.examples`` gives CI that number and the local run two
  fifths of it, at least 10).
* SIGINT: a suite started in the background by a non-interactive shell (``cmd &`` in a
  script) inherits SIGINT ignored, and steady rightly leaves an ignored signal alone
  (``steady.interrupts``: ``nohup``); the tests that send SIGINT on purpose (Ctrl-C in
  the middle of a write or a solve) would then see nothing.  The suite puts Python's
  handler back, in every process (pytest-xdist's workers load this file too), as a
  terminal would have it.
"""

import os
import signal

import pytest
from hypothesis import HealthCheck, settings

# Commands print status lines on a non-terminal stderr after a few seconds of work
# (steady.progress); a test that checks stderr must not depend on how loaded the
# machine is, so the suite asks for the terminal bar only (the progress tests set
# STEADY_PROGRESS themselves).  Subprocesses inherit it.
os.environ.setdefault("STEADY_PROGRESS", "terminal")

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

_CALM = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                    HealthCheck.data_too_large])
# the README's `python -m pytest` draws 40 of hypothesis' default of 100 examples where
# a test sets no number (it is a newcomer's check, under 3 minutes); CI draws them all
settings.register_profile("steady", max_examples=40, **_CALM)
settings.register_profile("ci", derandomize=True, **_CALM)
settings.load_profile("ci" if os.environ.get("STEADY_CI") else "steady")


def pytest_addoption(parser):
    parser.addoption("--all", action="store_true",
                     help="also run the tests marked slow and timing (as .ci/run does)")
    parser.addoption("--campaigns", action="store_true",
                     help="also run the tests marked campaign: the papers' campaigns "
                          "re-run for the figures' drift test (about an hour)")


def pytest_collection_modifyitems(config, items):
    if not config.getoption("--campaigns"):
        campaigns = pytest.mark.skip(reason="a campaign of minutes: run with --campaigns "
                                            "(or python docs/figures.py --all --check)")
        for item in items:
            if item.get_closest_marker("campaign"):
                item.add_marker(campaigns)
    if os.environ.get("STEADY_CI") or config.getoption("--all"):
        return
    skip = pytest.mark.skip(reason="slow or timing: run with --all (CI runs them)")
    for item in items:
        if "slow" in item.keywords or "timing" in item.keywords:
            item.add_marker(skip)
