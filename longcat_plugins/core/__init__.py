"""The engine-free core: an incremental parser for every LongCat / Qwen3 tool-call dialect and for reasoning."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .calls import CallLog
from .events import Content, Event, Reasoning, ToolCallArgs, ToolCallEnd, ToolCallStart
from .message import MessageBuilder, ParsedMessage, ParsedToolCall
from .options import ParserOptions
from .parser import StreamParser
from .schema import ToolSchemas

__all__ = [
    "CallLog",
    "Content",
    "Event",
    "MessageBuilder",
    "ParsedMessage",
    "ParsedToolCall",
    "ParserOptions",
    "Reasoning",
    "StreamParser",
    "ToolCallArgs",
    "ToolCallEnd",
    "ToolCallStart",
    "ToolSchemas",
    "parse",
]


def parse(text: str, tools: Iterable[Any] | None = None, options: ParserOptions | None = None) -> ParsedMessage:
    """Parse a whole model output at once (the same result as streaming it in any split)."""
    parser = StreamParser(tools, options)
    builder = MessageBuilder()
    builder.add(parser.feed(text))
    builder.add(parser.finish())
    return builder.message
