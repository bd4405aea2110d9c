"""``longcat-plugins parse``: replay a model output through the parser, as an engine would."""

from __future__ import annotations

import argparse
import json
import sys
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
from ..examples import EXAMPLES, example_paths
from .errors import UsageError, read_json, read_text


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "parse",
        help="parse a model output into an OpenAI-style message (or its stream of deltas)",
        description="Replay a raw model output through the longcat parser and print the OpenAI-style result.",
    )
    p.add_argument("file", nargs="?", help="the model's raw output ('-' for stdin)")
    p.add_argument("--example", choices=sorted(EXAMPLES), help="use a shipped sample output and its tools")
    p.add_argument("--tools", help="JSON file with the request's tools (OpenAI format: a list, or {'tools': [...]})")
    p.add_argument("--stream", action="store_true", help="print the deltas a streaming client would receive")
    p.add_argument("--chunk", type=int, default=4, help="characters per delta with --stream (default 4)")
    p.add_argument("--reasoning-open", action="store_true", help="the prompt pre-filled <think>: output starts in it")
    p.set_defaults(run=run)


def _load_tools(path: str | None) -> list[Any] | None:
    if path is None:
        return None
    tools = read_json(path, "the tools file")
    if isinstance(tools, dict) and isinstance(tools.get("tools"), list):
        tools = tools["tools"]
    if not isinstance(tools, list):
        raise UsageError(f"{path}: expected a JSON list of tools (or an object with a 'tools' list)")
    return tools


def _delta(event: Event) -> dict[str, Any]:
    if isinstance(event, Content):
        return {"content": event.text}
    if isinstance(event, Reasoning):
        return {"reasoning_content": event.text}
    if isinstance(event, ToolCallStart):
        call = {"index": event.index, "id": event.id, "type": "function", "function": {"name": event.name}}
        return {"tool_calls": [call]}
    if isinstance(event, ToolCallArgs):
        return {"tool_calls": [{"index": event.index, "function": {"arguments": event.text}}]}
    assert isinstance(event, ToolCallEnd)
    return {}


def run(args: argparse.Namespace) -> int:
    if args.example:
        if args.file:
            raise UsageError("give either a FILE or --example, not both")
        output_path, tools_path = example_paths(args.example)
        text = output_path.read_text(encoding="utf-8")
        tools = _load_tools(args.tools or str(tools_path))
    elif args.file:
        text = read_text(args.file)
        tools = _load_tools(args.tools)
    else:
        raise UsageError("nothing to parse: give a FILE ('-' for stdin) or --example NAME")
    if args.chunk < 1:
        raise UsageError("--chunk must be at least 1")

    parser = StreamParser(tools, ParserOptions(reasoning_open=args.reasoning_open))
    if args.stream:
        for i in range(0, len(text), args.chunk):
            _print_deltas(parser.feed(text[i : i + args.chunk]))
        _print_deltas(parser.finish())
        return 0
    builder = MessageBuilder()
    builder.add(parser.feed(text))
    builder.add(parser.finish())
    message = builder.message
    result = {
        "role": "assistant",
        "content": message.content or None,
        "reasoning_content": message.reasoning or None,
        "tool_calls": [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in message.tool_calls
        ],
    }
    json.dump(result, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")
    return 0


def _print_deltas(events: list[Event]) -> None:
    for event in events:
        delta = _delta(event)
        if delta:
            sys.stdout.write(json.dumps(delta, ensure_ascii=False) + "\n")
