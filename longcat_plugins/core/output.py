"""The events a parser gives out: consecutive text of one kind gathered into one event, and (with
``cut_calls_as_text``) a call's events held until the call is complete.

Consecutive text of one kind (content, reasoning, or one call's arguments) is kept as a list of parts joined once,
so that a delta full of ``<`` characters still costs time linear in its length.
"""

from __future__ import annotations

from .events import Content, Event, Reasoning, ToolCallArgs, ToolCallEnd, ToolCallStart

TextKind = type[Content] | type[Reasoning] | type[ToolCallArgs]


class EventOutput:
    """The events of one parser since it last gave them out."""

    __slots__ = ("_tail_index", "_tail_kind", "_tail_parts", "events", "hold_calls", "incomplete")

    def __init__(self, hold_calls: bool) -> None:
        self.events: list[Event] = []
        self._tail_kind: TextKind | None = None
        self._tail_index = -1
        self._tail_parts: list[str] = []
        #: a call's events are given out only once the call is complete (``cut_calls_as_text``)
        self.hold_calls = hold_calls
        #: the events of the call being read, held (None: no call is held)
        self.incomplete: list[Event] | None = None

    def text(self, kind: TextKind, index: int, text: str) -> None:
        """Text of ``kind`` (for arguments, of call ``index``; else -1), joined to the text before it if that is
        of the same kind."""
        if kind is self._tail_kind and index == self._tail_index:
            self._tail_parts.append(text)
            return
        if self._tail_kind is not None:
            self.flush()
        self._tail_kind = kind
        self._tail_index = index
        self._tail_parts = [text]

    def event(self, event: ToolCallStart | ToolCallEnd) -> None:
        self.flush()
        self.events.append(event)

    def flush(self) -> None:
        """Close the gathered text into its event."""
        kind = self._tail_kind
        if kind is None:
            return
        parts = self._tail_parts
        text = parts[0] if len(parts) == 1 else "".join(parts)
        if kind is Content:
            self.events.append(Content(text))
        elif kind is Reasoning:
            self.events.append(Reasoning(text))
        else:
            self.events.append(ToolCallArgs(self._tail_index, text))
        self._tail_kind = None
        self._tail_parts = []

    def withdraw_last_call(self) -> None:
        """Drop the events since the last call started (a call cut off that is returned as text).

        Its start is either among the events not given out yet, or it was given out already and is held in
        :attr:`incomplete` with what followed it. In the first case a call held in :attr:`incomplete` is an earlier
        one, whose end is among the events kept (it stays held until :meth:`take` reaches that end)."""
        self.flush()
        events = self.events
        for i in range(len(events) - 1, -1, -1):
            if type(events[i]) is ToolCallStart:
                del events[i:]
                return
        events.clear()
        self.incomplete = None

    def take(self) -> list[Event]:
        """The events to give out now."""
        if self._tail_kind is not None:
            self.flush()
        events = self.events
        if not events:
            return []
        self.events = []
        if self.hold_calls:
            return self._complete_calls(events)
        return events

    def _complete_calls(self, events: list[Event]) -> list[Event]:
        """``events`` without those of a call that is not complete yet (held until its end)."""
        out: list[Event] = []
        for event in events:
            incomplete = self.incomplete
            if incomplete is not None:
                incomplete.append(event)
                if type(event) is ToolCallEnd:
                    out.extend(incomplete)
                    self.incomplete = None
            elif type(event) is ToolCallStart:
                self.incomplete = [event]
            else:
                out.append(event)
        return out
