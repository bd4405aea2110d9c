"""The Responses API (``/v1/responses``): calls written in the text of an answer's output items become
``function_call`` items, whole or streamed (see the package docstring for the rules)."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Mapping
from typing import Any, Final, TypeVar

from .drive import adrive, drive
from .objects import as_dict, like
from .options import RepairOptions
from .response_items import FUNCTION_CALL, MESSAGE, REASONING, TEXT_PART, ItemReader, NoSink
from .response_request import item_parser_options, needs_response_repair, response_function_tools

T = TypeVar("T")

#: the events that end an answer, carrying the whole response
TERMINAL_EVENTS: Final = frozenset({"response.completed", "response.incomplete", "response.failed"})
#: the events of an item's text the repair reads (the text's ``.delta``) or replaces with its own
_TEXT_EVENTS: Final = frozenset(
    {
        "response.content_part.added",
        "response.content_part.done",
        "response.output_text.delta",
        "response.output_text.done",
        "response.reasoning_text.delta",
        "response.reasoning_text.done",
    }
)
_DELTAS: Final = frozenset({"response.output_text.delta", "response.reasoning_text.delta"})


def _readable(item: Mapping[str, Any]) -> str | None:
    """The kind of an item whose text is read (a message, a reasoning item), None for any other."""
    kind = item.get("type")
    if not isinstance(kind, str) or kind not in TEXT_PART:
        return None
    parts = item.get("content")
    if parts is None or parts == []:
        return kind  # (streamed: the parts come later)
    if not isinstance(parts, list):
        return None
    part_type = TEXT_PART[kind]
    ok = all(isinstance(p, Mapping) and p.get("type") == part_type and isinstance(p.get("text"), str) for p in parts)
    return kind if ok else None


def _item_text(item: Mapping[str, Any]) -> str:
    return "".join(part["text"] for part in item.get("content") or ())


def repair_response(response: T, request: Mapping[str, Any], options: RepairOptions | None = None) -> T:
    """``response`` (a Responses API response: a dict, or an openai ``Response``) with the calls written in the text
    of its message (and reasoning) items as ``function_call`` items; the same object when there is nothing to
    repair."""
    options = options or RepairOptions()
    if not needs_response_repair(request, options):
        return response
    try:
        data = as_dict(response)
        output = data.get("output") if data is not None else None
        if data is None or not isinstance(output, list) or not all(isinstance(item, dict) for item in output):
            return response
        if any(item.get("type") == FUNCTION_CALL for item in output):
            return response  # the upstream's own calls win
        new_output = _repair_output(output, request, options)
        if new_output is None:
            return response
        return like(response, {**data, "output": new_output})  # type: ignore[no-any-return]
    except Exception:
        return response


def _repair_output(
    output: list[dict[str, Any]], request: Mapping[str, Any], options: RepairOptions
) -> list[dict[str, Any]] | None:
    tools = response_function_tools(request)
    new: list[dict[str, Any]] = []
    changed = False
    reasoning_seen = False
    for item in output:
        kind = _readable(item)
        if kind is None or not item.get("content") or not _item_text(item):
            new.append(item)
            reasoning_seen = reasoning_seen or item.get("type") == REASONING
            continue
        parser_options = item_parser_options(request, options, message=kind == MESSAGE, reasoning_seen=reasoning_seen)
        reader = ItemReader(kind, item, tools, parser_options, NoSink())
        text = _item_text(item)
        reader.feed(text)
        status = item.get("status")
        reader.finish(status if isinstance(status, str) else None)
        reasoning_seen = reasoning_seen or kind == REASONING
        if not reader.changed and "".join(reader.pieces[0].text) == text:
            new.append(item)
            continue
        changed = True
        new.extend(piece.item for piece in reader.pieces)
    return new if changed else None


class ResponseStreamRepair:
    """Repairs a Responses API stream, event by event (dicts, or openai event objects): see the package docstring."""

    def __init__(self, request: Mapping[str, Any], options: RepairOptions | None = None) -> None:
        self._options = options or RepairOptions()
        self._active = needs_response_repair(request, self._options)
        self._request = request
        self._tools = response_function_tools(request) if self._active else []
        self._sequence: int | None = None
        self._next_index = 0
        #: the upstream's output_index -> the repair's reader of that item, or the index it passes through under
        self._readers: dict[int, ItemReader] = {}
        self._moved: dict[int, int] = {}
        #: the upstream sent a call of its own: from then on its items pass through (renumbered)
        self._passthrough = False
        self._reasoning_seen = False
        self._out: list[dict[str, Any]] = []
        self._original: Any = None

    # -- the Sink of the item readers ---------------------------------------------------------------------------

    def next_output_index(self) -> int:
        self._next_index += 1
        return self._next_index - 1

    def send(self, event: dict[str, Any]) -> None:
        if self._sequence is None:
            self._sequence = 0
        self._out.append({**event, "sequence_number": self._sequence})
        self._sequence += 1

    # -- public API --------------------------------------------------------------------------------------------

    def feed(self, event: T) -> list[T]:
        """The events to send for ``event``: none while its text is held back, several when it completes items."""
        if not self._active:
            return [event]
        try:
            data = as_dict(event)
            if data is None or not isinstance(data.get("type"), str):
                return [event]
            self._original = event
            if self._sequence is None and isinstance(data.get("sequence_number"), int):
                self._sequence = data["sequence_number"]
            self._event(data)
            return self._take()
        except Exception:
            return [event]

    def finish(self) -> list[Any]:
        """End of the stream: when an item is still open (no terminal event came), its end."""
        if not self._active:
            return []
        try:
            for reader in self._readers.values():
                reader.finish()
            return self._take()
        except Exception:
            return []

    # -- events ------------------------------------------------------------------------------------------------

    def _take(self) -> list[Any]:
        out, self._out = self._out, []
        return [_event_like(self._original, e) for e in out]

    def _event(self, data: dict[str, Any]) -> None:
        kind: str = data["type"]
        index = data.get("output_index")
        if kind == "response.output_item.added" and isinstance(index, int) and isinstance(data.get("item"), dict):
            self._item_added(index, data)
        elif isinstance(index, int) and index in self._readers:
            self._item_event(self._readers[index], kind, data)
        elif isinstance(index, int):
            self.send({**data, "output_index": self._moved.get(index, index)})
        elif kind in TERMINAL_EVENTS and isinstance(data.get("response"), dict):
            self._terminal(data)
        else:
            if kind == "error":
                self.finish_readers()
            self.send(data)

    def finish_readers(self, status: str | None = None) -> None:
        for reader in self._readers.values():
            reader.finish(status)

    def _item_added(self, index: int, data: dict[str, Any]) -> None:
        item: dict[str, Any] = data["item"]
        kind = None if self._passthrough else _readable(item)
        if kind is not None:
            message = kind == MESSAGE
            options = item_parser_options(
                self._request, self._options, message=message, reasoning_seen=self._reasoning_seen
            )
            self._readers[index] = ItemReader(kind, item, self._tools, options, self)
            self._reasoning_seen = self._reasoning_seen or kind == REASONING
            return
        if item.get("type") == FUNCTION_CALL:
            self._passthrough = True
        self._reasoning_seen = self._reasoning_seen or item.get("type") == REASONING
        moved = self._moved[index] = self.next_output_index()
        self.send({**data, "output_index": moved})

    def _item_event(self, reader: ItemReader, kind: str, data: dict[str, Any]) -> None:
        if kind in _DELTAS:
            delta = data.get("delta")
            if isinstance(delta, str):
                reader.feed(delta)
        elif kind == "response.output_item.done":
            status = data["item"].get("status") if isinstance(data.get("item"), dict) else None
            reader.finish(status if isinstance(status, str) else None)
        elif kind not in _TEXT_EVENTS:  # (another event of the item, e.g. an annotation): on its last item
            last = reader.pieces[-1].index if reader.pieces else data["output_index"]
            self.send({**data, "output_index": last})

    def _terminal(self, data: dict[str, Any]) -> None:
        status = "incomplete" if data["type"] == "response.incomplete" else None
        self.finish_readers(status)
        response: dict[str, Any] = data["response"]
        output = response.get("output")
        if isinstance(output, list):
            new: list[Any] = []
            for index, item in enumerate(output):
                reader = self._readers.get(index)
                if reader is None:
                    new.append(item)
                else:
                    new.extend(piece.item for piece in reader.pieces)
            response = {**response, "output": new}
        self.send({**data, "response": response})


def _event_like(original: Any, data: dict[str, Any]) -> Any:
    """``data`` as an event of the kind of ``original``: a dict, or an openai event object (of the event type
    ``data`` names, through openai's union of stream events when openai is loaded)."""
    if isinstance(original, dict):
        return data
    adapter = _event_adapter()
    if adapter is not None:
        try:
            return adapter.validate_python(data)
        except Exception:
            pass
    return like(original, data) if data.get("type") == getattr(original, "type", None) else data


_ADAPTER: list[Any] = []


def _event_adapter() -> Any:
    """A pydantic adapter of openai's ``ResponseStreamEvent`` union, when openai is loaded (never imported here)."""
    if not _ADAPTER:
        events = sys.modules.get("openai.types.responses.response_stream_event")
        pydantic = sys.modules.get("pydantic")
        union = getattr(events, "ResponseStreamEvent", None)
        if union is None or pydantic is None:
            return None
        _ADAPTER.append(pydantic.TypeAdapter(union))
    return _ADAPTER[0]


def repair_response_stream(
    events: Iterable[T], request: Mapping[str, Any], options: RepairOptions | None = None
) -> Iterator[T]:
    """The repaired stream of ``events`` (dicts, or openai Responses stream event objects)."""
    if not needs_response_repair(request, options):
        yield from events
        return
    yield from drive(ResponseStreamRepair(request, options), events)


async def arepair_response_stream(
    events: AsyncIterable[T], request: Mapping[str, Any], options: RepairOptions | None = None
) -> AsyncIterator[T]:
    """:func:`repair_response_stream` for an asynchronous stream."""
    async for out in adrive(ResponseStreamRepair(request, options), events):
        yield out
