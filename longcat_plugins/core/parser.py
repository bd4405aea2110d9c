"""The incremental parser: model text in, :mod:`events <longcat_plugins.core.events>` out.

One instance per request. ``feed(delta)`` may be called with text split anywhere (inside a tag, an escape, a
multi-call burst); ``finish()`` ends the stream. The result never depends on how the text was split: every decision
is taken on characters, and where the characters seen so far do not decide yet (a possible tag prefix, an unfinished
call header) the undecided text stays unread in the :class:`~longcat_plugins.core.cursor.Cursor`, read again with the
next delta and decided at the latest by ``finish()`` (``docs/design.md`` lists what else is held back). What is held
back is bounded, so each ``feed`` costs time proportional to its delta.

The parser is in one :class:`~longcat_plugins.core.machine.Mode` at a time, held with the registers its moves depend
on by a :class:`~longcat_plugins.core.machine.Machine`. Each mode has a scanner that reads text until it meets a
:class:`~longcat_plugins.core.machine.Trigger` and returns what it met (:class:`Met`); the machine takes the move
:data:`~longcat_plugins.core.machine.TRANSITIONS` gives and the parser performs its action with what was met
(``docs/design.md`` shows the table). A call block is held back verbatim until its first call is announced; if it
turns out not to be a call, the held text goes back, as text, to the mode the block was opened from.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from typing import Any, Final, NamedTuple

from . import dialects as D
from . import tags as T
from .calls import CallLog
from .cursor import Cursor
from .events import Content, Event, Reasoning, ToolCallArgs, ToolCallEnd, ToolCallStart
from .held_block import HeldBlock
from .machine import BLOCK_MODES, CALL_MODES, Action, Machine, Mode, Trigger
from .message import ParsedToolCall
from .open_block import OpenBlock
from .options import ParserOptions
from .output import EventOutput
from .problems import ProblemLog
from .readers import (
    CallReader,
    CallSink,
    JsonCallReader,
    KvCallReader,
    QuotedCallReader,
    Report,
    SepCallReader,
    XmlCallReader,
    parameters_follow_name,
)
from .schema import ToolSchemas
from .tag_starts import ONLY_LT, TAG_STARTS, find_tag_start
from .tool_names import CallNames
from .tool_tags import ToolTags
from .unknown_start import UnknownStart
from .untagged_names import UNTAGGED_GAP, WORD_CHARS, UntaggedNames
from .whitespace import CALL_START, WHITESPACE, WhitespaceRun, text_end, whitespace_end

#: Tags met where text is shown (or right after a block), and what they trigger.
_TAG_TRIGGERS: Final = {
    **dict.fromkeys(D.BLOCK_CLOSES, Trigger.BLOCK_CLOSE),
    **dict.fromkeys(D.THINK_OPENS, Trigger.THINK_OPEN),
    **dict.fromkeys(D.THINK_CLOSES, Trigger.THINK_CLOSE),
    **dict.fromkeys(D.END_OF_SEQUENCE, Trigger.END_MARKER),
    **dict.fromkeys(D.BLOCK_OPENS, Trigger.BLOCK_OPEN),
    **dict.fromkeys(D.CALL_OPENS, Trigger.CALL_WITHOUT_BLOCK),
}
_CONTENT_TAGS: Final = T.TagSet(*D.END_OF_SEQUENCE, *D.BLOCK_OPENS, *D.CALL_OPENS, *D.THINK_OPENS, *D.THINK_CLOSES)
_CONTENT_TAGS_NO_REASONING: Final = T.TagSet(*D.END_OF_SEQUENCE, *D.BLOCK_OPENS, *D.CALL_OPENS)
#: with declared tools, a declared name right before a pair's opening tag (``NAME<longcat_arg_key>``) is a call that
#: lacks its block, and right before the opening tag of a key/value block the name of the block's call
_PAIR_KEYS: Final = frozenset(D.PAIR_KEY_OPENS)
_PAIR_BLOCKS: Final = frozenset(D.PAIR_BLOCK_OPENS)
_CONTENT_KEY_TAGS: Final = T.TagSet(*_CONTENT_TAGS.tags, *_PAIR_KEYS)
_CONTENT_KEY_TAGS_NO_REASONING: Final = T.TagSet(*_CONTENT_TAGS_NO_REASONING.tags, *_PAIR_KEYS)
_REASONING_TAGS: Final = T.TagSet(*D.THINK_CLOSES, *D.BLOCK_OPENS, *D.END_OF_SEQUENCE, *D.THINK_OPENS)
_BLOCK_TAGS: Final = T.TagSet(*D.CALL_OPENS, *_PAIR_KEYS, *D.BLOCK_CLOSES, *D.BLOCK_OPENS, *D.END_OF_SEQUENCE)
#: after a call block, what makes the whitespace before it markup
_NEXT_BLOCKS: Final = (*D.BLOCK_OPENS, *D.CALL_OPENS)
_AFTER_BLOCK_MARKUP: Final = (*_NEXT_BLOCKS, *D.BLOCK_CLOSES, *D.END_OF_SEQUENCE)
_AFTER_BLOCK_TAGS: Final = T.TagSet(*_AFTER_BLOCK_MARKUP, *D.THINK_OPENS, *D.THINK_CLOSES)
_AFTER_BLOCK_TAGS_NO_REASONING: Final = T.TagSet(*_AFTER_BLOCK_MARKUP)
#: after a block, what the output may end in, cut off, that is markup
_CUT_CLOSERS: Final = T.TagSet(*D.BLOCK_CLOSES, *D.END_OF_SEQUENCE)
_NOT_A_NAME_START: Final = frozenset(" \t\r\n<>{}[]\"'")
_CALL_LIST_MARKUP: Final = ("[", ",]")  # (before the first call, after one)
#: the blocks of a call object, or an array of them, written with no tag at the start of the output (what the block
#: is read as: its ``OpenBlock.wrapper``)
_BARE_OBJECT: Final = "{"
_BARE_LIST: Final = "["
_BARE_BLOCKS: Final = (_BARE_OBJECT, _BARE_LIST)
_JSON_LIST_WRAPPERS: Final = (*D.LIST_BLOCK_OPENS, _BARE_LIST)
#: the blocks with no closing tag, and those whose call is a name, a separator and a JSON object with no tags of its
#: own, by their opening tags
_UNCLOSED_BLOCKS: Final = frozenset(D.UNCLOSED_BLOCKS)
_NAMED_BLOCKS: Final = frozenset(D.NAMED_BLOCKS)


class Met(NamedTuple):
    """What a scanner met: the trigger, and the data the move's action takes."""

    trigger: Trigger
    #: the tag that triggered the move (what DROP_TAG, OPEN_BLOCK and CLOSE_BLOCK consume)
    tag: str = ""
    #: the reader of the call that begins (CALL_BEGINS)
    reader: CallReader | None = None
    #: a declared tool's name written before the call's markup, and that name as written with the whitespace after it
    #: (NAMED_CALL, and BLOCK_OPEN when the name comes before the block)
    name: str = ""
    name_markup: str = ""
    #: the closing tag of a call written as ``<NAME>{json}</NAME>`` (NAMED_CALL)
    closer: str = ""


