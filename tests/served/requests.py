"""The request a cell sends, in each API's own terms, and where a cut falls in a text."""

from __future__ import annotations

import json
from typing import Any

from .cells import Cell

QUESTION = "What is the weather in Paris?"
#: where each API is served
API_PATHS = {"chat": "/v1/chat/completions", "responses": "/v1/responses", "messages": "/v1/messages"}


def _function(tool: dict[str, Any], strict: bool) -> dict[str, Any]:
    function = dict(tool["function"])
    if strict:
        function["strict"] = True
    return function


def request_body(
    cell: Cell,
    tools: list[dict[str, Any]] | None,
    reasoning_open: bool,
    *,
    max_tokens: int,
    stop: str | None = None,
    cut: bool = False,
) -> dict[str, Any]:
    """The JSON body of the cell's request (``tools`` as Chat Completions tools). ``max_tokens`` is sent when it
    cuts the output, and always to the Messages API, which requires it."""
    max_tokens_sent = max_tokens if cut and stop is None else None
    tools = tools if cell.has_tools else None
    functions = [_function(t, cell.strict) for t in tools or []]
    named = functions[0]["name"] if functions else None
    kwargs = {"enable_thinking": reasoning_open}
    body: dict[str, Any] = {"model": "m", "stream": cell.stream, "chat_template_kwargs": kwargs}
    if cell.api == "chat":
        body["messages"] = [{"role": "user", "content": QUESTION}]
        if functions:
            body["tools"] = [{"type": "function", "function": f} for f in functions]
            body["tool_choice"] = (
                {"type": "function", "function": {"name": named}} if cell.tool_choice == "named" else cell.tool_choice
            )
            if not cell.parallel:
                body["parallel_tool_calls"] = False
        if max_tokens_sent is not None:
            body["max_tokens"] = max_tokens_sent
        if stop is not None:
            body["stop"] = [stop]
        if cell.stream:
            body["stream_options"] = {"include_usage": True}
    elif cell.api == "responses":
        body["input"] = QUESTION
        if functions:
            body["tools"] = [{"type": "function", **f} for f in functions]
            choice = {"type": "function", "name": named} if cell.tool_choice == "named" else cell.tool_choice
            body["tool_choice"] = choice
            if not cell.parallel:
                body["parallel_tool_calls"] = False
        if max_tokens_sent is not None:
            body["max_output_tokens"] = max_tokens_sent
        if stop is not None:
            body["stop"] = [stop]
    else:
        body["messages"] = [{"role": "user", "content": QUESTION}]
        body["max_tokens"] = max_tokens
        if functions:
            body["tools"] = [
                {"name": f["name"], "description": f.get("description") or "", "input_schema": f["parameters"]}
                | ({"strict": True} if cell.strict else {})
                for f in functions
            ]
            choice: dict[str, Any] = {
                "auto": {"type": "auto"},
                "required": {"type": "any"},
                "named": {"type": "tool", "name": named},
                "none": {"type": "none"},
            }[cell.tool_choice]
            if not cell.parallel:
                choice["disable_parallel_tool_use"] = True
            body["tool_choice"] = choice
        if stop is not None:
            body["stop_sequences"] = [stop]
    return body


def stop_string(text: str, cut_after: str = "") -> str | None:
    """A stop string that cuts ``text`` inside its first call's arguments (or, with no call, inside its text): three
    characters from the middle of the first string value, or of the text. With ``cut_after``: the three characters
    right after its first occurrence, when the string occurs there first."""
    if cut_after:
        at = text.find(cut_after)
        end = at + len(cut_after)
        piece = text[end : end + 3]
        return piece if at >= 0 and len(piece) == 3 and text.find(piece) == end else None
    start = text.find('"city"')
    if start < 0:
        start = text.find("Paris")
    if start < 0:
        start = len(text) // 2
    piece = text[start + 1 : start + 4]
    return piece if len(piece) == 3 and piece.strip() else None


def describe(body: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in body.items() if k not in ("messages", "input", "tools")})
