"""Which tool a written call name means.

When the request declares tools, a call names one of them: the written name exactly, else the name without a
namespace prefix (``functions.get_weather``, ``tools.get_weather``: models prompted with a TypeScript-style namespace
write it). A declared name may hold dots itself (``l.weather``, written ``functions.l.weather``): the longest part of
the written name after a dot that is a declared tool is the one meant. A name that resolves to no declared tool is
no call. Without declared tools, any identifier is accepted as written; a name never holds whitespace, markup or
prose.
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterable
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from .problems import ProblemLog
    from .schema import ToolSchemas

_IDENTIFIER: Final = re.compile(r"[A-Za-z_$][\w$.\-/]*")


def resolve_tool_name(written: str, declared: Container[str], any_declared: bool) -> str | None:
    """The declared tool ``written`` names (or, when no tool is declared, ``written`` if it is an identifier)."""
    if not any_declared:
        return written if _IDENTIFIER.fullmatch(written) else None
    if written in declared:
        return written
    dot = written.find(".")
    while dot >= 0:
        bare = written[dot + 1 :]
        if bare in declared:
            return bare
        dot = written.find(".", dot + 1)
    return None


def is_identifier(name: str) -> bool:
    return _IDENTIFIER.fullmatch(name) is not None


class CallNames:
    """Which tool a call reader's written name means, for one request: a declared tool; an undeclared name when
    unknown calls are emitted (``emit_unknown_calls``) and it is an identifier; None when the call is no call. An
    undeclared name is noted in the request's ``problems``."""

    __slots__ = ("_emit_unknown", "_passthrough", "_problems", "_schemas")

    def __init__(self, schemas: ToolSchemas, emit_unknown: bool, passthrough: bool, problems: ProblemLog) -> None:
        self._schemas = schemas
        self._emit_unknown = emit_unknown
        self._passthrough = passthrough
        self._problems = problems

    def resolve(self, written: str) -> str | None:
        name = resolve_tool_name(written, self._schemas, bool(self._schemas))
        if name is not None:
            return name
        if self._passthrough:
            return None
        tools = _some_names(self._schemas.names)
        if not (self._emit_unknown and is_identifier(written)):
            self._problems.note("a call names no tool of the request (%r; tools: %s): content", written[:100], tools)
            return None
        self._problems.note("model called unknown tool %r (request tools: %s)", written, tools)
        return written


_NAMES_LOGGED: Final = 8


def _some_names(names: Iterable[str]) -> str:
    """The request's tool names for a log line: a few, and how many more (a request can declare hundreds)."""
    listed = list(names)
    if not listed:
        return "none"
    shown = ", ".join(listed[:_NAMES_LOGGED])
    more = len(listed) - _NAMES_LOGGED
    return f"{shown} and {more} more" if more > 0 else shown
