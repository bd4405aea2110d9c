"""The parser's modes and every legal move between them, as data.

:class:`~longcat_plugins.core.parser.StreamParser` scans the text in its current :class:`Mode`; when the scanner
meets a :class:`Trigger` (a tag, or a condition such as "the call reader finished"), the parser looks the pair up
in :data:`TRANSITIONS` and gets the next mode and the :class:`Action` to perform. The :class:`Machine` holds the mode
and every register a target depends on, and changes them nowhere else. A pair missing from the table is a bug in the
parser, reported as :class:`IllegalMove`.

``ORIGIN`` as a target means the mode the current call block was opened from: reasoning, while no call of the block
has been announced (a block inside reasoning that turns out not to be a call is reasoning text), else content (a
call ends reasoning implicitly). ``BEFORE_REASONING`` means the mode reasoning was opened from: content, or "after
block", so that reasoning between two blocks is as transparent to the whitespace rule as it is to an engine's tool
stage, which never sees it.
"""

from __future__ import annotations

from typing import Final

from .events import Content, Event, Reasoning, ToolCallArgs, ToolCallEnd
from .identity_enum import IdentityEnum


class Mode(IdentityEnum):
    CONTENT = "content"
    REASONING = "reasoning"
    #: inside ``<longcat_tool_call>`` / ``<tool_call>``, before, between or after its calls
    BLOCK = "block"
    #: a call reader is reading a call of a block
    CALL = "call"
    #: a call reader is reading a ``<function=...>`` (or a named key/value call) with no block around it
    BARE_CALL = "bare call"
    #: after a call block, with nothing since but whitespace and markup that is dropped (end markers, reasoning):
    #: the whitespace is markup if another block or the end follows
    AFTER_BLOCK = "after block"


class Trigger(IdentityEnum):
    THINK_OPEN = "a reasoning opening tag"
    THINK_CLOSE = "a reasoning closing tag"
    END_MARKER = "end-of-sequence marker"
    #: the opening tag of any dialect's call block (``dialects.BLOCK_OPENS``)
    BLOCK_OPEN = "a block's opening tag"
    #: at the start of the output, a ``{`` or ``[`` that may begin a call written with no tag
    UNTAGGED_BLOCK_OPEN = "a JSON object or array at the start of the output"
    #: a markup call's own opening tag (``dialects.CALL_OPENS``: ``<function=``) with no block around it
    CALL_WITHOUT_BLOCK = "a call's opening tag outside a block"
    #: a declared tool's name, then ``<longcat_arg_key>``, outside a block (the model left the opening tag out); or
    #: the name as a tag, then its arguments object (``<NAME>{json}</NAME>``)
    NAMED_CALL = "a declared tool's name opening a call outside a block"
    #: the closing tag of any dialect's call block (``dialects.BLOCK_CLOSES``)
    BLOCK_CLOSE = "a block's closing tag"
    #: a block holding a call opens before the previous one closed
    BLOCK_REOPEN = "block opens inside a block"
    #: inside a block: ``{``, ``<function=`` or a key/value call name
    CALL_BEGINS = "call begins"
    CALL_ENDS = "call reader finished"
    #: a call reader read a call that names no tool of the request to its end (it announced nothing)
    UNKNOWN_CALL_ENDS = "call naming no tool read"
    #: an announced call breaks off (bad markup, or the end of the output): closed with valid JSON arguments
    CALL_BREAKS = "announced call broke off"
    #: the output ends inside an announced call that the engine may have cut (``cut_calls_as_text``)
    CALL_CUT = "output ends inside a call it may have cut"
    #: what looked like a block or its first call is not one: its text is returned verbatim, to the origin
    NOT_A_CALL = "not a call"
    #: what looked like a block with no tag, or its first call, is not one: its text is read again, from the origin
    NOT_AN_UNTAGGED_CALL = "no tag and not a call"
    #: what looked like a further call of a block is not one: its text is returned as content, the block goes on
    BAD_CALL = "not a further call"
    #: after a block: what follows is not another block
    TEXT_FOLLOWS = "text follows"
    #: after a block: another block follows (the whitespace between is markup)
    BLOCK_FOLLOWS = "block follows"
    END_OF_INPUT = "end of input"


