"""What every API's stream repair in the proxy shares: JSON in and out of an event's data, the events written with or
without their ``event:`` name, and what the repair still holds released once."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from longcat_plugins.client.drive import StreamRepair

from .sse import encode_event


def json_bytes(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode("utf-8")


def json_value(text: str | bytes) -> Any:
    """The JSON value of ``text``; None when it is not JSON."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def json_object(text: str | bytes) -> dict[str, Any] | None:
    """The JSON object of ``text``; None when it is not one."""
    value = json_value(text)
    return value if isinstance(value, dict) else None


def data_event(value: Any) -> bytes:
    """An unnamed event (Chat Completions' chunks)."""
    return encode_event(json_bytes(value))


def named_event(value: Mapping[str, Any]) -> bytes:
    """An event named by its ``type`` (the Responses and Messages APIs name every event)."""
    name = value.get("type")
    return encode_event(json_bytes(value), name if isinstance(name, str) else None)


class Releasing:
    """The part of an API's :class:`~longcat_plugins.proxy.apis.EventRepair` that sends what its ``repair`` still
    holds, once (``encode``: an event's bytes)."""

    def __init__(self, repair: StreamRepair, encode: Callable[[Any], bytes]) -> None:
        self.repair = repair
        self.encode = encode
        self.released = False

    def release(self) -> bytes:
        if self.released:
            return b""
        self.released = True
        return b"".join(self.encode(e) for e in self.repair.finish())
