"""Server-sent events as an OpenAI-compatible chat stream frames them, read incrementally from raw bytes.

Bytes go in as they arrive; whole events come out, each with its raw bytes (so that what cannot be repaired can be
passed on verbatim). Only what a chat-completion stream needs is read: ``data:`` fields (several are joined by a
newline), comments, and the ``event:``, ``id:`` and ``retry:`` fields, which are kept but not interpreted. Anything
else (a line that is no SSE field, bytes that are not UTF-8) is a :class:`FramingError`. An event's raw bytes are
held only until its blank line, and never more than ``max_event_bytes`` of them (:class:`EventTooLarge`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: the fields of the SSE format; any other line (not a comment) is not SSE
FIELDS = frozenset({"data", "event", "id", "retry"})


class SSEError(Exception):
    """The upstream's stream cannot be read as server-sent events."""


class FramingError(SSEError):
    """A line that is no SSE field, or an event that is not UTF-8 text."""


class EventTooLarge(SSEError):
    """One event is larger than the cap."""


@dataclass
class Event:
    """One event: ``raw`` holds its bytes as received (blank line included), ``data`` its joined data lines (None
    for an event without a data field, e.g. a comment), ``fields`` the names of its other fields, ``name`` the value
    of its ``event:`` field (None without one; the Responses and Messages APIs name every event)."""

    raw: bytes
    data: str | None = None
    fields: set[str] = field(default_factory=set)
    name: str | None = None


class SSEReader:
    """``feed(bytes) -> list[Event]``, then ``close() -> Event | None`` (an event the stream ended in, without its
    blank line). A problem sets :attr:`error` (``feed`` still returns the events before it); from then on the
    reader must not be fed: :meth:`pending` is what it holds from the start of the event it failed on, and the rest
    of the input is the caller's."""

    def __init__(self, max_event_bytes: int) -> None:
        self.max_event_bytes = max_event_bytes
        self._buffer = bytearray()  # bytes of the event being read (lines done and the partial line)
        self._scanned = 0  # where in _buffer the next line starts
        self._data: list[str] = []
        self._fields: set[str] = set()
        self._name: str | None = None
        self.error: SSEError | None = None

    def pending(self) -> bytes:
        """The raw bytes received and not yet returned in an event."""
        return bytes(self._buffer)

    def feed(self, chunk: bytes) -> list[Event]:
        self._buffer += chunk
        events: list[Event] = []
        try:
            self._scan(events)
        except SSEError as e:
            self.error = e
        return events

    def _scan(self, events: list[Event]) -> None:
        while True:
            end = self._buffer.find(b"\n", self._scanned)
            if end < 0:
                break
            line = bytes(self._buffer[self._scanned : end])
            self._scanned = end + 1
            if line.endswith(b"\r"):
                line = line[:-1]
            if line:
                self._read_line(line)
                continue
            raw = bytes(self._buffer[: self._scanned])
            del self._buffer[: self._scanned]
            self._scanned = 0
            events.append(self._take(raw))
        if len(self._buffer) > self.max_event_bytes:
            raise EventTooLarge(f"an event is larger than {self.max_event_bytes} bytes")

    def close(self) -> Event | None:
        """At the end of the input: the event it ended in (no blank line after it), or None (also after a
        problem with that event's last line: :attr:`error`)."""
        if not self._buffer:
            return None
        if self._scanned < len(self._buffer):
            line = bytes(self._buffer[self._scanned :])
            try:
                self._read_line(line.removesuffix(b"\r"))
            except SSEError as e:
                self.error = e
                return None
        raw = bytes(self._buffer)
        self._buffer.clear()
        self._scanned = 0
        return self._take(raw)

    def _read_line(self, line: bytes) -> None:
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as e:
            raise FramingError(f"a line is not UTF-8 ({e.reason} at byte {e.start})") from None
        if text.startswith(":"):
            return
        name, _, value = text.partition(":")
        if name not in FIELDS:
            raise FramingError(f"a line of {len(line)} bytes is not an SSE field")
        value = value.removeprefix(" ")
        if name == "data":
            self._data.append(value)
            return
        self._fields.add(name)
        if name == "event":
            self._name = value

    def _take(self, raw: bytes) -> Event:
        event = Event(raw, "\n".join(self._data) if self._data else None, self._fields, self._name)
        self._data = []
        self._fields = set()
        self._name = None
        return event


def encode_event(data: bytes, name: str | None = None) -> bytes:
    """One event with ``data`` (one line: JSON text) and, when given, its ``event:`` name."""
    head = b"event: " + name.encode("utf-8") + b"\n" if name is not None else b""
    return head + b"data: " + data + b"\n\n"
