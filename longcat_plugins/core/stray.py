"""Text inside a call block that is not part of a call ("stray" text), and the whitespace around it.

Whitespace between markup is markup; whitespace next to stray text is text. To decide that the same way however
the output is split, a whitespace run is held until the character after it is known, and stray text stops before
its trailing whitespace, which is then decided by what follows it.
"""

from __future__ import annotations

import re
from typing import Final

_WHITESPACE_RUN: Final = re.compile(r"[ \t\r\n]+")
_TAG_START: Final = re.compile("<")
#: Between the calls of a block, a '{' starts a JSON call.
CALL_START: Final = re.compile("[<{]")
_WAIT: Final = -1
_STRAY: Final = -2


def skip_markup_whitespace(buf: str, pos: int, final: bool, markup_starts: str) -> int:
    """At whitespace or not: the position after a whitespace run that is markup (the next character is one of
    ``markup_starts``, or the output ends), ``pos`` itself when there is no whitespace here, :data:`WAIT` when the
    buffer ends inside the run, or :data:`STRAY` when the run begins stray text."""
    m = _WHITESPACE_RUN.match(buf, pos)
    if m is None:
        return pos
    end = m.end()
    if end == len(buf):
        return end if final else _WAIT
    return end if buf[end] in markup_starts else _STRAY


def whitespace_end(buf: str, pos: int) -> int:
    """The end of the whitespace run at ``pos`` (``pos`` when there is none)."""
    m = _WHITESPACE_RUN.match(buf, pos)
    return pos if m is None else m.end()


def stray_end(buf: str, pos: int, stops: re.Pattern[str] = _TAG_START) -> int:
    """Where stray text starting at ``pos`` ends: before the next character that may start markup (``<``, or what
    ``stops`` matches) and before the whitespace in front of it."""
    m = stops.search(buf, pos + 1)
    end = len(buf) if m is None else m.start()
    kept = len(buf[pos:end].rstrip(" \t\r\n"))
    return pos + max(kept, 1)


WAIT: Final = _WAIT
STRAY: Final = _STRAY
