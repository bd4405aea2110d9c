"""Content that is only whitespace, in a message with tool calls, is no content.

Engines drop such content from a whole message (a thinking model writes ``</think>\\n\\n<tool_call>...`` on nearly
every tool turn, and the ``\\n\\n`` is not an answer). :class:`BlankContentHold` gives a stream the same result: while
the content streamed so far is whitespace only, it is held back; the first other character releases it, and at the end
of the stream it is dropped if the message has calls, released if not.
"""

from __future__ import annotations

from collections.abc import Sequence

from .events import Content, Event, ToolCallStart


class BlankContentHold:
    """Filters one stream's events (see the module docstring)."""

    __slots__ = ("_blank", "_calls", "_held")

    def __init__(self) -> None:
        self._held: list[str] = []
        self._blank = True  # the content so far is whitespace only
        self._calls = False

    def filter(self, events: Sequence[Event]) -> Sequence[Event]:
        """``events`` with blank content held back (or released, ahead of the first content that is not blank)."""
        if not self._blank:
            return events
        out: list[Event] = []
        for event in events:
            if type(event) is Content:
                if self._blank and not event.text.strip():
                    self._held.append(event.text)
                    continue
                if self._blank:
                    self._blank = False
                    if self._held:
                        event = Content("".join(self._held) + event.text)
                        self._held = []
            elif type(event) is ToolCallStart:
                self._calls = True
            out.append(event)
        return out

    def finish(self, events: Sequence[Event]) -> list[Event]:
        """The stream's last events (from the parser's ``finish``): what is still held is dropped when the message
        has calls, else it comes first."""
        out = list(self.filter(events))
        held = "".join(self._held)
        self._held = []
        if held and not self._calls:
            out.insert(0, Content(held))
        return out
