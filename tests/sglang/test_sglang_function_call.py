"""``FunctionCallParser(tools, "longcat")``: one-shot and streamed parsing agree with each other and with the core."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sglang.srt.entrypoints.openai.protocol import Tool
from sglang.srt.function_call.function_call_parser import FunctionCallParser
from sglang_cases import CASES, LONG_CASES, TOOLS, Case
from sglang_support import chunks, split_at, stream_tool_parser

from longcat_plugins.core import Content, ParserOptions, ToolCallArgs, parse
from longcat_plugins.sglang.detector import LongcatDetector

pytestmark = pytest.mark.sglang

SGLANG_TOOLS = [Tool.model_validate(t) for t in TOOLS]
CHUNK_SIZES = [1, 4, 64, None]


def new_parser() -> FunctionCallParser:
    return FunctionCallParser(SGLANG_TOOLS, "longcat")


def core_summary(text: str) -> tuple[str, list[tuple[str, str]]]:
    message = parse(text, TOOLS, ParserOptions(reasoning=False))
    return message.content, [(c.name, c.arguments) for c in message.tool_calls]


def test_registered_detector() -> None:
    assert FunctionCallParser.ToolCallParserEnum["longcat"] is LongcatDetector
    assert isinstance(new_parser().detector, LongcatDetector)


@pytest.mark.parametrize("size", CHUNK_SIZES, ids=lambda s: f"chunk{s or '-whole'}")
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_streaming_equals_core(case: Case, size: int | None) -> None:
    parser = new_parser()
    folded = stream_tool_parser(parser, chunks(case.text, size))
    assert folded.summary() == core_summary(case.text)
    for call in folded.calls:
        assert isinstance(json.loads(call.arguments), dict), call
    if case.calls is not None:
        assert [(c.name, json.loads(c.arguments)) for c in folded.calls] == list(case.calls)
    if case.content is not None:
        assert folded.content == case.content


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_non_streaming_equals_core(case: Case) -> None:
    parser = new_parser()
    content, items = parser.parse_non_stream(case.text)
    calls = [(item.name, item.parameters) for item in items]
    assert [item.tool_index for item in items] == list(range(len(items)))
    if parser.has_tool_call(case.text):
        assert (content, calls) == core_summary(case.text)
    else:  # SGLang hands text without call markup back untouched
        assert (content, calls) == (case.text, [])
        assert core_summary(case.text) == (case.text, [])


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_end_of_stream_bookkeeping(case: Case) -> None:
    """What SGLang's end-of-stream check compares: every call recorded, and recorded as fully streamed."""
    parser = new_parser()
    folded = stream_tool_parser(parser, chunks(case.text, 4))
    detector = parser.detector
    assert detector.prev_tool_call_arr == [{"name": c.name, "arguments": c.arguments} for c in folded.calls]
    assert detector.streamed_args_for_tool == [c.arguments for c in folded.calls]


def test_whole_text_emits_every_call_in_its_chunk() -> None:
    """Several complete calls in one chunk (speculative decoding, stream intervals) all come out at once."""
    case = next(c for c in CASES if c.id == "json-longcat-two-calls-and-text")
    parser = new_parser()
    text, items = parser.parse_stream_chunk(case.text)
    assert [(i.tool_index, i.name) for i in items if i.name] == [(0, "get_weather"), (1, "write_file")]
    args: dict[int, str] = {}
    for item in items:
        args[item.tool_index] = args.get(item.tool_index, "") + item.parameters
    assert {i: json.loads(a) for i, a in args.items()} == {
        0: {"city": "Oslo"},
        1: {"path": "a.txt", "content": "x"},
    }
    end_text, end_items = parser.parse_stream_end()
    assert end_items == []
    assert text + end_text == core_summary(case.text)[0]


def test_call_completed_by_one_chunk_among_others() -> None:
    prefix = 'Hi <longcat_tool_call>\n{"name": "get_weather", '
    rest = '"arguments": {"city": "Oslo"}}\n</longcat_tool_call><longcat_tool_call>{"name": "get_weather", '
    tail = '"arguments": {"city": "Rome"}}</longcat_tool_call>'
    parser = new_parser()
    folded = stream_tool_parser(parser, [prefix, rest, tail])
    assert [(c.name, json.loads(c.arguments)) for c in folded.calls] == [
        ("get_weather", {"city": "Oslo"}),
        ("get_weather", {"city": "Rome"}),
    ]
    assert folded.per_step[1][:1] == [0] and 1 in folded.per_step[1]  # chunk 2 closes call 0 and opens call 1


def test_string_argument_streams_before_the_call_closes() -> None:
    head = '<longcat_tool_call>\n{"name": "write_file", "arguments": {"path": "a", "content": "'
    parser = new_parser()
    parser.parse_stream_chunk(head)
    streamed = ""
    for piece in chunks("x" * 400, 4):
        _, items = parser.parse_stream_chunk(piece)
        streamed += "".join(i.parameters for i in items)
    assert streamed.count("x") >= 390  # nothing waits for the closing quote beyond a bounded hold-back


def test_truncated_call_is_closed_with_valid_json() -> None:
    parser = new_parser()
    folded = stream_tool_parser(
        parser, chunks('<longcat_tool_call>\n{"name": "write_file", "arguments": {"path": "a.p', 4)
    )
    assert [c.name for c in folded.calls] == ["write_file"]
    assert json.loads(folded.calls[0].arguments) == {"path": "a.p"}


def test_a_request_without_tools_gets_the_text_verbatim() -> None:
    parser = FunctionCallParser([], "longcat")
    text = 'Now: <longcat_tool_call>{"name": "get_time", "arguments": {}}</longcat_tool_call>'
    content, items = parser.parse_non_stream(text)
    assert (content, items) == (text, [])
    folded = stream_tool_parser(FunctionCallParser([], "longcat"), chunks(text, 4))
    assert folded.summary() == (text, [])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_splits_equal_core(data: st.DataObject) -> None:
    case = data.draw(st.sampled_from(LONG_CASES))
    cuts = data.draw(st.lists(st.integers(1, len(case.text) - 1), max_size=40))
    folded = stream_tool_parser(new_parser(), split_at(case.text, cuts))
    assert folded.summary() == core_summary(case.text)


@pytest.mark.parametrize(
    "event",
    [ToolCallArgs(0, '"abc'), ToolCallArgs(3, "}"), Content("text"), Content("")],
    ids=lambda e: f"{type(e).__name__}",
)
def test_single_event_result_equals_the_general_fold(event: object) -> None:
    """A chunk of one event takes a shorter way to its result: the same result, the same bookkeeping."""
    from longcat_plugins.core import ToolCallStart

    results = []
    for fold in (False, True):
        detector = LongcatDetector()
        detector._result([ToolCallStart(i, f"id{i}", "get_weather") for i in range(4)])
        results.append(detector._fold([event]) if fold else detector._result([event]))  # type: ignore[list-item]
        results.append([detector._log.arguments(i) for i in range(4)])
    assert results[0].model_dump() == results[2].model_dump()  # type: ignore[union-attr]
    assert results[1] == results[3]
