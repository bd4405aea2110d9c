"""One output item of a Responses answer (a ``message``, or a ``reasoning`` item) read by the core, and the output
items it becomes: its text before a call, the call (a ``function_call`` item), the text after it (a new item of
the same kind), and, for a message read with reasoning split off, ``reasoning`` items. The items and their stream
events have the shapes vLLM's ``/v1/responses`` gives them (item ids ``msg_``, ``rs_``, ``fc_``; a message's text in
one ``output_text`` part, a reasoning item's in one ``reasoning_text`` part).

An :class:`ItemReader` is fed the item's text and sends the events of the items it opens, fills and closes to a
:class:`Sink` (which numbers them: ``output_index``, ``sequence_number``); the whole repair uses the items only.
"""

from __future__ import annotations

import secrets
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from longcat_plugins.core import (
    Content,
    Event,
    ParserOptions,
    Reasoning,
    StreamParser,
    ToolCallArgs,
    ToolCallEnd,
    ToolCallStart,
)

MESSAGE: Final = "message"
REASONING: Final = "reasoning"
FUNCTION_CALL: Final = "function_call"
#: an item kind -> the type of its text parts, and the name of its text events
TEXT_PART: Final = {MESSAGE: "output_text", REASONING: "reasoning_text"}
TEXT_EVENTS: Final = {MESSAGE: "response.output_text", REASONING: "response.reasoning_text"}
ID_PREFIX: Final = {MESSAGE: "msg_", REASONING: "rs_", FUNCTION_CALL: "fc_"}


def new_item_id(kind: str) -> str:
    return ID_PREFIX[kind] + secrets.token_hex(8)


class Sink(Protocol):
    """Where an item reader's events go."""

    def next_output_index(self) -> int: ...

    def send(self, event: dict[str, Any]) -> None: ...


class NoSink:
    """The whole repair: items only, no events."""

    def __init__(self) -> None:
        self._index = 0

    def next_output_index(self) -> int:
        self._index += 1
        return self._index - 1

    def send(self, event: dict[str, Any]) -> None:
        pass


def text_part(kind: str, text: str, *, streaming: bool = False) -> dict[str, Any]:
    if kind == REASONING:
        return {"text": text, "type": "reasoning_text"}
    return {"annotations": [], "text": text, "type": "output_text", "logprobs": [] if streaming else None}


@dataclass
class Piece:
    """One output item the reader made: its kind, ``output_index``, the item as it stands, its text so far."""

    kind: str
    index: int
    item: dict[str, Any]
    text: list[str] = field(default_factory=list)


