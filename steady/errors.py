"""The one exception users see: bad input, reported as file, element and reason.

Error lines echo what the user gave (a node name, a number, a key), and what the user
gave can be a megabyte long: :func:`echo` shows a value by at most :data:`ECHO`
characters, and :class:`InputError` bounds each of its three parts, so that no error
line is longer than :data:`LINE` characters whatever the input (docs/limits.md).
"""

from __future__ import annotations

import re

#: The most characters of an echoed value (its head and tail around an ellipsis).
ECHO = 60
#: The most characters of an InputError's origin and of its element ...
PART = 160
#: ... and of its reason (which may list names, or echo a few values).
REASON = 300
#: The longest ``str(InputError)``: the three parts and their two separators.
LINE = 2 * PART + REASON + 4
ELLIPSIS = "…"


def shorten(text: str, limit: int = ECHO) -> str:
    """``text``, or its head and tail around an ellipsis, in at most ``limit``
    characters: both ends stay readable (a file's name and a list's last item)."""
    text = str(text)
    if len(text) <= limit:
        return text
    head = limit // 2
    tail = limit - 1 - head
    return text[:head] + ELLIPSIS + (text[-tail:] if tail else "")


def echo(value, limit: int = ECHO) -> str:
    """A user's value as an error message shows it: ``repr`` of a string or any other
    value, shortened to ``limit`` characters.  An integer too long to show is named by
    its size, without converting it to text (a million-digit integer takes seconds to
    print, and Python refuses beyond its int-to-text digit limit)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 4 * limit:
        digits = int(value.bit_length() * 0.30103) + 1
        return f"<{'-' if value < 0 else ''}integer of about {digits} digits>"
    try:
        text = repr(value)
    except ValueError:   # an object whose repr needs a too-long int-to-text conversion
        text = f"<{type(value).__name__}>"
    return shorten(text, limit)


class InputError(ValueError):
    """Bad input: the CLI prints ``str(error)`` on one line and exits with code 2.

    ``origin`` (the file, or ``<command line>``), ``element`` (the path into the
    document, or the option) and ``reason`` are kept shortened (:func:`shorten`), so the
    line is at most :data:`LINE` characters long: in the element and the reason, any
    word (a run without spaces) longer than :data:`ECHO` is an echoed value and is
    shortened to ECHO characters, whichever message echoed it; a line break becomes
    a space (one error, one line)."""

    def __init__(self, origin: str, element: str, reason: str):
        self.origin = _one_line(origin, PART, words=False)
        self.element = _one_line(element, PART)
        self.reason = _one_line(reason, REASON)
        super().__init__(f"{self.origin}: {self.element}: {self.reason}")


_LONG_WORD = re.compile(r"\S{%d,}" % (ECHO + 1))


def one_line(text, limit: int = LINE) -> str:
    """``text`` as one bounded line, as an error shows it: line breaks become spaces,
    each over-long word (an echoed value) is shortened to :data:`ECHO` characters, the
    whole to ``limit`` (used for verify's violation lines, F10)."""
    return _one_line(text, limit)


def _one_line(text, limit: int, words: bool = True) -> str:
    text = str(text)
    if "\n" in text or "\r" in text:
        text = " ".join(text.split())
    if words and len(text) > ECHO:
        text = _LONG_WORD.sub(lambda m: shorten(m.group(), ECHO), text)
    return shorten(text, limit)
