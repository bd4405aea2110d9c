"""A whole Chat Completions response: the calls written in each choice's text become its ``tool_calls``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, TypeVar

from longcat_plugins.core import Content, ParserOptions, Reasoning, StreamParser

from .objects import as_dict, like
from .options import RepairOptions
from .request import (
    chat_parser_options,
    function_tools,
    needs_repair,
    openai_stops_may_cut_calls,
    reads_calls,
    reasoning_parser_options,
)

T = TypeVar("T")

#: the reasoning fields, in the order their text is read: the first present with text is the channel's text
REASONING_FIELDS: Final = ("reasoning_content", "reasoning")
#: where reasoning read from the content goes when the upstream sent none: the field vLLM serves (0.33, 0.34)
DEFAULT_REASONING_FIELDS: Final = ("reasoning",)
CONTENT: Final = "content"


def call_item(index: int | None, call_id: str, name: str, arguments: str) -> dict[str, Any]:
    item: dict[str, Any] = {} if index is None else {"index": index}
    item.update({"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}})
    return item


def has_upstream_calls(holder: Mapping[str, Any]) -> bool:
    calls = holder.get("tool_calls")
    return bool(calls)


@dataclass
class _Reading:
    """What the core made of one channel's text: its text, the reasoning found in it, its calls."""

    text: str
    reasoning: str
    calls: list[Any]


def _read_whole(text: str, tools: list[Mapping[str, Any]], options: ParserOptions) -> _Reading:
    parser = StreamParser(tools, options)
    events = parser.feed(text) + parser.finish()
    shown = "".join(e.text for e in events if isinstance(e, Content))
    reasoning = "".join(e.text for e in events if isinstance(e, Reasoning))
    return _Reading(shown, reasoning, parser.calls)


def _repair_message(
    message: dict[str, Any], request: Mapping[str, Any], options: RepairOptions
) -> tuple[dict[str, Any], bool] | None:
    """The repaired message and whether it has calls; None when nothing changes."""
    tools = function_tools(request)
    calls_read = reads_calls(request)
    cut = openai_stops_may_cut_calls(request)
    new = dict(message)
    calls: list[dict[str, Any]] = []
    reasoning_text = next(
        (message[f] for f in REASONING_FIELDS if isinstance(message.get(f), str) and message[f]), None
    )
    reasoning_fields = tuple(f for f in REASONING_FIELDS if isinstance(message.get(f), str))
    reasoning: list[str] = []
    if reasoning_text is not None:
        read = _read_whole(reasoning_text, tools, reasoning_parser_options(calls=calls_read, cut_calls_as_text=cut))
        calls.extend(call_item(None, c.id, c.name, c.arguments) for c in read.calls)
        reasoning.append(read.text)
    content = message.get(CONTENT)
    if isinstance(content, str) and content:
        content_options = chat_parser_options(request, options, reasoning_split=reasoning_text is not None)
        read = _read_whole(content, tools, content_options)
        calls.extend(call_item(None, c.id, c.name, c.arguments) for c in read.calls)
        reasoning.append(read.reasoning)
        new[CONTENT] = read.text or None
    joined = "".join(reasoning)
    if reasoning_text is not None or joined:
        for name in reasoning_fields or DEFAULT_REASONING_FIELDS:
            new[name] = joined or None
    if calls:
        new["tool_calls"] = calls
    changed = new != message
    return (new, bool(calls)) if changed else None


def repair_chat_completion(response: T, request: Mapping[str, Any], *, options: RepairOptions | None = None) -> T:
    """``response`` (a Chat Completions response: a dict, or an openai ``ChatCompletion``) with the calls written in
    its choices' text as ``tool_calls`` (and, with ``options.reasoning``, the reasoning written in its content in the
    reasoning field); the same object when there is nothing to repair."""
    options = options or RepairOptions()
    if not needs_repair(request, options):
        return response
    try:
        data = as_dict(response)
        if data is None:
            return response
        choices = data.get("choices")
        if not isinstance(choices, list) or not all(
            isinstance(c, dict) and isinstance(c.get("message"), dict) for c in choices
        ):
            return response
        new_choices: list[Any] = []
        changed = False
        for choice in choices:
            repaired = (
                None if has_upstream_calls(choice["message"]) else _repair_message(choice["message"], request, options)
            )
            if repaired is None:
                new_choices.append(choice)
                continue
            message, has_calls = repaired
            new_choice = {**choice, "message": message}
            if has_calls and choice.get("finish_reason") == "stop":
                new_choice["finish_reason"] = "tool_calls"
            new_choices.append(new_choice)
            changed = True
        if not changed:
            return response
        return like(response, {**data, "choices": new_choices})  # type: ignore[no-any-return]
    except Exception:
        return response