class ItemReader:
    """The output items one upstream item (``kind``: message or reasoning) becomes (see the module docstring)."""

    def __init__(
        self,
        kind: str,
        upstream_item: Mapping[str, Any],
        tools: list[Mapping[str, Any]],
        options: ParserOptions,
        sink: Sink,
    ) -> None:
        self.kind = kind
        self.upstream_item = dict(upstream_item)
        self.parser = StreamParser(tools, options)
        self.sink = sink
        #: the items made, in order
        self.pieces: list[Piece] = []
        self._open: Piece | None = None
        self._call: int | None = None  # the parser's index of the call whose item is open
        self._deferred: list[Event] = []  # the core's events while that call is open
        self._upstream_id_used = False
        self.finished = False

    @property
    def changed(self) -> bool:
        """Whether the items made differ from the upstream item (a call or reasoning read, or more than one item)."""
        return len(self.pieces) != 1 or self.pieces[0].kind != self.kind

    def feed(self, text: str) -> None:
        if text and not self.finished:
            self._events(self.parser.feed(text))

    def finish(self, status: str | None = None) -> None:
        """The upstream item ended (``status``: its final status); what the parser holds comes out, the open item
        closes."""
        if self.finished:
            return
        self.finished = True
        self._events(self.parser.finish())
        if self._call is not None:  # (the core ends every call it starts: not reached)
            self._call = None
            self._events(self._deferred)
        self._close(status)

    # -- events of the core ------------------------------------------------------------------------------------

    def _events(self, events: list[Event]) -> None:
        """The core's events as items. A call's item stays open until the call ends: what the core reads meanwhile
        (text a call left open let through, another call) comes after it, in order."""
        queue = deque(events)
        while queue:
            event = queue.popleft()
            if self._call is not None and not (
                isinstance(event, (ToolCallArgs, ToolCallEnd)) and event.index == self._call
            ):
                self._deferred.append(event)
                continue
            if isinstance(event, Content):
                self._text(self.kind, event.text)
            elif isinstance(event, Reasoning):
                self._text(REASONING, event.text)
            elif isinstance(event, ToolCallStart):
                self._close(None)
                self._call = event.index
                self._open_call(event.id, event.name)
            elif isinstance(event, ToolCallArgs):
                self._args(event.text)
            else:  # the open call's ToolCallEnd
                self._close(None)
                self._call = None
                queue.extendleft(reversed(self._deferred))
                self._deferred.clear()

    def _text(self, kind: str, text: str) -> None:
        if not text:
            return
        piece = self._open
        if piece is not None and piece.kind != kind:
            self._close(None)
            piece = None
        if piece is None:
            piece = self._open_text(kind)
        piece.text.append(text)
        self.sink.send(
            {
                "content_index": 0,
                "delta": text,
                "item_id": piece.item["id"],
                **({"logprobs": []} if kind == MESSAGE else {}),
                "output_index": piece.index,
                "type": f"{TEXT_EVENTS[kind]}.delta",
            }
        )

    # -- items -------------------------------------------------------------------------------------------------

    def _item_id(self, kind: str) -> str:
        upstream_id = self.upstream_item.get("id")
        if kind == self.kind and not self._upstream_id_used and isinstance(upstream_id, str):
            self._upstream_id_used = True
            return upstream_id
        return new_item_id(kind)

    def _open_text(self, kind: str) -> Piece:
        if kind == self.kind:
            base = {k: v for k, v in self.upstream_item.items() if k not in ("id", "content", "status")}
        else:
            base = {"summary": [], "type": REASONING, "encrypted_content": None}
        item_id = self._item_id(kind)
        added: dict[str, Any] = {"id": item_id, **base, "status": "in_progress"}
        added["content"] = [] if kind == MESSAGE else None
        piece = Piece(kind, self.sink.next_output_index(), added)
        self.pieces.append(piece)
        self._open = piece
        self.sink.send({"item": dict(added), "output_index": piece.index, "type": "response.output_item.added"})
        self.sink.send(
            {
                "content_index": 0,
                "item_id": item_id,
                "output_index": piece.index,
                "part": text_part(kind, "", streaming=True),
                "type": "response.content_part.added",
            }
        )
        return piece

    def _open_call(self, call_id: str, name: str) -> Piece:
        item = {
            "arguments": "",
            "call_id": call_id,
            "name": name,
            "type": FUNCTION_CALL,
            "id": new_item_id(FUNCTION_CALL),
            "status": "in_progress",
        }
        piece = Piece(FUNCTION_CALL, self.sink.next_output_index(), item)
        self.pieces.append(piece)
        self._open = piece
        self.sink.send({"item": dict(item), "output_index": piece.index, "type": "response.output_item.added"})
        return piece

    def _args(self, text: str) -> None:
        piece = self._open
        if not text or piece is None:
            return
        piece.text.append(text)
        self.sink.send(
            {
                "delta": text,
                "item_id": piece.item["id"],
                "output_index": piece.index,
                "type": "response.function_call_arguments.delta",
            }
        )

    def _close(self, status: str | None) -> None:
        """Close the open item (``status``: the last item's final status, default ``completed``)."""
        piece, self._open = self._open, None
        if piece is None:
            return
        text = "".join(piece.text)
        final = status or "completed"
        item_id = piece.item["id"]
        if piece.kind == FUNCTION_CALL:
            piece.item.update(arguments=text, status=final)
            self.sink.send(
                {
                    "arguments": text,
                    "item_id": item_id,
                    "output_index": piece.index,
                    "type": "response.function_call_arguments.done",
                    "name": piece.item["name"],
                }
            )
        else:
            piece.item.update(content=[text_part(piece.kind, text)], status=final)
            self.sink.send(
                {
                    "content_index": 0,
                    "item_id": item_id,
                    **({"logprobs": []} if piece.kind == MESSAGE else {}),
                    "output_index": piece.index,
                    "text": text,
                    "type": f"{TEXT_EVENTS[piece.kind]}.done",
                }
            )
            self.sink.send(
                {
                    "content_index": 0,
                    "item_id": item_id,
                    "output_index": piece.index,
                    "part": text_part(piece.kind, text),
                    "type": "response.content_part.done",
                }
            )
        self.sink.send({"item": dict(piece.item), "output_index": piece.index, "type": "response.output_item.done"})
