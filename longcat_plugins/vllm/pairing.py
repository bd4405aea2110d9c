"""Whether a request's reasoning parser has a tool parser after it.

vLLM builds a request's parsers in one call (``Parser.__init__``): the reasoning parser, then, when the server has
one, the tool parser; neither is given the other. The reasoning parser needs to know: with a tool stage after it, it
hands the output over where reasoning ends and the tool parser reads the rest; alone, it reads the whole output
itself (vLLM 0.33 would otherwise pass everything after the prompt through as content). So the reasoning parser
announces itself when it is built, and a tool parser built right after it, in the same context, claims it.
"""

from __future__ import annotations

import weakref
from contextvars import ContextVar
from typing import Protocol


class ToolStaged(Protocol):
    has_tool_stage: bool


_last_built: ContextVar[weakref.ref[ToolStaged] | None] = ContextVar("longcat_last_reasoning_parser", default=None)


def reasoning_parser_built(parser: ToolStaged) -> None:
    _last_built.set(weakref.ref(parser))


def tool_parser_built() -> None:
    ref = _last_built.get()
    _last_built.set(None)
    parser = ref() if ref is not None else None
    if parser is not None:
        parser.has_tool_stage = True
