"""longcat_plugins.client's Responses API repair with the openai package's objects: a ``Response`` in, a ``Response``
out, with the call as a ``ResponseFunctionToolCall`` item; stream events as openai event objects in, openai event
objects out, each of the class its ``type`` names (also the events the repair makes itself: a function call's); an
object with nothing to repair comes back as given."""

from __future__ import annotations

import json
from typing import Any

from openai.types.responses import (
    Response,
    ResponseFunctionCallArgumentsDeltaEvent,
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseStreamEvent,
)
from pydantic import TypeAdapter

from longcat_plugins.client import repair_response, repair_response_stream

TOOLS = [
    {
        "type": "function",
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        "strict": None,
    }
]
REQUEST: dict[str, Any] = {"model": "m", "input": "hi", "tools": TOOLS}
CALL = (
    "<longcat_tool_call>get_weather\n<longcat_arg_key>city</longcat_arg_key>\n"
    "<longcat_arg_value>Paris</longcat_arg_value>\n</longcat_tool_call>"
)
TEXT = "Checking." + CALL
EVENTS: TypeAdapter[Any] = TypeAdapter(ResponseStreamEvent)


def message(text: str, status: str = "completed") -> dict[str, Any]:
    content = [{"annotations": [], "text": text, "type": "output_text", "logprobs": None}] if text else []
    return {"id": "msg_up", "content": content, "role": "assistant", "status": status, "type": "message"}


def response_data(output: list[dict[str, Any]], status: str = "completed") -> dict[str, Any]:
    return {
        "id": "resp_1",
        "created_at": 1,
        "model": "m",
        "object": "response",
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": TOOLS,
        "status": status,
    }


def events(parts: list[str]) -> list[Any]:
    text = "".join(parts)
    where = {"item_id": "msg_up", "output_index": 0, "content_index": 0}
    data = [
        {"type": "response.created", "response": response_data([], "in_progress")},
        {"type": "response.output_item.added", "item": message("", "in_progress"), "output_index": 0},
        {
            "type": "response.content_part.added",
            **where,
            "part": {"type": "output_text", "text": "", "annotations": []},
        },
        *({"type": "response.output_text.delta", **where, "delta": p, "logprobs": []} for p in parts),
        {"type": "response.output_text.done", **where, "text": text, "logprobs": []},
        {"type": "response.content_part.done", **where, "part": message(text)["content"][0]},
        {"type": "response.output_item.done", "item": message(text), "output_index": 0},
        {"type": "response.completed", "response": response_data([message(text)])},
    ]
    return [EVENTS.validate_python({**event, "sequence_number": n}) for n, event in enumerate(data)]


def test_a_response_object_comes_back_as_a_response_with_the_call() -> None:
    given = Response.model_validate(response_data([message(TEXT)]))
    repaired = repair_response(given, REQUEST)
    assert isinstance(repaired, Response)
    first, call = repaired.output
    assert isinstance(first, ResponseOutputMessage) and first.content[0].text == "Checking."  # type: ignore[union-attr]
    assert isinstance(call, ResponseFunctionToolCall)
    assert (call.name, json.loads(call.arguments)) == ("get_weather", {"city": "Paris"})
    assert repaired.output_text == "Checking."
    nothing = Response.model_validate(response_data([message("Sunny.")]))
    assert repair_response(nothing, REQUEST) is nothing


def test_stream_events_come_back_as_the_openai_classes_their_types_name() -> None:
    out = list(repair_response_stream(events([TEXT[:12], TEXT[12:]]), REQUEST))
    for event in out:
        assert type(event) is type(EVENTS.validate_python(event.model_dump()))
    assert any(isinstance(event, ResponseFunctionCallArgumentsDeltaEvent) for event in out)
    final = out[-1]
    assert final.type == "response.completed"
    assert [item.type for item in final.response.output] == ["message", "function_call"]
    assert [event.sequence_number for event in out] == list(range(len(out)))
