"""Text inside a call block that is not part of a call ("stray" text), and the whitespace around it.

Whitespace between markup is markup; whitespace next to stray text is text. To decide that the same way however
the output is split, a whitespace run is taken into a :class:`WhitespaceRun` and decided when the character after it
is known; stray text stops before its trailing whitespace, which is then decided by what follows it. Taking the run
(instead of leaving it unread in the buffer) keeps a long run linear: it is never scanned twice.
"""

from __future__ import annotations

import re
from typing import Final

from .tag_starts import TAG_START, TAG_STARTS

_WHITESPACE_RUN: Final = re.compile(r"[ \t\r\n]+")
#: Between the calls of a block, a '{' starts a JSON call.
CALL_START: Final = re.compile("[" + "".join(map(re.escape, sorted({*TAG_STARTS, "{"}))) + "]")
WHITESPACE: Final = frozenset(" \t\r\n")


def whitespace_end(buf: str, pos: int) -> int:
    """The end of the whitespace run at ``pos`` (``pos`` when there is none)."""
    m = _WHITESPACE_RUN.match(buf, pos)
    return pos if m is None else m.end()


def text_end(buf: str, pos: int, stops: re.Pattern[str] = TAG_START) -> int:
    """Where stray text starting at ``pos`` ends: before the next character that may start markup (a tag's, or what
    ``stops`` matches) and before the whitespace in front of it."""
    m = stops.search(buf, pos + 1)
    end = len(buf) if m is None else m.start()
    kept = len(buf[pos:end].rstrip(" \t\r\n"))
    return pos + max(kept, 1)


class WhitespaceRun:
    """Whitespace read but not yet decided."""

    __slots__ = ("_parts",)

    def __init__(self) -> None:
        self._parts: list[str] = []

    def __bool__(self) -> bool:
        return bool(self._parts)

    def take(self, buf: str, pos: int) -> int:
        """Take the whitespace run at ``pos``; return where it ends."""
        end = whitespace_end(buf, pos)
        if end > pos:
            self._parts.append(buf[pos:end])
        return end

    def hold(self, markup: str) -> None:
        """Markup decided as the whitespace around it is (a block's call separator: markup when a call follows it)."""
        self._parts.append(markup)

    def drop(self) -> None:
        """It was markup."""
        self._parts.clear()

    def release(self) -> str:
        """It was text: here it is."""
        text = "".join(self._parts)
        self._parts.clear()
        return text
