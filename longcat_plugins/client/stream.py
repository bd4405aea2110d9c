"""A Chat Completions stream, chunk by chunk: one repair state per choice, one core parser per channel of it."""

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

from .drive import adrive, drive
from .message import CONTENT, DEFAULT_REASONING_FIELDS, REASONING_FIELDS, call_item, has_upstream_calls
from .objects import as_dict, like
from .options import RepairOptions
from .request import (
    chat_parser_options,
    function_tools,
    needs_repair,
    openai_stops_may_cut_calls,
    reads_calls,
    reasoning_parser_options,
)

T = TypeVar("T")

_REASONING: Final = "reasoning"  # (the channel's key in a choice's state)


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
    #: the reasoning fields the upstream used (where reasoning text goes that the upstream did not send)
    reasoning_fields: tuple[str, ...] = DEFAULT_REASONING_FIELDS
    #: the upstream sent reasoning text in its own field: its content starts outside reasoning
    reasoning_split: bool = False
    calls: int = 0
    finished: bool = False
    #: the upstream sent calls of its own in this choice: from then on it passes through as given
    passthrough: bool = False


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

    def __init__(self, request: Mapping[str, Any], *, options: RepairOptions | None = None) -> None:
        options = options or RepairOptions()
        self._active = needs_repair(request, options)
        self._tools = function_tools(request) if self._active else []
        self._options: dict[tuple[str, bool], ParserOptions] = {}
        if self._active:
            calls, cut = reads_calls(request), openai_stops_may_cut_calls(request)
            reasoning = reasoning_parser_options(calls=calls, cut_calls_as_text=cut)
            for split in (False, True):
                self._options[_REASONING, split] = reasoning
                self._options[CONTENT, split] = chat_parser_options(request, options, reasoning_split=split)
        self._choices: dict[Any, _Choice] = {}
        self._last: dict[str, Any] | None = None
        self._last_original: Any = None

    # -- public API --------------------------------------------------------------------------------------------

    def feed(self, chunk: T) -> list[T]:
        """The chunks to send for ``chunk``: usually one (the repaired chunk), none when all of it is held back, more
        when held text is released before a chunk that carries the upstream's own calls."""
        if not self._active:
            return [chunk]
        try:
            data = as_dict(chunk)
            if data is None or not _chunk_shape(data):
                return [chunk]
            self._last, self._last_original = data, chunk
            choices: list[dict[str, Any]] = data["choices"]
            released = [
                like(chunk, c)
                for choice in choices
                if has_upstream_calls(choice["delta"])
                for c in self._release(data, choice.get("index", 0))
            ]
            new_choices: list[dict[str, Any]] = []
            changed = False
            for choice in choices:
                new = self._choice(choice)
                if new is not choice:
                    changed = True
                if new is not None:
                    new_choices.append(new)
            if not changed:
                return [*released, chunk]
            if choices and not new_choices and data.get("usage") is None:
                return released
            return [*released, like(chunk, {**data, "choices": new_choices})]
        except Exception:
            return [chunk]

    def finish(self) -> list[Any]:
        """End of the stream: when a choice is still open (no finish reason came, e.g. the connection dropped), one
        last chunk with what the repair still holds of each, on the envelope of the last chunk seen."""
        if not self._active or self._last is None:
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
            return [like(self._last_original, self._envelope(self._last, choices))]
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
            options = self._options[channel, state.reasoning_split]
            found = state.channels[channel] = _Channel(StreamParser(self._tools, options))
        return found

    def _choice(self, choice: dict[str, Any]) -> dict[str, Any] | None:
        """The repaired choice (the same object when unchanged; None when it is to be dropped)."""
        delta: dict[str, Any] = choice["delta"]
        state = self._state(choice.get("index", 0))
        if state.finished or state.passthrough:
            return choice
        out = _Out()
        reasoning_fields = tuple(f for f in REASONING_FIELDS if isinstance(delta.get(f), str))
        reasoning_text = next((delta[f] for f in reasoning_fields if delta[f]), "")
        if reasoning_fields:
            state.reasoning_fields = reasoning_fields
        read = False
        if reasoning_text:
            state.reasoning_split = True
            self._feed(state, _REASONING, reasoning_text, out)
            read = True
        content = delta.get(CONTENT)
        if isinstance(content, str) and content:
            self._end_reasoning(state, out)
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

    def _end_reasoning(self, state: _Choice, out: _Out) -> None:
        """The answer has begun, so the reasoning has ended: what its parser still holds (a call the end of the
        reasoning decides) comes out now, numbered before the answer's calls, as in the whole response. Reasoning
        that comes again later is read by a new parser."""
        if _REASONING in state.channels:
            self._events(state, _REASONING, state.channels[_REASONING].parser.finish(), out)
            del state.channels[_REASONING]

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
            if isinstance(event, Content):
                out.add_text(channel, event.text)
                ch.shown.append(event.text)
            elif isinstance(event, Reasoning):  # (read from the content, with the reasoning switch)
                out.add_text(_REASONING, event.text)
                ch.mixed = True
            elif isinstance(event, ToolCallStart):
                number = ch.numbers[event.index] = state.calls
                state.calls += 1
                ch.open_call, ch.mixed = event.index, True
                out.calls.append(call_item(number, event.id, event.name, ""))
            elif isinstance(event, ToolCallArgs):
                ch.mixed = True
                out.add_args(ch.numbers[event.index], event.text)
            elif isinstance(event, ToolCallEnd):
                ch.open_call, ch.mixed = None, True

    def _release(self, data: dict[str, Any], index: Any) -> list[dict[str, Any]]:
        """A chunk with what a choice still holds, before the upstream's own calls in it pass through (none when it
        holds nothing); the choice passes through from then on."""
        state = self._state(index)
        if state.passthrough or state.finished:
            state.passthrough = True
            return []
        state.passthrough = state.finished = True
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
        if not delta:
            return []
        return [self._envelope(data, [{"index": index, "delta": delta, "finish_reason": None}])]

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


def repair_chat_stream(
    chunks: Iterable[T], request: Mapping[str, Any], *, options: RepairOptions | None = None
) -> Iterator[T]:
    """The repaired stream of ``chunks`` (dicts, or openai ``ChatCompletionChunk`` objects)."""
    if not needs_repair(request, options):
        yield from chunks
        return
    yield from drive(ChatStreamRepair(request, options=options), chunks)


async def arepair_chat_stream(
    chunks: AsyncIterable[T], request: Mapping[str, Any], *, options: RepairOptions | None = None
) -> AsyncIterator[T]:
    """:func:`repair_chat_stream` for an asynchronous stream."""
    async for out in adrive(ChatStreamRepair(request, options=options), chunks):
        yield out
