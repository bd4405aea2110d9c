"""The APIs whose answers the proxy repairs, each one entry (:class:`RepairedAPI`): its route, which requests it
repairs, how a whole answer and an event stream are repaired, and the shape of its errors. :data:`REPAIRED_APIS`
is the proxy's table of them, by route."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from longcat_plugins.client.options import RepairOptions

from .sse import Event


@dataclass(frozen=True)
class Step:
    """What one upstream event becomes: ``out``, the bytes to send; ``verbatim``: the rest of the stream passes
    through as received (after an error event, or the stream's end marker); ``problem``: why the event cannot be read
    as the API's (logged; what the repair holds is released, then this event and the rest pass through as
    received, and ``out`` is not sent)."""

    out: bytes
    verbatim: bool = False
    problem: str | None = None


class EventRepair(Protocol):
    """The repair of one streamed answer, event by event."""

    def event(self, event: Event) -> Step: ...

    def release(self) -> bytes:
        """The events of what the repair still holds back (text that may start a tag, a call left open), closing the
        answer as the API closes one when the upstream's events did not; called once, at the end of the answer or
        before the rest of it passes through as received."""
        ...


@dataclass(frozen=True)
class RepairedAPI:
    """One API the proxy repairs (``POST`` to ``path``)."""

    path: str
    #: whether the answers to a request (its JSON body) are repaired, with the proxy's repair options
    needs_repair: Callable[[Mapping[str, Any], RepairOptions], bool]
    #: a whole answer (a JSON object, a copy the function may change) repaired for the request
    repair_whole: Callable[[dict[str, Any], Mapping[str, Any], RepairOptions], dict[str, Any]]
    #: the repair of a streamed answer to the request
    stream: Callable[[Mapping[str, Any], RepairOptions], EventRepair]
    #: an error in the API's shape: (message, type, code) -> JSON object
    error_body: Callable[[str, str, int | str | None], dict[str, Any]]
    #: an error event in the API's stream: the JSON object -> the event's bytes
    error_event: Callable[[dict[str, Any]], bytes]


def _table(*apis: RepairedAPI) -> dict[str, RepairedAPI]:
    return {api.path: api for api in apis}


def repaired_apis() -> dict[str, RepairedAPI]:
    """The APIs the proxy repairs, by route."""
    from .chat_api import CHAT
    from .messages_api import MESSAGES
    from .responses_api import RESPONSES

    return _table(CHAT, RESPONSES, MESSAGES)
