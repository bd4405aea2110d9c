"""The benchmark's SGLang side at toy sizes, through the real engine: the floor driven through
``FunctionCallParser.parse_stream_chunk`` (and the minimal reasoning detector through ``ReasoningParser``), and the
per-request benchmark (no timing is asserted)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from benchmarks import per_request, sglang_part
from benchmarks.cases import agent_case, huge_case
from benchmarks.sglang_floors import END_TAG, FLOOR, NoopDetector
from benchmarks.tokens import load_tokenizer, token_deltas


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    path = tmp_path_factory.mktemp("tok")
    patch = pytest.MonkeyPatch()
    patch.setenv("LONGCAT_BENCH_TOKENIZER", str(path))
    sglang_part.setup()
    yield load_tokenizer(path)
    patch.undo()


def _fold(tokenizer: Any, reasoning: bool, text: str) -> tuple[str, str, Any]:
    from sglang.srt.entrypoints.openai.protocol import Tool
    from sglang.srt.function_call.function_call_parser import FunctionCallParser
    from sglang.srt.parser.reasoning_parser import ReasoningParser

    from benchmarks.workloads import WRITE_FILE_TOOL

    parser = FunctionCallParser(tools=[Tool(**WRITE_FILE_TOOL)], tool_call_parser=FLOOR)
    thinker = ReasoningParser(FLOOR, stream_reasoning=True) if reasoning else None
    content: list[str] = []
    thought: list[str] = []
    for delta, _ in token_deltas(tokenizer, text, min_chars=3):
        if thinker is not None:
            r, delta = thinker.parse_stream_chunk(delta)
            thought.append(r or "")
        normal, calls = parser.parse_stream_chunk(delta or "")
        assert not calls
        content.append(normal)
    return "".join(thought), "".join(content), parser


def test_floor_passes_the_text_through_the_engine(tokenizer: Any) -> None:
    text = huge_case("hermes_json", 600).text
    thought, content, parser = _fold(tokenizer, False, text)
    assert type(parser.detector) is NoopDetector
    assert content == text and not thought


def test_floor_splits_reasoning_at_the_end_tag(tokenizer: Any) -> None:
    text = agent_case("longcat_json", 4).text
    thought, content, _ = _fold(tokenizer, True, text)
    assert thought + END_TAG + content == text


def test_floor_spec_runs_and_is_unchecked(tokenizer: Any) -> None:
    specs = {spec.name: spec for spec in sglang_part.specs()}
    assert specs[sglang_part.FLOOR_NAME].role == "floor"
    case = agent_case("xml", 4)
    deltas = token_deltas(tokenizer, case.text, group=4)
    assert specs[sglang_part.FLOOR_NAME].make_runner(case)(deltas, float("inf"), True) is None


def test_per_request_at_toy_size(tokenizer: Any) -> None:
    rows = {c.name: per_request.measure(c, tokenizer, 6, 1) for c in sglang_part.request_contenders(tokenizer)}
    assert rows["ours"]["correct"] == "yes"
    assert rows[sglang_part.FLOOR_NAME]["correct"] == "n/a"
    assert {"qwen25 (built-in)", "hermes (built-in)", "qwen3_coder (built-in)"} <= set(rows)
    for row in rows.values():
        assert "startup_us" not in row and row["construct_new_us"] > 0 and row["stream_same_us"] > 0
