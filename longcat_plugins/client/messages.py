"""The Anthropic Messages API (``POST /v1/messages``): a whole message repaired, and the stream's repair
(:mod:`.messages_stream`) under its public names. The rules are in :mod:`longcat_plugins.client`."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from .messages_request import needs_messages_repair
from .messages_stream import (
    TEXT,
    TOOL_USE,
    MessageStreamRepair,
    arepair_message_stream,
    is_upstream_call,
    repair_message_stream,
    stop_reason_with_calls,
)
from .objects import as_dict, like
from .options import RepairOptions

T = TypeVar("T")

__all__ = [
    "MessageStreamRepair",
    "arepair_message_stream",
    "fold_message_events",
    "needs_messages_repair",
    "repair_message",
    "repair_message_stream",
]

#: the content of a message with no content (as vLLM and Anthropic send it)
EMPTY_CONTENT: list[dict[str, Any]] = [{"type": TEXT, TEXT: ""}]


def repair_message(response: T, request: Mapping[str, Any], options: RepairOptions | None = None) -> T:
    """``response`` (a Messages API message: a dict, or an anthropic ``Message``) with the calls written in its text
    as ``tool_use`` blocks (and with ``options.reasoning``, the reasoning in it as ``thinking`` blocks); the same
    object when there is nothing to repair."""
    options = options or RepairOptions()
    if not needs_messages_repair(request, options):
        return response
    try:
        data = as_dict(response)
        if data is None:
            return response
        content = data.get("content")
        if not isinstance(content, list) or not all(isinstance(block, dict) for block in content):
            return response
        if any(is_upstream_call(block) for block in content):
            return response
        repair = MessageStreamRepair(request, options)
        events: list[dict[str, Any]] = []
        for index, block in enumerate(content):
            for event in _block_events(index, block):
                events += repair.feed(event)
        blocks = fold_message_events(events) or list(EMPTY_CONTENT)
        if not repair.calls and _texts(blocks) == _texts(content):
            return response
        new = {**data, "content": blocks}
        if stop_reason_with_calls(data, repair.calls) is not None:
            new.update(stop_reason=TOOL_USE, stop_sequence=None)
        return like(response, new)  # type: ignore[no-any-return]
    except Exception:
        return response


def _texts(blocks: list[dict[str, Any]]) -> list[tuple[Any, Any, Any]]:
    """What the repair may change in blocks without calls: their kinds and texts."""
    return [(block.get("type"), block.get(TEXT), block.get("thinking")) for block in blocks]


def _block_events(index: int, block: dict[str, Any]) -> list[dict[str, Any]]:
    """A whole block as the stream sends it (a text block's text as one delta)."""
    text = block.get(TEXT)
    if block.get("type") == TEXT and isinstance(text, str):
        start: dict[str, Any] = {**block, TEXT: ""}
        deltas = [{"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", TEXT: text}}]
    else:
        start, deltas = block, []
    return [
        {"type": "content_block_start", "index": index, "content_block": start},
        *deltas,
        {"type": "content_block_stop", "index": index},
    ]


def fold_message_events(events: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The content blocks a stream's events (dicts) build, as a client accumulates them: by ``index``, text and
    thinking joined, a ``tool_use`` block's ``input`` parsed from its joined JSON when the block stops."""
    blocks: dict[Any, dict[str, Any]] = {}
    arguments: dict[Any, list[str]] = {}
    for event in events:
        kind, index = event.get("type"), event.get("index")
        if kind == "content_block_start":
            blocks[index] = dict(event["content_block"])
        elif kind == "content_block_delta" and index in blocks:
            block, delta = blocks[index], event["delta"]
            name = delta.get("type")
            if name == "text_delta":
                block[TEXT] = block.get(TEXT, "") + delta[TEXT]
            elif name == "thinking_delta":
                block["thinking"] = block.get("thinking", "") + delta["thinking"]
            elif name == "signature_delta":
                block["signature"] = delta["signature"]
            elif name == "input_json_delta":
                arguments.setdefault(index, []).append(delta["partial_json"])
        elif kind == "content_block_stop" and index in arguments and blocks.get(index, {}).get("type") == TOOL_USE:
            joined = "".join(arguments.pop(index))
            blocks[index]["input"] = json.loads(joined) if joined else {}
    return list(blocks.values())
