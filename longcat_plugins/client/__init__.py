"""Repairing tool calls that leak into ``content`` in client code (no engine, no server of our own).

A server that does not run our parser (a hosted API, a gateway, a llama.cpp / Ollama build, an old engine, a server
started without ``--tool-call-parser``) hands the model's call markup back as text, in ``content`` or in the
reasoning (``reasoning_content``, or ``reasoning``, the newer field name of vLLM). These functions read that text with
the core's :class:`~longcat_plugins.core.StreamParser` and return the Chat Completions response, or its stream, with
the calls as ``tool_calls``::

    needs_repair(request) -> bool
    repair_chat_completion(response, request) -> response          # a dict, or an openai ChatCompletion
    ChatStreamRepair(request).feed(chunk) -> [chunk, ...]; .finish() -> [chunk, ...]
    repair_chat_stream(chunks, request) -> Iterator[chunk]
    arepair_chat_stream(chunks, request) -> AsyncIterator[chunk]

``request`` is the request body as sent. Rules:

* Only a request that declares function tools, with a ``tool_choice`` other than ``"none"``, is repaired
  (:func:`needs_repair`); anything else comes back as given (the same objects).
* Each channel (content; the reasoning) is read by its own parser, built with the request's function tools and
  ``ParserOptions(reasoning=False)``: its text is plain text and calls; the upstream already split reasoning from
  content, and a ``<think>`` inside content stays there as sent. A block naming none of the request's tools stays
  text, verbatim. Text stays in the channel it came in. When a stop of the request (``stop``, ``stop_token_ids``)
  may cut the output inside a call, a call left open at the end is text, as the engine adapters have it
  (:func:`longcat_plugins.core.stops.stops_may_cut_calls`); otherwise a cut call is closed with valid JSON.
  When a delta (or a message) carries both ``reasoning_content`` and ``reasoning``, they are one channel: the text
  of ``reasoning_content`` is read, and both fields get its reading.
* Calls of both channels of a choice are numbered 0, 1, 2... in the order they start; ids are the core's
  (``call_...``). ``finish_reason`` ``"stop"`` becomes ``"tool_calls"`` when calls were made; other reasons stay.
* Every other field (id, model, usage, logprobs, system_fingerprint, a server's extra fields) is kept.
* Upstream ``tool_calls`` win: a response whose message carries ``tool_calls`` is returned as given. In a stream,
  from the first chunk that carries ``tool_calls``, every chunk passes through as given; before that chunk, what the
  repair still held back is released, as text of its channel, verbatim (a call the repair had started is closed,
  with valid JSON arguments). Calls the repair emitted before that chunk stay, and the upstream's calls are not
  renumbered: the upstream's own indexes are passed on as given.
* A stream: one repair state per choice ``index``. A chunk whose delta becomes empty and carries nothing else (no
  role, no finish_reason, no logprobs, no usage) is dropped; text held back (a possible tag) comes out with a later
  chunk, and at the latest with the chunk that carries the choice's ``finish_reason``. :meth:`ChatStreamRepair.finish`
  (the stream ended without a finish reason) flushes every open choice into one last chunk built on the envelope of
  the last chunk seen. Usage-only chunks (``choices: []``) pass through.
* openai objects (``ChatCompletion``, ``ChatCompletionChunk``) come back as the same type; ``openai`` is never
  imported here. A malformed response or chunk is returned as given; nothing here raises on a server's output.
"""

from __future__ import annotations

import copy
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

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
from longcat_plugins.core.stops import stops_may_cut_calls

__all__ = [
    "ChatStreamRepair",
    "arepair_chat_stream",
    "needs_repair",
    "repair_chat_completion",
    "repair_chat_stream",
]

T = TypeVar("T")

CONTENT: Final = "content"
#: the reasoning fields, in the order their text is read: the first present with text is the channel's text
REASONING_FIELDS: Final = ("reasoning_content", "reasoning")
_REASONING: Final = "reasoning"  # (the channel's key in a choice's state)


