"""Invariant 4 (linear time), as a scaling check: streaming 4x the text costs about 4x, never quadratically more.

No absolute times: each workload is timed at 1x and 4x (best of several runs) and the ratio must stay under 6,
where a parser that re-scans its accumulated text (the fault of the engines' built-ins) would show ~16. Each
workload is measured up to three times before it counts as failed, so that a busy machine cannot fail it alone.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from benchmarks.workloads import (
    WRITE_FILE_TOOL,
    chunks,
    json_call,
    json_many_params,
    many_params_tool,
    xml_call,
    xml_many_params,
)
from longcat_plugins.core import StreamParser

MAX_RATIO = 6.0


def _cost(text: str, tools: list[object], repeat: int = 5) -> float:
    deltas = chunks(text, 4)
    best = float("inf")
    for _ in range(repeat):
        parser = StreamParser(tools)
        t0 = time.perf_counter()
        for d in deltas:
            parser.feed(d)
        parser.finish()
        best = min(best, time.perf_counter() - t0)
    return best


WORKLOADS: dict[str, tuple[Callable[[int], str], Callable[[int], list[object]], int]] = {
    "json-huge-string": (json_call, lambda n: [WRITE_FILE_TOOL], 32_768),
    "hermes-huge-string": (lambda n: json_call(n, "tool_call"), lambda n: [WRITE_FILE_TOOL], 32_768),
    "xml-huge-string": (xml_call, lambda n: [WRITE_FILE_TOOL], 32_768),
    "xml-many-params": (xml_many_params, lambda n: [many_params_tool(n)], 1000),
    "json-many-params": (json_many_params, lambda n: [many_params_tool(n)], 1000),
}


@pytest.mark.parametrize("workload", sorted(WORKLOADS))
def test_cost_grows_linearly(workload: str) -> None:
    make, tools, size = WORKLOADS[workload]
    small_text, large_text = make(size), make(4 * size)
    ratios = []
    for _ in range(3):  # a busy machine can slow one measurement; a quadratic parser fails all three
        ratio = _cost(large_text, tools(4 * size)) / _cost(small_text, tools(size))
        if ratio < MAX_RATIO:
            return
        ratios.append(ratio)
    pytest.fail(f"{workload}: 4x input cost {min(ratios):.1f}x the 1x cost (linear: 4x)")


#: One large delta (a whole output parsed at once) full of '<' that start no tag, or only a tag's prefix: the tag
#: matcher looks at no more than the longest tag's length of text after each '<'.
ANGLE_PATTERNS = ["<", "a<", "<longc", "<tool_call>x", "<function=", "<think", "</tool_call>"]


def _whole_cost(text: str, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        parser = StreamParser()
        t0 = time.perf_counter()
        parser.feed(text)
        parser.finish()
        best = min(best, time.perf_counter() - t0)
    return best


@pytest.mark.parametrize("pattern", ANGLE_PATTERNS)
def test_one_large_delta_of_angle_brackets_costs_linear_time(pattern: str) -> None:
    size = 32_768
    small, large = pattern * (size // len(pattern)), pattern * (4 * size // len(pattern))
    ratios = []
    for _ in range(3):
        ratio = _whole_cost(large) / _whole_cost(small)
        if ratio < MAX_RATIO:
            return
        ratios.append(ratio)
    pytest.fail(f"{pattern!r}: 4x the text cost {min(ratios):.1f}x (linear: 4x)")


def _count_per_chunk(tokens: int) -> float:
    """Usage streamed with every chunk: the reasoning tokens of all ids so far, asked after every new id."""
    from longcat_plugins.core.reasoning_tokens import ReasoningTokenCounter

    texts = {0: "<think>", 1: "</think>", 2: "plan ", 3: "<", 4: "b"}
    ids = [0] + [2, 3, 4] * (tokens // 3) + [1, 2]
    best = float("inf")
    for _ in range(3):
        counter = ReasoningTokenCounter(texts.__getitem__, reasoning_open=False)
        t0 = time.perf_counter()
        for k in range(1, len(ids) + 1):
            counter.count(ids[:k] if k < 64 else _Prefix(ids, k))
        best = min(best, time.perf_counter() - t0)
    return best


class _Prefix:
    """``ids[:k]`` without the copy (vLLM hands over its growing list; copying it would be the test's own cost)."""

    def __init__(self, ids: list[int], k: int) -> None:
        self._ids, self._k = ids, k

    def __len__(self) -> int:
        return self._k

    def __getitem__(self, item: int | slice) -> object:
        if isinstance(item, slice):
            return self._ids[item.start : self._k]
        return self._ids[item if item >= 0 else self._k + item]


def test_reasoning_token_count_per_chunk_grows_linearly() -> None:
    """vLLM asks ``count_reasoning_tokens(all ids so far)`` on every chunk when usage is streamed with each one:
    the count must cost the new ids only."""
    ratios = []
    for _ in range(3):
        ratio = _count_per_chunk(4 * 6000) / _count_per_chunk(6000)
        if ratio < MAX_RATIO:
            return
        ratios.append(ratio)
    pytest.fail(f"counting reasoning tokens per chunk is not linear: 4x the tokens cost {min(ratios):.1f}x")
