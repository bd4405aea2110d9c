"""Each call's events in one run: text met inside or after a call comes out in a later batch, ahead of its calls.

The core reports text where it meets it, and a model sometimes writes text inside a call (a sentence between two
``<parameter=...>``). A Chat Completions stream can interleave it (each fragment names its call), but the Responses and
Messages streams are sequences of items: an item, once closed, cannot take more arguments; vLLM's Responses stream fails
on a call fragment without a name, and SGLang's opens a second call item without one. And an engine builds one message
of a batch of events, in which it takes the text to come before the calls.

So :class:`CallItemOrder` hands text on only where it can stand in front of every call event of its batch, with no call
open: text met while a call is open, or after a call event of the same batch, is held, in order, and goes out at the
start of the first later batch that begins with no call open (or at the end of the stream, after the last events).
Joined, the content, the reasoning and each call's arguments are unchanged; flattened, the batches never carry text
while a call is open, and in each batch, text comes before the calls.
"""

from __future__ import annotations

from collections.abc import Sequence

from .events import Content, Event, Reasoning, ToolCallEnd, ToolCallStart


class CallItemOrder:
    """Filters one stream's events, batch by batch (see the module docstring)."""

    __slots__ = ("_held", "_open")

    def __init__(self) -> None:
        self._open = False  # a call is open (between its start and its end)
        self._held: list[Event] = []  # text that could not go out yet, in order

    def filter(self, events: Sequence[Event]) -> Sequence[Event]:
        """The batch ``events`` (of the parser's ``feed``), with text held back or let out (see the module
        docstring)."""
        if not (self._held or self._open) and not any(type(e) is ToolCallStart for e in events):
            return events  # no call in sight: the batch is text only
        text_goes = not self._open  # text may go out until the batch's first call event
        out: list[Event] = []
        if text_goes and self._held:
            out, self._held = self._held, []
        held = self._held
        for event in events:
            kind = type(event)
            if kind is Content or kind is Reasoning:
                (out if text_goes else held).append(event)
                continue
            text_goes = False
            if kind is ToolCallStart:
                self._open = True
            elif kind is ToolCallEnd:
                self._open = False
            out.append(event)
        return out

    def finish(self, events: Sequence[Event]) -> list[Event]:
        """The last batch (of the parser's ``finish``, which ends every call): what is still held goes after it."""
        out = list(self.filter(events))
        out += self._held
        self._held = []
        return out
