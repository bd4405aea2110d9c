"""Per-request parser options."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


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
    #: Call id for a call index; default ``call_<24 hex digits>``.
    id_factory: Callable[[int], str] | None = None
    #: When the request declares tools, a block whose name resolves to none of them is content (and logged); with
    #: this, it is a call anyway, under the name as written (for harnesses that answer unknown calls themselves).
    emit_unknown_calls: bool = False
