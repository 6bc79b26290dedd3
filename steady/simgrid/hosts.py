"""``--hosts REGEX``: which hosts of a SimGrid platform to keep, matched in time linear
in the host name (ours, on Thompson's construction; proofs/host-patterns.md).

Python's ``re`` backtracks: ``^(a+)+$`` on a 34-character host name takes longer than
anyone waits (2^34 steps), and so do ``a*a*a*...$`` and ``(a|a)*``.  The pattern is
therefore parsed by Python's own regular-expression parser and run here as a
Thompson automaton (the set of states a backtracking matcher could be in, advanced
one character at a time; each (state set, character, context) step computed once and
remembered): the answer is ``re.search``'s, the work at most (name length) x (states
of the pattern) per name, whatever the pattern.  Python's parser is read through
``re._parser``, a private module: its node names are checked below, and a pattern it
gives in a shape this module does not know is refused, never misread.

The constructs that need backtracking are refused in one line (exit 2):
backreferences, lookahead and lookbehind, conditionals, atomic groups and possessive
quantifiers, inline flags; so are repeat counts above :data:`MAX_REPEAT` and
patterns longer than :data:`MAX_PATTERN` characters.  Everything else of ``re``'s
syntax is kept: literals, ``.``, classes (``[a-z]``, ``[^...]``, ``\\d \\w \\s`` and
their negations), groups, alternation, ``* + ? {m,n}`` (greedy or lazy: the same
answer to "does it match"), ``^ $ \\A \\Z \\b \\B``.
"""

from __future__ import annotations

import re
import re._constants as C
import re._parser as sre_parse

from ..errors import InputError, echo

#: The longest --hosts pattern.
MAX_PATTERN = 1000
#: The largest count in ``{m,n}`` (each count is a copy of the repeated part).
MAX_REPEAT = 100
#: The most automaton states a pattern may have once its repeats are unrolled.
MAX_STATES = 20000

_REFUSED = {C.GROUPREF: "backreferences", C.GROUPREF_EXISTS: "conditionals",
            C.ASSERT: "lookahead and lookbehind", C.ASSERT_NOT: "lookahead and lookbehind",
            C.ATOMIC_GROUP: "atomic groups", C.POSSESSIVE_REPEAT: "possessive quantifiers"}


def _refuse(pattern: str, reason: str):
    raise InputError("<command line>", "--hosts", f"{echo(pattern)}: {reason} (steady "
                     "matches host names in linear time, without backtracking; "
                     "docs/cli.md)")


class HostPattern:
    """A compiled ``--hosts`` pattern: :meth:`search` answers as ``re.search`` does."""

    def __init__(self, pattern: str):
        if len(pattern) > MAX_PATTERN:
            _refuse(pattern, f"longer than {MAX_PATTERN} characters")
        try:
            re.compile(pattern)
            parsed = sre_parse.parse(pattern)
        except (re.error, RecursionError, OverflowError) as exc:
            _refuse(pattern, f"not a regular expression: {exc}")
        if parsed.state.flags & ~(C.SRE_FLAG_UNICODE | C.SRE_FLAG_VERBOSE):
            _refuse(pattern, "inline flags are not supported")
        self.pattern = pattern
        # states: ("char", test, next) | ("split", [next, ...]) | ("at", code, next)
        #         | ("match",)
        self.states: list = [("match",)]
        self.start = self._sequence(list(parsed.data), 0)
        self._steps: dict = {}
        self._closures: dict = {}

    # -- building (Thompson's construction, right to left) ------------------------------

    def _new(self, state) -> int:
        if len(self.states) >= MAX_STATES:
            _refuse(self.pattern, f"more than {MAX_STATES} states once its repeats are "
                    "unrolled")
        self.states.append(state)
        return len(self.states) - 1

    def _sequence(self, items: list, follow: int) -> int:
        for op, arg in reversed(items):
            follow = self._item(op, arg, follow)
        return follow

    def _item(self, op, arg, follow: int) -> int:
        if op in _REFUSED:
            _refuse(self.pattern, f"{_REFUSED[op]} are not supported")
        if op is C.LITERAL:
            return self._new(("char", ("eq", chr(arg)), follow))
        if op is C.NOT_LITERAL:
            return self._new(("char", ("ne", chr(arg)), follow))
        if op is C.ANY:
            return self._new(("char", ("any",), follow))
        if op is C.IN:
            return self._new(("char", ("in", _class(self.pattern, arg)), follow))
        if op is C.AT:
            return self._new(("at", arg, follow))
        if op is C.SUBPATTERN:
            _group, add, remove, items = arg
            if add or remove:
                _refuse(self.pattern, "inline flags are not supported")
            return self._sequence(list(items.data), follow)
        if op is C.BRANCH:
            return self._new(("split", [self._sequence(list(b.data), follow)
                                        for b in arg[1]]))
        if op in (C.MAX_REPEAT, C.MIN_REPEAT):
            low, high, items = arg
            return self._repeat(low, high, list(items.data), follow)
        _refuse(self.pattern, f"{str(op).lower()} is not supported")

    def _repeat(self, low: int, high, items: list, follow: int) -> int:
        if low > MAX_REPEAT or (high != C.MAXREPEAT and high > MAX_REPEAT):
            _refuse(self.pattern, f"repeat counts above {MAX_REPEAT} are not supported")
        if high == C.MAXREPEAT:          # x{low,}: low copies, then x*
            loop = self._new(("split", []))
            body = self._sequence(items, loop)
            self.states[loop] = ("split", [body, follow])
            tail = loop
        else:                            # x{low,high}: low copies, high - low optional
            tail = follow
            for _ in range(high - low):
                tail = self._new(("split", [self._sequence(items, tail), follow]))
        for _ in range(low):
            tail = self._sequence(items, tail)
        return tail

    # -- matching ------------------------------------------------------------------------

    def search(self, name: str) -> bool:
        """Whether the pattern matches somewhere in ``name`` (``re.search``)."""
        current: frozenset = frozenset()
        for i in range(len(name) + 1):
            context = _context(name, i)
            current = self._closure(current | {self.start}, context)
            if 0 in current:             # state 0: the match
                return True
            if i == len(name):
                return False
            key = (current, name[i])
            step = self._steps.get(key)
            if step is None:
                step = self._steps[key] = frozenset(
                    self.states[s][2] for s in current
                    if self.states[s][0] == "char" and _test(self.states[s][1], name[i]))
            current = step
        return False

    def _closure(self, states: frozenset, context) -> frozenset:
        key = (states, context)
        found = self._closures.get(key)
        if found is not None:
            return found
        seen, stack = set(), list(states)
        while stack:
            s = stack.pop()
            if s in seen:
                continue
            seen.add(s)
            state = self.states[s]
            if state[0] == "split":
                stack.extend(state[1])
            elif state[0] == "at" and _holds(state[1], context):
                stack.append(state[2])
        kept = frozenset(s for s in seen if self.states[s][0] in ("char", "match"))
        self._closures[key] = kept
        return kept


