"""Progress on stderr for commands that can take more than a few seconds (docs/cli.md,
"Progress"): no silent minutes, whether stderr is a terminal or a log file.

Two displays, chosen by where stderr goes:

- **a terminal**: a bar redrawn in place -- the stage, what it is working on (``M = 8,
  item 4 of 14``), the elapsed time and, when the number of items is known, an estimate
  of the time left.  A ticker redraws it every second, so that the clock moves even
  while one long computation runs.  On success the full bar stays on screen; on an error
  or Ctrl-C it is wiped (the error line follows).
- **anything else** (a pipe, a log file, a CI job): nothing for the first
  :data:`DELAY` seconds (short commands stay silent), then one line per stage and, while
  a stage lasts, one every :data:`EVERY` seconds, and a last line when the work is done::

      steady simulate: stage 2/3 timed schedules: M = 8 (item 4 of 14, ~30 s left), 12 s

  Each line's content is deterministic but for its times.

Nothing is shown with ``--quiet``.  The environment variable ``STEADY_PROGRESS``
chooses for every command: ``auto`` (the default: the above), ``terminal`` (the bar on
a terminal, no lines elsewhere), ``lines`` (lines, even on a terminal) or ``off``.
Progress never goes to stdout (``--json`` stays pure JSON).
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time

#: Seconds of work before the first status line (not on a terminal).
DELAY = 5.0
#: Seconds between two status lines while one stage lasts (not on a terminal).
EVERY = 10.0
#: Seconds between two redraws of a terminal bar by the ticker.
TICK = 1.0

#: The command the lines name (set by the command line: ``steady schedule``).
_COMMAND = ["steady"]


def set_command(name: str) -> None:
    """Name the running command in the status lines (``steady simulate: ...``)."""
    _COMMAND[0] = name


def _mode(stream, quiet: bool) -> str | None:
    """"bar" (a terminal), "lines" (anything else) or None (quiet)."""
    wanted = os.environ.get("STEADY_PROGRESS", "").strip().lower()
    if quiet or wanted == "off":
        return None
    if wanted == "lines":
        return "lines"
    tty = hasattr(stream, "isatty") and stream.isatty()
    if tty:
        return "bar"
    return None if wanted == "terminal" else "lines"


def seconds_text(s: float) -> str:
    """``7 s``, ``1 min 40 s``, ``1 h 05 min``: a duration for people."""
    s = max(int(round(s)), 0)
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


class _Display:
    """What both displays share: the mode, the clock, the ticker thread, the lock."""

    width = 24

    def __init__(self, quiet: bool, stream):
        self.stream = stream or sys.stderr
        self.mode = _mode(self.stream, quiet)
        self.enabled = self.mode == "bar"    # kept: callers and tests read it
        self.start = time.perf_counter()
        self.lock = threading.Lock()
        self.printed = False     # a status line went out (lines mode)
        self.last_line = None    # when, and what it said
        self.said = None
        self._stop = threading.Event()
        self._thread = None

    # -- what the subclasses say ---------------------------------------------------------

    def fraction(self) -> float:   # pragma: no cover - overridden
        return 0.0

    def status(self) -> str:       # pragma: no cover - overridden
        return ""

    def started(self) -> bool:
        """Whether there is anything to say yet."""
        return True

    def position(self) -> str:
        """The part of the status that says where the work is (without times): a new
        position is worth a line at once."""
        return self.status()

    # -- drawing -------------------------------------------------------------------------

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def _draw(self, final: bool = False) -> None:
        """Redraw the bar (terminal) or perhaps print a line (anything else)."""
        with self.lock:
            if self.mode == "bar":
                filled = round(self.width * min(max(self.fraction(), 0.0), 1.0))
                bar = "#" * filled + "." * (self.width - filled)
                text = f"[{bar}] {self.status()}  {self.elapsed():6.1f}s"
                room = shutil.get_terminal_size((100, 24)).columns - 1
                self.stream.write("\r" + text[:room].ljust(min(room, 79)))
                if final:
                    self.stream.write("\n")
                self.stream.flush()
            elif self.mode == "lines":
                self._line(final)

    def _line(self, final: bool) -> None:
        now = self.elapsed()
        if final:
            if self.printed:
                self._write(f"done, {seconds_text(now)}")
            return
        if now < DELAY or not self.started():
            return
        position = self.position()
        due = (self.last_line is None or position != self.said
               or now - self.last_line >= EVERY)
        if due:
            self._write(f"{self.status()}, {seconds_text(now)}")
            self.last_line, self.said = now, position

    def _write(self, text: str) -> None:
        self.stream.write(f"{_COMMAND[0]}: {text}\n")
        self.stream.flush()
        self.printed = True

    def _wipe(self) -> None:
        with self.lock:
            if self.mode == "bar":
                room = shutil.get_terminal_size((100, 24)).columns - 1
                self.stream.write("\r" + " " * min(room, 79) + "\r")
                self.stream.flush()

    # -- the ticker ----------------------------------------------------------------------

    def _tick(self) -> None:
        period = TICK if self.mode == "bar" else min(TICK, DELAY, EVERY)
        while not self._stop.wait(period):
            try:
                self._draw()
            except (OSError, ValueError):   # the stream went away: stop drawing
                return

    def __enter__(self):
        if self.mode is not None:
            self._draw()
            self._thread = threading.Thread(target=self._tick, daemon=True,
                                            name="steady-progress")
            self._thread.start()
        return self

    def __exit__(self, exc_type, *exc):
        if self._thread is not None:
            self._stop.set()
            self._thread.join(timeout=2 * TICK)
        if self.mode is None:
            return False
        if exc_type is None:
            # Completed work leaves its full bar on screen: a bar that vanishes at its
            # last stage never tells the user it finished.
            self._finish()
            self._draw(final=True)
        else:
            self._wipe()
        return False

    def _finish(self) -> None:   # pragma: no cover - overridden
        pass


class StageBar(_Display):
    """``with StageBar(["LP", "trees", ...], quiet) as bar: bar.stage("LP")``; within a
    stage, ``bar.note("M = 8")`` says what it works on and ``bar.item(3, 14, "M = 8")``
    how far it is (which gives an estimate of the time left)."""

    def __init__(self, stages, quiet: bool = False, stream=None):
        self.stages = list(stages)
        self.done = 0
        self.current = ""
        self.detail = ""
        self.items = None            # (done, total) within the stage
        self.stage_start = None
        super().__init__(quiet, stream)

    def stage(self, name: str) -> None:
        """The next stage begins (``name``: what it does)."""
        with self.lock:
            if self.stage_start is not None:
                self.done += 1
            self.current, self.detail, self.items = name, "", None
            self.stage_start = time.perf_counter()
        self._draw()

    def note(self, detail: str) -> None:
        """What the current stage works on now."""
        with self.lock:
            self.detail = detail
        self._draw()

    def item(self, done: int, total: int, detail: str = "") -> None:
        """``done`` of the stage's ``total`` items are finished; ``detail``: the one
        under way."""
        with self.lock:
            self.items = (done, total)
            self.detail = detail
        self._draw()

    def fraction(self) -> float:
        share = 0.0
        if self.items is not None and self.items[1]:
            share = self.items[0] / self.items[1]
        return (self.done + share) / max(len(self.stages), 1)

    def _left(self) -> str:
        """``~30 s left`` in the stage, from its items' pace, or nothing."""
        if self.items is None or self.stage_start is None:
            return ""
        done, total = self.items
        if not 0 < done < total:
            return ""
        spent = time.perf_counter() - self.stage_start
        return f", ~{seconds_text(spent * (total - done) / done)} left"

    def started(self) -> bool:
        return self.stage_start is not None

    def position(self) -> str:
        return f"{self.done}/{len(self.stages)} {self.current}"

    def status(self) -> str:
        text = f"stage {self.done + (self.stage_start is not None)}/{len(self.stages)} " \
               f"{self.current}" if self.mode == "lines" else \
               f"{self.done}/{len(self.stages)} {self.current}"
        if self.detail:
            text += f": {self.detail}"
        if self.items is not None:
            text += f" (item {min(self.items[0] + 1, self.items[1])} of {self.items[1]}" \
                    f"{self._left()})"
        return text

    def _finish(self) -> None:
        self.done = len(self.stages)
        self.current, self.detail, self.items = "done", "", None


class CountBar(_Display):
    """``with CountBar(total, "platforms", quiet) as bar: ... bar.advance()``: finished
    tasks out of ``total``, the elapsed time and the time left at the pace so far."""

    def __init__(self, total: int, label: str = "tasks", quiet: bool = False, stream=None):
        self.total = max(int(total), 0)
        self.label = label
        self.done = 0
        super().__init__(quiet, stream)

    def advance(self, n: int = 1) -> None:
        with self.lock:
            self.done += n
        self._draw()

    def fraction(self) -> float:
        return self.done / self.total if self.total else 1.0

    def position(self) -> str:
        return ""      # a line every EVERY seconds, not one per task

    def status(self) -> str:
        text = f"{self.done}/{self.total} {self.label}"
        if 0 < self.done < self.total:
            left = self.elapsed() * (self.total - self.done) / self.done
            text += f", ~{seconds_text(left)} left"
        return text

    def _finish(self) -> None:
        self.done = self.total
