"""Broken and unusual output, minimized from fuzzing: nothing of the text is lost, the two-stage chain the engines
run gives the one-pass result, and arguments never hold a key twice."""

from __future__ import annotations

import json
from typing import Any

import pytest

from longcat_plugins.core import ParserOptions, StreamParser, parse
from tests.support.events import groups_of, stream, summary
from tests.support.tools import function_tool

TOOLS = [function_tool("k", {"city": {"type": "string"}, "n": {"type": "integer"}})]


def _everywhere(text: str, tools: Any = TOOLS, options: ParserOptions | None = None) -> Any:
    """The one-shot result, after checking that every split gives it too."""
    whole = summary(parse(text, tools, options))
    for pieces in ([text], list(text), groups_of(text, 2), groups_of(text, 5)):
        assert summary(stream(pieces, tools, options)[0]) == whole, pieces
    return whole


def _args(result: Any) -> list[tuple[str, Any]]:
    return [(name, json.loads(arguments)) for name, arguments in result[2]]


@pytest.mark.parametrize("tail", ["", "\n", "\n  "])
def test_a_key_value_key_at_the_end_of_the_output_is_kept(tail: str) -> None:
    result = _everywhere("<longcat_tool_call>k<longcat_arg_key>city</longcat_arg_key>" + tail)
    assert _args(result) == [("k", {"city": ""})]
    assert result[0] == ""


def test_a_corrupted_key_closing_tag_loses_no_text() -> None:
    text = "<longcat_tool_call>k\n<longcat_arg_key>city</longcat_arg_kex>" + "y" * 130 + "</longcat_tool_call>"
    result = _everywhere(text)
    assert result[0] == "<longcat_arg_key>city</longcat_arg_kex>" + "y" * 130
    assert _args(result) == [("k", {})]


@pytest.mark.parametrize(
    ("stray", "closing"), [(" <b>note</b>", "</tool_call>"), ("\n\n<i>x</i> y", "</tool_call>"), (" <b>", "")]
)
def test_whitespace_before_stray_text_in_a_block_is_text(stray: str, closing: str) -> None:
    text = '<tool_call>{"name": "k", "arguments": {"city": "Paris"}}' + stray + closing
    result = _everywhere(text)
    assert result[0] == stray
    assert _args(result) == [("k", {"city": "Paris"})]


@pytest.mark.parametrize(
    "text",
    [
        "<function=k></function>\n<think>",
        "<function=k></function>\n<think>hm</think>ok",
        "<function=k></function>\n<think>hm</think>\nok",
        "<function=k></function>\n</longcat_s>more",
        "<function=k></function>\n<|im_end|>",
        "<function=k></function>\n</think>after",
        '<tool_call>{"name": "k", "arguments": {}}</tool_call>\n\n<think>a</think> <tool_call>',
        "<longcat_tool_call>k\n</longcat_tool_call>\n<longcat_think>x</longcat_think>\n",
    ],
)
def test_reasoning_stage_then_tool_stage_equals_one_pass_after_a_block(text: str) -> None:
    """vLLM runs the reasoning parser (tools off) and hands its content to the tool parser (reasoning off)."""
    for pieces in ([text], list(text), groups_of(text, 3)):
        first, _ = stream(pieces, TOOLS, ParserOptions(tools=False))
        second, _ = stream([first.content], TOOLS, ParserOptions(reasoning=False))
        one_pass = summary(parse(text, TOOLS))
        assert (second.content, first.reasoning, summary(second)[2]) == one_pass, pieces


@pytest.mark.parametrize("end", ["<", "</", "</longcat_s", "\n</tool_ca"])
def test_without_tool_parsing_a_cut_tag_after_a_block_is_text(end: str) -> None:
    """Read for a separate tool stage, the output comes back verbatim, a cut-off tag at its end included (that
    stage decides whether it is markup)."""
    text = f'<longcat_tool_call>{{"name": "k", "arguments": {{}}}}</longcat_tool_call>{end}'
    for pieces in ([text], list(text), groups_of(text, 3)):
        result, _ = stream(pieces, TOOLS, ParserOptions(tools=False))
        assert (result.reasoning, result.content) == ("", text), pieces


