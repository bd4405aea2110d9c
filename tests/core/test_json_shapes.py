"""JSON call shapes besides the canonical dialects: arguments wrapped as ``{"args": {...}}``, a call object (or an
array of them) with no tag at the start of the output, and a broken ``<function_calls>`` list. Each is read the same
whole and streamed at 1, 4 and 7 characters; what is no such call stays text, verbatim."""

from __future__ import annotations

import json
from typing import Any

import pytest

from longcat_plugins.core import ParserOptions, ToolCallArgs, parse
from longcat_plugins.core.bare_calls import may_start_bare_call
from tests.support.events import feed, groups_of, stream, summary
from tests.support.tools import function_tool

SEARCH = function_tool("web_search", {"query": {"type": "string"}, "max_results": {"type": "integer"}})
WITH_ARGS = function_tool("run", {"args": {"type": "object"}})
NO_PARAMETERS = function_tool("now", {})
TOOLS = [SEARCH, WITH_ARGS, NO_PARAMETERS]


def _read(text: str, tools: Any = TOOLS) -> tuple[str, list[tuple[str, Any]]]:
    whole = summary(parse(text, tools))
    for k in (1, 4, 7):
        assert summary(stream(groups_of(text, k), tools)[0]) == whole, k
    assert summary(stream([text], tools)[0]) == whole
    return whole[0], [(name, json.loads(arguments)) for name, arguments in whole[2]]


QUERY = {"query": "news", "max_results": 3}


@pytest.mark.parametrize(
    "text",
    [
        '<tool_call>web_search>{"args": {"query": "news", "max_results": 3}}</tool_call>',
        '<tool_call>web_search{"args": {"query": "news", "max_results": 3}}</tool_call>',
        '<tool_call>web_search {"args" :\n {"query": "news", "max_results": 3} \n}</tool_call>',
        '<tool_call>{"name": "web_search", "arguments": {"args": {"query": "news", "max_results": 3}}}</tool_call>',
        '<longcat_tool_call>web_search {"args": {"query": "news", "max_results": 3}}</longcat_tool_call>',
    ],
)
def test_arguments_wrapped_as_args_are_the_inner_object(text: str) -> None:
    assert _read(text) == ("", [("web_search", QUERY)])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the tool has a parameter `args`: the object is its value
        ('<tool_call>run {"args": {"x": 1}}</tool_call>', ("run", {"args": {"x": 1}})),
        # the tool declares no parameters: nothing says the object is a wrapper
        ('<tool_call>now {"args": {"x": 1}}</tool_call>', ("now", {"args": {"x": 1}})),
        # `args` is not the first key, or its value is no object
        (
            '<tool_call>web_search {"query": "a", "args": {"x": 1}}</tool_call>',
            ("web_search", {"query": "a", "args": {"x": 1}}),
        ),
        ('<tool_call>web_search {"args": "news"}</tool_call>', ("web_search", {"args": "news"})),
    ],
)
def test_an_args_key_that_is_no_wrapper_stays_as_written(text: str, expected: tuple[str, Any]) -> None:
    assert _read(text) == ("", [expected])


def test_what_follows_the_wrapped_object_other_than_its_closing_brace_is_text() -> None:
    text = '<tool_call>{"name": "web_search", "arguments": {"args": {"query": "a"}, "x": 1}}</tool_call>'
    assert _read(text) == (', "x": 1}}', [("web_search", {"query": "a"})])


def test_a_wrapper_cut_off_still_closes_with_valid_json() -> None:
    assert _read('<tool_call>web_search>{"args": {"query": "ne') == ("", [("web_search", {"query": "ne"})])
    # an unfinished member cut off by the end of the output is text, as for any arguments object
    assert _read('<tool_call>web_search>{"ar') == ('"ar', [("web_search", {})])


def test_the_inner_object_streams_and_only_the_wrapper_opening_is_held() -> None:
    text = '<tool_call>web_search>{"args": {"query": "' + "x" * 50
    streamed = feed(list(text), TOOLS)
    args = [e.text for batch in streamed.batches[:-1] for e in batch if isinstance(e, ToolCallArgs)]
    assert "".join(args) == '{"query": "' + "x" * 50


@pytest.mark.parametrize(
    ("text", "content"),
    [
        ('{"name": "web_search", "arguments": {"query": "news", "max_results": 3}}', ""),
        ('\n  {"name": "web_search", "parameters": {"query": "news", "max_results": 3}}', "\n  "),
        # Qwen2.5: the opening tag left out, the closing one written
        ('{"name": "web_search", "arguments": {"query": "news", "max_results": 3}}\n</tool_call>', ""),
        ('<think>a search</think>\n{"name": "web_search", "arguments": {"query": "news", "max_results": 3}}', "\n"),
        ('[{"name": "web_search", "arguments": {"query": "news", "max_results": 3}}]', ""),
        ('{"name": "functions.web_search", "arguments": {"query": "news", "max_results": 3}} Done.', " Done."),
        ("[" + " " * 8 + '{"name": "web_search", "arguments": {"query": "news", "max_results": 3}}]', ""),
        ('{"name":' + " " * 7 + '"web_search", "arguments": {"query": "news", "max_results": 3}}', ""),
        ("{'name': 'web_search', 'arguments': {'query': 'news', 'max_results': 3}}", ""),  # a Python dict
    ],
)
def test_a_bare_call_object_at_the_start_of_the_output_is_a_call(text: str, content: str) -> None:
    assert _read(text) == (content, [("web_search", QUERY)])


