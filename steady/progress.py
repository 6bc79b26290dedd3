"""A stage progress bar on stderr for commands that can take more than a few seconds.

Shown only when stderr is a terminal and ``--quiet`` is not given (docs/cli.md,
progress bars); otherwise every call is a no-op.
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
        self._draw(name)
        self.current = name
        self.done += 1

    def note(self, detail: str) -> None:
        """Redraw the current stage with a detail (what it is working on now)."""
        self.done -= 1
        self._draw(f"{getattr(self, 'current', '')}: {detail}")
        self.done += 1

    def _draw(self, name: str, end: str = "") -> None:
        if self.enabled:
            width = 24
            filled = width * self.done // len(self.stages)
            bar = "#" * filled + "." * (width - filled)
            elapsed = time.perf_counter() - self.start
            self.stream.write(f"\r[{bar}] {self.done}/{len(self.stages)} {name:<24} "
                              f"{elapsed:6.1f}s{end}")
            self.stream.flush()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, *exc):
        if exc_type is None:
            # Completed work leaves its full bar on screen (n/n): a bar that vanishes
            # at its last stage never tells the user it finished.
            self.done = len(self.stages)
            self._draw("done", "\n")
        elif self.enabled:
            self.stream.write("\r" + " " * 70 + "\r")
            self.stream.flush()
        return False


class CountBar:
    """``with CountBar(total, "platforms", quiet) as bar: ... bar.advance()``: a bar of
    finished tasks out of ``total`` with the elapsed time and a naive remaining time."""

    def __init__(self, total: int, label: str = "tasks", quiet: bool = False, stream=None):
        self.stream = stream or sys.stderr
        self.total = max(int(total), 0)
        self.label = label
        self.enabled = not quiet and hasattr(self.stream, "isatty") and self.stream.isatty()
        self.start = time.perf_counter()
        self.done = 0
        self._draw()

    def advance(self, n: int = 1) -> None:
        self.done += n
        self._draw()

    def _draw(self) -> None:
        if not self.enabled:
            return
        width = 24
        filled = width * self.done // self.total if self.total else width
        bar = "#" * filled + "." * (width - filled)
        elapsed = time.perf_counter() - self.start
        left = (f" ~{elapsed * (self.total - self.done) / self.done:5.0f}s left"
                if 0 < self.done < self.total else "")
        self.stream.write(f"\r[{bar}] {self.done}/{self.total} {self.label} "
                          f"{elapsed:6.1f}s{left}   ")
        self.stream.flush()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, *exc):
        if not self.enabled:
            return False
        if exc_type is None:   # finished: leave the full bar (total/total) on screen
            self.done = self.total
            self._draw()
            self.stream.write("\n")
        else:
            self.stream.write("\r" + " " * 78 + "\r")
        self.stream.flush()
        return False