@pytest.mark.parametrize(
    "text",
    [
        "<function=k>\n<parameter=city>\nA\n</parameter>\n<parameter=city>\nB\n</parameter>\n</function>",
        "<longcat_tool_call>k\n<longcat_arg_key>city</longcat_arg_key>\n<longcat_arg_value>A</longcat_arg_value>\n"
        "<longcat_arg_key>city</longcat_arg_key>\n<longcat_arg_value>B</longcat_arg_value>\n</longcat_tool_call>",
    ],
)
def test_a_repeated_parameter_keeps_its_first_value_and_shows_the_repeat(text: str) -> None:
    result = _everywhere(text)
    arguments = result[2][0][1]
    assert arguments.count('"city"') == 1
    assert json.loads(arguments) == {"city": "A"}
    assert "B" in result[0] and ("<parameter=city>" in result[0] or "<longcat_arg_key>city" in result[0])


def test_a_repeated_typed_parameter_is_shown_verbatim() -> None:
    text = "<function=k>\n<parameter=n>\n1\n</parameter>\n<parameter=n>\n2\n</parameter>\n</function>"
    result = _everywhere(text)
    assert _args(result) == [("k", {"n": 1})]
    assert result[0] == "<parameter=n>\n2\n</parameter>"


@pytest.mark.parametrize(
    ("text", "content"),
    [
        ('<tool_call>\n{"name": "k", "arguments": {"city": "Oslo", oops}}\n</tool_call>', ", oops}}"),
        ('<tool_call>\n{"name": "k", "arguments": {"city": "Oslo", "n": 12ab}}\n</tool_call>', ', "n": 12ab}}'),
        ('<tool_call>\n{"name": "k", "arguments": {"city": "Oslo" , \'x\' 1}}\n</tool_call>', " , 'x' 1}}"),
        ('<longcat_tool_call>k {"city": "Oslo", oops}</longcat_tool_call>', ", oops}"),
        (
            '<tool_call>\n{"name": "k", "extra": {"a": x y}, "arguments": {"city": "Oslo"}}\n</tool_call>',
            '"extra": {"a": x y}, "arguments": {"city": "Oslo"}}',
        ),
    ],
)
def test_broken_json_arguments_give_back_what_the_reader_did_not_pass_on_verbatim(text: str, content: str) -> None:
    result = _everywhere(text)
    assert result[0] == content
    assert _args(result) == [("k", {} if "extra" in text else {"city": "Oslo"})]


def test_the_unknown_tool_warning_stays_one_short_line(caplog: pytest.LogCaptureFixture) -> None:
    """A request can declare hundreds of tools: the log line names a few and counts the rest."""
    tools = [{"type": "function", "function": {"name": f"tool_{i}", "parameters": {}}} for i in range(200)]
    with caplog.at_level("WARNING", logger="longcat_plugins"):
        message = parse('<tool_call>{"name": "nope", "arguments": {}}</tool_call>', tools)
    assert message.tool_calls == []
    (record,) = [r for r in caplog.records if "names no tool" in r.getMessage()]
    assert "tool_0, tool_1" in record.getMessage() and "and 192 more" in record.getMessage()
    assert len(record.getMessage()) < 300


def test_whitespace_after_a_call_paren_goes_with_the_text_after_it() -> None:
    assert _everywhere("<function_calls>q(\n1", None) == ("\n1", "", [("q", "{}")])


@pytest.mark.parametrize("tail", ["", " ", "\n"])
def test_a_key_that_never_closes_ends_a_call_with_no_block(tail: str) -> None:
    key = "<longcat_arg_key>7" + '"' * 300
    pair = "<longcat_arg_key>city</longcat_arg_key><longcat_arg_value>Oslo</longcat_arg_value>"
    result = _everywhere("k" + pair + key + tail)
    assert _args(result) == [("k", {"city": "Oslo"})]
    assert result[0] == key + tail


