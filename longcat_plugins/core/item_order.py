"""Each call's events in one run: text met inside or after a call waits, and comes out at the start of a batch that
begins with no call open, ahead of the batch's calls.

The core reports text where it meets it, and a model sometimes writes text inside a call (a sentence between two
``<parameter=...>``). A Chat Completions stream can interleave it (each fragment names its call), but the Responses and
Messages streams are sequences of items: an item, once closed, cannot take more arguments; vLLM's Responses stream fails
on a call fragment without a name, and SGLang's Messages stream drops it. And an engine builds one message of a batch
of events, in which it puts the text before the calls (vLLM's Responses stream: reasoning, then content, then each
call's fragments; SGLang's streams send a step's text before its call fragments).

So :class:`CallItemOrder` passes call events on as they come, and text only where it can stand in front of every call
event of its batch with no call open: text met while a call is open, or after a call event of the same batch, is held,
in order, and goes out at the start of the first later batch that begins with no call open (or at the end of the
stream, after the last events). Joined, the content, the reasoning and each call's arguments are unchanged; flattened,
the batches never carry text while a call is open; no call event waits.

That leaves one batch in which text may have no place: the last, which an engine merges with what the parser's
``finish`` gives. When a call is open at its start, the call's last arguments and the text held or met after them
share one message, text first: a stream of items then closes the call's item at the text. Only a stream in which no
call is ever open between two batches has no such batch: with ``whole_calls``, each call's events are held from its
start to its end and go out together, and text goes out as met, ahead of a call it was written in (a call's arguments
then come at once, when the call ends, not as they are generated).
"""

from __future__ import annotations

from collections.abc import Sequence

from .events import Content, Event, Reasoning, ToolCallEnd, ToolCallStart


class CallItemOrder:
    """Filters one stream's events, batch by batch (see the module docstring)."""

    __slots__ = ("_call", "_held", "_open", "whole_calls")

    def __init__(self, whole_calls: bool = False) -> None:
        self.whole_calls = whole_calls
        self._open = False  # a call is open (between its start and its end, as passed on)
        self._held: list[Event] = []  # text that could not go out yet, in order
        self._call: list[Event] = []  # (whole calls) the events of the call being read

    def filter(self, events: Sequence[Event]) -> Sequence[Event]:
        """The batch ``events`` (of the parser's ``feed``), with text held back or let out (see the module
        docstring)."""
        if not (self._held or self._open) and not any(type(e) is ToolCallStart for e in events):
            return events  # no call in sight: the batch is text only
        if self.whole_calls:
            return self._whole(events)
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

    def _whole(self, events: Sequence[Event]) -> list[Event]:
        out: list[Event] = []
        call = self._call
        for event in events:
            kind = type(event)
            if kind is Content or kind is Reasoning:
                out.append(event)
                continue
            call.append(event)
            if kind is ToolCallStart:
                self._open = True
            elif kind is ToolCallEnd:
                self._open = False
                out += call
                call.clear()
        return out

    def finish(self, events: Sequence[Event]) -> list[Event]:
        """The last batch (of the parser's ``finish``, which ends every call): what is still held goes after it."""
        out = list(self.filter(events))
        out += self._call  # (only when a call was left open)
        out += self._held
        self._call, self._held = [], []
        return out
