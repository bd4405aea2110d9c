"""An Anthropic Messages stream, event by event: the text blocks read by the core, the calls written in them as
``tool_use`` blocks, every later block's ``index`` shifted."""

from __future__ import annotations

import sys
import uuid
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

from longcat_plugins.core import (
    Content,
    Event,
    Reasoning,
    StreamParser,
    ToolCallArgs,
    ToolCallEnd,
    ToolCallStart,
)

from .drive import adrive, drive
from .messages_request import messages_tools, needs_messages_repair, text_parser_options
from .objects import as_class, as_dict
from .options import RepairOptions

T = TypeVar("T")

TEXT: Final = "text"
THINKING: Final = "thinking"
TOOL_USE: Final = "tool_use"
#: the stop reasons that become ``tool_use`` when the repair made calls (as vLLM maps a finish with complete calls)
TOOL_USE_STOPS: Final = ("end_turn", "stop_sequence")
#: the anthropic SDK's class of each event type (in ``anthropic.types``; anthropic itself is never imported here)
EVENT_CLASSES: Final = {
    "message_start": "RawMessageStartEvent",
    "message_delta": "RawMessageDeltaEvent",
    "message_stop": "RawMessageStopEvent",
    "content_block_start": "RawContentBlockStartEvent",
    "content_block_delta": "RawContentBlockDeltaEvent",
    "content_block_stop": "RawContentBlockStopEvent",
}


def is_upstream_call(block: Mapping[str, Any]) -> bool:
    """A content block that is the upstream's own call (``tool_use``, and Anthropic's ``..._tool_use`` kinds)."""
    kind = block.get("type")
    return isinstance(kind, str) and kind.endswith(TOOL_USE)


def stop_reason_with_calls(delta: Mapping[str, Any], calls: int) -> dict[str, Any] | None:
    """``delta`` (a ``message_delta``'s) with ``stop_reason: "tool_use"`` when the repair made calls and the
    upstream ended the turn (or matched a stop sequence after complete calls); None when it stays."""
    if calls and delta.get("stop_reason") in TOOL_USE_STOPS:
        return {**delta, "stop_reason": TOOL_USE, "stop_sequence": None}
    return None


class Blocks:
    """The content blocks the repair sends, as stream events: it opens and closes them and numbers them in order."""

    def __init__(self) -> None:
        self.next_index = 0
        #: the kind of the block open (text, thinking, tool_use), None when none is
        self.open: str | None = None
        self.calls = 0
        #: text that came while a call was open (the core may show a stray piece of a call as text before closing
        #: it): sent after the call's block, as vLLM sends the text that comes during a call
        self.pending: list[tuple[str, str]] = []

    def take_index(self) -> int:
        index, self.next_index = self.next_index, self.next_index + 1
        return index

    @property
    def current(self) -> int:
        return self.next_index - 1

    def close(self) -> list[dict[str, Any]]:
        """The block open closed (and the text held while a call was open sent, in blocks of its own, closed)."""
        out = self._stop()
        if self.pending:
            pending, self.pending = self.pending, []
            for kind, text in pending:
                out += self.text(kind, text)
            out += self._stop()
        return out

    def _stop(self) -> list[dict[str, Any]]:
        if self.open is None:
            return []
        out: list[dict[str, Any]] = []
        if self.open == THINKING:  # (as vLLM closes the thinking it splits off: with a signature)
            out.append(_delta(self.current, {"type": "signature_delta", "signature": uuid.uuid4().hex}))
        out.append({"type": "content_block_stop", "index": self.current})
        self.open = None
        return out

    def _start(self, kind: str, block: dict[str, Any]) -> list[dict[str, Any]]:
        out = self.close()
        self.open = kind
        out.append({"type": "content_block_start", "index": self.take_index(), "content_block": block})
        return out

    def text(self, kind: str, text: str) -> list[dict[str, Any]]:
        if not text:
            return []
        if self.open == TOOL_USE:
            self.pending.append((kind, text))
            return []
        out: list[dict[str, Any]] = []
        if self.open != kind:
            block = {"type": TEXT, TEXT: ""} if kind == TEXT else {"type": THINKING, THINKING: "", "signature": ""}
            out = self._start(kind, block)
        delta = {"type": "text_delta", TEXT: text} if kind == TEXT else {"type": "thinking_delta", THINKING: text}
        out.append(_delta(self.current, delta))
        return out

    def start_call(self, call_id: str, name: str) -> list[dict[str, Any]]:
        self.calls += 1
        return self._start(TOOL_USE, {"type": TOOL_USE, "id": call_id, "name": name, "input": {}})

    def call_arguments(self, text: str) -> list[dict[str, Any]]:
        if self.open != TOOL_USE or not text:
            return []
        return [_delta(self.current, {"type": "input_json_delta", "partial_json": text})]

    def events(self, events: Iterable[Event]) -> list[dict[str, Any]]:
        """The block events for the core's events of a text."""
        out: list[dict[str, Any]] = []
        for event in events:
            if isinstance(event, Content):
                out += self.text(TEXT, event.text)
            elif isinstance(event, Reasoning):
                out += self.text(THINKING, event.text)
            elif isinstance(event, ToolCallStart):
                out += self.start_call(event.id, event.name)
            elif isinstance(event, ToolCallArgs):
                out += self.call_arguments(event.text)
            elif isinstance(event, ToolCallEnd) and self.open == TOOL_USE:
                out += self.close()
        return out


