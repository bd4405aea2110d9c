"""What a call reader reports (to a :class:`CallSink`), and what the parser needs from a call reader."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Protocol

from ..cursor import Cursor
from ..identity_enum import IdentityEnum
from ..problems import ProblemLog


class Report(IdentityEnum):
    """What a call reader reports."""

    #: the call is announced (the text is its tool's name); from here on the block's markup is consumed, not shown
    START = "start"
    #: a fragment of the call's arguments
    ARGS = "args"
    END = "end"
    #: text inside a call block that belongs to no call: it is shown as content
    CONTENT = "content"


# (module names for the members: a global is cheaper than an Enum attribute on Python 3.11)
_START: Final = Report.START
_ARGS: Final = Report.ARGS
_END: Final = Report.END
_CONTENT: Final = Report.CONTENT


class CallSink:
    """Where a call reader reports what it read, in order: the parser takes the reports after each read. A reader
    reads one call, so its reports name no call. Argument fragments reported one after another are one report."""

    __slots__ = ("_args", "_problems", "_resolve", "call_id", "reports", "texts")

    def __init__(self, resolve: Callable[[str], str | None], problems: ProblemLog | None = None) -> None:
        self._resolve = resolve
        self._problems = problems or ProblemLog(silent=True)
        # each report's kind, and its text: two lists, not one list of pairs (a pair that holds an enum member stays
        # tracked by the cyclic collector, and a call of many parameters read in one delta would fill the
        # collector's oldest generation with them, each full collection costing more than the last)
        self.reports: list[Report] = []
        self.texts: list[str] = []
        # the fragments of the last report while it is an ARGS report (joined when another report follows or the
        # parser takes the reports)
        self._args: list[str] = []
        #: the id the model wrote for the call last announced, if it wrote one (the parser takes it with the START)
        self.call_id: str | None = None

    def start_call(self, written: str, call_id: str | None = None) -> bool:
        """Announce the call ``written`` names (with the id the model wrote for it, if any); False when it names no
        tool of the request (then the block is not a call: the reader fails)."""
        name = self._resolve(written)
        if name is None:
            return False
        self.call_id = call_id
        self._join_args()
        self.reports.append(_START)
        self.texts.append(name)
        return True

    def call_args(self, text: str) -> None:
        if text:
            if not self._args:
                self.reports.append(_ARGS)
                self.texts.append("")  # (joined from the fragments)
            self._args.append(text)

    def end_call(self) -> None:
        self._join_args()
        self.reports.append(_END)
        self.texts.append("")

    def content(self, text: str) -> None:
        if text:
            self._join_args()
            self.reports.append(_CONTENT)
            self.texts.append(text)

    def problem(self, message: str, *args: object) -> None:
        """Something in the call the server's log should show (logged once per kind when the output ends: see
        :mod:`..problems`)."""
        self._problems.note(message, *args)

    def take(self) -> list[tuple[Report, str]]:
        """The reports so far, in order, as (kind, text) pairs (the sink starts empty again)."""
        return list(zip(*self.take_lists(), strict=True))

    def take_lists(self) -> tuple[list[Report], list[str]]:
        """The reports so far: their kinds and their texts, in order (the sink starts empty again)."""
        self._join_args()
        reports, texts = self.reports, self.texts
        self.reports, self.texts = [], []
        return reports, texts

    def _join_args(self) -> None:
        if self._args:
            self.texts[-1] = "".join(self._args)
            self._args = []


class _MutedSink(CallSink):
    """The sink of a call that names no tool of the request: its reader reads on to the call's end (so that the
    whole call, tags inside its values included, comes back verbatim as text), and reports nothing."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(_no_name)

    def start_call(self, written: str, call_id: str | None = None) -> bool:
        return False

    def call_args(self, text: str) -> None:
        pass

    def end_call(self) -> None:
        pass

    def content(self, text: str) -> None:
        pass

    def problem(self, message: str, *args: object) -> None:
        pass  # (the call is text)


def _no_name(_: str) -> None:
    return None


#: where a reader reports once its call is known to name no tool (it keeps no state)
MUTED: Final = _MutedSink()


class CallReader(Protocol):
    """Reads the body of one call (or, for the key/value dialect, one whole block)."""

    done: bool
    failed: bool
    #: (once done) the call ended at markup that also ends its block (the block never closed)
    ends_block: bool

    @property
    def announced(self) -> bool:
        """Whether the call was announced to the sink (before that, a failure returns the block as content). A
        call whose name names no tool is never announced: its reader reads it to its end, reporting nothing, and
        stops done but not announced (the block is then text, verbatim)."""
        ...

    def feed(self, cur: Cursor, pos: int) -> int:
        """Read from ``cur.text[pos:]``; return how far it got. Stops at completion, at failure, or to wait for text."""
        ...

    def feed_fast(self, text: str) -> str | None:
        """When all of ``text`` only continues a string value being streamed, with nothing to decide: the argument
        text it adds to the call (the reader's state does not change; the caller emits it). Otherwise None, and the
        caller uses :meth:`feed`. Only called with nothing held back."""
        ...

    def feed_fast_line(self, text: str) -> str | None:
        """As :meth:`feed_fast`, for ``text`` that ends in a line break its value holds back (what follows decides
        whether it is the value's or markup before a closing tag): the argument text of ``text`` but that line break,
        which the caller keeps unread. None: the caller uses :meth:`feed`."""
        ...

    def close(self) -> None:
        """The input ended or the block broke off: finish an announced call with valid JSON arguments."""
        ...


class CallProgress:
    """What every reader keeps of its call the same way (:class:`CallReader`'s flags): done or failed, whether the
    call ended its block, and whether it was announced (a call naming no tool is read to its end, never announced)."""

    def __init__(self) -> None:
        self.done = False
        self.failed = False
        self.ends_block = False
        self._announced = False  # the name was read (the call is announced unless it names no tool)
        self._unknown = False  # the name names no tool of the request: the call is read on, reporting nothing

    @property
    def announced(self) -> bool:
        return self._announced and not self._unknown

    def feed_fast_line(self, text: str) -> str | None:
        return None  # (a reader whose values hold back no line break)
