"""A request's reasoning parser and the tool parser built with it.

vLLM builds a request's parsers in one call (``Parser.__init__``): the reasoning parser, then, when the server has
one, the tool parser; neither is given the other, and vLLM runs them as two stages. Our two read the output in one
pass instead, as the core does: with a tool parser, with one stream of the tool parser's (reasoning, content and
calls; the reasoning parser tells it where the prompt left the output and reads the reasoning with it); alone, the
reasoning parser reads the whole output itself (vLLM 0.33 would otherwise pass everything after the prompt through
as content).

The pair is the two parsers one ``Parser`` builds: each finds the ``Parser`` whose ``__init__`` is building it
(:func:`reasoning_parser_built`, :func:`tool_parser_built`; contract
``vllm.parser.abstract_parser.Parser.tool_parser_cls``), and the tool parser claims the reasoning parser that same
``Parser`` built. Nothing else pairs them: neither the order in which parsers are built nor the thread or context
they are built in, so the parsers of one request never pair with another's.

When the output starts inside reasoning, the reasoning parser reads it with the tool parser's stream (built for the
request the serving layer is parsing, :func:`request_being_parsed`), and hands that stream over where reasoning ends:
vLLM then asks only the reasoning stage during reasoning and the tool stage after it, and the output is still read
once. Otherwise (or when the request is not known), the tool parser reads the whole output with its stream.

Parsers built by hand (offline use of ``LLM.chat``, through ``ReasoningParserManager.get_reasoning_parser`` and
``ToolParserManager.get_tool_parser``, in either order) are two stages, as beside a tool parser that is not ours
(vLLM's ``hermes``, ``qwen3_coder``...): the reasoning parser reads reasoning, returns the rest of the output as
content (calls as written) and, streaming, confirms the end of reasoning where content starts; the tool parser reads
that content. Two stages read what one pass reads: the reasoning parser's reading keeps call blocks verbatim (a think
tag inside a call's value is the value's text), and the tool parser reads the think blocks it is handed as reasoning.
"""

from __future__ import annotations

import enum
import sys
import weakref
from types import FrameType
from typing import Any, Final, Protocol


class ReasoningStage(Protocol):
    tool_stage: ToolStage | None


class ToolStage(Protocol):
    reasoning_stage: ReasoningStage | None


class ToolParserBeside(enum.Enum):
    """Which tool parser the request's ``Parser`` builds beside the reasoning parser."""

    NONE = "none"  # --reasoning-parser alone (or no auto tool choice)
    OURS = "ours"  # --tool-call-parser longcat: one pass
    OTHER = "other"  # an engine's own tool parser: two stages
    UNKNOWN = "unknown"  # not built by a Parser: by hand, or the engine core's structured-output gate


#: frames between a parser's ``__init__`` and the ``Parser.__init__`` that builds it (a subclass's ``__init__``
#: calling ``super().__init__`` adds one)
_BUILDER_FRAMES: Final = 4

#: frames between a parser's hook and the ``Parser.parse_delta`` that asks it (through ``DelegatingParser``'s method
#: of the same name and a helper or two of the parser)
_ASKER_FRAMES: Final = 6

#: reasoning parsers built by a ``Parser`` whose tool parser is ours, until that tool parser claims its own
_unclaimed: weakref.WeakKeyDictionary[Any, ReasoningStage] = weakref.WeakKeyDictionary()


def _builder(depth: int) -> Any:
    """The ``Parser`` whose ``__init__`` is ``depth`` frames above this call (a few more through subclasses'
    ``__init__``), building a parser, or None. Only vLLM's serving layer builds parsers so; it has imported the
    module of ``Parser`` then."""
    module = sys.modules.get("vllm.parser.abstract_parser")
    parser_class = getattr(module, "Parser", None)
    if parser_class is None:
        return None
    frame: FrameType | None = sys._getframe(1)
    for _ in range(depth - 1):
        frame = frame.f_back if frame is not None else None
    for _ in range(_BUILDER_FRAMES):
        if frame is None:
            break
        owner = frame.f_locals.get("self")
        if isinstance(owner, parser_class):
            return owner
        frame = frame.f_back
    return None


def reasoning_parser_built(parser: ReasoningStage) -> ToolParserBeside:
    """Called by the reasoning parser's ``__init__``: the tool parser its ``Parser`` builds beside it. With ours, the
    ``Parser`` keeps this parser for its tool parser to claim."""
    owner = _builder(3)  # _builder, this function, the parser's __init__, then its builder
    if owner is None:
        return ToolParserBeside.UNKNOWN
    if not hasattr(type(owner), "tool_parser_cls"):
        return ToolParserBeside.UNKNOWN
    tool_parser_cls = type(owner).tool_parser_cls
    if tool_parser_cls is None:
        return ToolParserBeside.NONE
    if not getattr(tool_parser_cls, "reads_in_one_pass", False):
        return ToolParserBeside.OTHER
    _unclaimed[owner] = parser
    return ToolParserBeside.OURS


def tool_parser_built(parser: ToolStage) -> None:
    """Called by the tool parser's ``__init__``: pair it with the reasoning parser its ``Parser`` built."""
    owner = _builder(3)
    reasoning = _unclaimed.pop(owner, None) if owner is not None else None
    if reasoning is not None:
        reasoning.tool_stage = parser
        parser.reasoning_stage = reasoning


def request_being_parsed() -> Any:
    """The request whose output vLLM's ``Parser.parse_delta`` is parsing, when that call is asking one of our parsers
    (a few frames up, its argument ``request``), else None: then the request's parsers keep to the reading that
    needs no request (the tool parser reads the whole output). Contract
    :data:`longcat_plugins.contracts.VLLM_PARSE_DELTA_REQUEST`."""
    module = sys.modules.get("vllm.parser.abstract_parser")
    parser_class = getattr(module, "Parser", None)
    if parser_class is None:
        return None
    frame: FrameType | None = sys._getframe(1)
    for _ in range(_ASKER_FRAMES):
        if frame is None:
            break
        if frame.f_code.co_name == "parse_delta":
            local = frame.f_locals
            if isinstance(local.get("self"), parser_class):
                return local.get("request")
        frame = frame.f_back
    return None
