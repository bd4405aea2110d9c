"""The parser's output: a flat stream of small events (the whole contract between core and adapters)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class Content:
    """Text shown to the user."""

    text: str


@dataclass(slots=True)
class Reasoning:
    """Text of the model's reasoning (inside ``<think>`` / ``<longcat_think>``)."""

    text: str


@dataclass(slots=True)
class ToolCallStart:
    """A tool call begins; always precedes its first :class:`ToolCallArgs`."""

    index: int
    id: str
    name: str


@dataclass(slots=True)
class ToolCallArgs:
    """A fragment of a call's arguments. Fragments of one call join into one JSON object."""

    index: int
    text: str


@dataclass(slots=True)
class ToolCallEnd:
    """A tool call is complete; its joined arguments are valid JSON."""

    index: int


Event = Content | Reasoning | ToolCallStart | ToolCallArgs | ToolCallEnd