def _delta(index: int, delta: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": delta}


@dataclass
class _TextRun:
    """An upstream text block being read: its index, its parser, and what it holds back (released verbatim if the
    upstream turns out to send calls itself)."""

    upstream_index: Any
    parser: StreamParser
    #: the text fed since the parser last held nothing, and the text it showed of it since
    raw: list[str] = field(default_factory=list)
    shown: list[str] = field(default_factory=list)
    #: a call event came in that span (the raw text is then not the held text plus what was shown)
    mixed: bool = False

    def feed(self, text: str) -> list[Event]:
        if not self.parser.holding:
            self.raw.clear()
            self.shown.clear()
            self.mixed = False
        self.raw.append(text)
        events = self.parser.feed(text)
        self._note(events)
        return events

    def _note(self, events: list[Event]) -> None:
        for event in events:
            if isinstance(event, (Content, Reasoning)):
                self.shown.append(event.text)
            else:
                self.mixed = True

    def held_text(self) -> str | None:
        """The text the parser holds back, verbatim, when it holds only text (no call begun)."""
        if self.mixed:
            return None
        raw, shown = "".join(self.raw), "".join(self.shown)
        return raw[len(shown) :] if raw.startswith(shown) else None


class MessageStreamRepair:
    """Repairs an Anthropic Messages stream, event by event (see :mod:`longcat_plugins.client`)."""

    def __init__(self, request: Mapping[str, Any], options: RepairOptions | None = None) -> None:
        self._options = options or RepairOptions()
        self._request = request
        self._active = needs_messages_repair(request, self._options)
        self._tools = messages_tools(request) if self._active else []
        self._blocks = Blocks()
        self._run: _TextRun | None = None
        #: the index sent for each upstream block passed on (all but the text blocks read)
        self._indexes: dict[Any, int] = {}
        #: the upstream sent a call of its own: from then on its text is not read
        self._passthrough = False
        #: the upstream split reasoning off itself (a thinking block came)
        self._reasoning_split = False
        self._last: Any = None

    @property
    def calls(self) -> int:
        """How many calls the repair made."""
        return self._blocks.calls

    # -- public API --------------------------------------------------------------------------------------------

    def feed(self, event: T) -> list[T]:
        """The events to send for ``event``: often one, none while text is held back, several when a call closes a
        text block and opens its ``tool_use`` block."""
        if not self._active:
            return [event]
        try:
            data = as_dict(event)
            if data is None or not isinstance(data.get("type"), str):
                return [event]
            self._last = event
            out = self._event(data)
            if out is None:
                return [event]
            return [_event_like(event, d) for d in out]
        except Exception:
            return [event]

    def finish(self) -> list[Any]:
        """End of the stream without ``message_stop`` (the connection dropped, an error event): what the repair
        still holds, and the block it leaves open closed."""
        if not self._active or self._last is None:
            return []
        try:
            return [_event_like(self._last, d) for d in self._end_run()]
        except Exception:
            return []

    # -- events ------------------------------------------------------------------------------------------------

    def _event(self, data: dict[str, Any]) -> list[dict[str, Any]] | None:
        """The events for ``data``; None: it goes on as given."""
        kind = data["type"]
        if kind == "content_block_start":
            return self._block_start(data)
        if kind == "content_block_delta":
            return self._block_delta(data)
        if kind == "content_block_stop":
            if self._run is not None and data.get("index") == self._run.upstream_index:
                return self._end_run()
            return self._reindexed(data)
        if kind == "message_delta":
            out = self._end_run()
            delta = data.get("delta")
            new_delta = stop_reason_with_calls(delta, self.calls) if isinstance(delta, Mapping) else None
            if new_delta is None and not out:
                return None
            return [*out, data if new_delta is None else {**data, "delta": new_delta}]
        if kind == "message_stop":
            out = self._end_run()
            return [*out, data] if out else None
        return None  # message_start, ping, error, what is new

    def _block_start(self, data: dict[str, Any]) -> list[dict[str, Any]] | None:
        block = data.get("content_block")
        if not isinstance(block, Mapping):
            return None
        if not self._passthrough and is_upstream_call(block):
            out = self._release()
            self._passthrough = True
            return out + self._passed_on(data)
        if not self._passthrough and block.get("type") == TEXT and set(block) <= {"type", TEXT, "citations"}:
            out = self._end_run()
            options = text_parser_options(self._request, self._options, reasoning_split=self._reasoning_split)
            self._run = _TextRun(data.get("index"), StreamParser(self._tools, options))
            text = block.get(TEXT)
            if isinstance(text, str) and text:
                out += self._blocks.events(self._run.feed(text))
            return out
        if block.get("type") in (THINKING, "redacted_thinking"):
            self._reasoning_split = True
        return self._end_run() + self._passed_on(data)

    def _block_delta(self, data: dict[str, Any]) -> list[dict[str, Any]] | None:
        run = self._run
        if run is None or data.get("index") != run.upstream_index:
            return self._reindexed(data)
        delta = data.get("delta")
        if isinstance(delta, Mapping) and delta.get("type") == "text_delta" and isinstance(delta.get(TEXT), str):
            return self._blocks.events(run.feed(delta[TEXT]))
        if self._blocks.open == TEXT:  # (a citation, or what is new, for the text block open)
            return [{**data, "index": self._blocks.current}]
        return []

    def _passed_on(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        """An upstream block's start, sent under the next index."""
        index = self._indexes[data.get("index")] = self._blocks.take_index()
        return [data if data.get("index") == index else {**data, "index": index}]

    def _reindexed(self, data: dict[str, Any]) -> list[dict[str, Any]] | None:
        index = self._indexes.get(data.get("index"))
        if index is None or index == data.get("index"):
            return None
        return [{**data, "index": index}]

    def _end_run(self) -> list[dict[str, Any]]:
        """The text block being read has ended: what its parser holds, then the block open closed."""
        run, self._run = self._run, None
        if run is None:
            return []
        return self._blocks.events(run.parser.finish()) + self._blocks.close()

    def _release(self) -> list[dict[str, Any]]:
        """Before the upstream's own calls: what the text block being read holds back, as text, verbatim (a call
        the repair had begun is closed, with valid JSON arguments)."""
        run, self._run = self._run, None
        if run is None:
            return []
        held = run.held_text() if run.parser.holding else ""
        if held is None or self._blocks.open == TOOL_USE:
            return self._blocks.events(run.parser.finish()) + self._blocks.close()
        return self._blocks.text(TEXT, held) + self._blocks.close()


def _event_like(original: Any, data: dict[str, Any]) -> Any:
    """``data`` as the kind of ``original``: a dict stays a dict; an anthropic event object becomes the SDK's
    class of that event type, from the SDK the object came from (never imported here)."""
    if isinstance(original, dict):
        return data
    package = type(original).__module__.split(".", 1)[0]
    types = sys.modules.get(f"{package}.types")
    cls = getattr(types, EVENT_CLASSES.get(str(data.get("type")), ""), None) if types is not None else None
    return as_class(type(original) if cls is None else cls, data, original)


def repair_message_stream(
    events: Iterable[T], request: Mapping[str, Any], options: RepairOptions | None = None
) -> Iterator[T]:
    """The repaired stream of ``events`` (dicts, or anthropic ``RawMessageStreamEvent`` objects)."""
    yield from drive(MessageStreamRepair(request, options), events)


async def arepair_message_stream(
    events: AsyncIterable[T], request: Mapping[str, Any], options: RepairOptions | None = None
) -> AsyncIterator[T]:
    """:func:`repair_message_stream` for an asynchronous stream."""
    async for out in adrive(MessageStreamRepair(request, options), events):
        yield out
