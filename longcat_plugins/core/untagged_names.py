"""Call names written outside any call tag.

Real LongCat outputs sometimes leave the opening tag out (the name on its own line, then ``<longcat_arg_key>``) or
write the name before it (``NAME<longcat_tool_call><longcat_arg_key>...``). The request's declared tools are what
make this decidable while streaming: content that could still be such a name (``NAME`` or ``functions.NAME``, a
whole word, with at most a little whitespace after it) is held back, never more than the longest name, and released
as soon as it cannot be one. The same names, written exactly, are what a call object written with no tag at all
may name (``readers/json_call.py``).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Container, Iterable
from typing import Final

NAMESPACES: Final = ("", "functions.")
IDENTIFIER_CHARS: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$.-/")
#: a name cannot start right after one of these (after a '.', it can: a name glued to the end of a sentence)
WORD_CHARS: Final = IDENTIFIER_CHARS - {"."}
_MAX_GAP: Final = 8  # whitespace between the name and its markup
#: whitespace before the first call object of a block with no tag, and inside the object before its call is known
UNTAGGED_GAP: Final = 8
_GAP: Final = frozenset(" \t\r\n")


class UntaggedNames:
    """Finds a declared tool's name at the end of a stretch of content."""

    __slots__ = ("_longest", "_names", "_prefixes")

    def __init__(self, declared: Iterable[str]) -> None:
        written = {space + name for name in declared for space in NAMESPACES if name}
        self._names: Final = frozenset(written)
        self._prefixes: Final = Prefixes(written)
        self._longest: Final = max(map(len, written), default=0)

    def is_name(self, written: str) -> bool:
        """Whether ``written`` is a declared name, maybe with the namespace."""
        return written in self._names

    def may_begin_name(self, written: str) -> bool:
        """Whether ``written`` can still grow into a declared name."""
        return not written or written in self._prefixes

    def _word(self, buf: str, pos: int, end: int, word_before: bool) -> tuple[int, int, bool] | None:
        """The last word of ``buf[pos:end]``, before at most a little whitespace: (start, end, whether it starts
        at a word boundary), or None when there is no such word."""
        k = end
        while k > pos and buf[k - 1] in _GAP:
            k -= 1
        if end - k > _MAX_GAP:
            return None
        w = k
        limit = k - self._longest - 1
        while w > pos and w > limit and buf[w - 1] in IDENTIFIER_CHARS:
            w -= 1
        if w == k:
            return None
        whole = not (buf[w - 1] in IDENTIFIER_CHARS if w > pos else word_before)
        return w, k, whole

    def name_before(self, buf: str, pos: int, end: int, word_before: bool) -> tuple[int, str] | None:
        """Where a declared name ends ``buf[pos:end]`` (up to a little whitespace), and the name as written."""
        word = self._word(buf, pos, end, word_before)
        if word is None:
            return None
        w = _name_start(buf, *word, self._names)
        return None if w is None else (w, buf[w : word[1]])

    def hold_from(self, buf: str, pos: int, end: int, word_before: bool) -> int:
        """Where to stop releasing ``buf[pos:end]`` (the end of the text so far) because what follows may still
        be a name with its markup: ``end`` when nothing need be held."""
        word = self._word(buf, pos, end, word_before)
        if word is None:
            return end
        w = _name_start(buf, *word, self._names if word[1] < end else self._prefixes)
        return end if w is None else w


class Prefixes(Container[str]):
    """The non-empty prefixes of some names, found by bisection in the sorted names: building it costs a sort, not
    a set of every prefix (it is built for every request)."""

    __slots__ = ("_sorted",)

    def __init__(self, names: Iterable[str]) -> None:
        self._sorted = sorted(names)

    def __contains__(self, text: object) -> bool:
        if not isinstance(text, str) or not text:
            return False
        names = self._sorted
        i = bisect_left(names, text)  # the names that start with ``text`` follow it directly in sorted order
        return i < len(names) and names[i].startswith(text)


def _name_start(buf: str, w: int, k: int, whole: bool, accepted: Container[str]) -> int | None:
    """Where the accepted name in the word ``buf[w:k]`` starts: the whole word (when it starts at a boundary), else
    the longest part of it after a '.' (a name glued to the end of a sentence, or a namespace written twice); None
    when no part is accepted."""
    if whole and buf[w:k] in accepted:
        return w
    dot = buf.find(".", w, k)
    while dot >= 0:
        if buf[dot + 1 : k] in accepted:
            return dot + 1
        dot = buf.find(".", dot + 1, k)
    return None