def _class(pattern: str, items) -> tuple:
    """A character class as (negated, [tests])."""
    negated, tests = False, []
    for op, arg in items:
        if op is C.NEGATE:
            negated = True
        elif op is C.LITERAL:
            tests.append(("eq", chr(arg)))
        elif op is C.NOT_LITERAL:
            tests.append(("ne", chr(arg)))
        elif op is C.RANGE:
            tests.append(("range", chr(arg[0]), chr(arg[1])))
        elif op is C.CATEGORY:
            tests.append(("category", arg))
        else:
            _refuse(pattern, f"{str(op).lower()} in a class is not supported")
    return negated, tuple(tests)


_CATEGORIES = {
    C.CATEGORY_DIGIT: str.isdecimal, C.CATEGORY_SPACE: str.isspace,
    C.CATEGORY_WORD: lambda c: c.isalnum() or c == "_",
}
_NEGATED = {C.CATEGORY_NOT_DIGIT: C.CATEGORY_DIGIT, C.CATEGORY_NOT_SPACE: C.CATEGORY_SPACE,
            C.CATEGORY_NOT_WORD: C.CATEGORY_WORD}


def _category(code, c: str) -> bool:
    if code in _NEGATED:
        return not _CATEGORIES[_NEGATED[code]](c)
    return _CATEGORIES[code](c)


def _test(test, c: str) -> bool:
    kind = test[0]
    if kind == "eq":
        return c == test[1]
    if kind == "ne":
        return c != test[1]
    if kind == "any":
        return c != "\n"
    if kind == "range":
        return test[1] <= c <= test[2]
    if kind == "category":
        return _category(test[1], c)
    negated, tests = test[1]            # "in"
    return any(_test(t, c) for t in tests) != negated


def _word(c) -> bool:
    return c is not None and (c.isalnum() or c == "_")


def _context(name: str, i: int) -> tuple:
    """What the anchors look at, at position ``i``: (at start, at end, before a final
    newline, previous is a word character, next is a word character)."""
    before = name[i - 1] if i else None
    after = name[i] if i < len(name) else None
    return (i == 0, i == len(name), i == len(name) - 1 and name[i] == "\n",
            _word(before), _word(after))


def _holds(code, context) -> bool:
    start, end, before_final_newline, word_before, word_after = context
    if code in (C.AT_BEGINNING, C.AT_BEGINNING_STRING):
        return start
    if code is C.AT_END:
        return end or before_final_newline
    if code is C.AT_END_STRING:
        return end
    if code is C.AT_BOUNDARY:
        return word_before != word_after
    if code is C.AT_NON_BOUNDARY:   # never in an empty name (Python's re before 3.14)
        return word_before == word_after and not (start and end)
    return False


def select(pattern: str | None, names: list[str]) -> list[str]:
    """The names ``pattern`` matches (all when None), in their order."""
    if pattern is None:
        return list(names)
    matcher = HostPattern(pattern)
    return [name for name in names if matcher.search(name)]
