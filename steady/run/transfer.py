"""One transfer of a finite plan (:mod:`.plan`): what a rank sends or receives."""

from __future__ import annotations

from typing import NamedTuple


class Transfer(NamedTuple):
    """Messages ``first .. first + count - 1`` sent from node ``tail`` to node ``head``
    (node indices), planned to start at ``release`` and to last ``duration`` ticks.
    (A named tuple: plans hold tens of thousands of them.)"""

    id: int
    tail: int
    head: int
    first: int
    count: int
    release: int
    duration: int
    tree: int = 0

    @property
    def end(self) -> int:
        return self.release + self.duration

    @property
    def messages(self) -> range:
        return range(self.first, self.first + self.count)
