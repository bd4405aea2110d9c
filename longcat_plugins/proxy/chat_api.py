"""Chat Completions in the proxy: ``POST /v1/chat/completions``, repaired by :mod:`longcat_plugins.client`."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from longcat_plugins.client import ChatStreamRepair, needs_repair, repair_chat_completion
from longcat_plugins.client.options import RepairOptions

from .address import API_PREFIX
from .apis import RepairedAPI, Step
from .exchange import error_body
from .sse import Event, encode_event


def json_bytes(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode("utf-8")


def data_event(value: Any) -> bytes:
    return encode_event(json_bytes(value))


class ChatEvents:
    """A chat-completion stream: ``data:`` chunks until ``data: [DONE]``."""

    def __init__(self, request: Mapping[str, Any], options: RepairOptions) -> None:
        self.repair = ChatStreamRepair(request, options=options)
        self.released = False

    def event(self, event: Event) -> Step:
        if event.data is None or "event" in event.fields:
            return Step(event.raw)
        if event.data == "[DONE]":
            return Step(self.release() + event.raw, verbatim=True)
        try:
            chunk = json.loads(event.data)
        except (ValueError, RecursionError):
            chunk = None
        if not isinstance(chunk, dict):
            return Step(b"", problem="a data line is not a JSON object")
        if "choices" not in chunk:  # an error (or anything but a chat chunk): the stream is the upstream's from here
            return Step(self.release() + event.raw, verbatim=True)
        return Step(b"".join(data_event(c) for c in self.repair.feed(chunk)))

    def release(self) -> bytes:
        if self.released:
            return b""
        self.released = True
        return b"".join(data_event(c) for c in self.repair.finish())


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
