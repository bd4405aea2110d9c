"""Each call's events in one run: text met inside an open call comes after the call, in a later message.

The core reports text where it meets it, and a model sometimes writes text inside a call (a sentence between two
``<parameter=...>``). A Chat Completions stream can interleave it (each fragment names its call), but the Responses and
Messages streams are sequences of items: an item, once closed, cannot take more arguments; vLLM's Responses stream fails
on a call fragment without a name, and SGLang's opens a second call item without one. Within one delta message, vLLM
also takes content to come before tool calls. So :class:`CallItemOrder` holds such text back until the call has ended,
and lets it out with the next batch of events; the joined content and arguments are unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence

from .events import Content, Event, Reasoning, ToolCallEnd, ToolCallStart


class CallItemOrder:
    """Filters one stream's events, batch by batch (see the module docstring)."""

    __slots__ = ("_held", "_open", "_released")

    def __init__(self) -> None:
        self._open = False
        self._held: list[Event] = []  # text met inside the open call
        self._released: list[Event] = []  # text of a call that ended, for the next batch

    def filter(self, events: Sequence[Event]) -> Sequence[Event]:
        if not self._released and (not events or not (self._open or any(type(e) is ToolCallStart for e in events))):
            return events
        out: list[Event] = self._released
        self._released = []
        for event in events:
            kind = type(event)
            if kind is ToolCallStart:
                self._open = True
            elif kind is ToolCallEnd:
                self._open = False
                self._released = self._held
                self._held = []
            elif self._open and (kind is Content or kind is Reasoning):
                self._held.append(event)
                continue
            elif self._released and (kind is Content or kind is Reasoning):
                self._released.append(event)  # (keeps the text in order)
                continue
            out.append(event)
        return out

    def finish(self, events: Sequence[Event]) -> list[Event]:
        """The last batch: everything still held comes first (the calls it belongs to have ended)."""
        held = self._released + self._held
        self._released, self._held = [], []
        return held + list(self.filter(events)) + self._released
