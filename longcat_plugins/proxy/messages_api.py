"""The Anthropic Messages API in the proxy: ``POST /v1/messages``, repaired by :mod:`longcat_plugins.client`
(:func:`~longcat_plugins.client.repair_message`, :class:`~longcat_plugins.client.MessageStreamRepair`). Its events
are written with their ``event:`` names; the proxy's own errors on this route are in Anthropic's shape
(``{"type": "error", "error": {"type": ..., "message": ...}}``, streamed as ``event: error``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from longcat_plugins.client import MessageStreamRepair, needs_messages_repair, repair_message
from longcat_plugins.client.options import RepairOptions

from .address import API_PREFIX
from .api_events import Releasing, json_bytes, json_object, named_event
from .apis import RepairedAPI, Step
from .sse import Event, encode_event

#: Anthropic's error types, by the OpenAI-style kind or the status the proxy gives an error
ERROR_TYPES: Final[dict[str | int, str]] = {
    "invalid_request_error": "invalid_request_error",
    "server_error": "api_error",
    "upstream_error": "api_error",
    400: "invalid_request_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def error_body(message: str, kind: str, code: int | str | None) -> dict[str, Any]:
    """An error in Anthropic's shape (its ``type`` from the status when it has one of its own, else from the
    kind)."""
    found = ERROR_TYPES.get(code) if isinstance(code, int) else None
    return {"type": "error", "error": {"type": found or ERROR_TYPES.get(kind, "api_error"), "message": message}}


def error_event(body: dict[str, Any]) -> bytes:
    return encode_event(json_bytes(body), "error")


class MessagesEvents(Releasing):
    """A Messages stream: named events, from ``message_start`` to ``message_stop``."""

    def __init__(self, request: Mapping[str, Any], options: RepairOptions) -> None:
        super().__init__(MessageStreamRepair(request, options), named_event)

    def event(self, event: Event) -> Step:
        if event.data is None:
            return Step(event.raw)
        data = json_object(event.data)
        if data is None or not isinstance(data.get("type"), str):
            return Step(b"", problem="a data line is not a JSON object with a type")
        if data["type"] == "error":  # the stream is the upstream's from here
            return Step(self.release() + event.raw, verbatim=True)
        out = self.repair.feed(data)
        if len(out) == 1 and out[0] is data:
            return Step(event.raw)  # (as received: unchanged)
        sent = b"".join(named_event(e) for e in out)
        if data["type"] == "message_stop":
            self.released = True
            return Step(sent, verbatim=True)
        return Step(sent)


def _repair_whole(answer: dict[str, Any], request: Mapping[str, Any], options: RepairOptions) -> dict[str, Any]:
    return repair_message(answer, request, options)


MESSAGES = RepairedAPI(
    path=f"{API_PREFIX}/messages",
    needs_repair=needs_messages_repair,
    repair_whole=_repair_whole,
    stream=MessagesEvents,
    error_body=error_body,
    error_event=error_event,
)
