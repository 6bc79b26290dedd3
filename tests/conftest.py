"""Test settings.  CI (``.ci/run`` sets STEADY_CI=1) runs the hypothesis properties
derandomized: the same examples on every run, so that a CI verdict is reproducible;
local runs keep drawing fresh examples and find what CI does not."""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True)
if os.environ.get("STEADY_CI"):
    settings.load_profile("ci")
