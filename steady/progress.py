"""A stage progress bar on stderr for commands that can take more than a few seconds.

Shown only when stderr is a terminal and ``--quiet`` is not given (DESIGN.md, command
line conventions); otherwise every call is a no-op.
"""

from __future__ import annotations

import sys
import time


class StageBar:
    """``with StageBar(["LP", "trees", ...], quiet) as bar: bar.stage("LP")``."""

    def __init__(self, stages, quiet: bool = False, stream=None):
        self.stream = stream or sys.stderr
        self.stages = list(stages)
        self.enabled = not quiet and hasattr(self.stream, "isatty") and self.stream.isatty()
        self.start = time.perf_counter()
        self.done = 0

    def stage(self, name: str) -> None:
        if self.enabled:
            width = 24
            filled = width * self.done // len(self.stages)
            bar = "#" * filled + "." * (width - filled)
            elapsed = time.perf_counter() - self.start
            self.stream.write(f"\r[{bar}] {self.done}/{len(self.stages)} {name:<24} "
                              f"{elapsed:6.1f}s")
            self.stream.flush()
        self.done += 1

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.enabled:
            self.stream.write("\r" + " " * 70 + "\r")
            self.stream.flush()
        return False
