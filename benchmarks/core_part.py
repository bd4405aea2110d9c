"""The core part: our engine-free parser alone, and the floor, on the benchmark's token streams.

Two floors: ``floor`` (a method call per delta and a look for '<': the least any incremental parser costs; the
target "within 10x of the floor" is against it), and ``floor + one event`` (the same, returning one event per delta
with the delta's text, folded by the harness as ours' events are: the least a parser that reports what it read
costs, and the same harness cost ours pays).

python -m benchmarks.core_part [--out build/bench/core.json]
"""

from __future__ import annotations

from functools import partial
from typing import Any

from longcat_plugins.core import (
    Content,
    Event,
    ParserOptions,
    Reasoning,
    StreamParser,
    ToolCallArgs,
    ToolCallStart,
)

from .cases import Case
from .core_floors import EmittingFloorParser, FloorParser
from .measure import Folded, Runner, blocks
from .parsers import ParserSpec
from .part import arguments, run_part
from .tokens import Delta
from .workloads import DIALECTS


def core_runner(case: Case) -> Runner:
    options = ParserOptions(reasoning=case.reasoning_parser)
    tools = case.tools

    def run(deltas: list[Delta], deadline: float, keep: bool) -> Folded | None:
        parser = StreamParser(tools, options)
        feed = parser.feed
        folded = Folded()
        add = partial(fold_events, folded) if keep else _drop
        for block in blocks(deltas, deadline):
            for text, _ in block:
                add(feed(text))
        add(parser.finish())
        return folded if keep else None

    return run


def _drop(_: Any) -> None:
    pass


def fold_events(folded: Folded, events: list[Event]) -> None:
    for event in events:
        kind = type(event)
        if kind is ToolCallArgs:
            folded.call(event.index, None, event.text)  # type: ignore[attr-defined]
        elif kind is Content:
            folded.content.append(event.text)  # type: ignore[attr-defined]
        elif kind is Reasoning:
            folded.reasoning.append(event.text)  # type: ignore[attr-defined]
        elif kind is ToolCallStart:
            folded.call(event.index, event.name, None)  # type: ignore[attr-defined]


def floor_runner(case: Case) -> Runner:
    def run(deltas: list[Delta], deadline: float, keep: bool) -> Folded | None:
        feed = FloorParser().feed
        for block in blocks(deltas, deadline):
            for text, _ in block:
                feed(text)
        return None

    return run


def emitting_floor_runner(case: Case) -> Runner:
    def run(deltas: list[Delta], deadline: float, keep: bool) -> Folded | None:
        feed = EmittingFloorParser().feed
        folded = Folded()
        add = partial(fold_events, folded) if keep else _drop
        for block in blocks(deltas, deadline):
            for text, _ in block:
                add(feed(text))
        return None

    return run


SPECS = [
    ParserSpec("ours (core)", DIALECTS, core_runner, role="ours"),
    ParserSpec("floor", DIALECTS, floor_runner, memory=False, role="floor"),
    ParserSpec("floor + one event", DIALECTS, emitting_floor_runner, memory=False, role="no-op"),
]


def main() -> None:
    args = arguments("core")
    run_part("core", SPECS, args, {})


if __name__ == "__main__":
    main()