#: a key/value key the output leaves open (in a block, and in a call written with no opening tag): it holds what
#: follows it undecided, up to the end of the output
_OPEN_KEYS = ["<longcat_tool_call>k\n<longcat_arg_key>ci", "k<longcat_arg_key>ci"]
#: the head of a call in each dialect, which the output ends in
_NEW_CALLS = [
    "<longcat_tool_call>k\n<longcat_arg_key>n",
    "<tool_call>\n<function=k>\n<parameter=n>\n1",
    "<function=k>",
    '<tool_call>\n{"name": "k", "arguments": {"n": 1',
    '<longcat_tool_call>{"name": "k", "arguments": {',
]


@pytest.mark.parametrize("new_call", _NEW_CALLS)
@pytest.mark.parametrize("open_key", _OPEN_KEYS)
def test_a_call_cut_after_a_key_left_open_is_text_and_the_call_before_stays(open_key: str, new_call: str) -> None:
    """A stop may have cut the output (``cut_calls_as_text``): the call it ends in is withdrawn, its text is content,
    and the call before it, which the open key ended, is still given out whole, in every split."""
    text = open_key + new_call
    closed = _everywhere(text)
    assert [name for name, _ in closed[2]] == ["k", "k"]
    key_left_open = open_key[open_key.index("<longcat_arg_key>") :]  # (content: a key that never closes is text)
    assert closed[0].startswith(key_left_open)
    cut = _everywhere(text, options=ParserOptions(cut_calls_as_text=True))
    assert cut == (key_left_open + new_call, "", closed[2][:1])


@pytest.mark.parametrize("unknown", [True, False])
def test_a_name_before_a_block_that_names_its_own_call_cut_off_is_shown_once(unknown: bool) -> None:
    """A declared name before a block whose call names itself is text; when a stop may have cut the output and the
    output ends in that call, the call is withdrawn and its text comes back once, after that name."""
    text = "k<longcat_tool_call>s><parameter="
    options = ParserOptions(cut_calls_as_text=True, emit_unknown_calls=unknown)
    assert _everywhere(text, options=options) == (text, "", [])


#: one output repeating every problem the parser logs: a key given again, a call naming no tool, arguments
#: that are not an object, each many times
_HOSTILE = (
    "<longcat_tool_call>k\n"
    + "<longcat_arg_key>city</longcat_arg_key>\n<longcat_arg_value>x</longcat_arg_value>\n" * 200
    + "</longcat_tool_call>"
    + '<tool_call>{"name": "nope", "arguments": {}}</tool_call>' * 200
    + '<tool_call>{"name": "k", "arguments": [1]}</tool_call>' * 200
)


@pytest.mark.parametrize("emit_unknown", [False, True])
@pytest.mark.parametrize("size", [None, 1, 7])
def test_a_hostile_output_logs_one_line_per_kind_of_problem(
    caplog: pytest.LogCaptureFixture, size: int | None, emit_unknown: bool
) -> None:
    """Each kind of problem is logged once per output, when it ends, with how many times it occurred: a prompt that
    makes the model repeat one cannot flood the server's log."""
    pieces = [_HOSTILE] if size is None else groups_of(_HOSTILE, size)
    with caplog.at_level("WARNING", logger="longcat_plugins"):
        parser = StreamParser(TOOLS, ParserOptions(emit_unknown_calls=emit_unknown))
        for piece in pieces:
            parser.feed(piece)
        assert caplog.records == []  # (nothing before the end of the output)
        parser.finish()
    lines = [r.getMessage() for r in caplog.records]
    unknown = "model called unknown tool 'nope'" if emit_unknown else "a call names no tool of the request ('nope'"
    kinds = ["parameter 'city' given again", unknown, "arguments are not an object"]
    assert [[line for line in lines if kind in line] for kind in kinds] == [[line] for line in lines]
    assert all("(199 times in this output" in line or "(200 times in this output" in line for line in lines), lines


def test_a_stage_that_passes_calls_through_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    """Without tool parsing the calls are the tool stage's: it logs their problems, once."""
    with caplog.at_level("WARNING", logger="longcat_plugins"):
        assert parse(_HOSTILE, TOOLS, ParserOptions(tools=False)).content == _HOSTILE
    assert caplog.records == []


def test_a_probe_that_logs_no_problems_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level("WARNING", logger="longcat_plugins"):
        parse(_HOSTILE, TOOLS, ParserOptions(log_problems=False))
    assert caplog.records == []
