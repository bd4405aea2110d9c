"""Core events -> vLLM's ``DeltaMessage`` (one message per batch of events).

A message is built for every delta, so building it is on the hot path. What the events say is valid by construction
(strings, an int index, the literal ``"function"``), and vLLM's models validate through a Python wrap validator
(``__log_extra_fields__``) that costs more than the parsing itself. So :func:`delta_message` lays the models out
directly, exactly as ``DeltaMessage.model_validate(delta_data(...))`` would (the same field values, fields set and
extras), for the model layout checked at import (:data:`DIRECT`); for any other layout (a future vLLM) it validates.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from pydantic import BaseModel
from vllm.entrypoints.generate.base.protocol import DeltaFunctionCall, DeltaMessage, DeltaToolCall

from longcat_plugins.core import Content, Event, Reasoning, ToolCallArgs, ToolCallStart

#: one entry of a message's tool calls: (index, id, name, arguments); id and name only on a call's first entry
CallDelta = tuple[int, str | None, str | None, str]


def events_to_delta(events: Sequence[Event]) -> DeltaMessage | None:
    """Fold ``events`` into one ``DeltaMessage`` (``None`` when there is nothing to send).

    Consecutive argument fragments of one call become one ``DeltaToolCall``; a call's first entry carries its
    id, type and name.
    """
    if len(events) == 1 and type(events[0]) is ToolCallArgs:  # a delta inside a long argument
        event = events[0]
        return delta_message(None, None, [(event.index, None, None, event.text)])
    content: list[str] = []
    reasoning: list[str] = []
    calls: list[tuple[int, str | None, str | None, list[str]]] = []
    for event in events:
        kind = type(event)
        if kind is ToolCallArgs:
            if calls and calls[-1][0] == event.index:  # type: ignore[union-attr]
                calls[-1][3].append(event.text)  # type: ignore[union-attr]
            else:
                calls.append((event.index, None, None, [event.text]))  # type: ignore[union-attr]
        elif kind is Content:
            content.append(event.text)  # type: ignore[union-attr]
        elif kind is ToolCallStart:
            calls.append((event.index, event.id, event.name, []))  # type: ignore[union-attr]
        elif kind is Reasoning:
            reasoning.append(event.text)  # type: ignore[union-attr]
    text = "".join(content)
    thought = "".join(reasoning)
    if not (text or thought or calls):
        return None
    entries = [(index, call_id, name, "".join(parts)) for index, call_id, name, parts in calls]
    return delta_message(text or None, thought or None, entries)


def delta_data(content: str | None, reasoning: str | None, calls: list[CallDelta]) -> dict[str, Any]:
    """The message as plain data, in the shape ``DeltaMessage.model_validate`` takes."""
    return {"content": content, "reasoning": reasoning, "tool_calls": [_call_data(*call) for call in calls]}


def _call_data(index: int, call_id: str | None, name: str | None, arguments: str) -> dict[str, Any]:
    if call_id is None:
        return {"index": index, "function": {"arguments": arguments}}
    return {"index": index, "id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def delta_message(content: str | None, reasoning: str | None, calls: list[CallDelta]) -> DeltaMessage:
    """``DeltaMessage.model_validate(delta_data(content, reasoning, calls))``, without the validators."""
    if not DIRECT:
        return DeltaMessage.model_validate(delta_data(content, reasoning, calls))
    tool_calls = [_tool_call(*call) for call in calls]
    message = _new(DeltaMessage)
    _set(message, "__dict__", {"role": None, "content": content, "reasoning": reasoning, "tool_calls": tool_calls})
    _set(message, "__pydantic_fields_set__", {"content", "reasoning", "tool_calls"})
    _set(message, "__pydantic_extra__", {})
    _set(message, "__pydantic_private__", None)
    return message


def _tool_call(index: int, call_id: str | None, name: str | None, arguments: str) -> DeltaToolCall:
    function = _new(DeltaFunctionCall)
    call = _new(DeltaToolCall)
    if call_id is None:
        _set(function, "__dict__", {"name": None, "arguments": arguments})
        _set(function, "__pydantic_fields_set__", {"arguments"})
        _set(call, "__dict__", {"id": None, "type": None, "index": index, "function": function})
        _set(call, "__pydantic_fields_set__", {"index", "function"})
    else:
        _set(function, "__dict__", {"name": name, "arguments": arguments})
        _set(function, "__pydantic_fields_set__", {"name", "arguments"})
        _set(call, "__dict__", {"id": call_id, "type": "function", "index": index, "function": function})
        _set(call, "__pydantic_fields_set__", {"id", "type", "index", "function"})
    _set(function, "__pydantic_extra__", None)
    _set(function, "__pydantic_private__", None)
    _set(call, "__pydantic_extra__", {})
    _set(call, "__pydantic_private__", None)
    return call


_new: Final = object.__new__
_set: Final = object.__setattr__

#: the layout the direct construction above writes: per model, its fields (in order), the fields it always sets,
#: and whether extra fields are allowed (then ``__pydantic_extra__`` is an empty dict, else None)
_LAYOUTS: Final[dict[type[BaseModel], tuple[tuple[str, ...], frozenset[str], bool]]] = {
    DeltaMessage: (
        ("role", "content", "reasoning", "tool_calls"),
        frozenset({"content", "reasoning", "tool_calls"}),
        True,
    ),
    DeltaToolCall: (("id", "type", "index", "function"), frozenset({"index", "function"}), True),
    DeltaFunctionCall: (("name", "arguments"), frozenset({"arguments"}), False),
}


def _layout_matches(cls: type[BaseModel], fields: tuple[str, ...], always_set: frozenset[str], extra: bool) -> bool:
    """Whether ``cls`` is laid out as the direct construction assumes: these fields and nothing pydantic would add
    on validation (aliases, private attributes, a post-init hook), and None as the default of every field that is
    not always set (the call's id, type and name are set together, on a call's first entry)."""
    if tuple(cls.model_fields) != fields or (cls.model_config.get("extra") == "allow") != extra:
        return False
    if cls.__pydantic_post_init__ or cls.__private_attributes__ or cls.__pydantic_root_model__:
        return False
    for name, field in cls.model_fields.items():
        if field.alias is not None or field.validation_alias is not None:
            return False
        if name not in always_set and (field.default is not None or field.default_factory is not None):
            return False
    return True


#: whether :func:`delta_message` builds the models directly (else it validates)
DIRECT: Final = all(_layout_matches(cls, *layout) for cls, layout in _LAYOUTS.items())
