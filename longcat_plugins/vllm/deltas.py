"""Core events -> vLLM's ``DeltaMessage`` (one message per batch of events)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from vllm.entrypoints.generate.base.protocol import DeltaMessage

from longcat_plugins.core import CallLog, Content, Event, Reasoning, ToolCallArgs, ToolCallStart


def events_to_delta(events: Iterable[Event], log: CallLog | None = None) -> DeltaMessage | None:
    """Fold ``events`` into one ``DeltaMessage`` (``None`` when there is nothing to send).

    Consecutive argument fragments of one call become one ``DeltaToolCall``; a call's first entry carries its
    id, type and name. When ``log`` is given, the calls are also recorded there.
    """
    content: list[str] = []
    reasoning: list[str] = []
    calls: list[tuple[int, str | None, str | None, list[str]]] = []
    for event in events:
        if isinstance(event, ToolCallArgs):
            if calls and calls[-1][0] == event.index:
                calls[-1][3].append(event.text)
            else:
                calls.append((event.index, None, None, [event.text]))
            if log is not None:
                log.add(event.index, event.text)
        elif isinstance(event, Content):
            content.append(event.text)
        elif isinstance(event, ToolCallStart):
            calls.append((event.index, event.id, event.name, []))
            if log is not None:
                log.start(event.id, event.name)
        elif isinstance(event, Reasoning):
            reasoning.append(event.text)
    text = "".join(content)
    thought = "".join(reasoning)
    if not (text or thought or calls):
        return None
    # One model_validate of plain data costs half of building the three pydantic objects one by one.
    return DeltaMessage.model_validate(
        {"content": text or None, "reasoning": thought or None, "tool_calls": [_tool_call(*call) for call in calls]}
    )


def _tool_call(index: int, call_id: str | None, name: str | None, parts: list[str]) -> dict[str, Any]:
    if call_id is None:
        return {"index": index, "function": {"arguments": "".join(parts)}}
    return {"index": index, "id": call_id, "type": "function", "function": {"name": name, "arguments": "".join(parts)}}
