"""The grammar walk (:mod:`tests.token_loop.grammar_walk`, the scaled run's sampler) in CI: a smoke of it on Qwen's
real vocabulary, and proof that it reports what it is there to find."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.token_loop.grammar_walk import Cell, Walker, cells, setup

#: the smoke's model: Hermes JSON on Qwen2/3's vocabulary, whose template reasons (thinking on and off)
MODEL = "qwen3-vocab"
PER_CELL = 12


@pytest.fixture(scope="module")
def walker() -> Iterator[Walker]:
    setup()
    with tempfile.TemporaryDirectory(prefix="longcat-grammar-walk-") as tmp:
        started = Walker(MODEL, Path(tmp))
        try:
            yield started
        finally:
            started.close()


def test_walked_forced_calls_are_valid(walker: Walker) -> None:
    """Every cell (required and named, strict and not, thinking on and off): every finished walk is a valid call,
    a quarter of them streamed too, and most walks finish within ``max_tokens``."""
    problems: list[str] = []
    calls = finished = 0
    for cell in cells(MODEL):
        tally = walker.run(cell, PER_CELL, stream_every=4)
        print(tally.row(cell.label))
        problems += tally.problems
        calls, finished = calls + tally.calls, finished + tally.finished
    assert not problems, "\n".join(problems[:20])
    assert calls == PER_CELL * len(cells(MODEL)) and finished >= calls // 2, (finished, calls)


@pytest.mark.parametrize("choice", ["required", "named"])
def test_a_grammar_not_told_the_schema_is_caught(walker: Walker, choice: str) -> None:
    """Both ways: the same cell with tools whose parameters the grammar knows only as "an object" (the checks still
    hold the calls to the real schemas) reports invalid calls; told the schemas, it reports none."""
    cell = Cell(MODEL, choice, True, False)
    broken = walker.run(cell, 12, broken=True, stream_every=0)
    # (an object of any keys is long: a third of the walks finish within max_tokens; each draw is seeded)
    assert broken.invalid >= 2 and broken.invalid >= broken.finished // 2, broken.row(cell.label)
    told = walker.run(cell, 12, stream_every=0)
    assert told.invalid == 0, "\n".join(told.problems)
