"""Our parsers through vLLM's own composition: ``ParserManager.get_parser(...)`` -> ``Parser.parse_delta`` /
``Parser.parse``, fed by a real HF tokenizer in which some tags are single special tokens and others arrive split.

For every dialect and every stream-interval group size: streaming result == non-streaming result == core result.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from vllm_support import (
    CASES,
    GROUPS,
    SINGLE_TOKEN_TAGS,
    SPLIT_TAGS,
    TOOLS,
    Case,
    Result,
    assert_valid_arguments,
    build_tokenizer,
    chat_request,
    chunks,
    core_result,
    stream_result,
)

pytestmark = pytest.mark.vllm


@pytest.fixture(scope="module")
def tokenizer() -> Any:
    return build_tokenizer()


def _parser_cls(tokenizer: Any, reasoning: bool = True) -> Any:
    from vllm.parser.parser_manager import ParserManager

    return ParserManager.get_parser(
        tool_parser_name="longcat",
        reasoning_parser_name="longcat" if reasoning else None,
        enable_auto_tools=True,
        model_name="longcat-test",
        tokenizer=tokenizer,
    )


def _stream(tokenizer: Any, case: Case, group: int, reasoning: bool = True, **request_kwargs: Any) -> Result:
    request = chat_request(stream=True, **request_kwargs)
    parser = _parser_cls(tokenizer, reasoning)(tokenizer, request.tools, chat_template_kwargs=case.template_kwargs)
    prompt_ids = tokenizer.encode(case.prompt)
    token_ids = tokenizer.encode(case.output)
    pieces = chunks(tokenizer, token_ids, group)
    deltas = [
        parser.parse_delta(text, ids, request, prompt_token_ids=prompt_ids, finished=i == len(pieces) - 1)
        for i, (text, ids) in enumerate(pieces)
    ]
    return stream_result(deltas)


def _whole(tokenizer: Any, case: Case, reasoning: bool = True) -> Result:
    request = chat_request()
    parser = _parser_cls(tokenizer, reasoning)(tokenizer, request.tools, chat_template_kwargs=case.template_kwargs)
    parser.set_prompt_token_ids(tokenizer.encode(case.prompt))
    token_ids = tokenizer.encode(case.output)
    reasoning_text, content, calls = parser.parse(
        tokenizer.decode(token_ids, skip_special_tokens=False), request, True, token_ids
    )
    return Result(
        content=content or "",
        reasoning=reasoning_text or "",
        calls=[(c.name, c.arguments) for c in calls or []],
        ids=[c.id for c in calls or [] if c.id],
    )


def test_tokenizer_has_single_token_and_split_tags(tokenizer: Any) -> None:
    for tag in SINGLE_TOKEN_TAGS:
        assert len(tokenizer.encode(tag)) == 1, tag
    for tag in SPLIT_TAGS:
        assert len(tokenizer.encode(tag)) > 1, tag


def test_parser_resolves_to_ours(tokenizer: Any) -> None:
    from longcat_plugins.vllm.reasoning_parser import LongcatReasoningParser
    from longcat_plugins.vllm.tool_parser import LongcatToolParser

    parser = _parser_cls(tokenizer)(tokenizer, TOOLS)
    assert isinstance(parser.tool_parser, LongcatToolParser)
    assert isinstance(parser.reasoning_parser, LongcatReasoningParser)
    assert parser._stream_state.engine_based  # vLLM hands over deltas only and calls finish_streaming()


@pytest.mark.parametrize("group", GROUPS)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_streaming_equals_whole_equals_core(tokenizer: Any, case: Case, group: int) -> None:
    streamed = _stream(tokenizer, case, group)
    whole = _whole(tokenizer, case)
    core = core_result(case)
    assert streamed.normalized() == core.normalized()
    assert whole.normalized() == core.normalized()
    assert_valid_arguments(streamed)
    assert len(set(streamed.ids)) == len(streamed.calls)


@pytest.mark.parametrize("group", [1, 64])
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_tool_parser_alone(tokenizer: Any, case: Case, group: int) -> None:
    """Without --reasoning-parser, reasoning markup is plain content (vLLM sets skip_reasoning_parsing)."""
    if case.reasoning_open:
        pytest.skip("a pre-filled reasoning block needs the reasoning parser")
    streamed = _stream(tokenizer, case, group, reasoning=False)
    whole = _whole(tokenizer, case, reasoning=False)
    core = core_result(case, reasoning=False)
    assert streamed.normalized() == core.normalized()
    assert whole.normalized() == core.normalized()


#: a value's closing tag with other text after it on its line is value text; before a tag it ends the value
CLOSERS_IN_VALUES = [
    (
        Case(
            "xml_value_closing_tag_with_text_after_it",
            "<tool_call>\n<function=write_file>\n<parameter=path>\nrun.sh\n</parameter>\n<parameter=content>\n"
            'echo "</parameter> done"\n</parameter>\n</function>\n</tool_call>',
        ),
        [{"path": "run.sh", "content": 'echo "</parameter> done"'}],
    ),
    (
        Case(
            "xml_compact_values",
            "<tool_call><function=write_file><parameter=path>a</parameter><parameter=content>b</parameter>"
            "</function></tool_call>",
        ),
        [{"path": "a", "content": "b"}],
    ),
    (
        Case(
            "kv_value_closing_tag_with_text_after_it",
            "<longcat_tool_call>write_file\n<longcat_arg_key>path</longcat_arg_key>\n<longcat_arg_value>a.txt"
            "</longcat_arg_value>\n<longcat_arg_key>content</longcat_arg_key>\n<longcat_arg_value>"
            "</longcat_arg_value> and more</longcat_arg_value>\n</longcat_tool_call>\n<longcat_tool_call>write_file"
            "<longcat_arg_key>path</longcat_arg_key><longcat_arg_value>b</longcat_arg_value><longcat_arg_key>content"
            "</longcat_arg_key><longcat_arg_value>c</longcat_arg_value></longcat_tool_call>",
        ),
        [{"path": "a.txt", "content": "</longcat_arg_value> and more"}, {"path": "b", "content": "c"}],
    ),
]


@pytest.mark.parametrize("group", GROUPS)
@pytest.mark.parametrize(("case", "arguments"), CLOSERS_IN_VALUES, ids=[c.name for c, _ in CLOSERS_IN_VALUES])
def test_a_value_closing_tag_is_value_text_where_text_follows_it_on_its_line(
    tokenizer: Any, case: Case, arguments: list[dict[str, str]], group: int
) -> None:
    streamed = _stream(tokenizer, case, group)
    whole = _whole(tokenizer, case)
    assert [(name, json.loads(args)) for name, args in streamed.calls] == [("write_file", a) for a in arguments]
    assert whole.normalized() == streamed.normalized() == core_result(case).normalized()
    assert streamed.normalized()[0] == ""


def test_enable_thinking_opens_reasoning_without_a_prompt_marker(tokenizer: Any) -> None:
    """When the prompt does not show the pre-filled tag, ``enable_thinking`` decides."""
    from vllm.parser.parser_manager import ParserManager

    case = CASES[7]  # prefilled_reasoning_then_xml
    assert case.reasoning_open
    request = chat_request(stream=True)
    parser_cls = ParserManager.get_parser(
        tool_parser_name="longcat", reasoning_parser_name="longcat", enable_auto_tools=True, tokenizer=tokenizer
    )
    parser = parser_cls(tokenizer, request.tools, chat_template_kwargs={"enable_thinking": True})
    token_ids = tokenizer.encode(case.output)
    pieces = chunks(tokenizer, token_ids, 3)
    streamed = stream_result(
        parser.parse_delta(text, ids, request, prompt_token_ids=None, finished=i == len(pieces) - 1)
        for i, (text, ids) in enumerate(pieces)
    )
    assert streamed.normalized() == core_result(case).normalized()
    assert streamed.reasoning.startswith("I need the weather")


def test_enable_thinking_false_closes_reasoning(tokenizer: Any) -> None:
    from vllm.parser.parser_manager import ParserManager

    parser_cls = ParserManager.get_parser(
        tool_parser_name="longcat", reasoning_parser_name="longcat", enable_auto_tools=True, tokenizer=tokenizer
    )
    plain_prompt = tokenizer.encode(CASES[0].prompt)
    # a ChatML turn with no think tag: a Qwen3-style model may open reasoning itself (thinking is on by default), so
    # the gate waits for the end of reasoning (or a call tag) before the grammar applies
    assert not parser_cls(tokenizer, TOOLS, chat_template_kwargs={}).is_reasoning_end(plain_prompt)
    # LongCat's turn with no think tag: the model does not open reasoning, the grammar applies from the first token
    longcat_prompt = tokenizer.encode("[Round 0] USER:What is the weather? ASSISTANT:")
    assert parser_cls(tokenizer, TOOLS, chat_template_kwargs={}).is_reasoning_end(longcat_prompt)
    closed = parser_cls(tokenizer, TOOLS, chat_template_kwargs={"enable_thinking": False})
    assert closed.is_reasoning_end(plain_prompt)
    opened = tokenizer.encode(CASES[0].prompt + "<think>\n")
    assert not closed.is_reasoning_end(opened)  # the prompt itself wins
    assert closed.is_reasoning_end(tokenizer.encode(CASES[0].prompt + "<think></think>"))


def test_finish_reason_path_keeps_arguments_once(tokenizer: Any) -> None:
    """At the end vLLM appends 'parsed but not streamed' arguments; ours reports none, so nothing is doubled."""
    case = CASES[10]  # truncated_json_string
    request = chat_request(stream=True)
    parser = _parser_cls(tokenizer)(tokenizer, request.tools, chat_template_kwargs=case.template_kwargs)
    token_ids = tokenizer.encode(case.output)
    pieces = chunks(tokenizer, token_ids, 4)
    deltas = [
        parser.parse_delta(text, ids, request, prompt_token_ids=[], finished=i == len(pieces) - 1)
        for i, (text, ids) in enumerate(pieces)
    ]
    streamed = stream_result(deltas)
    tool_parser = parser.tool_parser
    assert tool_parser.get_remaining_unstreamed_args() == ""
    assert tool_parser.streamed_args_for_tool == [streamed.calls[0][1]]
    assert tool_parser.prev_tool_call_arr == [{"name": "write_file", "arguments": streamed.calls[0][1]}]
    assert_valid_arguments(streamed)


def test_tool_choice_none_streams_no_calls(tokenizer: Any) -> None:
    case = CASES[0]
    request = chat_request(stream=True, tool_choice="none")
    parser = _parser_cls(tokenizer)(tokenizer, request.tools, chat_template_kwargs=case.template_kwargs)
    pieces = chunks(tokenizer, tokenizer.encode(case.output), 5)
    streamed = stream_result(
        parser.parse_delta(text, ids, request, prompt_token_ids=[], finished=i == len(pieces) - 1)
        for i, (text, ids) in enumerate(pieces)
    )
    assert streamed.calls == []


def test_construction_without_tokenizer_or_tools() -> None:
    from longcat_plugins.vllm.reasoning_parser import LongcatReasoningParser
    from longcat_plugins.vllm.tool_parser import LongcatToolParser

    tool_parser = LongcatToolParser(None)
    assert tool_parser.structural_tag_model == "longcat_plugins_json"
    assert tool_parser.finish_streaming() is None
    reasoning_parser = LongcatReasoningParser(None)
    assert reasoning_parser.finish_streaming() is None
    assert reasoning_parser.is_reasoning_end([1, 2, 3])
    request = chat_request(tools=None)  # vLLM treats it as tool_choice="none": the text is the content, verbatim
    text = '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>'
    info = tool_parser.extract_tool_calls(text, request)
    assert not info.tools_called and info.content == text


def test_adjust_request_keeps_special_tokens(tokenizer: Any) -> None:
    parser = _parser_cls(tokenizer)(tokenizer, TOOLS)
    request = parser.adjust_request(chat_request())
    assert request.skip_special_tokens is False


def test_engine_core_reasoner(tokenizer: Any) -> None:
    """The engine core builds the reasoning parser as ``cls(tokenizer=..., **reasoning_parser_kwargs)`` and asks
    token-level questions to start constrained decoding after reasoning."""
    from vllm.reasoning import ReasoningParserManager

    cls = ReasoningParserManager.get_reasoning_parser("longcat")
    reasoner = cls(tokenizer=tokenizer, chat_template_kwargs={"enable_thinking": True})
    opened = tokenizer.encode(CASES[0].prompt + "<think>\n")
    assert not reasoner.is_reasoning_end(opened)
    end_id = tokenizer.convert_tokens_to_ids("</think>")
    output = tokenizer.encode("plan")
    assert not reasoner.is_reasoning_end_streaming(opened + output, output)
    assert reasoner.is_reasoning_end_streaming([*opened, *output, end_id], [end_id])
    assert reasoner.extract_content_ids([*output, end_id, *output]) == output
    assert reasoner.count_reasoning_tokens([*output, end_id, *output]) == len(output)  # enable_thinking: open
    plain = cls(tokenizer=tokenizer)
    assert plain.count_reasoning_tokens([*output, end_id, *output]) == 0
    plain.set_prompt_token_ids(opened)
    assert plain.count_reasoning_tokens([*output, end_id, *output]) == len(output)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=st.sampled_from(CASES), cuts=st.lists(st.integers(min_value=1, max_value=400), max_size=30))
def test_random_text_splits(tokenizer: Any, case: Case, cuts: list[int]) -> None:
    """Any split of the text (not only token boundaries) streams to the core's result."""
    request = chat_request(stream=True)
    parser = _parser_cls(tokenizer)(tokenizer, request.tools, chat_template_kwargs=case.template_kwargs)
    text = case.output
    points = sorted({c % (len(text) + 1) for c in cuts} | {0, len(text)})
    pieces = [text[a:b] for a, b in itertools.pairwise(points)] or [""]
    prompt_ids = tokenizer.encode(case.prompt)
    streamed = stream_result(
        parser.parse_delta(piece, [0], request, prompt_token_ids=prompt_ids, finished=i == len(pieces) - 1)
        for i, piece in enumerate(pieces)
    )
    assert streamed.normalized() == core_result(case).normalized()
    assert_valid_arguments(streamed)
