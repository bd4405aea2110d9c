"""``longcat-plugins parse``: replay a model output through the parser, as an engine would.

The result is printed the way the engine's server returns it: without ``--stream`` one choice of a chat completion
(``message`` and ``finish_reason``); with it, one choice of each streamed chunk per line (``delta``, and
``finish_reason`` on the last). ``--engine`` picks the name of the reasoning field: ``reasoning`` (vLLM) or
``reasoning_content`` (SGLang). ``LONGCAT_EMIT_UNKNOWN_CALLS`` is read as the engine adapters read it.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable
from typing import Any

from ..core import (
    Content,
    Event,
    MessageBuilder,
    ParserOptions,
    Reasoning,
    StreamParser,
    ToolCallArgs,
    ToolCallEnd,
    ToolCallStart,
)
from ..core.dialects import require_extra_dialects
from ..core.options import emit_unknown_calls_from_env
from ..examples import EXAMPLES, example_paths
from .errors import UsageError, read_text
from .tools_file import load_tools

#: the reasoning field of a message or delta, per engine
REASONING_FIELD = {"vllm": "reasoning", "sglang": "reasoning_content"}
DEFAULT_CHUNK = 4


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "parse",
        help="parse a model output into an OpenAI-style message (or its stream of deltas)",
        description="Replay a raw model output through the longcat parser and print the OpenAI-style result: "
        "the choice of a chat completion ({message, finish_reason}), or with --stream one chunk's choice "
        "({delta, finish_reason}) per line.",
    )
    p.add_argument("file", nargs="?", help="the model's raw output ('-' for stdin)")
    p.add_argument("--example", choices=sorted(EXAMPLES), help="use a shipped sample output and its tools")
    p.add_argument("--tools", help="JSON file with the request's tools (OpenAI format: a list, or {'tools': [...]})")
    p.add_argument("--stream", action="store_true", help="print the deltas a streaming client would receive")
    p.add_argument(
        "--chunk", type=int, default=None, help=f"characters per delta with --stream (default {DEFAULT_CHUNK})"
    )
    p.add_argument(
        "--reasoning-open",
        action="store_true",
        help="the prompt already opened reasoning (the template ended it with <think> or <longcat_think>), so the "
        "output starts inside it, as with xml-function-thinking or LongCat-Flash-Thinking's own template",
    )
    p.add_argument(
        "--engine",
        choices=sorted(REASONING_FIELD),
        default="vllm",
        help="name the reasoning field as this engine does: reasoning (vllm, default) or reasoning_content (sglang)",
    )
    p.add_argument(
        "--seed", type=int, default=None, help="make the call ids a function of this number (the same on every run)"
    )
    p.set_defaults(run=run)


def seeded_ids(seed: int) -> Callable[[int], str]:
    """Call ids shaped like the default ones (``call_`` and 24 hex digits), fixed by ``seed`` and the call index."""

    def call_id(index: int) -> str:
        return f"call_{random.Random(f'{seed}:{index}').getrandbits(96):024x}"

    return call_id


def _options(args: argparse.Namespace) -> ParserOptions:
    try:
        require_extra_dialects()
        emit_unknown = emit_unknown_calls_from_env()
    except ValueError as e:
        raise UsageError(str(e)) from None
    return ParserOptions(
        reasoning_open=args.reasoning_open,
        emit_unknown_calls=emit_unknown,
        id_factory=seeded_ids(args.seed) if args.seed is not None else None,
    )


def _delta(event: Event, reasoning_field: str) -> dict[str, Any]:
    if isinstance(event, Content):
        return {"content": event.text}
    if isinstance(event, Reasoning):
        return {reasoning_field: event.text}
    if isinstance(event, ToolCallStart):
        call = {"index": event.index, "id": event.id, "type": "function", "function": {"name": event.name}}
        return {"tool_calls": [call]}
    if isinstance(event, ToolCallArgs):
        return {"tool_calls": [{"index": event.index, "function": {"arguments": event.text}}]}
    assert isinstance(event, ToolCallEnd)
    return {}


def _finish_reason(called: bool) -> str:
    """As the engines report a normal stop: ``tool_calls`` when a call was returned."""
    return "tool_calls" if called else "stop"


def run(args: argparse.Namespace) -> int:
    if args.example:
        if args.file:
            raise UsageError("give either a FILE or --example, not both")
        output_path, tools_path = example_paths(args.example)
        text = read_text(str(output_path))
        tools = load_tools(args.tools or str(tools_path))
    elif args.file:
        if args.file == "-" and args.tools == "-":
            raise UsageError("only one of FILE and --tools can be '-' (stdin)")
        text = read_text(args.file)
        tools = load_tools(args.tools) if args.tools is not None else None
    else:
        raise UsageError("nothing to parse: give a FILE ('-' for stdin) or --example NAME")
    if args.chunk is not None and args.chunk < 1:
        raise UsageError("--chunk must be at least 1")
    if args.chunk is not None and not args.stream:
        print("longcat-plugins parse: warning: --chunk has no effect without --stream", file=sys.stderr)

    reasoning_field = REASONING_FIELD[args.engine]
    parser = StreamParser(tools, _options(args))
    if args.stream:
        return _stream(parser, text, args.chunk or DEFAULT_CHUNK, reasoning_field)
    builder = MessageBuilder()
    builder.add(parser.feed(text))
    builder.add(parser.finish())
    message = builder.message
    choice = {
        "message": {
            "role": "assistant",
            "content": message.content or None,
            reasoning_field: message.reasoning or None,
            "tool_calls": [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in message.tool_calls
            ],
        },
        "finish_reason": _finish_reason(bool(message.tool_calls)),
    }
    json.dump(choice, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")
    return 0


def _stream(parser: StreamParser, text: str, chunk: int, reasoning_field: str) -> int:
    called = False

    def emit(events: list[Event]) -> None:
        nonlocal called
        for event in events:
            called = called or isinstance(event, ToolCallStart)
            delta = _delta(event, reasoning_field)
            if delta:
                sys.stdout.write(json.dumps({"delta": delta, "finish_reason": None}, ensure_ascii=False) + "\n")

    for i in range(0, len(text), chunk):
        emit(parser.feed(text[i : i + chunk]))
    emit(parser.finish())
    sys.stdout.write(json.dumps({"delta": {}, "finish_reason": _finish_reason(called)}) + "\n")
    return 0