class Action(IdentityEnum):
    NONE = "none"
    #: a tag that is markup and nothing else
    DROP_TAG = "drop the tag"
    OPEN_REASONING = "open reasoning"
    OPEN_BLOCK = "open a block, holding its text"
    OPEN_BARE_CALL = "start an XML call reader, holding its text"
    OPEN_NAMED_CALL = "start a key/value call reader for the name, holding its text"
    START_READER = "start the call reader for what follows"
    #: the call named no tool: its text stays held with the block's (text, verbatim, unless a later call of the block
    #: is announced; then the block's markup is dropped and this call's text is content)
    HOLD_UNKNOWN_CALL = "hold the call's text with the block's"
    CLOSE_BLOCK = "close the block"
    RETURN_HELD_BLOCK = "return the held text, as text of the next mode"
    #: (a block with no tag was read as JSON, which sees no tags in strings: its text is read again, as text)
    REREAD_HELD_BLOCK = "read the held text again, in the next mode"
    CLOSE_CALL = "close the announced call"
    #: the call is withdrawn (a stream had not reported it yet); its text, held, goes back as content
    RETURN_CUT_CALL = "withdraw the call, its text is content"
    RELEASE_WHITESPACE = "the whitespace taken was text"
    DROP_WHITESPACE = "the whitespace taken was markup"


class _Origin:
    """Target marker: back to the mode the block was opened from."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ORIGIN"


class _BeforeReasoning:
    """Target marker: back to the mode reasoning was opened from."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "BEFORE_REASONING"


ORIGIN: Final = _Origin()
BEFORE_REASONING: Final = _BeforeReasoning()

Target = Mode | _Origin | _BeforeReasoning

#: (mode, trigger) -> (next mode, action). Every move the parser can make.
TRANSITIONS: Final[dict[tuple[Mode, Trigger], tuple[Target, Action]]] = {
    (Mode.CONTENT, Trigger.THINK_OPEN): (Mode.REASONING, Action.OPEN_REASONING),
    (Mode.CONTENT, Trigger.THINK_CLOSE): (Mode.CONTENT, Action.DROP_TAG),  # a stray closing tag is markup too
    (Mode.CONTENT, Trigger.END_MARKER): (Mode.CONTENT, Action.DROP_TAG),
    (Mode.CONTENT, Trigger.BLOCK_OPEN): (Mode.BLOCK, Action.OPEN_BLOCK),
    (Mode.CONTENT, Trigger.UNTAGGED_BLOCK_OPEN): (Mode.BLOCK, Action.OPEN_BLOCK),
    (Mode.CONTENT, Trigger.CALL_WITHOUT_BLOCK): (Mode.BARE_CALL, Action.OPEN_BARE_CALL),
    (Mode.CONTENT, Trigger.NAMED_CALL): (Mode.BARE_CALL, Action.OPEN_NAMED_CALL),
    (Mode.CONTENT, Trigger.END_OF_INPUT): (Mode.CONTENT, Action.NONE),
    # a template that opened reasoning and a model that opens it again
    (Mode.REASONING, Trigger.THINK_OPEN): (Mode.REASONING, Action.DROP_TAG),
    (Mode.REASONING, Trigger.THINK_CLOSE): (BEFORE_REASONING, Action.DROP_TAG),
    (Mode.REASONING, Trigger.END_MARKER): (Mode.REASONING, Action.DROP_TAG),
    # a call ends reasoning; a block that is no call stays reasoning
    (Mode.REASONING, Trigger.BLOCK_OPEN): (Mode.BLOCK, Action.OPEN_BLOCK),
    (Mode.REASONING, Trigger.END_OF_INPUT): (Mode.REASONING, Action.NONE),
    (Mode.BLOCK, Trigger.CALL_BEGINS): (Mode.CALL, Action.START_READER),
    (Mode.BLOCK, Trigger.END_MARKER): (Mode.BLOCK, Action.DROP_TAG),
    (Mode.BLOCK, Trigger.BLOCK_CLOSE): (Mode.AFTER_BLOCK, Action.CLOSE_BLOCK),
    # the previous block was never closed; the new one is read from content
    (Mode.BLOCK, Trigger.BLOCK_REOPEN): (Mode.CONTENT, Action.CLOSE_BLOCK),
    (Mode.BLOCK, Trigger.NOT_A_CALL): (ORIGIN, Action.RETURN_HELD_BLOCK),
    (Mode.BLOCK, Trigger.NOT_AN_UNTAGGED_CALL): (ORIGIN, Action.REREAD_HELD_BLOCK),
    (Mode.BLOCK, Trigger.END_OF_INPUT): (Mode.CONTENT, Action.CLOSE_BLOCK),
    (Mode.CALL, Trigger.CALL_ENDS): (Mode.BLOCK, Action.NONE),
    # a call naming no tool, the block's first: the block is still undecided
    (Mode.CALL, Trigger.UNKNOWN_CALL_ENDS): (Mode.BLOCK, Action.HOLD_UNKNOWN_CALL),
    (Mode.CALL, Trigger.CALL_BREAKS): (Mode.BLOCK, Action.CLOSE_CALL),
    (Mode.CALL, Trigger.CALL_CUT): (Mode.CONTENT, Action.RETURN_CUT_CALL),
    (Mode.CALL, Trigger.NOT_A_CALL): (ORIGIN, Action.RETURN_HELD_BLOCK),
    (Mode.CALL, Trigger.NOT_AN_UNTAGGED_CALL): (ORIGIN, Action.REREAD_HELD_BLOCK),
    (Mode.CALL, Trigger.BAD_CALL): (Mode.BLOCK, Action.RETURN_HELD_BLOCK),
    (Mode.BARE_CALL, Trigger.CALL_ENDS): (Mode.AFTER_BLOCK, Action.NONE),
    (Mode.BARE_CALL, Trigger.UNKNOWN_CALL_ENDS): (ORIGIN, Action.RETURN_HELD_BLOCK),
    (Mode.BARE_CALL, Trigger.CALL_BREAKS): (Mode.AFTER_BLOCK, Action.CLOSE_CALL),
    (Mode.BARE_CALL, Trigger.CALL_CUT): (Mode.CONTENT, Action.RETURN_CUT_CALL),
    (Mode.BARE_CALL, Trigger.NOT_A_CALL): (ORIGIN, Action.RETURN_HELD_BLOCK),
    (Mode.AFTER_BLOCK, Trigger.TEXT_FOLLOWS): (Mode.CONTENT, Action.RELEASE_WHITESPACE),
    (Mode.AFTER_BLOCK, Trigger.BLOCK_FOLLOWS): (Mode.CONTENT, Action.DROP_WHITESPACE),
    (Mode.AFTER_BLOCK, Trigger.THINK_OPEN): (Mode.REASONING, Action.OPEN_REASONING),
    (Mode.AFTER_BLOCK, Trigger.THINK_CLOSE): (Mode.AFTER_BLOCK, Action.DROP_TAG),
    # a closing tag that closes nothing (Qwen3-Coder's bare <function=)
    (Mode.AFTER_BLOCK, Trigger.BLOCK_CLOSE): (Mode.AFTER_BLOCK, Action.DROP_TAG),
    (Mode.AFTER_BLOCK, Trigger.END_MARKER): (Mode.AFTER_BLOCK, Action.DROP_TAG),
    (Mode.AFTER_BLOCK, Trigger.END_OF_INPUT): (Mode.CONTENT, Action.DROP_WHITESPACE),
}


