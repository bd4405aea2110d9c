"""Arguments wrapped as ``{"args": {...}}`` (Qwen3.5 and others) for a tool that has no parameter ``args``.

The wrapper is decided on its first key alone, with what comes before the inner object held back (a bounded
amount): ``{``, the key ``"args"``, the colon, whitespace, and the ``{`` that opens the inner object. It is
unwrapped only for a tool that declares parameters and none named ``args``; the inner object is then the arguments
(it streams as any arguments object), and the wrapper's ``}`` after it is markup. Anything else after the inner
object is not the wrapper's end: the reader treats it as what follows a broken call (text).
"""

from __future__ import annotations

import re
from typing import Final

from ..cursor import Cursor
from ..schema import ToolSchemas
from ..tags import NEED_MORE, NeedMore

_WS: Final = "[ \t\r\n]{0,32}"
_WRAPPER: Final = re.compile(r"\{" + _WS + r'"args"' + _WS + ":" + _WS + r"\{")
#: what may still become the wrapper's opening once more text comes
_WRAPPER_PREFIX: Final = re.compile(r"\{" + _WS + r'(?:"(?:a(?:r(?:g(?:s(?:"' + _WS + "(?::" + _WS + ")?)?)?)?)?)?)?")
_MAX_OPENING: Final = 4 + len('"args"') + 3 * 32
_CLOSING_WHITESPACE: Final = re.compile(_WS)


def unwraps_arguments(schemas: ToolSchemas, tool: str) -> bool:
    """Whether an ``{"args": {...}}`` object is the arguments of ``tool`` wrapped: the tool declares parameters and
    none is named ``args``."""
    return schemas.declares_parameters(tool) and schemas.parameter(tool, "args") is None


def inner_object(cur: Cursor, pos: int) -> int | NeedMore | None:
    """At the ``{`` of an arguments object: where the inner object of an ``{"args": {`` wrapper starts, None when the
    object is no such wrapper, or :data:`NEED_MORE` while the text read so far may still become one."""
    buf = cur.text
    m = _WRAPPER.match(buf, pos, pos + _MAX_OPENING)
    if m is not None:
        return m.end() - 1
    if not cur.ended and _WRAPPER_PREFIX.fullmatch(buf, pos) is not None:
        return NEED_MORE
    return None


def wrapper_close(cur: Cursor, pos: int) -> int | NeedMore | None:
    """After the inner object: the end of the wrapper's ``}`` (whitespace before it included), None when something
    else follows, or :data:`NEED_MORE` while only whitespace (a bounded amount) has come."""
    buf = cur.text
    end = _CLOSING_WHITESPACE.match(buf, pos)
    assert end is not None
    i = end.end()
    if i < len(buf):
        return i + 1 if buf[i] == "}" else None
    return None if cur.ended or i - pos >= 32 else NEED_MORE
