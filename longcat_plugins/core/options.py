"""Per-request parser options."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

EMIT_UNKNOWN_CALLS_ENV: Final = "LONGCAT_EMIT_UNKNOWN_CALLS"
NONE_GRAMMAR_ENV: Final = "LONGCAT_TOOL_CHOICE_NONE_GRAMMAR"
_TRUE: Final = ("1", "true", "yes", "on")
_FALSE: Final = ("", "0", "false", "no", "off")


@dataclass(frozen=True, slots=True)
class ParserOptions:
    #: Split ``<think>``/``<longcat_think>`` reasoning from content.
    reasoning: bool = True
    #: Parse tool calls. Without it, call blocks come out verbatim as content (for a separate tool-call parser):
    #: they are still read, so that a tag inside a call's value is not taken for reasoning markup; reasoning still
    #: ends at a call tag.
    tools: bool = True
    #: The prompt already opened reasoning (the template pre-filled ``<think>``): output starts inside it.
    reasoning_open: bool = False
    #: Nothing says whether the output starts inside reasoning (a text read with no prompt or request): its first
    #: think tag decides, a closer saying it does (see :mod:`.unknown_start`); :attr:`reasoning_open` is then unused.
    #: The text is held until that tag, or the end of the output.
    reasoning_start_unknown: bool = False
    #: Call id for a call index; default ``call_<24 hex digits>``.
    id_factory: Callable[[int], str] | None = None
    #: When the request declares tools, a block whose name resolves to none of them is content (and logged); with
    #: this, it is a call anyway, under the name as written (for harnesses that answer unknown calls themselves).
    emit_unknown_calls: bool = False
    #: The engine may have cut the output where it ends (a stop string, a stop pattern, a stop token that is not an
    #: end of sequence: engines do not tell the parser why an output ended; :func:`.stops.stops_may_cut_calls`
    #: decides it from the request): a call still open at the end is returned as text, verbatim, not as a call that
    #: would run with cut arguments. A stream then reports each call once it is complete (its closing markup read).
    cut_calls_as_text: bool = False
    #: Log the output's problems (a call naming no tool, a parameter given again...), once per kind when the output
    #: ends (:mod:`.problems`). Off for a parser that only probes a text another parser of the request reads too.
    log_problems: bool = True


def emit_unknown_calls_from_env() -> bool:
    """``LONGCAT_EMIT_UNKNOWN_CALLS`` (how the engine adapters set :attr:`ParserOptions.emit_unknown_calls`); a value
    that is neither true nor false is an error."""
    return _flag(EMIT_UNKNOWN_CALLS_ENV, default=False)


def none_grammar_from_env() -> bool:
    """``LONGCAT_TOOL_CHOICE_NONE_GRAMMAR`` (on unless set false): whether the engine adapters constrain a request
    that declares tools under ``tool_choice="none"`` to an output with no call tag
    (:func:`longcat_plugins.structural.no_calls`); a value that is neither true nor false is an error."""
    return _flag(NONE_GRAMMAR_ENV, default=True)


def _flag(name: str, default: bool) -> bool:
    value = os.environ.get(name, "").strip().lower()
    if not value:
        return default
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ValueError(f"{name}={value!r}: expected one of {', '.join(_TRUE + _FALSE[1:])}")