def test_a_bare_array_of_call_objects_is_the_calls_in_order() -> None:
    text = '[{"name":"web_search","arguments":{"query":"a"}},\n {"name":"now","arguments":{}}]'
    assert _read(text) == ("", [("web_search", {"query": "a"}), ("now", {})])


@pytest.mark.parametrize(
    "text",
    [
        # a JSON answer
        '{"name": "Ada", "age": 36}',
        '{"name": "web_search", "description": "searches the web"}',
        '{"name": "web_search"}',
        "[1, 2, 3]",
        '[[{"name": "web_search", "arguments": {}}]]',
        '{"result": {"name": "web_search", "arguments": {}}}',
        # not the canonical order, or not at the start of the output
        '{"arguments": {"query": "news"}, "name": "web_search"}',
        'Here: {"name": "web_search", "arguments": {"query": "news"}}',
        # a name that is no declared tool
        '{"name": "web_fetch", "arguments": {"url": "x"}}',
        '{"name": "' + "w" * 300 + '", "arguments": {}}',
    ],
)
def test_json_that_is_no_bare_call_stays_text(text: str) -> None:
    assert _read(text) == (text, [])


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "tools.web_search", "arguments": {}}',  # only the namespace ``functions.``
        '{"name": " web_search", "arguments": {}}',
        '{"name": "web\\u005fsearch", "arguments": {}}',
        '{"name": "web_search",' + " " * 9 + '"arguments": {}}',
        "[" + " " * 9 + '{"name": "web_search", "arguments": {}}]',
    ],
)
def test_a_bare_call_is_read_only_with_its_head_written_exactly(text: str) -> None:
    assert _read(text) == (text, [])


@pytest.mark.parametrize(
    ("before", "content"),
    [
        ('{"', '{"'),
        ('{"name": "web', '{"name": "web'),
        ('[{"name": "web_search", "argumen', '[{"name": "web_search", "argumen'),
        ('{"name": "web_search", "result": "', '{"name": "web_search", "result": "'),
    ],
)
def test_a_tag_in_what_looked_like_a_bare_call_is_still_a_tag(before: str, content: str) -> None:
    text = before + '<tool_call>{"name": "now", "arguments": {}}</tool_call> after'
    assert _read(text) == (content + " after", [("now", {})])


def test_a_bare_head_that_breaks_is_released_at_once() -> None:
    text = '{"name": "web_search", "description": "' + "x" * 200
    batches = feed(list(text), TOOLS).batches
    shown = 0
    for i, batch in enumerate(batches[:-1], 1):
        shown += sum(len(e.text) for e in batch if not isinstance(e, ToolCallArgs) and hasattr(e, "text"))
        assert i - shown <= len('{"name": "web_search", "d'), i  # held: the head up to where it broke


def test_a_bare_call_object_is_read_only_with_tool_parsing_and_declared_tools() -> None:
    text = '{"name": "web_search", "arguments": {"query": "news"}}'
    assert parse(text, TOOLS, ParserOptions(tools=False)).content == text
    assert parse(text, None).content == text
    assert parse(text, [], ParserOptions(emit_unknown_calls=True)).content == text


def test_a_bare_call_object_holds_back_only_its_name_and_next_key() -> None:
    text = '{"name": "web_search", "arguments": {"query": "' + "x" * 50
    streamed = feed(list(text), TOOLS)
    args = [e.text for batch in streamed.batches[:-1] for e in batch if isinstance(e, ToolCallArgs)]
    assert "".join(args) == '{"query": "' + "x" * 50
    long_key = '{"' + "k" * 400
    first = feed(list(long_key), TOOLS).batches
    assert any(batch for batch in first[:300])  # a key too long for a call's is released before its end


@pytest.mark.parametrize("after", ["]", ",", " ]", "\n,"])
def test_a_closing_bracket_after_text_in_a_call_list_is_text_at_any_split(after: str) -> None:
    text = '<function_calls>{"name":"web_search",>' + after
    assert _read(text) == (">" + after, [("web_search", {})])


@pytest.mark.parametrize(
    ("text", "may"),
    [
        ('{"name": "f", "arguments": {}}', True),
        ('\n [ {"name": "f"', True),
        ('{"result": 1}', False),
        ('Text {"name": "f"}', False),
        ("[1, 2]", False),
    ],
)
def test_an_adapter_can_tell_cheaply_whether_an_output_may_begin_with_a_bare_call(text: str, may: bool) -> None:
    assert may_start_bare_call(text) is may
