"""What a call reader needs from the parser that drives it, and what the parser needs from a call reader."""

from __future__ import annotations

from typing import Protocol

from ..cursor import Cursor


class CallSink(Protocol):
    """The parser, as seen by the reader of one call block."""

    def start_call(self, name: str) -> int | None:
        """Announce a call; returns its index, or None when ``name`` names no tool of the request (then the block
        is not a call: the reader fails). From here on the block's markup is consumed, not shown."""
        ...

    def call_args(self, index: int, text: str) -> None:
        """A fragment of the arguments of call ``index``."""
        ...

    def end_call(self, index: int) -> None: ...

    def content(self, text: str) -> None:
        """Text inside a call block that belongs to no call: it is shown as content."""
        ...


class CallReader(Protocol):
    """Reads the body of one call (or, for the key/value dialect, one whole block)."""

    done: bool
    failed: bool

    @property
    def announced(self) -> bool:
        """Whether the call was announced to the sink (before that, a failure returns the block as content)."""
        ...

    def feed(self, cur: Cursor, pos: int) -> int:
        """Read from ``buf[pos:]``; return how far it got. Stops at completion, at failure, or to wait for text."""
        ...

    def feed_fast(self, text: str) -> tuple[int, str] | None:
        """When all of ``text`` only continues a string value being streamed, with nothing to decide: the call's
        index and the argument text it adds (the reader's state does not change; the caller emits it). Otherwise
        None, and the caller uses :meth:`feed`. Only called with nothing held back."""
        ...

    def close(self) -> None:
        """The input ended or the block broke off: finish an announced call with valid JSON arguments."""
        ...
