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
