"""longcat_plugins.client with the anthropic package's objects: a ``Message`` and the raw stream events in, anthropic
objects out (each event as the SDK's class of its type), the calls written in the text as ``tool_use`` blocks."""

from __future__ import annotations

from typing import Any

import anthropic
from anthropic.types import Message, RawMessageStreamEvent
from pydantic import TypeAdapter

from longcat_plugins.client import MessageStreamRepair, fold_message_events, repair_message, repair_message_stream

REQUEST: dict[str, Any] = {
    "model": "m",
    "max_tokens": 100,
    "messages": [{"role": "user", "content": "hi"}],
    "tools": [
        {
            "name": "get_weather",
            "description": "Weather for a city",
            "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        }
    ],
}
CALL = (
    "<longcat_tool_call>get_weather\n<longcat_arg_key>city</longcat_arg_key>\n"
    "<longcat_arg_value>Paris</longcat_arg_value>\n</longcat_tool_call>"
)
EVENTS: TypeAdapter[Any] = TypeAdapter(RawMessageStreamEvent)


def message(text: str) -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "model": "longcat",
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 2},
    }


def raw_events(parts: list[str]) -> list[Any]:
    start = {**message(""), "content": [], "stop_reason": None}
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": start},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        *({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}} for p in parts),
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": 2},
        },
        {"type": "message_stop"},
    ]
    return [EVENTS.validate_python(e) for e in events]


def test_a_message_object_comes_back_as_a_message_with_tool_use() -> None:
    original = Message.model_validate(message("Checking. " + CALL))
    repaired = repair_message(original, REQUEST)
    assert isinstance(repaired, Message) and repaired.stop_reason == "tool_use"
    assert [type(b).__name__ for b in repaired.content] == ["TextBlock", "ToolUseBlock"]
    assert repaired.content[1].input == {"city": "Paris"} and repaired.content[1].id.startswith("toolu_")
    plain = Message.model_validate(message("Nothing to repair."))
    assert repair_message(plain, REQUEST) is plain


def test_stream_events_come_back_as_the_sdks_event_classes() -> None:
    out = list(repair_message_stream(raw_events(["Checking. ", CALL[:40], CALL[40:]]), REQUEST))
    assert all(type(e).__module__.startswith(anthropic.__name__) for e in out)
    kinds = [(type(e).__name__, getattr(e, "content_block", None) and e.content_block.type) for e in out]
    assert ("RawContentBlockStartEvent", "tool_use") in kinds and ("RawContentBlockStopEvent", None) in kinds
    blocks = fold_message_events(e.model_dump() for e in out)
    assert [(b["type"], b.get("text"), b.get("input")) for b in blocks] == [
        ("text", "Checking. ", None),
        ("tool_use", None, {"city": "Paris"}),
    ]
    assert [e.delta.stop_reason for e in out if e.type == "message_delta"] == ["tool_use"]


def test_the_sdks_accumulation_reads_the_repaired_events() -> None:
    """The anthropic SDK's own accumulation (what ``client.messages.stream`` does) builds the repaired message."""
    from anthropic.lib.streaming._messages import accumulate_event

    snapshot = None
    repair = MessageStreamRepair(REQUEST)
    for event in raw_events(["Checking. ", CALL]):
        for out in repair.feed(event):
            snapshot = accumulate_event(event=out, current_snapshot=snapshot, json_bufs={})
    assert snapshot is not None and snapshot.stop_reason == "tool_use"
    assert [b.type for b in snapshot.content] == ["text", "tool_use"]