#: The events each action emits (besides the text scanners show as they read it); with ``cut_calls_as_text`` a call's
#: events are held until the call is complete. Without tool parsing, markup of call blocks is shown as content.
EMITS: Final[dict[Action, frozenset[type[Event]]]] = {
    Action.NONE: frozenset(),
    Action.DROP_TAG: frozenset(),
    Action.OPEN_REASONING: frozenset(),
    Action.OPEN_BLOCK: frozenset(),
    Action.OPEN_BARE_CALL: frozenset(),
    Action.OPEN_NAMED_CALL: frozenset(),
    Action.START_READER: frozenset(),
    Action.HOLD_UNKNOWN_CALL: frozenset(),
    #: at the end of the input after text between calls, that text's whitespace; without tool parsing, the tag
    Action.CLOSE_BLOCK: frozenset((Content,)),
    #: the held text, as reasoning when the next mode is reasoning, else as content
    Action.RETURN_HELD_BLOCK: frozenset((Content, Reasoning)),
    #: (the scanners show the held text again as they read it)
    Action.REREAD_HELD_BLOCK: frozenset(),
    #: what makes the arguments valid JSON, the end, and the text of a member cut off
    Action.CLOSE_CALL: frozenset((ToolCallArgs, ToolCallEnd, Content)),
    #: (the call's events are withdrawn) its held text
    Action.RETURN_CUT_CALL: frozenset((Content,)),
    Action.RELEASE_WHITESPACE: frozenset((Content,)),
    Action.DROP_WHITESPACE: frozenset(),
}


class IllegalMove(AssertionError):
    """The parser asked for a move that :data:`TRANSITIONS` does not have."""


def next_move(mode: Mode, trigger: Trigger) -> tuple[Target, Action]:
    try:
        return TRANSITIONS[(mode, trigger)]
    except KeyError:
        raise IllegalMove(f"no move from {mode.value!r} on {trigger.value!r}") from None


#: the modes in which a call reader reads
CALL_MODES: Final = frozenset((Mode.CALL, Mode.BARE_CALL))
#: the modes inside a call block (or a call with no block around it)
BLOCK_MODES: Final = frozenset((Mode.BLOCK, Mode.CALL, Mode.BARE_CALL))
_OPENS_A_BLOCK: Final = frozenset((Action.OPEN_BLOCK, Action.OPEN_BARE_CALL, Action.OPEN_NAMED_CALL))
# (module names for the members: a global is cheaper than an Enum attribute on Python 3.11)
_OPEN_REASONING: Final = Action.OPEN_REASONING
_RETURN_CUT_CALL: Final = Action.RETURN_CUT_CALL
_CONTENT: Final = Mode.CONTENT
_UNTAGGED_BLOCK_OPEN: Final = Trigger.UNTAGGED_BLOCK_OPEN


