"""Our parsers through SGLang's own entry points on the corpus of real model outputs (tests/real/cases.jsonl).

For every case, ``FunctionCallParser(tools, "longcat")`` (after ``ReasoningParser("longcat")``, or alone) chained as
``serving_chat`` chains them gives in one piece (``parse_non_stream``) and streamed (``parse_stream_chunk`` in 1-, 4-
and 7-character deltas and as one delta) exactly what the core gives for the case: the adapters add nothing and lose
nothing, whichever cases the core gets right. And per dialect ours gets at least as many cases right as each of
SGLang's built-in detectors (tests/real/score_engines.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.real.score import load_cases
from tests.real.score_engines import (
    SglangDriver,
    behind,
    core_message,
    describe,
    differences,
    ours,
    run_case,
    score,
)

pytestmark = pytest.mark.sglang

CASES = load_cases()


@pytest.fixture(scope="module")
def drivers() -> Callable[[bool], SglangDriver]:
    made: dict[bool, SglangDriver] = {}

    def get(split_tags: bool) -> SglangDriver:
        if split_tags not in made:
            made[split_tags] = SglangDriver(split_tags=split_tags)
        return made[split_tags]

    return get


def _configurations() -> list[Any]:
    params = []
    for case in CASES:
        params.append(pytest.param(case, True, id=f"{case['id']}-with-reasoning-parser"))
        if not case.get("reasoning_open"):  # without a reasoning parser SGLang cannot know the prompt opened reasoning
            params.append(pytest.param(case, False, id=f"{case['id']}-tool-parser-alone"))
    return params


@pytest.mark.parametrize("split_tags", [False, True], ids=["special-tags", "split-tags"])
@pytest.mark.parametrize(("case", "with_reasoning"), _configurations())
def test_ours_through_sglang_gives_the_core_result(
    drivers: Callable[[bool], SglangDriver], case: dict[str, Any], with_reasoning: bool, split_tags: bool
) -> None:
    driver = drivers(split_tags)
    runs = run_case(driver, ours(driver.contenders), case, with_reasoning)
    found = differences(driver, core_message(case, with_reasoning), runs)
    assert not found, describe(found)


def test_ours_reads_as_many_cases_as_each_builtin_per_dialect(drivers: Callable[[bool], SglangDriver]) -> None:
    board = score(drivers(False), CASES)
    assert not behind(board), behind(board)


def test_detectors_are_what_sglang_builds() -> None:
    from sglang.srt.function_call.function_call_parser import FunctionCallParser
    from sglang.srt.function_call.qwen3_coder_detector import Qwen3CoderDetector
    from sglang.srt.parser.reasoning_parser import ReasoningParser

    from longcat_plugins.sglang.detector import LongcatDetector
    from longcat_plugins.sglang.reasoning import LongcatReasoningDetector

    driver = SglangDriver()
    case = next(c for c in CASES if c["tools"])
    reasoning, tools = driver.parsers(ours(driver.contenders), case, with_reasoning=True, stream=True)
    assert isinstance(tools, FunctionCallParser) and isinstance(tools.detector, LongcatDetector)
    assert isinstance(reasoning, ReasoningParser) and isinstance(reasoning.detector, LongcatReasoningDetector)
    coder = next(c for c in driver.contenders if c.tool_parser == "qwen3_coder")
    reasoning, tools = driver.parsers(coder, case, with_reasoning=False, stream=False)
    assert reasoning is None and type(tools.detector) is Qwen3CoderDetector
