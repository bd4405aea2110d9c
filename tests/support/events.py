"""The fold of a parser's event stream into a message, the splits a text is streamed in, and the event-stream
invariants."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from longcat_plugins.core import (
    Event,
    MessageBuilder,
    ParsedMessage,
    ParserOptions,
    StreamParser,
    ToolCallArgs,
    ToolCallEnd,
    ToolCallStart,
)
from tests.support.strict_json import strict_json_loads


def split_at(text: str, cuts: Iterable[int]) -> list[str]:
    points = sorted({c for c in cuts if 0 < c < len(text)})
    pieces, last = [], 0
    for p in points:
        pieces.append(text[last:p])
        last = p
    pieces.append(text[last:])
    return [p for p in pieces if p]


def groups_of(text: str, k: int) -> list[str]:
    return [text[i : i + k] for i in range(0, len(text), k)]


@dataclass
class Streamed:
    """What a parser gave for a text fed in pieces: the events of each feed and then of ``finish()``, and their fold."""

    batches: list[list[Event]]

    @property
    def events(self) -> list[Event]:
        return [e for batch in self.batches for e in batch]

    @property
    def message(self) -> ParsedMessage:
        return fold(self.batches)


def feed(
    pieces: Iterable[str],
    tools: Any = None,
    options: ParserOptions | None = None,
    *,
    parser: StreamParser | None = None,
) -> Streamed:
    """Feed the pieces one by one to ``parser`` (a new one for ``tools`` and ``options`` by default), then finish it."""
    if parser is None:
        parser = StreamParser(tools, options)
    batches = [parser.feed(piece) for piece in pieces]
    batches.append(parser.finish())
    return Streamed(batches)


def fold(batches: Iterable[list[Event]]) -> ParsedMessage:
    """The message a client assembles from the events."""
    builder = MessageBuilder()
    for batch in batches:
        builder.add(batch)
    return builder.message


def stream(
    pieces: Sequence[str], tools: Any = None, options: ParserOptions | None = None
) -> tuple[ParsedMessage, list[Event]]:
    """Feed the pieces, check the event-stream invariants, and return the message and all events."""
    streamed = feed(pieces, tools, options)
    events = streamed.events
    check_event_stream(events)
    return streamed.message, events


def check_event_stream(events: list[Event]) -> None:
    """Invariants 2 and 6 on one event stream."""
    started: list[int] = []
    ended: set[int] = set()
    args: dict[int, str] = {}
    for e in events:
        if isinstance(e, ToolCallStart):
            assert e.index == len(started), f"call numbered {e.index}, expected {len(started)}"
            assert e.id and e.name, "first event of a call carries id and name"
            started.append(e.index)
        elif isinstance(e, ToolCallArgs):
            assert e.index in started and e.index not in ended, "arguments outside their call"
            args[e.index] = args.get(e.index, "") + e.text
        elif isinstance(e, ToolCallEnd):
            assert e.index in started and e.index not in ended
            ended.add(e.index)
    assert ended == set(started), "every call is closed at the end"
    for index in started:
        value = strict_json_loads(args.get(index, ""))
        assert isinstance(value, dict), f"arguments of call {index} are not an object: {args.get(index)!r}"


def summary(message: ParsedMessage) -> tuple[str, str, list[tuple[str, str]]]:
    """What must not depend on the split: content, reasoning, and each call's name and arguments text."""
    return message.content, message.reasoning, [(c.name, c.arguments) for c in message.tool_calls]


def prefixes_ok(events: list[Event]) -> bool:
    """Every intermediate join of a call's fragments is a prefix of its final arguments (trivially true for an
    append-only stream, but checked against the final text so a regression to re-sent fragments shows)."""
    finals: dict[int, str] = {}
    for e in events:
        if isinstance(e, ToolCallArgs):
            finals[e.index] = finals.get(e.index, "") + e.text
    running: dict[int, str] = {}
    for e in events:
        if isinstance(e, ToolCallArgs):
            running[e.index] = running.get(e.index, "") + e.text
            if not finals[e.index].startswith(running[e.index]):
                return False
    return True
