"""The Responses API in the proxy: ``POST /v1/responses``, repaired by :mod:`longcat_plugins.client.responses`.

Its stream is named events (``event: response.output_text.delta`` ...), each one JSON object whose ``type`` is the
event's name; the repaired events are written with their names. The stream ends with its terminal event
(``response.completed``, ``response.incomplete``, ``response.failed``) or an ``error`` event: what follows passes
through as received.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from longcat_plugins.client import ResponseStreamRepair, needs_response_repair, repair_response
from longcat_plugins.client.options import RepairOptions
from longcat_plugins.client.responses import TERMINAL_EVENTS

from .address import API_PREFIX
from .api_events import Releasing, json_object, named_event
from .apis import RepairedAPI, Step
from .exchange import error_body
from .sse import Event


class ResponsesEvents(Releasing):
    """A Responses stream, event by event."""

    def __init__(self, request: Mapping[str, Any], options: RepairOptions) -> None:
        super().__init__(ResponseStreamRepair(request, options), named_event)

    def event(self, event: Event) -> Step:
        if event.data is None:
            return Step(event.raw)
        if event.data == "[DONE]":
            return Step(self.release() + event.raw, verbatim=True)
        value = json_object(event.data)
        if value is None or not isinstance(value.get("type"), str):
            return Step(b"", problem="a data line is not a Responses event (a JSON object with a type)")
        out = b"".join(named_event(e) for e in self.repair.feed(value))
        if value["type"] in TERMINAL_EVENTS or value["type"] == "error":
            self.released = True  # (the repair closed its items before this event)
            return Step(out, verbatim=True)
        return Step(out)


def _repair_whole(answer: dict[str, Any], request: Mapping[str, Any], options: RepairOptions) -> dict[str, Any]:
    return repair_response(answer, request, options)


def error_event(body: dict[str, Any]) -> bytes:
    """An ``error`` event: the Responses API's fields (``code``, ``message``, ``param``), and the error object
    itself (what the openai client raises from)."""
    found = body.get("error")
    error: dict[str, Any] = found if isinstance(found, dict) else {}
    code = error.get("code")
    value = {
        "type": "error",
        "code": None if code is None else str(code),
        "message": error.get("message", ""),
        "param": error.get("param"),
        "sequence_number": 0,
        **body,
    }
    return named_event(value)


RESPONSES = RepairedAPI(
    path=f"{API_PREFIX}/responses",
    needs_repair=needs_response_repair,
    repair_whole=_repair_whole,
    stream=ResponsesEvents,
    error_body=error_body,
    error_event=error_event,
)
