"""A stream run through a repair, for every API's stream repair (an object with ``feed(event) -> [event, ...]`` and
``finish() -> [event, ...]``): the events it sends for each event, then what it still holds when the stream ends."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class StreamRepair(Protocol):
    def feed(self, event: T) -> list[T]: ...

    def finish(self) -> list[Any]: ...


def drive(repair: StreamRepair, events: Iterable[T]) -> Iterator[T]:
    for event in events:
        yield from repair.feed(event)
    yield from repair.finish()


async def adrive(repair: StreamRepair, events: AsyncIterable[T]) -> AsyncIterator[T]:
    async for event in events:
        for out in repair.feed(event):
            yield out
    for out in repair.finish():
        yield out
