"""The proxy's SSE reader on its own: events whole whatever the split of the bytes, each with its raw bytes."""

from __future__ import annotations

import pytest

from longcat_plugins.proxy.sse import EventTooLarge, FramingError, SSEReader

STREAM = (
    b": keep-alive\n\n"
    b'data: {"a": 1}\n\n'
    b"id: 7\r\ndata: first\r\ndata: second\r\n\r\n"
    b"event: error\ndata: {}\n\n"
    b"data:[DONE]\n\n"
)


def read(pieces: list[bytes], cap: int = 1 << 20) -> tuple[list[tuple[str | None, bytes]], SSEReader]:
    reader = SSEReader(cap)
    events = []
    for piece in pieces:
        events += [(e.data, e.raw) for e in reader.feed(piece)]
    return events, reader


@pytest.mark.parametrize("size", [1, 2, 3, 7, len(STREAM)])
def test_events_whatever_the_split(size: int) -> None:
    events, reader = read([STREAM[i : i + size] for i in range(0, len(STREAM), size)])
    assert reader.error is None and reader.close() is None
    assert [data for data, _ in events] == [None, '{"a": 1}', "first\nsecond", "{}", "[DONE]"]
    assert b"".join(raw for _, raw in events) == STREAM


def test_an_event_without_its_blank_line_at_the_end() -> None:
    events, reader = read([b'data: {"a": 1}\n\ndata: {"b"', b": 2}"])
    assert [data for data, _ in events] == ['{"a": 1}']
    last = reader.close()
    assert last is not None and (last.data, last.raw) == ('{"b": 2}', b'data: {"b": 2}')


def test_a_line_that_is_no_field_stops_the_reader_with_what_it_holds() -> None:
    events, reader = read([b"data: 1\n\ndata: 2\n", b'{"raw": "json"}\n\ndata: 3\n\n'])
    assert [data for data, _ in events] == ["1"]
    assert isinstance(reader.error, FramingError) and "raw" not in str(reader.error)
    assert reader.pending() == b'data: 2\n{"raw": "json"}\n\ndata: 3\n\n'


def test_bytes_that_are_not_utf8() -> None:
    _, reader = read([b"data: \xff\xfe\n\n"])
    assert isinstance(reader.error, FramingError)


def test_an_event_over_the_cap() -> None:
    events, reader = read([b"data: 1\n\n" + b"data: " + b"x" * 2000], cap=1024)
    assert [data for data, _ in events] == ["1"]
    assert isinstance(reader.error, EventTooLarge)
    _, reader = read([b"x" * 600, b"y" * 600], cap=1024)  # no newline at all
    assert isinstance(reader.error, EventTooLarge)