#: the triggers that carry no data
_MET: Final = {trigger: Met(trigger) for trigger in Trigger}
#: (the '{' of a bare call object is read by its call reader; the '[' of an array of them is the block's markup)
_MET_BARE: Final = {
    _BARE_OBJECT: Met(Trigger.UNTAGGED_BLOCK_OPEN, ""),
    _BARE_LIST: Met(Trigger.UNTAGGED_BLOCK_OPEN, _BARE_LIST),
}
_MET_TAG: Final = {tag: Met(trigger, tag) for tag, trigger in _TAG_TRIGGERS.items()}
#: inside a block, after a call: either closing tag ends the block; an opening tag means the block was never closed
#: (the tag is read again, from content)
_MET_IN_BLOCK: Final = {**_MET_TAG, **dict.fromkeys(D.BLOCK_OPENS, Met(Trigger.BLOCK_REOPEN))}
#: what a scanner returns: how far it read, and what it met there (None: nothing; it read on or waits for text)
_Step = tuple[int, Met | None]

#: (module names for the members: a global is cheaper than an Enum attribute on Python 3.11)
_ARGS: Final = Report.ARGS
_CONTENT: Final = Report.CONTENT
_START: Final = Report.START
#: the modes whose scanner shows text as it reads it (see ``StreamParser._feed_text_fast``)
_TEXT_MODES: Final = frozenset((Mode.CONTENT, Mode.REASONING))


def default_call_id(index: int) -> str:
    return f"call_{uuid.uuid4().hex[:24]}"


