"""The MSCCL executor's XML tokenizer, re-read in Python (ours; written from the rules
of msccl_parser.cc:18-209, not from its code), and a well-formedness check by the
standard library's XML parser.

The executor does not read XML in general.  It reads bytes:

- between elements only spaces, line feeds and carriage returns (a tab, a byte order
  mark, text or an XML declaration stops it: :104-113);
- an element's name ends at a space, ``>``, ``/`` or a line break (:54-79), so the
  attributes must follow on the same line, one space apart; a name or a value has at
  most 253 bytes (a longer name is refused, :69-73; a longer value overflows its
  buffer, :44-49 has no bound);
- a value is double-quoted (:26-52: it may open with ``'`` but always ends at ``"``)
  and is never entity-decoded;
- comments ``<!-- ... -->`` are skipped (:83-121); ``</name>`` closes the open element
  and must match it (:124-133, :185-191); ``/>`` closes an element at once;
- at most 16 attributes are kept, later ones are dropped (:138-146).

:func:`read` returns the element tree as the executor reads it, or raises
:class:`Unreadable` at the first byte it would stop at.  :func:`xml_problem` asks
expat (``xml.etree``) whether the file is also well-formed XML for other readers.
That check never expands an entity a file could declare: :func:`read` refuses any
``<!DOCTYPE`` first (the executor cannot read one either), so only XML's five
predefined entities and character references remain, and ``xml.etree`` never fetches
external ones.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field

from .runtime import MAX_ATTRIBUTES, MAX_STRING

_SPACE = b" \n\r"
_END = b" >/\n\r"


class Unreadable(Exception):
    """The executor's parser stops here: ``line`` and ``reason``."""

    def __init__(self, line: int, reason: str):
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


@dataclass
class Element:
    """An element as the executor reads it: raw attribute values (bytes decoded as
    UTF-8 for display), children, the line it starts on, and the attributes beyond the
    16th that the executor drops."""

    name: str
    line: int
    attributes: list = field(default_factory=list)     # [(key, value)]
    children: list = field(default_factory=list)
    dropped: list = field(default_factory=list)
    single: bool = False
    long_values: list = field(default_factory=list)    # keys whose value is too long

    def get(self, key: str):
        """The value the executor finds for ``key``: the first attribute of that name
        among those it keeps (msccl_parser.h:48-58), or None."""
        return next((v for k, v in self.attributes if k == key), None)


class _Reader:
    def __init__(self, data: bytes):
        self.data = data
        self.at = 0

    @property
    def line(self) -> int:
        return self.data.count(b"\n", 0, max(self.at - 1, 0)) + 1  # the byte last read

    def char(self) -> int:
        if self.at >= len(self.data):
            raise Unreadable(self.line, "unexpected end of file")
        c = self.data[self.at]
        self.at += 1
        return c

    def token(self, values: bool):
        """(name, value or None, the byte that ended it), as :54-79 reads them."""
        name = bytearray()
        while True:
            c = self.char()
            if c == ord("="):
                if not values:
                    raise Unreadable(self.line, f"unexpected '=' after "
                                     f"{_text(bytes(name))!r} (not an attribute)")
                return bytes(name), *self.value()
            name.append(c)
            if len(name) == MAX_STRING:
                raise Unreadable(self.line, f"name {_text(bytes(name[:40]))!r}... longer "
                                 f"than {MAX_STRING - 2} bytes")
            if c in _END:
                return bytes(name[:-1]), None, c

    def value(self):
        start = self.char()
        if start not in b"\"'":
            raise Unreadable(self.line, f"expected '\"' to open a value, got "
                             f"{chr(start)!r} (the executor reads quoted values only)")
        end = self.data.find(b'"', self.at)
        if end < 0:
            raise Unreadable(self.line, "a value is never closed by '\"'")
        text = self.data[self.at:end]
        self.at = end + 1
        return text, self.char()


def read(data: bytes) -> list[Element]:
    """The top-level elements of ``data`` as the executor reads them (its handlers
    aside: unknown elements are kept, marked by their names, for the rules to name)."""
    declared = re.search(rb"<!DOCTYPE|<!ENTITY", data, re.IGNORECASE)
    if declared:
        raise Unreadable(data.count(b"\n", 0, declared.start()) + 1, "a DOCTYPE: the "
                         "executor cannot read one (and steady expands no entities)")
    reader = _Reader(data)
    top = []
    while True:
        node = _node(reader)
        if node is None:
            return top
        if isinstance(node, str):
            raise Unreadable(reader.line, f"'</{node}>' closes nothing")
        top.append(node)
        _children(reader, node)


def _node(reader: _Reader):
    """The next element (children not read yet), a closing tag's name, or None at the
    end of the data."""
    while True:
        if reader.at >= len(reader.data):
            return None
        c = reader.data[reader.at]
        reader.at += 1
        if c not in _SPACE:
            break
    if c != ord("<"):
        raise Unreadable(reader.line, f"expected '<' between elements, got "
                         f"{_shown(c)} (only spaces and line breaks may stand there)")
    line = reader.line
    name, _, c = reader.token(values=False)
    if name.startswith(b"!--"):
        window = (b"..." + name[3:] + bytes([c]))[-3:]
        while window != b"-->":
            window = window[1:] + bytes([reader.char()])
        return _node(reader)
    if not name and c == ord("/"):
        name, _, c = reader.token(values=False)
        if c != ord(">"):
            raise Unreadable(reader.line, f"unexpected {_shown(c)} in the closing tag "
                             f"</{_text(name)}")
        return _text(name)
    element = Element(_text(name), line)
    while c == ord(" "):
        key, value, c = reader.token(values=True)
        entry = (_text(key), _text(value or b""))
        if value is not None and len(value) > MAX_STRING:
            element.long_values.append(entry[0])
        if len(element.attributes) < MAX_ATTRIBUTES:
            element.attributes.append(entry)
        else:
            element.dropped.append(entry)
    if c == ord("/"):
        element.single = True
        _, _, c = reader.token(values=False)
    if c != ord(">"):
        raise Unreadable(reader.line, f"expected '>' to end <{element.name}>, got "
                         f"{_shown(c)} (attributes are separated by one space, on the "
                         "element's line)")
    return element


def _children(reader: _Reader, head: Element) -> None:
    if head.single:
        return
    while True:
        node = _node(reader)
        if node is None:
            raise Unreadable(reader.line, f"<{head.name}> (line {head.line}) is never "
                             "closed")
        if isinstance(node, str):
            if node != head.name:
                raise Unreadable(reader.line, f"</{node}> closes <{head.name}> (line "
                                 f"{head.line})")
            return
        head.children.append(node)
        _children(reader, node)


def xml_problem(data: bytes) -> str | None:
    """None when ``data`` is well-formed XML for other readers (expat), else its error.
    Call after :func:`read` (which refuses DOCTYPEs)."""
    try:
        ElementTree.fromstring(data)
    except ElementTree.ParseError as exc:
        return str(exc)
    return None


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def _shown(c: int) -> str:
    return {9: "a tab", 0xEF: "a byte order mark or other non-ASCII byte"}.get(
        c, repr(chr(c)))
