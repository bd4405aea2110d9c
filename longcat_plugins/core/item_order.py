"""Each call's events in one run: text met inside a call comes out after it, and text never shares a batch with the
call events before it.

The core reports text where it meets it, and a model sometimes writes text inside a call (a sentence between two
``<parameter=...>``). A Chat Completions stream can interleave it (each fragment names its call), but the Responses and
Messages streams are sequences of items: an item, once closed, cannot take more arguments; vLLM's Responses stream fails
on a call fragment without a name, and SGLang's opens a second call item without one. And an engine builds one message
of a batch of events, in which it puts the text before the calls (vLLM's Responses stream: reasoning, then content,
then each call's fragments).

So :class:`CallItemOrder` passes a batch's events on in order, except that

- text met inside a call is set aside, and goes right after the call's end;
- text can go out only at the start of a batch that begins with no call open, before the batch's first call event:
  when text comes after a call event of the batch (or a call with text set aside ends), the events from there on wait,
  in order, for the next batch, whose start they make.

Joined, the content, the reasoning and each call's arguments are unchanged; flattened, the batches never carry text
while a call is open. A call's events wait only behind text that has to go first.

That leaves one batch in which text cannot be placed: the last, which an engine merges with what the parser's
``finish`` gives. When a call is open at its start, the call's last arguments and any text after them (text the model
wrote inside that call, or after it) share one message, text first: a stream of items then closes the call's item at
the text. Only a stream in which no call is ever open between two batches has no such batch: with ``whole_calls``,
each call's events are held from its start to its end and go out together, and text goes out as met, ahead of a call
it was written in (the call's arguments then come at once, not as they are generated).
"""

from __future__ import annotations

from collections.abc import Sequence

from .events import Content, Event, Reasoning, ToolCallEnd, ToolCallStart


class CallItemOrder:
    """Filters one stream's events, batch by batch (see the module docstring)."""

    __slots__ = ("_aside", "_call", "_open", "_waiting", "whole_calls")

    def __init__(self, whole_calls: bool = False) -> None:
        self.whole_calls = whole_calls
        self._open = False  # a call is open (between its start and its end, as passed on)
        self._aside: list[Event] = []  # text met inside the open call, for right after its end
        self._waiting: list[Event] = []  # events for the start of the next batch (text first), in order
        self._call: list[Event] = []  # (whole calls) the events of the call being read

    def filter(self, events: Sequence[Event]) -> Sequence[Event]:
        """The batch ``events`` (of the parser's ``feed``), reordered as the module docstring says."""
        if not (self._waiting or self._open) and not any(type(e) is ToolCallStart for e in events):
            return events  # no call in sight: the batch is text only
        if self.whole_calls:
            return self._whole(events)
        pending = [*self._waiting, *events] if self._waiting else events
        self._waiting = []
        out: list[Event] = []
        text_goes = not self._open  # text may go out until the batch's first call event
        for at, event in enumerate(pending):
            kind = type(event)
            if kind is Content or kind is Reasoning:
                if self._open:
                    self._aside.append(event)
                elif text_goes:
                    out.append(event)
                else:
                    self._waiting = list(pending[at:])
                    break
                continue
            text_goes = False
            out.append(event)
            if kind is ToolCallStart:
                self._open = True
            elif kind is ToolCallEnd:
                self._open = False
                if self._aside:
                    self._waiting = [*self._aside, *pending[at + 1 :]]
                    self._aside = []
                    break
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
        """The last batch (of the parser's ``finish``, which ends every call): all that waits goes out, in the order
        the batches would have given it."""
        out = list(self.filter(events))
        while self._waiting:  # (it starts with text, which goes out: each round passes something on)
            out += self.filter(())
        out += self._call  # (only when a call was left open)
        out += self._aside
        self._call, self._aside = [], []
        return out
