"""The markup vocabulary of every dialect, and matching a tag at a position of a buffer that may end mid-tag."""

from __future__ import annotations

import re
from typing import Final

LONGCAT_CALL_OPEN: Final = "<longcat_tool_call>"
LONGCAT_CALL_CLOSE: Final = "</longcat_tool_call>"
HERMES_CALL_OPEN: Final = "<tool_call>"
HERMES_CALL_CLOSE: Final = "</tool_call>"
FUNCTION_OPEN: Final = "<function="
FUNCTION_CLOSE: Final = "</function>"
PARAMETER_OPEN: Final = "<parameter="
PARAMETER_CLOSE: Final = "</parameter>"
ARG_KEY_OPEN: Final = "<longcat_arg_key>"
ARG_KEY_CLOSE: Final = "</longcat_arg_key>"
ARG_VALUE_OPEN: Final = "<longcat_arg_value>"
ARG_VALUE_CLOSE: Final = "</longcat_arg_value>"

THINK_OPENS: Final = ("<think>", "<longcat_think>")
THINK_CLOSES: Final = ("</think>", "</longcat_think>")
END_OF_SEQUENCE: Final = ("</longcat_s>", "<|im_end|>")

WRAPPER_OPENS: Final = (LONGCAT_CALL_OPEN, HERMES_CALL_OPEN)
WRAPPER_CLOSES: Final = (LONGCAT_CALL_CLOSE, HERMES_CALL_CLOSE)

#: Longest name accepted in ``<function=NAME>`` / ``<parameter=NAME>`` / a key/value call name or key. Bounds how much
#: text is held back while a header is undecided.
MAX_NAME_LENGTH: Final = 256


class _NeedMore:
    """Marker: the buffer ends inside something that may still become a tag."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NEED_MORE"


NEED_MORE: Final = _NeedMore()


def match_tag(buf: str, pos: int, tags: tuple[str, ...], final: bool) -> str | _NeedMore | None:
    """Which of ``tags`` starts at ``buf[pos]`` (which is ``<``).

    Returns the tag, :data:`NEED_MORE` when the buffer ends in a proper prefix of a tag (and more text may come), or
    ``None`` when no tag can start here.
    """
    pattern = _PATTERNS.get(tags)
    if pattern is None:
        pattern = _PATTERNS[tags] = re.compile("|".join(re.escape(t) for t in sorted(tags, key=len, reverse=True)))
    m = pattern.match(buf, pos)
    if m is not None:
        return m.group()
    rest = buf[pos:]
    if final or len(rest) >= _LONGEST_TAG:
        return None
    return NEED_MORE if any(len(rest) < len(tag) and tag.startswith(rest) for tag in tags) else None


#: one alternation per tag set (the sets are a handful of constants)
_PATTERNS: dict[tuple[str, ...], re.Pattern[str]] = {}
_LONGEST_TAG: Final = 24
