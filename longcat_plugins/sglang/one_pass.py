"""One request's output read in one pass by both of our SGLang parsers.

SGLang's Chat Completions serving (``OpenAIServingChat``, which the Anthropic Messages API also goes through) and its
Responses serving (``OpenAIServingResponses``, built on it) run two stages on each piece of output, one after the other:
the reasoning parser (built without the request's tools), then, on the text it leaves, the tool-call parser. Read so, an
output can come out otherwise than the core reads it in one pass (a think tag inside the value of a call whose name only
the request's tools resolve; an end-of-sequence marker that ends an unclosed call). So when our tool-call parser follows
our reasoning parser, they share one reading:

- SGLang tells the reasoning parser that a tool-call parser consumes its text (``tool_call_parser_active``) and, through
  :func:`longcat_plugins.sglang.request_context.note_request`, which tools that parser is handed (noted by the chat
  serving's per-request hook, or by the Responses serving as it converts the request's tools). The reasoning parser
  then reads the output with those tools (:class:`OnePassReading`): it answers with the reading's reasoning, and its
  normal text is the reading's content (or, where that is empty and calls wait, the text it was handed: SGLang's
  Responses serving runs the tool stage only on normal text); the rest of the reading (content and calls) waits for
  the tool stage.
- The tool-call parser, handed the same tools, claims that reading (:func:`claim`) and answers from it, not from the
  text it is handed.

SGLang runs the two stages of a choice back to back: the reasoning stage of each step (or of the whole output) right
before the tool stage, with the reading handed over in between (:meth:`OnePassReading.hand_over`). The tool stage is
handed the tools in every streaming call and in the whole-output parse; only ``has_tool_call(text)`` is not, and that
runs, without a pause, on the thread the whole output was read on: it looks at the reading handed over last there
(:func:`handed_over_here`).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from longcat_plugins.core import Event, ParsedMessage, ParserOptions, Reasoning, StreamParser, parse
from longcat_plugins.core.dialects import require_extra_dialects
from longcat_plugins.core.options import emit_unknown_calls_from_env

from .request_context import tools_of_a_request_a_stop_may_cut

_Key = tuple[int, ...]

_awaiting: weakref.WeakValueDictionary[_Key, OnePassReading] = weakref.WeakValueDictionary()
_lock = threading.Lock()
_here = threading.local()


def call_options(tools: Sequence[Any], options: ParserOptions) -> ParserOptions:
    """``options`` for the request whose ``tools`` these are (a stop of the request may cut its output inside a
    call, see :attr:`ParserOptions.cut_calls_as_text` and :func:`.request_context.may_be_cut_by_a_stop`)."""
    if tools_of_a_request_a_stop_may_cut(tools):
        return replace(options, cut_calls_as_text=True)
    return options


def _key(tools: Sequence[Any]) -> _Key:
    return tuple(id(tool) for tool in tools)


class OnePassReading:
    """A request's output read once, reasoning and calls together; the reasoning stage feeds it, the tool stage
    takes what is not reasoning."""

    def __init__(self, tools: Sequence[Any], reasoning_open: bool) -> None:
        self.tools = tuple(tools)
        require_extra_dialects()
        options = ParserOptions(reasoning_open=reasoning_open, emit_unknown_calls=emit_unknown_calls_from_env())
        self.options = call_options(self.tools, options)
        self.parser = StreamParser(self.tools, self.options)
        self.message: ParsedMessage | None = None  # the whole output's reading (non-streaming)
        self.content_given = ""  # the normal text the reasoning stage answered with (non-streaming)
        self.claimed = False
        self._for_tool_stage: list[Event] = []

    # -- the reasoning stage ---------------------------------------------------------------------------------

    def pass_on(self, events: Sequence[Event]) -> None:
        """Keep what is not reasoning for the tool stage."""
        self._for_tool_stage.extend([e for e in events if type(e) is not Reasoning])

    def read_whole(self, text: str) -> ParsedMessage:
        self.message = parse(text, self.tools, self.options)
        return self.message

    def hand_over(self, content_given: str = "") -> None:
        """Wait for the tool stage of this choice (until it claims the reading)."""
        if self.claimed:
            return
        self.content_given = content_given
        with _lock:
            _awaiting[_key(self.tools)] = self
        _here.reading = weakref.ref(self)

    # -- the tool stage --------------------------------------------------------------------------------------

    def holds_events(self) -> bool:
        """Whether the reading holds anything for the tool stage."""
        return bool(self._for_tool_stage)

    def take(self) -> list[Event]:
        """What the reading holds for the tool stage since it last took."""
        events, self._for_tool_stage = self._for_tool_stage, []
        return events


def claim(tools: Sequence[Any]) -> OnePassReading | None:
    """The reading handed over for the request whose ``tools`` these are, if any (it is then this tool stage's)."""
    key = _key(tools)
    with _lock:
        reading = _awaiting.pop(key, None)
    if reading is None or len(reading.tools) != len(tools):
        return None
    if any(a is not b for a, b in zip(reading.tools, tools, strict=True)):
        return None
    reading.claimed = True
    return reading


def handed_over_here(text: str) -> OnePassReading | None:
    """The whole-output reading handed over last on this thread, unclaimed, whose normal text was ``text``."""
    ref: weakref.ref[OnePassReading] | None = getattr(_here, "reading", None)
    reading = ref() if ref is not None else None
    if reading is None or reading.claimed or reading.message is None or reading.content_given != text:
        return None
    return reading
