"""The parser's modes and every legal move between them, as data.

:class:`~longcat_plugins.core.parser.StreamParser` scans the text in its current :class:`Mode`; when the scanner
meets a :class:`Trigger` (a tag, or a condition such as "the call reader finished"), the parser looks the pair up
in :data:`TRANSITIONS` and gets the next mode and the :class:`Action` to perform. It changes mode nowhere else.
A pair missing from the table is a bug in the parser, reported as :class:`IllegalMove`.

``ORIGIN`` as a target means the mode the current call block was opened from: reasoning, while no call of the block
has been announced (a block inside reasoning that turns out not to be a call is reasoning text), else content (a
call ends reasoning implicitly). ``BEFORE_REASONING`` means the mode reasoning was opened from: content, or "after
block", so that reasoning between two blocks is as transparent to the whitespace rule as it is to an engine's tool
stage, which never sees it.
"""

from __future__ import annotations

from enum import Enum
from typing import Final


class Mode(Enum):
    __hash__ = object.__hash__  # (members are compared by identity; Enum's own hash is Python code)

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


class Trigger(Enum):
    __hash__ = object.__hash__  # (members are compared by identity; Enum's own hash is Python code)

    THINK_OPEN = "<think>"
    THINK_CLOSE = "</think>"
    END_MARKER = "end-of-sequence marker"
    BLOCK_OPEN = "<longcat_tool_call> / <tool_call>"
    BARE_FUNCTION = "<function= outside a block"
    #: a declared tool's name, then ``<longcat_arg_key>``, outside a block (the model left the opening tag out)
    NAMED_CALL = "NAME<longcat_arg_key> outside a block"
    BLOCK_CLOSE = "</longcat_tool_call> / </tool_call>"
    #: a block holding a call opens before the previous one closed
    BLOCK_REOPEN = "block opens inside a block"
    #: inside a block: ``{``, ``<function=`` or a key/value call name
    CALL_BEGINS = "call begins"
    CALL_ENDS = "call reader finished"
    #: an announced call breaks off (bad markup, or the end of the output): closed with valid JSON arguments
    CALL_BREAKS = "announced call broke off"
    #: the output ends inside an announced call that the engine may have cut (``cut_calls_as_text``)
    CALL_CUT = "output ends inside a call it may have cut"
    #: what looked like a block or its first call is not one: its text is returned verbatim, to the origin
    NOT_A_CALL = "not a call"
    #: what looked like a further call of a block is not one: its text is returned as content, the block goes on
    BAD_CALL = "not a further call"
    #: after a block: what follows is not another block
    TEXT_FOLLOWS = "text follows"
    #: after a block: another block follows (the whitespace between is markup)
    BLOCK_FOLLOWS = "block follows"
    END_OF_INPUT = "end of input"


class Action(Enum):
    __hash__ = object.__hash__  # (members are compared by identity; Enum's own hash is Python code)

    NONE = "none"
    #: a tag that is markup and nothing else
    DROP_TAG = "drop the tag"
    OPEN_REASONING = "open reasoning"
    OPEN_BLOCK = "open a block, holding its text"
    OPEN_BARE_CALL = "start an XML call reader, holding its text"
    OPEN_NAMED_CALL = "start a key/value call reader for the name, holding its text"
    START_READER = "start the call reader for what follows"
    CLOSE_BLOCK = "close the block"
    RETURN_HELD_BLOCK = "return the held text, as text of the next mode"
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

C, R, B, K, F, A = Mode.CONTENT, Mode.REASONING, Mode.BLOCK, Mode.CALL, Mode.BARE_CALL, Mode.AFTER_BLOCK
t, a = Trigger, Action

#: (mode, trigger) -> (next mode, action). Every move the parser can make.
TRANSITIONS: Final[dict[tuple[Mode, Trigger], tuple[Target, Action]]] = {
    (C, t.THINK_OPEN): (R, a.OPEN_REASONING),
    (C, t.THINK_CLOSE): (C, a.DROP_TAG),  # a stray closing tag is markup too
    (C, t.END_MARKER): (C, a.DROP_TAG),
    (C, t.BLOCK_OPEN): (B, a.OPEN_BLOCK),
    (C, t.BARE_FUNCTION): (F, a.OPEN_BARE_CALL),
    (C, t.NAMED_CALL): (F, a.OPEN_NAMED_CALL),
    (C, t.END_OF_INPUT): (C, a.NONE),
    (R, t.THINK_OPEN): (R, a.DROP_TAG),  # a template that opened reasoning and a model that opens it again
    (R, t.THINK_CLOSE): (BEFORE_REASONING, a.DROP_TAG),
    (R, t.END_MARKER): (R, a.DROP_TAG),
    (R, t.BLOCK_OPEN): (B, a.OPEN_BLOCK),  # a call ends reasoning; a block that is no call stays reasoning
    (R, t.END_OF_INPUT): (R, a.NONE),
    (B, t.CALL_BEGINS): (K, a.START_READER),
    (B, t.END_MARKER): (B, a.DROP_TAG),
    (B, t.BLOCK_CLOSE): (A, a.CLOSE_BLOCK),
    (B, t.BLOCK_REOPEN): (C, a.CLOSE_BLOCK),  # the previous block was never closed; the new one is read from content
    (B, t.NOT_A_CALL): (ORIGIN, a.RETURN_HELD_BLOCK),
    (B, t.END_OF_INPUT): (C, a.CLOSE_BLOCK),
    (K, t.CALL_ENDS): (B, a.NONE),
    (K, t.CALL_BREAKS): (B, a.CLOSE_CALL),
    (K, t.CALL_CUT): (C, a.RETURN_CUT_CALL),
    (K, t.NOT_A_CALL): (ORIGIN, a.RETURN_HELD_BLOCK),
    (K, t.BAD_CALL): (B, a.RETURN_HELD_BLOCK),
    (F, t.CALL_ENDS): (A, a.NONE),
    (F, t.CALL_BREAKS): (A, a.CLOSE_CALL),
    (F, t.CALL_CUT): (C, a.RETURN_CUT_CALL),
    (F, t.NOT_A_CALL): (ORIGIN, a.RETURN_HELD_BLOCK),
    (A, t.TEXT_FOLLOWS): (C, a.RELEASE_WHITESPACE),
    (A, t.BLOCK_FOLLOWS): (C, a.DROP_WHITESPACE),
    (A, t.THINK_OPEN): (R, a.OPEN_REASONING),
    (A, t.THINK_CLOSE): (A, a.DROP_TAG),
    (A, t.BLOCK_CLOSE): (A, a.DROP_TAG),  # a closing tag that closes nothing (Qwen3-Coder's bare <function=)
    (A, t.END_MARKER): (A, a.DROP_TAG),
    (A, t.END_OF_INPUT): (C, a.DROP_WHITESPACE),
}

del C, R, B, K, F, A, t, a


class IllegalMove(AssertionError):
    """The parser asked for a move that :data:`TRANSITIONS` does not have."""


def next_move(mode: Mode, trigger: Trigger) -> tuple[Target, Action]:
    try:
        return TRANSITIONS[(mode, trigger)]
    except KeyError:
        raise IllegalMove(f"no move from {mode.value!r} on {trigger.value!r}") from None
