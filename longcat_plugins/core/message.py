"""Folding an event stream into a whole message (the non-streaming result)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from .events import Content, Event, Reasoning, ToolCallArgs, ToolCallStart


@dataclass(slots=True)
class ParsedToolCall:
    index: int
    id: str
    name: str
    arguments: str


@dataclass(slots=True)
class ParsedMessage:
    content: str = ""
    reasoning: str = ""
    tool_calls: list[ParsedToolCall] = field(default_factory=list)


class MessageBuilder:
    """Accumulates events; :attr:`message` is the message they add up to."""

    def __init__(self) -> None:
        self._content: list[str] = []
        self._reasoning: list[str] = []
        self._calls: list[tuple[ToolCallStart, list[str]]] = []

    def add(self, events: Iterable[Event]) -> None:
        for event in events:
            if isinstance(event, Content):
                self._content.append(event.text)
            elif isinstance(event, Reasoning):
                self._reasoning.append(event.text)
            elif isinstance(event, ToolCallStart):
                self._calls.append((event, []))
            elif isinstance(event, ToolCallArgs):
                self._calls[event.index][1].append(event.text)

    @property
    def message(self) -> ParsedMessage:
        return ParsedMessage(
            content="".join(self._content),
            reasoning="".join(self._reasoning),
            tool_calls=[
                ParsedToolCall(start.index, start.id, start.name, "".join(parts)) for start, parts in self._calls
            ],
        )
