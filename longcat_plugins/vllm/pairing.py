"""A request's reasoning parser and the tool parser built with it.

vLLM builds a request's parsers in one call (``Parser.__init__``): the reasoning parser, then, when the server has
one, the tool parser; neither is given the other, and vLLM runs them as two stages. Our two read the output in one
pass instead, as the core does: with a tool parser, the tool parser reads the whole output (reasoning, content and
calls; the reasoning parser tells it where the prompt left the output and hands it the whole text); alone, the
reasoning parser reads the whole output itself (vLLM 0.33 would otherwise pass everything after the prompt through
as content). So the reasoning parser announces itself when it is built, and a tool parser built right after it, in
the same context, claims it.

Beside a tool parser that is not ours (vLLM's ``hermes``, ``qwen3_coder``...), the two are stages again: the reasoning
parser reads reasoning and confirms its end where content starts, and vLLM hands the content to that tool parser. The
reasoning parser learns which tool parser its request has from the ``Parser`` that builds it
(:func:`tool_parser_beside`: ``Parser.__init__`` builds the reasoning parser, and the class vLLM composed for the
server names its ``tool_parser_cls``, contract ``vllm.parser.abstract_parser.Parser.tool_parser_cls``).
"""

from __future__ import annotations

import enum
import sys
import weakref
from contextvars import ContextVar
from typing import Final, Protocol


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


class ToolParserBeside(enum.Enum):
    """Which tool parser the request's ``Parser`` builds beside the reasoning parser."""

    NONE = "none"  # --reasoning-parser alone (or no auto tool choice)
    OURS = "ours"  # --tool-call-parser longcat: one pass
    OTHER = "other"  # an engine's own tool parser: two stages
    UNKNOWN = "unknown"  # not built by a Parser (the engine core's structured-output gate)


#: frames between the reasoning parser's ``__init__`` and the ``Parser.__init__`` that builds it (a subclass's
#: ``__init__`` calling ``super().__init__`` adds one)
_BUILDER_FRAMES: Final = 4


def tool_parser_beside() -> ToolParserBeside:
    """The tool parser of the ``Parser`` that is building the calling reasoning parser (called from its
    ``__init__``). Only vLLM's API server builds parsers so; it has imported the module of ``Parser`` then."""
    module = sys.modules.get("vllm.parser.abstract_parser")
    parser_class = getattr(module, "Parser", None)
    if parser_class is None:
        return ToolParserBeside.UNKNOWN
    frame = sys._getframe(2)
    for _ in range(_BUILDER_FRAMES):
        if frame is None:
            break
        owner = frame.f_locals.get("self")
        if isinstance(owner, parser_class):
            tool_parser_cls = type(owner).tool_parser_cls
            if tool_parser_cls is None:
                return ToolParserBeside.NONE
            ours = getattr(tool_parser_cls, "reads_in_one_pass", False)
            return ToolParserBeside.OURS if ours else ToolParserBeside.OTHER
        frame = frame.f_back
    return ToolParserBeside.UNKNOWN
