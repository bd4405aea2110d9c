"""The text of a call block held back while the block is not known to hold a call: markup once a call of it is
announced, text again (in the mode the block was opened from) if none is."""

from __future__ import annotations


class HeldBlock:
    """The held text, in the pieces it was read in, and two places in it: where the call being read starts, and
    where the calls of the block that named no tool start (their text is content once a later call of the block is
    announced)."""

    __slots__ = ("parts", "reader_from", "unknown_from")

    def __init__(self) -> None:
        self.parts: list[str] | None = None  # None: nothing is held
        self.reader_from = 0
        self.unknown_from = -1  # -1: no call of the block named no tool

    def hold(self, *parts: str) -> None:
        """A block (or a call with no block) begins: its text is held from ``parts`` on."""
        self.parts = list(parts)
        self.unknown_from = -1

    def shown(self, start: str) -> None:
        """The held text begins with ``start`` (the piece it was held from), which was shown as text: it is no
        longer held (the place of each piece is kept)."""
        if self.parts and self.parts[0] == start:
            self.parts[0] = ""

    def append(self, text: str) -> None:
        if self.parts is not None:
            self.parts.append(text)

    def size(self) -> int:
        return sum(map(len, self.parts or ()))

    def reader_starts(self) -> None:
        """A call begins here."""
        assert self.parts is not None
        self.reader_from = len(self.parts)

    def reader_named_no_tool(self) -> None:
        """The call that began last named no tool: its text stays held, with any before it that named none."""
        if self.unknown_from < 0:
            self.unknown_from = self.reader_from

    def take_unknown(self) -> str:
        """The text of the calls that named no tool, up to where the call being read starts ('' if there are none)."""
        start, self.unknown_from = self.unknown_from, -1
        return "".join(self.parts[start : self.reader_from]) if start >= 0 and self.parts else ""

    def release(self) -> list[str]:
        """The held pieces (none if nothing was held); nothing is held after."""
        parts = self.parts or []
        self.parts = None
        self.unknown_from = -1
        return parts
