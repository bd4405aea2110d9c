"""A request's reasoning parser and the tool parser built with it.

vLLM builds a request's parsers in one call (``Parser.__init__``): the reasoning parser, then, when the server has
one, the tool parser; neither is given the other, and vLLM runs them as two stages. Our two read the output in one
pass instead, as the core does: with a tool parser, the tool parser reads the whole output (reasoning, content and
calls; the reasoning parser tells it where the prompt left the output and hands it the whole text); alone, the
reasoning parser reads the whole output itself (vLLM 0.33 would otherwise pass everything after the prompt through
as content). So the reasoning parser announces itself when it is built, and a tool parser built right after it, in
the same context, claims it.
"""

from __future__ import annotations

import weakref
from contextvars import ContextVar
from typing import Protocol


class ReasoningStage(Protocol):
    tool_stage: ToolStage | None


class ToolStage(Protocol):
    reasoning_stage: ReasoningStage | None


_last_built: ContextVar[weakref.ref[ReasoningStage] | None] = ContextVar(
    "longcat_last_reasoning_parser", default=None
)


def reasoning_parser_built(parser: ReasoningStage) -> None:
    _last_built.set(weakref.ref(parser))


def tool_parser_built(parser: ToolStage) -> None:
    ref = _last_built.get()
    _last_built.set(None)
    reasoning = ref() if ref is not None else None
    if reasoning is not None:
        reasoning.tool_stage = parser
        parser.reasoning_stage = reasoning
