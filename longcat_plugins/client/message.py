"""A whole Chat Completions response: the calls written in each choice's text become its ``tool_calls``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, TypeVar

from longcat_plugins.core import Content, ParserOptions, Reasoning, StreamParser

from .objects import as_dict, like
from .request import function_tools, needs_repair, parser_options

T = TypeVar("T")

#: the reasoning fields, in the order their text is read: the first present with text is the channel's text
REASONING_FIELDS: Final = ("reasoning_content", "reasoning")
CONTENT: Final = "content"


def call_item(index: int | None, call_id: str, name: str, arguments: str) -> dict[str, Any]:
    item: dict[str, Any] = {} if index is None else {"index": index}
    item.update({"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}})
    return item


def has_upstream_calls(holder: Mapping[str, Any]) -> bool:
    calls = holder.get("tool_calls")
    return bool(calls)


def _read_whole(text: str, tools: list[Mapping[str, Any]], options: ParserOptions) -> tuple[str, list[Any]]:
    parser = StreamParser(tools, options)
    events = parser.feed(text) + parser.finish()
    shown = "".join(e.text for e in events if isinstance(e, (Content, Reasoning)))
    return shown, parser.calls


def _repair_message(message: dict[str, Any], request: Mapping[str, Any]) -> tuple[dict[str, Any], bool] | None:
    """The repaired message and whether it has calls; None when nothing changes."""
    tools = function_tools(request)
    options = parser_options(request)
    new = dict(message)
    calls: list[dict[str, Any]] = []
    changed = False
    reasoning_text = next(
        (message[f] for f in REASONING_FIELDS if isinstance(message.get(f), str) and message[f]), None
    )
    channels: list[tuple[tuple[str, ...], str]] = []
    if reasoning_text is not None:
        channels.append((tuple(f for f in REASONING_FIELDS if isinstance(message.get(f), str)), reasoning_text))
    if isinstance(message.get(CONTENT), str) and message[CONTENT]:
        channels.append(((CONTENT,), message[CONTENT]))
    for fields, text in channels:
        shown, found = _read_whole(text, tools, options)
        for call in found:
            calls.append(call_item(None, call.id, call.name, call.arguments))
        for name in fields:
            value = shown or None
            if new.get(name) != value:
                new[name] = value
                changed = True
    if calls:
        new["tool_calls"] = calls
        changed = True
    return (new, bool(calls)) if changed else None


def repair_chat_completion(response: T, request: Mapping[str, Any]) -> T:
    """``response`` (a Chat Completions response: a dict, or an openai ``ChatCompletion``) with the calls written in
    its choices' text as ``tool_calls``; the same object when there is nothing to repair."""
    if not needs_repair(request):
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
            repaired = None if has_upstream_calls(choice["message"]) else _repair_message(choice["message"], request)
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
