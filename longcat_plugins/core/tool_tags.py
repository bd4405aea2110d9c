"""A declared tool's name used as a tag around its arguments object.

Qwen3.5 sometimes writes a call as ``<web_search>{"query": "..."}</web_search>``, with no call tag at all. Such a tag
is read as a call only where it cannot be anything else: ``NAME`` is one of the request's tools, and a JSON object
follows the tag (after a little whitespace, ``{`` then a key or ``}``). Anything else -- ``<div>`` in HTML, a tool
named like an HTML tag followed by text -- stays text. While the text so far is still a prefix of such a tag, it is
held back: at most the longest name and the bounded whitespace after it. Prefixes are found by bisection in the
sorted tags, so the cost per delta does not grow with the number of tools or the length of the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from . import tags as T
from .untagged_names import Prefixes

_MAX_GAP: Final = 64  # whitespace between the tag and the object, and inside the object before its first key
_GAP: Final = frozenset(" \t\r\n")
_OBJECT_GOES_ON: Final = frozenset('"}')
#: a tag of some name, then an object: what a caller that does not know the request's tools looks for
_SOME_TOOL_TAG: Final = re.compile(rf"<[^\s<>/=]{{1,{T.MAX_NAME_LENGTH}}}>\s{{0,{_MAX_GAP}}}\{{")


def may_hold_tool_tag(text: str) -> bool:
    """Whether ``text`` may hold a call written as ``<NAME>{json}``, whatever the tools (one scan of the text)."""
    return _SOME_TOOL_TAG.search(text) is not None


class ToolTags:
    """Finds ``<NAME>`` followed by a JSON object, NAME a declared tool's name."""

    __slots__ = ("_longest", "_names", "_prefixes")

    def __init__(self, declared: Iterable[str]) -> None:
        names = {name for name in declared if name and ">" not in name}
        self._names: Final = frozenset(names)
        self._prefixes: Final = Prefixes(names)
        self._longest: Final = max(map(len, names), default=0)

    def match(self, buf: str, pos: int, ended: bool) -> tuple[str, int] | T.NeedMore | None:
        """At ``buf[pos]`` (a ``<``): the name and where its arguments object starts, :data:`~.tags.NEED_MORE` while
        the text so far does not decide (and the input goes on), or None when this is no such tag."""
        start = pos + 1
        n = len(buf)
        gt = buf.find(">", start, start + self._longest + 1)
        if gt < 0:
            if n - start > self._longest or ended:
                return None
            return T.NEED_MORE if start == n or buf[start:] in self._prefixes else None
        name = buf[start:gt]
        if name not in self._names:
            return None
        brace = _gap_end(buf, gt + 1)
        if brace == n:
            return None if ended or brace - gt - 1 > _MAX_GAP else T.NEED_MORE
        if buf[brace] != "{" or brace - gt - 1 > _MAX_GAP:
            return None
        first = _gap_end(buf, brace + 1)
        if first == n:
            return None if ended or first - brace - 1 > _MAX_GAP else T.NEED_MORE
        if buf[first] not in _OBJECT_GOES_ON or first - brace - 1 > _MAX_GAP:
            return None
        return name, gt + 1


def _gap_end(buf: str, pos: int) -> int:
    """The end of the whitespace at ``pos``, looking no further than the gap's bound (and one past it)."""
    end = min(len(buf), pos + _MAX_GAP + 1)
    while pos < end and buf[pos] in _GAP:
        pos += 1
    return pos
