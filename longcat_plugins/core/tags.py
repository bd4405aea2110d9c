"""The markup vocabulary of every dialect (which tags make a call block: :mod:`.dialects`), and matching a tag at a
position of a buffer that may end mid-tag."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from .cursor import Cursor

LONGCAT_CALL_OPEN: Final = "<longcat_tool_call>"
LONGCAT_CALL_CLOSE: Final = "</longcat_tool_call>"
HERMES_CALL_OPEN: Final = "<tool_call>"
HERMES_CALL_CLOSE: Final = "</tool_call>"
#: a JSON array of calls (``[{"name": ..., "parameters": {...}}, ...]``), seen from LongCat-Next
CALL_LIST_OPEN: Final = "<function_calls>"
CALL_LIST_CLOSE: Final = "</function_calls>"
FUNCTION_OPEN: Final = "<function="
FUNCTION_CLOSE: Final = "</function>"
PARAMETER_OPEN: Final = "<parameter="
PARAMETER_CLOSE: Final = "</parameter>"
ARG_KEY_OPEN: Final = "<longcat_arg_key>"
ARG_KEY_CLOSE: Final = "</longcat_arg_key>"
ARG_VALUE_OPEN: Final = "<longcat_arg_value>"
ARG_VALUE_CLOSE: Final = "</longcat_arg_value>"

#: the keys a JSON call object gives its arguments under (the first is what the registry's dialects write)
ARGUMENT_KEYS: Final = ("arguments", "parameters")

THINK_OPENS: Final = ("<think>", "<longcat_think>")
THINK_CLOSES: Final = ("</think>", "</longcat_think>")
END_OF_SEQUENCE: Final = ("</longcat_s>", "<|im_end|>")


#: Longest name accepted in ``<function=NAME>`` / ``<parameter=NAME>`` / a key/value call name or key. Bounds how much
#: text is held back while a header is undecided.
MAX_NAME_LENGTH: Final = 256


class NeedMore:
    """Marker: the text ends before what it holds is decided (a tag, a name, a value...) and more may come: the
    one way any reader or look-ahead says "need more input"."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NEED_MORE"


NEED_MORE: Final = NeedMore()


class TagSet:
    """The tags that may start at some point of the text, with what matching them needs: one alternation (longest
    first), the length of the longest tag, and every proper prefix (to know whether a cut-off buffer may still
    become one)."""

    __slots__ = ("_pattern", "_prefixes", "longest", "tags")

    def __init__(self, *tags: str) -> None:
        self.tags: Final = tags
        self.longest: Final = max(map(len, tags))
        self._pattern: Final = re.compile("|".join(re.escape(t) for t in sorted(tags, key=len, reverse=True)))
        self._prefixes: Final = frozenset(t[:k] for t in tags for k in range(1, len(t)))

    def __contains__(self, tag: object) -> bool:
        return tag in self.tags

    def is_prefix(self, text: str) -> bool:
        """Whether ``text`` is a proper prefix of one of the tags."""
        return text in self._prefixes

    def is_prefix_at(self, buf: str, pos: int) -> bool:
        """Whether ``buf[pos:]`` is a proper prefix of one of the tags (without copying a longer rest)."""
        return len(buf) - pos < self.longest and buf[pos:] in self._prefixes

    def match(self, cur: Cursor, pos: int) -> str | NeedMore | None:
        """Which tag starts at ``cur.text[pos]`` (which is ``<``).

        Returns the tag, :data:`NEED_MORE` when the text ends in a proper prefix of a tag and the input has not ended,
        or ``None`` when no tag can start here. Looks at no more than the longest tag's length of text.
        """
        buf = cur.text
        m = self._pattern.match(buf, pos)
        if m is not None:
            return m.group()
        if cur.ended or len(buf) - pos >= self.longest:
            return None
        return NEED_MORE if buf[pos:] in self._prefixes else None

    def match_cut(self, buf: str, pos: int) -> str | NeedMore | None:
        """As :meth:`match`, but a proper prefix of a tag at the end of ``buf`` is :data:`NEED_MORE` even at the end
        of the input (for a caller to whom a cut-off tag means the same as the tag)."""
        m = self._pattern.match(buf, pos)
        if m is not None:
            return m.group()
        if len(buf) - pos >= self.longest:
            return None
        return NEED_MORE if buf[pos:] in self._prefixes else None
