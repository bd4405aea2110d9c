"""Our parsers through SGLang's own entry points on the corpus of real model outputs (tests/real/cases.jsonl).

For every case, ``FunctionCallParser(tools, "longcat")`` (after ``ReasoningParser("longcat")``, or alone) chained as
``serving_chat`` chains them gives in one piece (``parse_non_stream``) and streamed (``parse_stream_chunk`` in 1-, 4-
and 7-character deltas and as one delta) exactly what the core gives for the case: the adapters add nothing and lose
nothing, whichever cases the core gets right. And per dialect ours gets at least as many cases right as each of
SGLang's built-in detectors (tests/real/score_engines.py).
"""

from __future__ import annotations

import pytest

from tests.real.score import load_cases
from tests.real.score_engines import SglangDriver, ours
from tests.support.twins.real import *  # noqa: F403 (the corpus tests, run on SglangDriver)

pytestmark = pytest.mark.sglang

CASES = load_cases()

DRIVER = SglangDriver


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
