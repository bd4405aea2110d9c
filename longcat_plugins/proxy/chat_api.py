"""Chat Completions in the proxy: ``POST /v1/chat/completions``, repaired by :mod:`longcat_plugins.client`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from longcat_plugins.client import ChatStreamRepair, needs_repair, repair_chat_completion
from longcat_plugins.client.options import RepairOptions

from .address import API_PREFIX
from .api_events import Releasing, data_event, json_object
from .apis import RepairedAPI, Step
from .exchange import error_body
from .sse import Event


class ChatEvents(Releasing):
    """A chat-completion stream: ``data:`` chunks until ``data: [DONE]``."""

    def __init__(self, request: Mapping[str, Any], options: RepairOptions) -> None:
        super().__init__(ChatStreamRepair(request, options=options), data_event)

    def event(self, event: Event) -> Step:
        if event.data is None or "event" in event.fields:
            return Step(event.raw)
        if event.data == "[DONE]":
            return Step(self.release() + event.raw, verbatim=True)
        chunk = json_object(event.data)
        if chunk is None:
            return Step(b"", problem="a data line is not a JSON object")
        if "choices" not in chunk:  # an error (or anything but a chat chunk): the stream is the upstream's from here
            return Step(self.release() + event.raw, verbatim=True)
        return Step(b"".join(data_event(c) for c in self.repair.feed(chunk)))


def _repair_whole(answer: dict[str, Any], request: Mapping[str, Any], options: RepairOptions) -> dict[str, Any]:
    return repair_chat_completion(answer, request, options=options)


CHAT = RepairedAPI(
    path=f"{API_PREFIX}/chat/completions",
    needs_repair=needs_repair,
    repair_whole=_repair_whole,
    stream=ChatEvents,
    error_body=error_body,
    error_event=data_event,
)
