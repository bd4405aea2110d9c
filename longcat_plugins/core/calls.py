"""The log of the calls of one output: ids, names and argument fragments, in call order.

The parser keeps one (its ``calls``, which the vLLM adapter asks); the SGLang adapter, which must answer "what was
streamed for call i" (``prev_tool_call_arr``), folds the events into one of its own with
:meth:`CallLog.record`.
"""

from __future__ import annotations

from collections.abc import Iterable

from .events import Event, ToolCallArgs, ToolCallStart


class CallLog:
    """Calls announced so far and the argument text streamed for each (fragments joined only when read)."""

    __slots__ = ("fragments", "ids", "names")

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.names: list[str] = []
        self.fragments: list[list[str]] = []

    def __len__(self) -> int:
        return len(self.names)

    def start(self, call_id: str, name: str) -> int:
        self.ids.append(call_id)
        self.names.append(name)
        self.fragments.append([])
        return len(self.names) - 1

    def withdraw_last(self) -> None:
        """Forget the last call (one cut where the output ended, not reported as a call)."""
        self.ids.pop()
        self.names.pop()
        self.fragments.pop()

    def add(self, index: int, text: str) -> None:
        self.fragments[index].append(text)

    def arguments(self, index: int) -> str:
        """The arguments streamed so far for call ``index``."""
        parts = self.fragments[index]
        if len(parts) > 1:
            parts[:] = ["".join(parts)]
        return parts[0] if parts else ""

    def record(self, events: Iterable[Event]) -> None:
        """Fold the call events of a batch into the log."""
        for event in events:
            if isinstance(event, ToolCallArgs):
                self.fragments[event.index].append(event.text)
            elif isinstance(event, ToolCallStart):
                self.start(event.id, event.name)
