"""With our two parsers, vLLM's ``Parser.parse_delta`` asks only the reasoning stage while reasoning lasts, and the tool
stage from the delta where it ends on, and what it serves is still the core's one-pass reading.

The reasoning parser reads the reasoning with the tool parser's stream and hands that stream over where the core
leaves reasoning: the tool stage (``extract_tool_calls_streaming``, and vLLM's per-call metric around it) is not called
for a delta the core reads as reasoning only.
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_support import CASES, TOOLS, Case, Result, build_tokenizer, chat_request, chunks, core_result, stream_result

from longcat_plugins.core import ParserOptions, Reasoning, StreamParser

pytestmark = pytest.mark.vllm

GROUPS = (1, 2, 3, 7, 64)
WEATHER_XML = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>"

REASONING_CASES = [case for case in CASES if case.reasoning_open] + [
    Case("long_reasoning_then_text", "Let me think. " * 40 + "</think>\n\nThe answer.", reasoning_open=True),
    Case("reasoning_to_the_end", "Still thinking about <b>it</b> and more " * 8, reasoning_open=True),
    Case("reopened", "plan</think>Hello<think>second thought</think>Final", reasoning_open=True),
    Case(
        "call_ends_reasoning_then_reopens",
        "plan" + WEATHER_XML + "\n<think>and now?</think>Sunny in Paris.",
        reasoning_open=True,
    ),
    Case("call_then_reopened_not_closed", "plan</think>" + WEATHER_XML + "<think>unfinished", reasoning_open=True),
    Case("ends_with_a_split_tag", "plan</thi", reasoning_open=True),
]


@pytest.fixture(scope="module")
def tokenizer() -> Any:
    return build_tokenizer()


def _parser(tokenizer: Any, case: Case, request: Any, tool_parser: str = "longcat") -> Any:
    from vllm.parser.parser_manager import ParserManager

    cls = ParserManager.get_parser(
        tool_parser_name=tool_parser,
        reasoning_parser_name="longcat",
        enable_auto_tools=True,
        model_name="longcat-test",
        tokenizer=tokenizer,
    )
    return cls(tokenizer, request.tools, chat_template_kwargs=case.template_kwargs)


def _reasoning_only_deltas(pieces: list[tuple[str, list[int]]], case: Case) -> int:
    """How many deltas from the start the core reads as reasoning only (the tool stage has nothing to do there)."""
    stream = StreamParser(TOOLS, ParserOptions(reasoning_open=case.reasoning_open))
    for i, (text, _) in enumerate(pieces):
        events = stream.feed(text)
        if not stream.in_reasoning or any(type(e) is not Reasoning for e in events):
            return i
    return len(pieces)


def _stream(
    tokenizer: Any, case: Case, group: int, monkeypatch: pytest.MonkeyPatch, **request_kwargs: Any
) -> tuple[Result, list[int], int]:
    """The streamed result, the deltas the tool stage was asked for (counted at vLLM's own per-call metric), and
    how many deltas the core reads as reasoning only."""
    import vllm.parser.abstract_parser as serving_parsers

    request = chat_request(stream=True, **request_kwargs)
    parser = _parser(tokenizer, case, request)
    pieces = chunks(tokenizer, tokenizer.encode(case.output), group)
    asked: list[int] = []
    current = [0]
    record = serving_parsers.record_tool_parser_invocation

    def counted(*args: Any, **kwargs: Any) -> Any:
        asked.append(current[0])
        return record(*args, **kwargs)

    monkeypatch.setattr(serving_parsers, "record_tool_parser_invocation", counted)
    prompt_ids = tokenizer.encode(case.prompt)
    deltas = []
    for i, (text, ids) in enumerate(pieces):
        current[0] = i
        last = i == len(pieces) - 1
        deltas.append(parser.parse_delta(text, ids, request, prompt_token_ids=prompt_ids, finished=last))
    monkeypatch.setattr(serving_parsers, "record_tool_parser_invocation", record)
    return stream_result(deltas), asked, _reasoning_only_deltas(pieces, case)


@pytest.mark.parametrize("group", GROUPS)
@pytest.mark.parametrize("case", REASONING_CASES, ids=[c.name for c in REASONING_CASES])
def test_the_tool_stage_is_not_asked_inside_reasoning(
    tokenizer: Any, case: Case, group: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    streamed, asked, reasoning_only = _stream(tokenizer, case, group, monkeypatch)
    assert reasoning_only > 0 or group > 1
    assert [i for i in asked if i < reasoning_only] == []
    assert streamed.normalized() == core_result(case).normalized()


def test_the_tool_stage_takes_over_where_reasoning_ends(tokenizer: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every delta from the end of reasoning on is the tool stage's, once each."""
    case = REASONING_CASES[0]  # prefilled_reasoning_then_xml
    streamed, asked, reasoning_only = _stream(tokenizer, case, 1, monkeypatch)
    pieces = chunks(tokenizer, tokenizer.encode(case.output), 1)
    assert 0 < reasoning_only < len(pieces)
    assert asked == list(range(reasoning_only, len(pieces)))
    assert streamed.normalized() == core_result(case).normalized()


@pytest.mark.parametrize("case", REASONING_CASES[:3], ids=[c.name for c in REASONING_CASES[:3]])
def test_tool_choice_none_reads_reasoning_in_the_reasoning_stage(
    tokenizer: Any, case: Case, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With calls off, the hand-over serves the calls' text verbatim as content, as the core reads it."""
    streamed, asked, reasoning_only = _stream(tokenizer, case, 2, monkeypatch, tool_choice="none")
    assert [i for i in asked if i < reasoning_only] == []
    from longcat_plugins.core import parse

    core = parse(case.output, TOOLS, ParserOptions(tools=False, reasoning_open=True))
    assert (streamed.content, streamed.reasoning, streamed.calls) == (core.content, core.reasoning, [])


def test_an_output_that_starts_outside_reasoning_is_the_tool_stage_s(
    tokenizer: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = next(c for c in CASES if c.name == "reasoning_then_tools")  # the model opens reasoning itself
    streamed, asked, _ = _stream(tokenizer, case, 2, monkeypatch)
    pieces = chunks(tokenizer, tokenizer.encode(case.output), 2)
    assert asked == list(range(len(pieces)))
    assert streamed.normalized() == core_result(case).normalized()


def test_a_forced_call_vllm_parses_itself_keeps_the_whole_output_reading(
    tokenizer: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without structural tags vLLM parses a forced call itself and never asks our tool parser: the reasoning parser
    does not read with its stream (the serving layer is told reasoning has ended at the prompt; vLLM 0.32, which
    asked before handing the prompt over, is handed the whole output at the first delta), as before."""
    from vllm.tool_parsers.abstract_tool_parser import ToolParser

    monkeypatch.setattr(ToolParser, "supports_required_and_named", True)
    from longcat_plugins.vllm.tool_parser import LongcatToolParser

    monkeypatch.setattr(LongcatToolParser, "supports_required_and_named", True)
    case = REASONING_CASES[0]
    request = chat_request(stream=True, tool_choice="required")
    parser = _parser(tokenizer, case, request)
    prompt_ids = tokenizer.encode(case.prompt)
    parser.parse_delta("I need", tokenizer.encode("I need"), request, prompt_token_ids=prompt_ids, finished=False)
    assert not parser.reasoning_parser.hands_over
    assert parser.tool_parser._stream is None


def test_asked_outside_parse_delta_the_tool_parser_reads_the_whole_output(tokenizer: Any) -> None:
    """A serving layer that asks without naming the request (not through ``Parser.parse_delta``) is told that
    reasoning has ended at the prompt: the tool parser then reads the whole output, from where the prompt left it."""
    case = REASONING_CASES[0]
    request = chat_request(stream=True)
    parser = _parser(tokenizer, case, request)
    prompt_ids = tokenizer.encode(case.prompt)
    parser.reasoning_parser.set_prompt_token_ids(prompt_ids)  # (as vLLM 0.33 and later forward it)
    assert parser.is_reasoning_end(prompt_ids) is True
    ids = tokenizer.encode(case.output)
    deltas = [
        parser.tool_parser.extract_tool_calls_streaming("", "", t, [], [], i, request)
        for t, i in chunks(tokenizer, ids, 3)
    ]
    deltas.append(parser.tool_parser.finish_streaming())
    assert stream_result(deltas).normalized() == core_result(case).normalized()