class StreamParser:
    """Parses one model output, streamed or whole. See the module docstring."""

    def __init__(self, tools: Iterable[Any] | None = None, options: ParserOptions | None = None) -> None:
        opts = options or ParserOptions()
        self._schemas = ToolSchemas(tools)
        self._new_id: Callable[[int], str] = opts.id_factory or default_call_id
        # names written without their opening tag are looked for only where they can be decided: with declared
        # tools, in content, when calls are read
        self._untagged_names = UntaggedNames(self._schemas.names) if self._schemas and opts.tools else None
        self._tool_tags = ToolTags(self._schemas.names) if self._untagged_names is not None else None
        # the content shown so far ends in a word character, where no name can start (the content, not the text:
        # markup between is no boundary, so that the answer does not depend on how the text was split)
        self._word_tail = False
        # nothing but whitespace was shown as content and no call was read: a bare JSON call may start here
        self._at_output_start = self._untagged_names is not None
        self._reread: str | None = None  # held text to read again (a block with no tag that held no call)
        self._content_tags = _CONTENT_TAGS if opts.reasoning else _CONTENT_TAGS_NO_REASONING
        self._content_tags_with_keys = _CONTENT_KEY_TAGS if opts.reasoning else _CONTENT_KEY_TAGS_NO_REASONING
        self._after_block_tags = _AFTER_BLOCK_TAGS if opts.reasoning else _AFTER_BLOCK_TAGS_NO_REASONING
        # Without tool parsing, call blocks are still read (so that markup inside their values is not taken for
        # reasoning tags, and so that a block inside reasoning is known to be a call) but shown verbatim, as content:
        # the text a separate tool-call parser then receives.
        self._passthrough = not opts.tools
        # what the output does wrong, logged once per kind when it ends (a stage that passes calls through logs none)
        self._problems = ProblemLog(silent=self._passthrough or not opts.log_problems)
        names = CallNames(self._schemas, opts.emit_unknown_calls, self._passthrough, self._problems)
        self._sink = CallSink(names.resolve, self._problems)
        self._scanners: dict[Mode, Callable[[Cursor, int], _Step]] = {
            Mode.CONTENT: self._scan_text,
            Mode.REASONING: self._scan_text,
            Mode.BLOCK: self._scan_block,
            Mode.CALL: self._scan_call,
            Mode.BARE_CALL: self._scan_call,
            Mode.AFTER_BLOCK: self._scan_after_block,
        }
        self._actions: dict[Action, Callable[[Met], int]] = {
            Action.NONE: _no_action,
            Action.DROP_TAG: self._drop_tag,
            Action.OPEN_REASONING: self._open_reasoning,
            Action.OPEN_BLOCK: self._open_block,
            Action.OPEN_BARE_CALL: self._open_bare_call,
            Action.OPEN_NAMED_CALL: self._open_named_call,
            Action.START_READER: self._start_reader,
            Action.HOLD_UNKNOWN_CALL: self._hold_unknown_call,
            Action.CLOSE_BLOCK: self._close_block,
            Action.RETURN_HELD_BLOCK: self._return_held_block,
            Action.REREAD_HELD_BLOCK: self._reread_held_block,
            Action.CLOSE_CALL: self._close_call,
            Action.RETURN_CUT_CALL: self._return_cut_call,
            Action.RELEASE_WHITESPACE: self._release_whitespace,
            Action.DROP_WHITESPACE: self._drop_whitespace,
        }
        # the start of the output, held until it says whether the output starts inside reasoning
        self._unknown_start = UnknownStart() if opts.reasoning and opts.reasoning_start_unknown else None
        opened = opts.reasoning and opts.reasoning_open and self._unknown_start is None
        self._machine = Machine(Mode.REASONING if opened else Mode.CONTENT)
        self._cursor = Cursor()  # the text held back (it does not decide yet), and whether the input has ended
        self._log = CallLog()
        self._call_index = -1  # the call the reader reads (the last one announced)
        self._block = OpenBlock()
        self._reader: CallReader | None = None
        self._held = HeldBlock()  # the block's text while it is not known to be a call
        # a key/value call with no opening tag (``NAME<longcat_arg_key>``) was read, and nothing but whitespace since:
        # a ``<longcat_tool_call>`` here may be the call's closing tag, written as an opening one
        self._after_untagged_pairs = False
        self._reasoning_text = False  # reasoning text was shown since reasoning (last) opened
        self._after_block = WhitespaceRun()  # after a block
        self._finished = False
        self._cut_calls_as_text = opts.cut_calls_as_text and not self._passthrough
        self._out = EventOutput(hold_calls=self._cut_calls_as_text)
        # whether ``feed`` takes the fast paths that skip the machine's loop where a delta decides itself, in text and
        # (with tool parsing) in a call's value: they give exactly the events of the loop (the tests compare both)
        self._fast_paths = True
        self._fast_reader = not self._passthrough

    # -- public API ------------------------------------------------------------------------------------------

    def feed(self, delta: str) -> list[Event]:
        """Parse the next piece of model output; returns the events it completes."""
        if not delta or self._finished:
            return []
        if self._unknown_start is not None:
            starts_in_reasoning = self._unknown_start.feed(delta)
            if starts_in_reasoning is None:
                return []
            delta = self._start_output(starts_in_reasoning)
        cur = self._cursor
        if cur.text:
            cur.text += delta  # (between feeds the cursor holds only the unread text)
            self._run()
            return self._out.take()
        reader = self._reader
        if reader is None:
            no_tag = ("<" not in delta) if ONLY_LT else find_tag_start(delta, 0) < 0
            if no_tag and self._fast_paths and self._machine.mode in _TEXT_MODES:
                fast = self._feed_text_fast(delta)  # (nothing in the delta can change the mode)
                if fast is not None:
                    return fast
        elif self._fast_reader:
            text = reader.feed_fast(delta)
            if text is None and delta[-1] == "\n":  # a line of a value: its line break waits for what follows
                text = reader.feed_fast_line(delta)
                if text is not None:
                    cur.text = "\n"
                    delta = delta[:-1]
            if text is not None:  # the hot path of a long value: nothing else can be pending here
                index = self._call_index
                self._log.fragments[index].append(text)
                incomplete = self._out.incomplete
                if incomplete is not None:
                    self._held.append(delta)
                    incomplete.append(ToolCallArgs(index, text))
                    return []
                return [ToolCallArgs(index, text)]
        cur.text = delta
        self._run()
        return self._out.take()

    def _feed_text_fast(self, delta: str) -> list[Event] | None:
        """A delta with no tag start ('<') in content or reasoning, with nothing held back: what :meth:`_scan_text` (or
        :meth:`_scan_content_for_names`) does with it, without the machine's loop. None: the slow path decides."""
        if self._out.incomplete is not None:
            return None
        if self._machine.mode is Mode.REASONING:
            self._after_untagged_pairs = False
            if not self._reasoning_text and delta.strip(" \t\r\n"):
                self._reasoning_text = True
            return [Reasoning(delta)]
        names = self._untagged_names
        if names is None:
            self._after_untagged_pairs = False
            self._word_tail = delta[-1] in WORD_CHARS
            return [Content(delta)]
        if self._at_output_start:
            return None
        # (as the loop reads it: the text that may still become a name is held back, read again with what follows)
        n = len(delta)
        pos = 0
        word_tail = self._word_tail
        while pos < n:
            stop = names.hold_from(delta, pos, n, word_tail)
            if stop == pos:
                break
            word_tail = delta[stop - 1] in WORD_CHARS
            pos = stop
        if pos < n:
            self._cursor.text = delta[pos:]
            if not pos:
                return []
        self._after_untagged_pairs = False
        self._word_tail = word_tail
        return [Content(delta[:pos] if pos < n else delta)]

    def finish(self) -> list[Event]:
        """End of output: release everything held back and close any open call with valid JSON arguments."""
        if self._finished:
            return []
        events = self.feed(self._start_output(False)) if self._unknown_start is not None else []
        self._finished = True
        self._cursor.end()
        if self._cursor.text:
            self._run()
        self._move(_MET[self._end_of_input_trigger()])
        if self._reread is not None:  # (once: the text is read as content, and ends in content)
            self._cursor.text = self._reread
            self._reread = None
            self._run()
            self._move(_MET[self._end_of_input_trigger()])
        if self._passthrough:  # whitespace after a block, before reasoning that never closed: for the tool stage
            self._emit(Content, self._after_block.release())
        self._problems.flush()
        return events + self._out.take()

    def _start_output(self, in_reasoning: bool) -> str:
        """The text held while the start was unknown, to read now that it is known (nothing was read before it)."""
        assert self._unknown_start is not None
        held, self._unknown_start = self._unknown_start.held(), None
        if in_reasoning:
            self._machine = Machine(Mode.REASONING)
        return held

    @property
    def calls(self) -> list[ParsedToolCall]:
        """Snapshot of the calls announced so far, with the arguments streamed so far."""
        log = self._log
        return [ParsedToolCall(i, log.ids[i], log.names[i], log.arguments(i)) for i in range(len(log))]

    @property
    def holding(self) -> bool:
        """Whether text read so far is undecided: held back (a possible tag), or held with a block that may
        still turn out not to be a call."""
        return bool(self._cursor.text) or self._held.parts is not None or self._unknown_start is not None

    @property
    def in_reasoning(self) -> bool:
        """Whether the text read so far leaves the output inside reasoning (also while a block opened inside
        reasoning is not known yet to be a call)."""
        return self._machine.in_reasoning

    # -- what call readers report ----------------------------------------------------------------------------

    def _take_reports(self) -> None:
        """Act on what the call reader reported (``readers/sink.py``), in order."""
        passthrough = self._passthrough
        for report, text in zip(*self._sink.take_lists(), strict=True):
            if report is _ARGS:
                if not passthrough:
                    index = self._call_index
                    self._log.fragments[index].append(text)
                    self._out.text(ToolCallArgs, index, text)
            elif report is _CONTENT:
                self._content_in_block(text)
            elif report is _START:
                self._start_call(text)
            elif not passthrough:  # Report.END
                self._out.event(ToolCallEnd(self._call_index))
                if self._cut_calls_as_text:
                    self._held.release()  # (kept while the call was read, in case it was cut)

    def _start_call(self, name: str) -> None:
        """A call reader announced a call of the tool ``name``."""
        self._machine.announce()
        self._at_output_start = False
        block = self._block
        if self._passthrough:
            block.name_markup = ""  # (shown with the held block)
            return
        if block.name_markup:  # the block named its call itself: the name before it was text
            self._emit(Content, block.name_markup)
            self._held.shown(block.name_markup)  # (a call withdrawn later returns the held text without it)
            block.name_markup = ""
        call_id = self._sink.call_id or self._new_id(len(self._log))
        self._sink.call_id = None
        index = self._log.start(call_id, name)
        self._call_index = index
        self._out.event(ToolCallStart(index, call_id, name))
        # (after the start: with cut_calls_as_text, a call cut off is withdrawn with what follows its start, and its
        # held block, which holds this text, is content)
        self._show_unknown_calls()

    def _content_in_block(self, text: str) -> None:
        """Text inside a call block that belongs to no call."""
        if not self._passthrough:
            self._emit(Content, text)

    # -- the machine -----------------------------------------------------------------------------------------

    def _run(self) -> None:
        """Scan the cursor's text as far as it decides; hold back the rest (at the end of input, nothing stays held)."""
        cur = self._cursor
        buf = cur.text
        pos = cur.pos
        n = len(buf)
        scanners = self._scanners
        machine = self._machine
        while pos < n:
            mode = machine.mode
            new, met = scanners[mode](cur, pos)
            if new > pos and (self._held.parts is not None or self._passthrough) and mode in BLOCK_MODES:
                self._block_text(buf[pos:new])
            if machine.announced:
                self._settle_held_block()
            if met is not None:
                new += self._move(met)
                if self._reread is not None:  # the held text, then what follows it
                    buf = cur.text = self._reread + buf[new:]
                    self._reread = None
                    n = len(buf)
                    new = 0
            elif new == pos or mode in CALL_MODES:
                pos = new  # (a call reader stops before the end of the text only to wait for more)
                break
            pos = new
        if cur.ended and pos < n:
            if machine.mode in BLOCK_MODES:
                self._block_text(buf[pos:])
            else:
                self._emit(Reasoning if machine.mode is Mode.REASONING else Content, buf[pos:])
            pos = n
        cur.text = buf[pos:]  # (what is held back; between feeds the cursor holds nothing else)
        cur.pos = 0

    def _move(self, met: Met) -> int:
        """Take the move the table gives for what was met; returns how much of the tag met the action consumed."""
        action = self._machine.move(met.trigger)
        if self._machine.mode not in CALL_MODES and action is not Action.CLOSE_CALL:
            self._reader = None
        return self._actions[action](met)

    def _end_of_input_trigger(self) -> Trigger:
        reader = self._reader
        announced = reader is not None and reader.announced
        return self._machine.end_of_input(announced, self._cut_calls_as_text, self._passthrough)

    # -- scanners: one per mode ------------------------------------------------------------------------------

    def _scan_text(self, cur: Cursor, pos: int) -> _Step:
        buf = cur.text
        if self._untagged_names is not None and self._machine.mode is Mode.CONTENT:
            return self._scan_content_for_names(cur, pos, self._untagged_names)
        reasoning = self._machine.mode is Mode.REASONING
        kind = Reasoning if reasoning else Content
        i = buf.find("<", pos) if ONLY_LT else find_tag_start(buf, pos)
        end = len(buf) if i < 0 else i
        if end > pos:
            text = buf[pos:end]
            self._emit(kind, text)
            if reasoning and not self._reasoning_text and text.strip(" \t\r\n"):
                self._reasoning_text = True  # (whitespace alone keeps a repeated opening tag markup)
        if i < 0:
            return end, None
        tag = (_REASONING_TAGS if reasoning else self._content_tags).match(cur, i)
        if tag is T.NEED_MORE:
            return i, None
        if tag is None or (reasoning and self._reasoning_text and tag in D.THINK_OPENS):
            self._emit(kind, buf[i])  # (inside reasoning, an opening tag after some text is text)
            self._reasoning_text = self._reasoning_text or reasoning
            return i + 1, None
        assert isinstance(tag, str)
        return i, _MET_TAG[tag]

    def _scan_content_for_names(self, cur: Cursor, pos: int, untagged_names: UntaggedNames) -> _Step:
        """Content when the request declares tools: as :meth:`_scan_text`, but a declared name right before
        ``<longcat_arg_key>`` or ``<longcat_tool_call>`` belongs to the call (see ``core/untagged_names.py``), and text
        that may still become one is held back."""
        buf = cur.text
        if self._at_output_start:
            start = whitespace_end(buf, pos)
            if start < len(buf) and buf[start] in _MET_BARE:
                self._emit(Content, buf[pos:start])
                return start, _MET_BARE[buf[start]]
        i = buf.find("<", pos) if ONLY_LT else find_tag_start(buf, pos)
        end = len(buf) if i < 0 else i
        tag = None if i < 0 else self._content_tags_with_keys.match(cur, i)
        tool_tag = None
        if tag is None and i >= 0 and buf[i] == "<":  # (a tool's name as a tag: ``<NAME>{json}``)
            assert self._tool_tags is not None
            tool_tag = self._tool_tags.match(buf, i, cur.ended)
            if tool_tag is T.NEED_MORE:
                tag = tool_tag
        if i < 0 or tag is T.NEED_MORE:
            stop = end if cur.ended else untagged_names.hold_from(buf, pos, end, self._word_tail)
            self._emit(Content, buf[pos:stop])
            return stop, None
        if isinstance(tool_tag, tuple):  # ``<NAME>{json}</NAME>``
            self._emit(Content, buf[pos:i])
            name, body = tool_tag
            return body, Met(Trigger.NAMED_CALL, name=name, name_markup=buf[i:body], closer=f"</{name}>")
        named = None
        if tag in _PAIR_KEYS or tag in _PAIR_BLOCKS:
            named = untagged_names.name_before(buf, pos, i, self._word_tail)
        if named is not None:
            assert isinstance(tag, str)
            start, name = named
            self._emit(Content, buf[pos:start])
            trigger = Trigger.NAMED_CALL if tag in _PAIR_KEYS else Trigger.BLOCK_OPEN
            return i, Met(trigger, tag, name=name, name_markup=buf[start:i])
        self._emit(Content, buf[pos:i])
        if tag is None or tag in _PAIR_KEYS:
            self._emit(Content, buf[i])
            return i + 1, None
        assert isinstance(tag, str)
        return i, _MET_TAG[tag]

    def _scan_after_block(self, cur: Cursor, pos: int) -> _Step:
        buf = cur.text
        end = self._after_block.take(buf, pos)
        if end == len(buf):
            return end, None
        if buf[end] not in TAG_STARTS:
            return end, _MET[Trigger.TEXT_FOLLOWS]
        tag = self._after_block_tags.match(cur, end)
        if tag is T.NEED_MORE:
            return end, None
        if tag is None and cur.ended and not self._passthrough and _CUT_CLOSERS.is_prefix_at(buf, end):
            return end, Met(Trigger.BLOCK_CLOSE, buf[end:])  # a closing tag cut off by the end of the output
        if tag is None:
            return end, _MET[Trigger.TEXT_FOLLOWS]
        if tag in _NEXT_BLOCKS or (tag in D.BLOCK_CLOSES and self._passthrough):
            # without tool parsing, the whitespace before the next block (and a closing tag that closes nothing,
            # shown verbatim) is left for the tool stage to decide
            return end, _MET[Trigger.TEXT_FOLLOWS if self._passthrough else Trigger.BLOCK_FOLLOWS]
        assert isinstance(tag, str)
        return end, _MET_TAG[tag]

    def _scan_block(self, cur: Cursor, pos: int) -> _Step:
        buf = cur.text
        c = buf[pos]
        calls = self._machine.block_calls
        block = self._block
        if block.ended:  # the last call ended at markup that ends its block, which never closed
            block.ended = False
            return pos, _MET[Trigger.BLOCK_CLOSE]
        if c in WHITESPACE:
            if not calls:  # before the block's first call it is held with the block
                end = whitespace_end(buf, pos)
                if self._machine.untagged:  # a call with no tag has little whitespace before it (the held '[' aside)
                    held = self._held.size() - len(_BARE_LIST)
                    if end - pos + held > UNTAGGED_GAP:
                        return pos, _MET[self._machine.no_call()]
                return end, None
            return block.whitespace.take(buf, pos), None  # between calls: markup unless text follows
        if (block.after_call or block.after_separator) and block.wrapper in _UNCLOSED_BLOCKS:
            step = self._in_unclosed_block(cur, pos, calls)
            if step is not None:
                return step
        after_text = block.text_last
        block.text_last = False
        if block.wrapper in _NAMED_BLOCKS and not block.after_call:  # NAME, a separator, the arguments
            assert block.wrapper is not None
            named = SepCallReader(self._sink, self._schemas, D.NAMED_BLOCKS[block.wrapper])
            return pos, Met(Trigger.CALL_BEGINS, reader=named)
        bare = block.wrapper in _BARE_BLOCKS
        if c == "{":
            names = self._untagged_names if bare and not calls else None
            return pos, Met(Trigger.CALL_BEGINS, reader=JsonCallReader(self._sink, self._schemas, names))
        if bare and not calls:  # a bare block begins with a call object, or is text
            return pos, _MET[self._machine.no_call()]
        # (after text, a ']' or ',' goes on the text, as it does when the text and it are read in one piece)
        if block.wrapper in _JSON_LIST_WRAPPERS and not after_text and c in _CALL_LIST_MARKUP[bool(calls)]:
            block.whitespace.drop()
            return pos + 1, None  # the array around the calls and the commas between them
        if c in TAG_STARTS:
            tag = _BLOCK_TAGS.match(cur, pos)
            if tag is T.NEED_MORE:
                return pos, None
            if tag is None and calls and cur.ended and _BLOCK_TAGS.is_prefix_at(buf, pos):
                block.whitespace.drop()  # a tag of the block cut off by the end of the output is markup
                return len(buf), None
            markup = D.MARKUPS.get(tag) if isinstance(tag, str) else None
            if markup is not None:
                return pos, Met(Trigger.CALL_BEGINS, reader=XmlCallReader(self._sink, self._schemas, markup))
            separated = D.SEPARATED.get(tag) if isinstance(tag, str) else None
            if separated is not None:
                return pos, Met(Trigger.CALL_BEGINS, reader=SepCallReader(self._sink, self._schemas, separated))
            if tag in _PAIR_KEYS:  # a key/value call that gives its name as a pair, or markup of no call
                if not calls:
                    name = block.name
                    block.name_markup = ""
                    kv = KvCallReader(self._sink, self._schemas, not name, name, key_open=tag)
                    return pos, Met(Trigger.CALL_BEGINS, reader=kv)
                tag = None
            if tag is not None:  # whitespace before markup is markup (before text, it is text)
                block.whitespace.drop()
            if isinstance(tag, str) and calls:
                return pos, _MET_IN_BLOCK[tag]
        else:
            tag = None
            if not calls and block.wrapper in D.QUOTED:  # a call with bare keys and quoted values, in its own block
                quoted = QuotedCallReader(self._sink, self._schemas, D.QUOTED[block.wrapper])
                return pos, Met(Trigger.CALL_BEGINS, reader=quoted)
        if tag is None and not calls and c not in _NOT_A_NAME_START:  # NAME, then pairs, an object or parameters
            named_markup = parameters_follow_name(cur, pos)
            if named_markup is T.NEED_MORE:
                return pos, None
            if isinstance(named_markup, D.Markup):
                reader = XmlCallReader(self._sink, self._schemas, named_markup, name_first=True)
                return pos, Met(Trigger.CALL_BEGINS, reader=reader)
            return pos, Met(Trigger.CALL_BEGINS, reader=KvCallReader(self._sink, self._schemas))
        if not calls:  # the block holds no call: it was text
            return pos, _MET[self._machine.no_call()]
        end = text_end(buf, pos, CALL_START)  # text between calls of one block
        self._content_in_block(block.whitespace.release() + buf[pos:end])
        block.text_last = True
        return end, None

    def _in_unclosed_block(self, cur: Cursor, pos: int, calls: int) -> _Step | None:
        """In a block with no closing tag, after a call or its separator, at what follows the whitespace. After a
        call: the block's call separator (taken, undecided: markup if a call follows it), or anything else, where
        the block ends (the whitespace is then decided as after any block). After a separator: the next call (None:
        the block's scanner reads it), or anything else, where the block ends (the separator was text)."""
        buf = cur.text
        block = self._block
        assert block.wrapper is not None
        if block.after_separator:
            if buf[pos] == "{" or block.wrapper in _NAMED_BLOCKS:
                return None
            self._content_in_block(block.whitespace.release())
            return pos, _MET[Trigger.BLOCK_CLOSE]
        separator = D.UNCLOSED_BLOCKS[block.wrapper].call_separator
        if separator:
            if buf.startswith(separator, pos):
                if calls:  # (before the block's first call, the separator is held with the block)
                    block.whitespace.hold(separator)
                block.after_call = False
                block.after_separator = True
                return pos + len(separator), None
            cut = buf[pos : pos + len(separator)]  # (the separator, cut off by the end of the text so far)
            if not cur.ended and len(cut) < len(separator) and separator.startswith(cut):
                return pos, None
        if not calls:  # (the block's calls named no tool)
            return pos, _MET[self._machine.no_call()]
        whitespace = block.whitespace.release()
        if not self._passthrough:  # (without tool parsing, the block's text was shown as it was read)
            self._after_block.take(whitespace, 0)
        return pos, _MET[Trigger.BLOCK_CLOSE]

    def _scan_call(self, cur: Cursor, pos: int) -> _Step:
        reader = self._reader
        assert reader is not None
        new = reader.feed(cur, pos)
        if self._sink.reports:
            self._take_reports()
        if reader.failed or reader.done:
            self._block.after_call = True
            self._block.after_separator = False
            self._block.ended = reader.done and reader.ends_block and reader.announced
            trigger = self._machine.reader_stopped(reader.failed, reader.done, reader.announced)
            assert trigger is not None
            return new, _MET[trigger]
        return new, None

    # -- actions: what a move does besides changing the mode; each returns how much of the tag it consumed ----

    def _drop_tag(self, met: Met) -> int:
        return len(met.tag)

    def _open_reasoning(self, met: Met) -> int:
        self._reasoning_text = False
        return len(met.tag)

    def _open_block(self, met: Met) -> int:
        misplaced_closer = self._after_untagged_pairs and met.tag in _PAIR_BLOCKS and not met.name
        self._block.open(met.tag or _BARE_OBJECT, met.name, met.name_markup, misplaced_closer)
        self._held.hold(met.name_markup, met.tag)
        self._after_untagged_pairs = False
        return len(met.tag)

    def _open_named_call(self, met: Met) -> int:
        self._block.wrapper = None
        self._held.hold(met.name_markup)
        self._after_untagged_pairs = met.tag in _PAIR_KEYS  # (once the call is read: see _return_held_block)
        reader = KvCallReader(
            self._sink, self._schemas, given_name=met.name, bare=True, closing_tag=met.closer, key_open=met.tag
        )
        self._reader = reader
        return 0

    def _open_bare_call(self, met: Met) -> int:
        self._block.wrapper = None
        self._held.hold()
        separated = D.SEPARATED.get(met.tag)
        if separated is not None:
            self._reader = SepCallReader(self._sink, self._schemas, separated)
        else:
            self._reader = XmlCallReader(self._sink, self._schemas, D.MARKUPS[met.tag])
        return 0

    def _start_reader(self, met: Met) -> int:
        """A call begins inside a block: it is held until it is announced (the block's first call is held
        together with the block's opening; a later one with the whitespace before it)."""
        held = self._held
        if held.parts is None:
            whitespace = self._block.whitespace.release()
            if self._passthrough:
                held.hold()  # (the whitespace was shown already)
            else:
                held.hold(whitespace)
        held.reader_starts()
        self._reader = met.reader
        return 0

    def _hold_unknown_call(self, met: Met) -> int:
        """The block's first call named no tool (its reader read it to its end): its text stays held."""
        self._held.reader_named_no_tool()
        return 0

    def _show_unknown_calls(self) -> None:
        """A call of the block is announced after calls naming no tool: their text (and what was held between them
        and the announced call) is content; the rest of the held block is markup."""
        self._emit(Content, self._held.take_unknown())

    def _reread_held_block(self, met: Met) -> int:
        self._block.wrapper = None
        self._at_output_start = False
        self._reread = "".join(self._held.release())
        return 0

    def _close_block(self, met: Met) -> int:
        block = self._block
        block.wrapper = None
        if not met.tag and block.text_last:  # the output ends in a block, after text: its whitespace is text
            self._content_in_block(block.whitespace.release())
        block.text_last = False
        self._block_text(met.tag)
        return len(met.tag)

    def _return_held_block(self, met: Met) -> int:
        held_block = self._held.release()
        block = self._block
        block.name_markup = ""  # (it is in the held block)
        if block.misplaced_closer and len(held_block) > 1 and held_block[1] in _PAIR_BLOCKS:
            # a block holding no call right after key/value pairs that had no opening tag: its tag closed them
            del held_block[1]
        block.misplaced_closer = False
        if self._machine.mode is not Mode.BLOCK:
            block.wrapper = None
        if self._machine.mode is Mode.REASONING:
            self._emit(Reasoning, "".join(held_block))
            self._reasoning_text = True
        else:
            self._emit(Content, "".join(held_block))
        return 0

    def _close_call(self, met: Met) -> int:
        assert self._reader is not None
        self._reader.close()
        if self._sink.reports:
            self._take_reports()
        self._reader = None
        return 0

    def _return_cut_call(self, met: Met) -> int:
        """The output ended inside a call the engine may have cut: the call was never reported (its events were held
        back), and the text held since its block (or the call) began is content."""
        self._reader = None
        self._block.wrapper = None
        self._out.withdraw_last_call()
        self._log.withdraw_last()
        self._emit(Content, "".join(self._held.release()))
        return 0

    def _release_whitespace(self, met: Met) -> int:
        self._emit(Content, self._after_block.release())
        return 0

    def _drop_whitespace(self, met: Met) -> int:
        self._after_block.drop()
        return 0

    # -- the text of a block -----------------------------------------------------------------------------------

    def _block_text(self, text: str) -> None:
        """Text a block mode read: held while the block is undecided; then markup (shown without tool parsing)."""
        held = self._held.parts
        if held is not None:
            held.append(text)
        elif self._passthrough:
            self._emit(Content, text)

    def _settle_held_block(self) -> None:
        """A call was announced: the held block was markup (or, without tool parsing, content). When the call's
        block was opened in reasoning right after another block, the whitespace after that block was markup."""
        self._machine.settle()
        if self._after_block:
            if self._passthrough:
                self._emit(Content, self._after_block.release())
            self._after_block.drop()
        if self._cut_calls_as_text:
            return  # the held block is kept until the call is complete
        held_block = self._held.release()
        if self._passthrough:
            self._emit(Content, "".join(held_block))

    # -- output (gathered by .output.EventOutput) --------------------------------------------------------------

    def _emit(self, kind: type[Content] | type[Reasoning], text: str) -> None:
        if text:
            self._after_untagged_pairs = False
            if kind is Content:
                self._word_tail = text[-1] in WORD_CHARS
                if self._at_output_start and text.strip(" \t\r\n"):
                    self._at_output_start = False
            self._out.text(kind, -1, text)


def _no_action(_: Met) -> int:
    return 0