def _function_tools(request: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    tools = request.get("tools")
    if not isinstance(tools, (list, tuple)):
        return []
    return [
        tool
        for tool in tools
        if isinstance(tool, Mapping)
        and tool.get("type", "function") == "function"
        and isinstance(tool.get("function"), Mapping)
    ]


def needs_repair(request: Mapping[str, Any]) -> bool:
    """Whether calls are to be read from the text of the answers to ``request``: it declares function tools and its
    ``tool_choice`` is not ``"none"``."""
    if not isinstance(request, Mapping):
        return False
    return bool(_function_tools(request)) and request.get("tool_choice") != "none"


def _options(request: Mapping[str, Any]) -> ParserOptions:
    stop_ids = request.get("stop_token_ids")
    ids = [i for i in stop_ids if isinstance(i, int)] if isinstance(stop_ids, (list, tuple)) else None
    return ParserOptions(reasoning=False, cut_calls_as_text=stops_may_cut_calls((request.get("stop"),), ids))


# -- openai objects ---------------------------------------------------------------------------------------------


def _as_dict(obj: Any) -> dict[str, Any] | None:
    """The JSON shape of a response or chunk: the dict itself, or an openai (pydantic) object's ``model_dump()``."""
    if isinstance(obj, dict):
        return obj
    dump = getattr(obj, "model_dump", None)
    if callable(dump):
        try:
            data = dump()
        except Exception:
            return None
        return data if isinstance(data, dict) else None
    return None


def _like(original: Any, data: dict[str, Any]) -> Any:
    """``data`` as the type of ``original`` (a dict stays a dict; an openai object is validated back)."""
    if isinstance(original, dict):
        return data
    cls = type(original)
    try:
        return cls.model_validate(data)
    except Exception:
        try:
            return cls.model_construct(**data)
        except Exception:
            return original


# -- non-streamed -----------------------------------------------------------------------------------------------


def _call_item(index: int | None, call_id: str, name: str, arguments: str) -> dict[str, Any]:
    item: dict[str, Any] = {} if index is None else {"index": index}
    item.update({"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}})
    return item


def _has_upstream_calls(holder: Mapping[str, Any]) -> bool:
    calls = holder.get("tool_calls")
    return bool(calls)


def _read_whole(text: str, tools: list[Mapping[str, Any]], options: ParserOptions) -> tuple[str, list[Any]]:
    parser = StreamParser(tools, options)
    events = parser.feed(text) + parser.finish()
    shown = "".join(e.text for e in events if isinstance(e, (Content, Reasoning)))
    return shown, parser.calls


def _repair_message(message: dict[str, Any], request: Mapping[str, Any]) -> tuple[dict[str, Any], bool] | None:
    """The repaired message and whether it has calls; None when nothing changes."""
    tools = _function_tools(request)
    options = _options(request)
    new = dict(message)
    calls: list[dict[str, Any]] = []
    changed = False
    reasoning_text = next(
        (message[f] for f in REASONING_FIELDS if isinstance(message.get(f), str) and message[f]), None
    )
    channels: list[tuple[tuple[str, ...], str]] = []
    if reasoning_text is not None:
        channels.append((tuple(f for f in REASONING_FIELDS if isinstance(message.get(f), str)), reasoning_text))
    if isinstance(message.get(CONTENT), str) and message[CONTENT]:
        channels.append(((CONTENT,), message[CONTENT]))
    for fields, text in channels:
        shown, found = _read_whole(text, tools, options)
        for call in found:
            calls.append(_call_item(None, call.id, call.name, call.arguments))
        for name in fields:
            value = shown or None
            if new.get(name) != value:
                new[name] = value
                changed = True
    if calls:
        new["tool_calls"] = calls
        changed = True
    return (new, bool(calls)) if changed else None


def repair_chat_completion(response: T, request: Mapping[str, Any]) -> T:
    """``response`` (a Chat Completions response: a dict, or an openai ``ChatCompletion``) with the calls written in
    its choices' text as ``tool_calls``; the same object when there is nothing to repair."""
    if not needs_repair(request):
        return response
    try:
        data = _as_dict(response)
        if data is None:
            return response
        choices = data.get("choices")
        if not isinstance(choices, list) or not all(
            isinstance(c, dict) and isinstance(c.get("message"), dict) for c in choices
        ):
            return response
        if any(_has_upstream_calls(c["message"]) for c in choices):
            return response
        new_choices: list[Any] = []
        changed = False
        for choice in choices:
            repaired = _repair_message(choice["message"], request)
            if repaired is None:
                new_choices.append(choice)
                continue
            message, has_calls = repaired
            new_choice = {**choice, "message": message}
            if has_calls and choice.get("finish_reason") == "stop":
                new_choice["finish_reason"] = "tool_calls"
            new_choices.append(new_choice)
            changed = True
        if not changed:
            return response
        return _like(response, {**data, "choices": new_choices})  # type: ignore[no-any-return]
    except Exception:
        return response


# -- streamed ---------------------------------------------------------------------------------------------------


@dataclass
class _Channel:
    """One channel of one choice: its parser, and what it holds back (to release verbatim if the upstream turns
    out to send calls itself)."""

    parser: StreamParser
    #: the text fed since the parser last held nothing, and the text it showed of it since
    raw: list[str] = field(default_factory=list)
    shown: list[str] = field(default_factory=list)
    #: a call event came in that span (the raw text is then no longer the held text plus what was shown)
    mixed: bool = False
    #: the parser's index of a call started and not ended
    open_call: int | None = None
    #: the parser's call index -> the choice's
    numbers: dict[int, int] = field(default_factory=dict)


@dataclass
class _Choice:
    channels: dict[str, _Channel] = field(default_factory=dict)
    #: the reasoning fields the upstream used (where reasoning text flushed at the end goes)
    reasoning_fields: tuple[str, ...] = ("reasoning_content",)
    calls: int = 0
    finished: bool = False


class _Out:
    """What a chunk's choice gets: text per channel, and tool_calls items."""

    def __init__(self) -> None:
        self.text: dict[str, list[str]] = {}
        self.calls: list[dict[str, Any]] = []

    def add_text(self, channel: str, text: str) -> None:
        if text:
            self.text.setdefault(channel, []).append(text)

    def add_args(self, index: int, text: str) -> None:
        last = self.calls[-1] if self.calls else None
        if last is not None and last["index"] == index:
            last["function"]["arguments"] += text
        else:
            self.calls.append({"index": index, "function": {"arguments": text}})


class ChatStreamRepair:
    """Repairs a Chat Completions stream, chunk by chunk (see the module docstring)."""

    def __init__(self, request: Mapping[str, Any]) -> None:
        self._active = needs_repair(request)
        self._tools = _function_tools(request) if self._active else []
        self._options = _options(request) if self._active else ParserOptions(reasoning=False)
        self._choices: dict[Any, _Choice] = {}
        self._passthrough = False
        self._last: dict[str, Any] | None = None
        self._last_original: Any = None

    # -- public API --------------------------------------------------------------------------------------------

    def feed(self, chunk: T) -> list[T]:
        """The chunks to send for ``chunk``: usually one (the repaired chunk), none when all of it is held back, more
        when held text is released before a chunk that carries the upstream's own calls."""
        if not self._active or self._passthrough:
            return [chunk]
        try:
            data = _as_dict(chunk)
            if data is None or not _chunk_shape(data):
                return [chunk]
            self._last, self._last_original = data, chunk
            choices: list[dict[str, Any]] = data["choices"]
            if any(_has_upstream_calls(c["delta"]) for c in choices):
                self._passthrough = True
                return [*(_like(chunk, c) for c in self._release(data)), chunk]
            new_choices: list[dict[str, Any]] = []
            changed = False
            for choice in choices:
                new = self._choice(choice)
                if new is not choice:
                    changed = True
                if new is not None:
                    new_choices.append(new)
            if not changed:
                return [chunk]
            if choices and not new_choices and data.get("usage") is None:
                return []
            return [_like(chunk, {**data, "choices": new_choices})]
        except Exception:
            return [chunk]

    def finish(self) -> list[Any]:
        """End of the stream: when a choice is still open (no finish reason came, e.g. the connection dropped), one
        last chunk with what the repair still holds of each, on the envelope of the last chunk seen."""
        if not self._active or self._passthrough or self._last is None:
            return []
        try:
            choices = []
            for index, state in self._choices.items():
                if state.finished:
                    continue
                state.finished = True
                out = _Out()
                for channel in state.channels:
                    self._events(state, channel, state.channels[channel].parser.finish(), out)
                delta = self._delta({}, state, out)
                if delta:
                    choices.append({"index": index, "delta": delta, "finish_reason": None, "logprobs": None})
            if not choices:
                return []
            return [_like(self._last_original, self._envelope(self._last, choices))]
        except Exception:
            return []

    # -- a choice ----------------------------------------------------------------------------------------------

    def _state(self, index: Any) -> _Choice:
        state = self._choices.get(index)
        if state is None:
            state = self._choices[index] = _Choice()
        return state

    def _channel(self, state: _Choice, channel: str) -> _Channel:
        found = state.channels.get(channel)
        if found is None:
            found = state.channels[channel] = _Channel(StreamParser(self._tools, self._options))
        return found

    def _choice(self, choice: dict[str, Any]) -> dict[str, Any] | None:
        """The repaired choice (the same object when unchanged; None when it is to be dropped)."""
        delta: dict[str, Any] = choice["delta"]
        state = self._state(choice.get("index", 0))
        if state.finished:
            return choice
        out = _Out()
        reasoning_fields = tuple(f for f in REASONING_FIELDS if isinstance(delta.get(f), str))
        reasoning_text = next((delta[f] for f in reasoning_fields if delta[f]), "")
        if reasoning_fields:
            state.reasoning_fields = reasoning_fields
        read = False
        if reasoning_text:
            self._feed(state, _REASONING, reasoning_text, out)
            read = True
        content = delta.get(CONTENT)
        if isinstance(content, str) and content:
            self._feed(state, CONTENT, content, out)
            read = True
        finish_reason = choice.get("finish_reason")
        if finish_reason is not None:
            state.finished = True
            for channel in state.channels:
                self._events(state, channel, state.channels[channel].parser.finish(), out)
        maps_finish = finish_reason == "stop" and state.calls > 0
        if not read and not out.text and not out.calls and not maps_finish:
            return choice
        new_delta = self._delta(delta, state, out)
        if new_delta == delta and not maps_finish:
            return choice
        new = {**choice, "delta": new_delta}
        if maps_finish:
            new["finish_reason"] = "tool_calls"
        if not _carries(new_delta) and finish_reason is None and choice.get("logprobs") is None:
            return None
        return new

    def _delta(self, delta: dict[str, Any], state: _Choice, out: _Out) -> dict[str, Any]:
        new = dict(delta)
        fields = {CONTENT: (CONTENT,), _REASONING: state.reasoning_fields}
        for channel, names in fields.items():
            text = "".join(out.text.get(channel, ()))
            for name in names:
                if text:
                    new[name] = text
                elif isinstance(new.get(name), str) and new[name]:
                    del new[name]  # (all of it held back, or markup)
        if out.calls:
            new["tool_calls"] = out.calls
        return new

    def _feed(self, state: _Choice, channel: str, text: str, out: _Out) -> None:
        ch = self._channel(state, channel)
        if not ch.parser.holding:
            ch.raw.clear()
            ch.shown.clear()
            ch.mixed = False
        ch.raw.append(text)
        self._events(state, channel, ch.parser.feed(text), out)

    def _events(self, state: _Choice, channel: str, events: list[Event], out: _Out) -> None:
        ch = state.channels[channel]
        for event in events:
            if isinstance(event, (Content, Reasoning)):
                out.add_text(channel, event.text)
                ch.shown.append(event.text)
            elif isinstance(event, ToolCallStart):
                number = ch.numbers[event.index] = state.calls
                state.calls += 1
                ch.open_call, ch.mixed = event.index, True
                out.calls.append(_call_item(number, event.id, event.name, ""))
            elif isinstance(event, ToolCallArgs):
                ch.mixed = True
                out.add_args(ch.numbers[event.index], event.text)
            elif isinstance(event, ToolCallEnd):
                ch.open_call, ch.mixed = None, True

    def _release(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        """Chunks with what every open choice still holds (before the upstream's own calls pass through)."""
        chunks = []
        for index, state in self._choices.items():
            if state.finished:
                continue
            state.finished = True
            out = _Out()
            for channel, ch in state.channels.items():
                if not ch.parser.holding and ch.open_call is None:
                    continue
                joined_raw, joined_shown = "".join(ch.raw), "".join(ch.shown)
                if ch.open_call is None and not ch.mixed and joined_raw.startswith(joined_shown):
                    out.add_text(channel, joined_raw[len(joined_shown) :])
                else:
                    self._events(state, channel, ch.parser.finish(), out)
            delta = self._delta({}, state, out)
            if delta:
                chunks.append(self._envelope(data, [{"index": index, "delta": delta, "finish_reason": None}]))
        return chunks

    @staticmethod
    def _envelope(data: dict[str, Any], choices: list[dict[str, Any]]) -> dict[str, Any]:
        envelope = {key: copy.deepcopy(value) for key, value in data.items() if key not in ("choices", "usage")}
        envelope["choices"] = choices
        return envelope


def _chunk_shape(data: Mapping[str, Any]) -> bool:
    choices = data.get("choices")
    return isinstance(choices, list) and all(isinstance(c, dict) and isinstance(c.get("delta"), dict) for c in choices)


def _carries(delta: Mapping[str, Any]) -> bool:
    return any(value not in (None, "", [], {}) for value in delta.values())


def repair_chat_stream(chunks: Iterable[T], request: Mapping[str, Any]) -> Iterator[T]:
    """The repaired stream of ``chunks`` (dicts, or openai ``ChatCompletionChunk`` objects)."""
    if not needs_repair(request):
        yield from chunks
        return
    repair = ChatStreamRepair(request)
    for chunk in chunks:
        yield from repair.feed(chunk)
    yield from repair.finish()


async def arepair_chat_stream(chunks: AsyncIterable[T], request: Mapping[str, Any]) -> AsyncIterator[T]:
    """:func:`repair_chat_stream` for an asynchronous stream."""
    repair = ChatStreamRepair(request)
    async for chunk in chunks:
        for out in repair.feed(chunk):
            yield out
    for out in repair.finish():
        yield out