class Machine:
    """The parser's mode and the registers its moves depend on; they change here and nowhere else.

    * ``origin``: the mode the open block (or bare call) was opened from, the target ``ORIGIN``;
    * ``reasoning_from``: the mode reasoning was opened from, the target ``BEFORE_REASONING``;
    * ``block_calls``: the calls announced in the open block (a block with none is no call);
    * ``untagged``: the open block has no tag (a block with no call is then read again as text, from its start);
    * ``announced``: a call was announced since the parser last settled the block's held text.
    """

    __slots__ = ("announced", "block_calls", "mode", "origin", "reasoning_from", "untagged")

    def __init__(self, mode: Mode = Mode.CONTENT) -> None:
        self.mode = mode
        self.origin = Mode.CONTENT
        self.reasoning_from = Mode.CONTENT
        self.block_calls = 0
        self.announced = False
        self.untagged = False

    def move(self, trigger: Trigger) -> Action:
        """Take the move :data:`TRANSITIONS` gives for ``trigger`` in the current mode; returns its action (the
        registers the move sets are set)."""
        before = self.mode
        try:
            target, action = TRANSITIONS[(before, trigger)]
        except KeyError:
            raise IllegalMove(f"no move from {before.value!r} on {trigger.value!r}") from None
        if isinstance(target, Mode):
            self.mode = target
        else:
            self.mode = self.origin if target is ORIGIN else self.reasoning_from
        if action is _OPEN_REASONING:
            self.reasoning_from = before
        elif action in _OPENS_A_BLOCK:
            self.origin = before
            self.block_calls = 0
            self.untagged = trigger is _UNTAGGED_BLOCK_OPEN
        elif action is _RETURN_CUT_CALL:
            self.block_calls -= 1  # (the call is withdrawn)
        return action

    def announce(self) -> None:
        """A call of the open block was announced: it ends reasoning."""
        self.announced = True
        self.block_calls += 1
        self.origin = _CONTENT

    def settle(self) -> None:
        """The announced call's held text was settled; whatever reasoning was opened from, it ended in content."""
        self.announced = False
        self.reasoning_from = _CONTENT

    @property
    def in_reasoning(self) -> bool:
        """Whether the output is inside reasoning (also while a block opened inside reasoning is not known yet to
        be a call)."""
        mode = self.mode
        return mode is Mode.REASONING or (mode in BLOCK_MODES and self.origin is Mode.REASONING)

    def reader_stopped(self, failed: bool, done: bool, announced: bool) -> Trigger | None:
        """What a call reader that stopped reading means: it failed (after announcing its call, or not), finished,
        or waits for text (None). A reader that finished without announcing its call read a call that names no
        tool: a further call of a block is then text (the block goes on); the block's first leaves the block
        undecided."""
        if failed:
            return self._call_broke(announced)
        if not done:
            return None
        if announced:
            return Trigger.CALL_ENDS
        return Trigger.BAD_CALL if self.block_calls else Trigger.UNKNOWN_CALL_ENDS

    def end_of_input(self, reader_announced: bool, cut_calls_as_text: bool, passthrough: bool) -> Trigger:
        """The trigger the end of the input is in the current mode. ``reader_announced``: the call being read (in a
        call mode) was announced; ``cut_calls_as_text``: a call the output ends in is withdrawn; ``passthrough``: calls
        are not parsed (whitespace after a block is left for a later tool stage)."""
        mode = self.mode
        if mode is Mode.BLOCK and not self.block_calls:
            return self.no_call()
        if mode in CALL_MODES:
            return Trigger.CALL_CUT if reader_announced and cut_calls_as_text else self._call_broke(reader_announced)
        if mode is Mode.AFTER_BLOCK and passthrough:
            return Trigger.TEXT_FOLLOWS
        return Trigger.END_OF_INPUT

    def _call_broke(self, announced: bool) -> Trigger:
        """A call being read broke off: after it was announced, it is closed; before, it was no call (the block's
        first, or a further one)."""
        if announced:
            return Trigger.CALL_BREAKS
        return Trigger.BAD_CALL if self.block_calls else self.no_call()

    def no_call(self) -> Trigger:
        """The trigger for an open block that turned out to hold no call: its text is returned (a tagged block's
        reading saw every tag in it), or read again (a block with no tag was read as JSON)."""
        return Trigger.NOT_AN_UNTAGGED_CALL if self.untagged else Trigger.NOT_A_CALL
