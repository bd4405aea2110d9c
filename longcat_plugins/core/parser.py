"""The incremental parser: model text in, :mod:`events <longcat_plugins.core.events>` out.

One instance per request. ``feed(delta)`` may be called with text split anywhere (inside a tag, an escape, a
multi-call burst); ``finish()`` ends the stream. The result never depends on how the text was split: every decision
is taken on characters, and where the characters seen so far do not decide yet (a possible tag prefix, an unfinished
call header) the undecided text is held back. What is held back is bounded, so each ``feed`` costs time proportional
to its delta.

Modes::

    content --<think>--> reasoning --</think> or a call tag--> content
    content --<longcat_tool_call> / <tool_call>--> between calls --{ / <function= / NAME--> in a call --> between
    content --<function=--> in a call --> content

A call block is recorded verbatim until its call is announced; if it turns out not to be a call, the recording is
returned as content.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Iterable
from typing import Any, Final

from . import tags as T
from .events import Content, Event, Reasoning, ToolCallArgs, ToolCallEnd, ToolCallStart
from .host import CallReader
from .json_call import JsonCallReader
from .markup_call import KvCallReader, XmlCallReader
from .message import ParsedToolCall
from .options import ParserOptions
from .schema import ToolSchemas
from .stray import CALL_START, WHITESPACE, WhitespaceRun, stray_end, whitespace_end

logger = logging.getLogger("longcat_plugins")

_CONTENT: Final = 0
_REASONING: Final = 1
_BETWEEN: Final = 2
_CALL: Final = 3

_BETWEEN_TAGS: Final = (T.FUNCTION_OPEN, *T.WRAPPER_CLOSES, *T.WRAPPER_OPENS, *T.END_OF_SEQUENCE)
_BLOCK_OPENS: Final = (*T.WRAPPER_OPENS, T.FUNCTION_OPEN, *T.END_OF_SEQUENCE)
_NOT_A_NAME_START: Final = frozenset(" \t\r\n<>{}[]\"'")


def default_call_id(index: int) -> str:
    return f"call_{uuid.uuid4().hex[:24]}"


class _Call:
    __slots__ = ("fragments", "id", "index", "name")

    def __init__(self, index: int, call_id: str, name: str) -> None:
        self.index = index
        self.id = call_id
        self.name = name
        self.fragments: list[str] = []


class StreamParser:
    """Parses one model output, streamed or whole. See the module docstring."""

    def __init__(self, tools: Iterable[Any] | None = None, options: ParserOptions | None = None) -> None:
        opts = options or ParserOptions()
        self._schemas = ToolSchemas(tools)
        self._new_id: Callable[[int], str] = opts.id_factory or default_call_id
        think_tags = T.THINK_OPENS + T.THINK_CLOSES if opts.reasoning else ()
        self._content_tags: tuple[str, ...] = (*T.END_OF_SEQUENCE, *T.WRAPPER_OPENS, T.FUNCTION_OPEN, *think_tags)
        # Without tool parsing, call blocks are still read (so that markup inside their values is not taken for
        # reasoning tags) but shown verbatim, as content: the text a separate tool-call parser then receives.
        self._passthrough = not opts.tools
        self._reasoning_tags: tuple[str, ...] = T.THINK_CLOSES + T.WRAPPER_OPENS + T.END_OF_SEQUENCE + T.THINK_OPENS
        self._mode = _REASONING if opts.reasoning and opts.reasoning_open else _CONTENT
        self._buf = ""
        self._events: list[Event] = []
        self._tail_kind: type[Content] | type[Reasoning] | type[ToolCallArgs] | None = None
        self._tail_index = -1
        self._tail_parts: list[str] = []
        self._calls: list[_Call] = []
        self._wrapper: str | None = None
        self._wrapper_calls = 0
        self._reader: CallReader | None = None
        self._recording: list[str] | None = None
        self._reasoning_text = False  # reasoning text was shown since reasoning (last) opened
        self._after_block = False  # right after a call block: whitespace may be markup
        self._whitespace = WhitespaceRun()
        self._finished = False

    # -- public API ------------------------------------------------------------------------------------------

    def feed(self, delta: str) -> list[Event]:
        """Parse the next piece of model output; returns the events it completes."""
        if not delta or self._finished:
            return []
        if self._buf:
            self._run(self._buf + delta, final=False)
        elif self._reader is not None and not self._passthrough:
            fast = self._reader.feed_fast(delta)
            if fast is None:
                self._run(delta, final=False)
            else:  # the hot path of a long value: nothing else can be pending here
                index, text = fast
                self._calls[index].fragments.append(text)
                return [ToolCallArgs(index, text)]
        else:
            self._run(delta, final=False)
        return self._take()

    def finish(self) -> list[Event]:
        """End of output: release everything held back and close any open call with valid JSON arguments."""
        if self._finished:
            return []
        self._finished = True
        if self._buf:
            self._run(self._buf, final=True)
        if self._mode == _CALL and self._reader is not None:
            if self._reader.confirmed:
                self._reader.close()
            else:
                self._return_recording()
        elif self._mode == _BETWEEN and self._recording is not None:
            self._return_recording()
        self._reader = None
        return self._take()

    @property
    def calls(self) -> list[ParsedToolCall]:
        """Snapshot of the calls announced so far, with the arguments streamed so far (joins all fragments)."""
        return [ParsedToolCall(c.index, c.id, c.name, "".join(c.fragments)) for c in self._calls]

    @property
    def in_reasoning(self) -> bool:
        return self._mode == _REASONING

    # -- the host interface for call readers -----------------------------------------------------------------

    def start_call(self, name: str) -> int:
        if self._passthrough:
            self._recording = None
            self._wrapper_calls += 1
            return 0
        index = len(self._calls)
        call = _Call(index, self._new_id(index), name)
        self._calls.append(call)
        self._recording = None
        self._wrapper_calls += 1
        if self._schemas and name not in self._schemas:
            logger.warning("model called unknown tool %r (request tools: %s)", name, ", ".join(self._schemas.names))
        self._flush_text()
        self._events.append(ToolCallStart(index, call.id, name))
        return index

    def call_args(self, index: int, text: str) -> None:
        if text and not self._passthrough:
            self._calls[index].fragments.append(text)
            self._append_text(ToolCallArgs, index, text)

    def end_call(self, index: int) -> None:
        if self._passthrough:
            return
        self._flush_text()
        self._events.append(ToolCallEnd(index))

    def stray(self, text: str) -> None:
        if not self._passthrough:
            self._emit(Content, text)

    # -- the machine -----------------------------------------------------------------------------------------

    def _run(self, buf: str, final: bool) -> None:
        pos = 0
        n = len(buf)
        while pos < n:
            mode = self._mode
            reader = self._reader
            recording = self._recording
            if mode in (_CONTENT, _REASONING):
                new = self._text(buf, pos, final)
            elif mode == _CALL:
                new = self._call(buf, pos, final)
            else:
                new = self._between(buf, pos, final)
            if recording is not None and recording is self._recording and new > pos:
                recording.append(buf[pos:new])
            elif self._passthrough and new > pos and mode >= _BETWEEN:
                self._emit(Content, buf[pos:new])
            if new == pos and self._mode == mode and self._reader is reader:
                break
            pos = new
        if final and pos < n:  # nothing may stay undecided at the end: show it
            self._emit(Content if self._mode != _REASONING else Reasoning, buf[pos:])
            pos = n
        self._buf = buf[pos:]

    def _text(self, buf: str, pos: int, final: bool) -> int:
        kind = Reasoning if self._mode == _REASONING else Content
        if self._after_block:
            # whitespace after a call block is markup when another block, an end marker or the end follows
            end = self._whitespace.take(buf, pos)
            if end == len(buf):
                return end
            if buf[end] == "<":
                tag = T.match_tag(buf, end, _BLOCK_OPENS, final)
                if tag is T.NEED_MORE:
                    return end
                if tag is None:
                    self._end_after_block()
                else:
                    self._whitespace.drop()
            else:
                self._end_after_block()
            pos = end
        i = buf.find("<", pos)
        end = len(buf) if i < 0 else i
        if end > pos:
            text = buf[pos:end]
            self._emit(kind, text)
            if kind is Reasoning and not self._reasoning_text and text.strip(" \t\r\n"):
                self._reasoning_text = True  # (whitespace alone keeps a repeated opening tag markup)
        if i < 0:
            return end
        tags = self._reasoning_tags if kind is Reasoning else self._content_tags
        tag = T.match_tag(buf, i, tags, final)
        if tag is T.NEED_MORE:
            return i
        if tag in T.THINK_OPENS and kind is Reasoning and self._reasoning_text:
            tag = None  # inside reasoning, an opening tag after some text is text
        if tag is None:
            self._emit(kind, "<")
            self._reasoning_text = self._reasoning_text or kind is Reasoning
            return i + 1
        assert isinstance(tag, str)
        if tag in T.END_OF_SEQUENCE or (tag in T.THINK_OPENS and kind is Reasoning):
            return i + len(tag)  # (a template that opened reasoning and a model that opens it again)
        if kind is Reasoning:
            self._mode = _CONTENT
            return i if tag in T.WRAPPER_OPENS else i + len(tag)
        if tag in T.THINK_OPENS:
            self._mode = _REASONING
            self._reasoning_text = False
        elif tag in T.WRAPPER_OPENS:
            self._wrapper = tag
            self._wrapper_calls = 0
            self._recording = None if self._passthrough else [tag]
            if self._passthrough:
                self._emit(Content, tag)
            self._mode = _BETWEEN
        elif tag == T.FUNCTION_OPEN:
            self._wrapper = None
            self._recording = None if self._passthrough else []
            self._reader = XmlCallReader(self, self._schemas)
            self._mode = _CALL
            return i
        return i + len(tag)  # a stray </think> is markup too

    def _end_after_block(self) -> None:
        self._after_block = False
        self._emit(Content, self._whitespace.release())

    def _between(self, buf: str, pos: int, final: bool) -> int:
        c = buf[pos]
        if c in WHITESPACE:
            if not self._wrapper_calls:  # before the block's first call it is recorded with the block
                return whitespace_end(buf, pos)
            return self._whitespace.take(buf, pos)  # between calls: markup unless stray text follows
        if c in "<{":
            self._whitespace.drop()
        if c == "{":
            self._start_reader(JsonCallReader(self))
            return pos
        if c == "<":
            tag = T.match_tag(buf, pos, _BETWEEN_TAGS, final)
            if tag is T.NEED_MORE:
                return pos
            if tag == T.FUNCTION_OPEN:
                self._start_reader(XmlCallReader(self, self._schemas))
                return pos
            if tag in T.WRAPPER_OPENS and self._wrapper_calls:  # the previous block was never closed
                self._mode = _CONTENT
                return pos
            if isinstance(tag, str) and self._wrapper_calls:
                if tag in T.WRAPPER_CLOSES:  # either closing tag ends the block
                    self._wrapper = None
                    self._mode = _CONTENT
                    self._after_block = not self._passthrough
                return pos + len(tag)
        elif self._wrapper == T.LONGCAT_CALL_OPEN and not self._wrapper_calls and c not in _NOT_A_NAME_START:
            self._start_reader(KvCallReader(self, self._schemas))
            return pos
        if not self._wrapper_calls:  # the block holds no call: it was text
            self._return_recording()
            return pos
        end = stray_end(buf, pos, CALL_START)  # text between calls of one block
        self.stray(self._whitespace.release() + buf[pos:end])
        return end

    def _start_reader(self, reader: CallReader) -> None:
        """A call begins inside a block: it is recorded until it is announced (the block's first call is recorded
        together with the block's opening)."""
        if self._recording is None and not self._passthrough:
            self._recording = []
        self._reader = reader
        self._mode = _CALL

    def _call(self, buf: str, pos: int, final: bool) -> int:
        reader = self._reader
        assert reader is not None
        new = reader.feed(buf, pos, final)
        if reader.failed:
            if not reader.confirmed:
                if self._recording is not None:
                    self._recording.append(buf[pos:new])
                self._return_recording()
                self._reader = None
                return new
            reader.close()
        if reader.done or reader.failed:
            self._reader = None
            self._mode = _BETWEEN if self._wrapper is not None else _CONTENT
            self._after_block = self._wrapper is None and not self._passthrough
        return new

    def _return_recording(self) -> None:
        recording = self._recording or []
        self._recording = None
        self._reader = None
        if self._wrapper is not None and self._wrapper_calls:
            self._mode = _BETWEEN  # a failed call after a good one: the block goes on
        else:
            self._wrapper = None
            self._mode = _CONTENT
            self._after_block = False
        self._emit(Content, "".join(recording))

    # -- output ----------------------------------------------------------------------------------------------
    # Consecutive text of one kind (content, reasoning, or one call's arguments) is gathered into one event, in a
    # list of parts joined once, so that a delta full of '<' characters still costs time linear in its length.

    def _emit(self, kind: type[Content] | type[Reasoning], text: str) -> None:
        if text:
            self._append_text(kind, -1, text)

    def _append_text(self, kind: type[Content] | type[Reasoning] | type[ToolCallArgs], index: int, text: str) -> None:
        if kind is self._tail_kind and index == self._tail_index:
            self._tail_parts.append(text)
            return
        self._flush_text()
        self._tail_kind = kind
        self._tail_index = index
        self._tail_parts = [text]

    def _flush_text(self) -> None:
        kind = self._tail_kind
        if kind is None:
            return
        text = "".join(self._tail_parts)
        if kind is Content:
            self._events.append(Content(text))
        elif kind is Reasoning:
            self._events.append(Reasoning(text))
        else:
            self._events.append(ToolCallArgs(self._tail_index, text))
        self._tail_kind = None
        self._tail_parts = []

    def _take(self) -> list[Event]:
        self._flush_text()
        events = self._events
        self._events = []
        return events
