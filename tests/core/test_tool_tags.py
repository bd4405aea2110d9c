"""A declared tool's name used as the tag (``<web_search>{json}</web_search>``, Qwen3.5), tags cut off at the end of
a call, and a key/value block that never closes: each read the same streamed at 1, 4 and 7 characters and whole."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from longcat_plugins.core import StreamParser, parse
from longcat_plugins.core.tool_tags import may_hold_tool_tag
from tests.core.test_scaling import MAX_CALL_GROWTH, call_growth, four_times, parse_run
from tests.support.events import groups_of, stream, summary
from tests.support.tools import function_tool

TOOLS = [
    function_tool("web_search", {"query": {"type": "string"}, "max_results": {"type": "integer"}}),
    function_tool("div", {"x": {"type": "string"}}),
    function_tool("task", {"description": {"type": "string"}}),
    function_tool("f", {"a": {"type": "string"}}),
]


def _read(text: str, tools: Any = TOOLS) -> tuple[str, str, list[tuple[str, Any]]]:
    whole = summary(parse(text, tools))
    for pieces in (list(text), groups_of(text, 4), groups_of(text, 7), [text]):
        assert summary(stream(pieces, tools)[0]) == whole, pieces
    content, reasoning, calls = whole
    return content, reasoning, [(name, json.loads(arguments)) for name, arguments in calls]


@pytest.mark.parametrize(
    ("text", "content", "calls"),
    [
        (
            '<web_search>{"query": "news", "max_results": 3}</web_search>',
            "",
            [("web_search", {"query": "news", "max_results": 3})],
        ),
        ('Looking.\n<web_search>\n{"query": "news"}\n</web_search>', "Looking.\n", [("web_search", {"query": "news"})]),
        ("<web_search>{}</web_search>", "", [("web_search", {})]),
        ('<web_search>{"query": "a"}', "", [("web_search", {"query": "a"})]),  # cut off before its closing tag
        (
            '<web_search>{"query": "a"}</web_search><web_search>{"query": "b"}</web_search>',
            "",
            [("web_search", {"query": "a"}), ("web_search", {"query": "b"})],
        ),
        ('<div>{"x": "y"}</div> done', " done", [("div", {"x": "y"})]),
    ],
)
def test_a_declared_tools_name_as_the_tag_around_an_object_is_a_call(
    text: str, content: str, calls: list[tuple[str, Any]]
) -> None:
    assert _read(text) == (content, "", calls)


@pytest.mark.parametrize(
    "text",
    [
        "<div>hello</div>",  # a tool named like an HTML tag, followed by text
        "<div>{{ template }}</div>",  # braces that start no JSON object
        '<span>{"x": 1}</span>',  # not a declared tool
        '<web_searchx>{"query": "a"}</web_searchx>',
        '<web_search >{"query": "a"}',
        "a <web_search> tag",
        "<web_sea",
        "<web_search>",
        "<web_search>{",
        '<web_search> \n {"query": "a"}'.replace(" \n ", " " * 70),  # more whitespace than a tag's gap
    ],
)
def test_any_other_tag_stays_text_verbatim(text: str) -> None:
    assert _read(text) == (text, "", [])


def test_without_declared_tools_the_tag_is_text() -> None:
    text = '<web_search>{"query": "a"}</web_search>'
    assert _read(text, None) == (text, "", [])


def test_a_possible_tool_tag_is_held_back_only_while_it_may_be_one() -> None:
    parser = StreamParser(TOOLS)
    assert [e.text for e in parser.feed("Hi <web_se")] == ["Hi "]  # type: ignore[attr-defined]
    assert parser.holding
    assert [e.text for e in parser.feed("x")] == ["<web_sex"]  # type: ignore[attr-defined]
    assert not parser.holding
    parser.feed(" <web_search>  ")
    assert parser.holding
    assert [e.text for e in parser.feed("(")] == ["<web_search>  ("]  # type: ignore[attr-defined]


def test_the_held_text_is_bounded() -> None:
    parser = StreamParser(TOOLS)
    parser.feed("<web_search>" + " " * 60)
    assert parser.holding
    parser.feed(" " * 10)  # more whitespace than a tag's gap: no call
    assert not parser.holding


_PAIR = "<longcat_tool_call>f\n<longcat_arg_key>a</longcat_arg_key><longcat_arg_value>1</longcat_arg_value>"


@pytest.mark.parametrize(
    ("text", "arguments"),
    [
        ("<tool_call>\n<function=task>\n<", {}),  # (real: Qwen3-Coder-Next, cut after the next tag's '<')
        ("<tool_call>\n<function=task>\n</", {}),
        ("<tool_call>\n<function=task>\n<parameter=description>x</parameter>\n</func", {"description": "x"}),
        ("<function=task>\n<", {}),
        # (issue 29, item 7: at every cut point, not only short ones; a header cut off before its name is a
        # parameter that never started)
        ("<tool_call>\n<function=task>\n<parameter=", {}),
        ("<tool_call>\n<function=task>\n<parameter=description>x\n</paramet", {"description": "x"}),
        (
            "<tool_call>\n<function=task>\n<parameter=description>x\n</parameter>\n</function>\n</tool",
            {"description": "x"},
        ),
        ('<tool_call>{"name": "task", "arguments": {}}\n</tool', {}),
        ("<function=task>\n</function>\n</tool_c", {}),
        ("<longcat_tool_call>f\n<longcat_arg_key>a</longcat_arg_key><longcat_arg_value>1</longcat_arg_v", {"a": "1"}),
        (_PAIR + "\n<longcat_arg_key>", {"a": "1"}),
        (_PAIR + "\n<longcat_arg_key> </longcat_a", {"a": "1"}),
        ("<longcat_tool_call>f\n<longcat_arg_key>a</longcat_arg_key>\n<longcat_arg_va", {"a": ""}),
        ("f<longcat_arg_key>a</longcat_arg_key><longcat_arg_value>1</longcat_arg_value>\n<longcat_arg_k", {"a": "1"}),
        (
            "<longcat_tool_call>f\n<longcat_arg_key>a</longcat_arg_key><longcat_arg_value>1</longcat_arg_value>\n<",
            {"a": "1"},
        ),
    ],
)
def test_a_tag_cut_off_by_the_end_of_the_output_inside_a_call_is_markup(text: str, arguments: dict[str, Any]) -> None:
    name = "f" if "longcat" in text else "task"
    assert _read(text) == ("", "", [(name, arguments)])


@pytest.mark.parametrize(
    ("text", "content", "arguments"),
    [
        ("<tool_call>\n<function=task>\n<parameter=descr", "\n<parameter=descr", {}),
        ('<tool_call>\n<function=task>\n<parameter="descr', '\n<parameter="descr', {}),
        ("<function=task><parameter='d", "<parameter='d", {}),
        ('<function=task><parameter="', '<parameter="', {}),
        ('<function=task><parameter="description"', '<parameter="description"', {}),
        (
            '<tool_call>\n<function=task>\n<parameter=description>x\n</parameter>\n<parameter="q',
            '\n<parameter="q',
            {"description": "x"},
        ),
        (_PAIR_THEN_KEY := _PAIR + "\n<longcat_arg_key>b", "<longcat_arg_key>b", {"a": "1"}),
        (_PAIR_THEN_KEY + "</longcat_a", "<longcat_arg_key>b", {"a": "1"}),  # (a tag cut off: markup)
        ("f" + _PAIR_THEN_KEY.removeprefix("<longcat_tool_call>f\n"), "<longcat_arg_key>b", {"a": "1"}),
    ],
)
def test_a_header_or_key_cut_off_after_its_name_began_is_text(text: str, content: str, arguments: Any) -> None:
    """The end of the output cuts a parameter's header or a key after its name began (quoted or not): that name is
    text, as a header or a key that never ends is; the call keeps its complete parameters."""
    name = "f" if "longcat" in text else "task"
    assert _read(text) == (content, "", [(name, arguments)])


def test_a_cut_off_tag_after_text_in_a_call_is_text() -> None:
    text = "<tool_call>\n<function=task>\n<parameter=description>x</parameter>\nsee <b"
    assert _read(text) == ("\nsee <b", "", [("task", {"description": "x"})])



@pytest.mark.parametrize(
    ("after", "content", "reasoning"),
    [
        ("<think>x</think>", "", "x"),
        ("\n<think>x</think>\nhi", "\nhi", "x"),
        ("\n</longcat_s>", "", ""),
        ("</longcat_s>\nhi", "\nhi", ""),
        ("<longcat_think>x</longcat_think>", "", "x"),
        ("\n\n<function=task>\n</function>n\n</longcat_s>", "n\n", ""),  # (and a second call, below)
    ],
)
def test_a_key_value_block_that_never_closes_ends_at_markup_that_cannot_continue_it(
    after: str, content: str, reasoning: str
) -> None:
    calls: list[tuple[str, Any]] = [("f", {"a": "1"})] + ([("task", {})] if "task" in after else [])
    assert _read(_PAIR + after) == (content, reasoning, calls)


def test_an_unclosed_key_value_block_ends_where_another_block_opens() -> None:
    text = _PAIR + "\n" + _PAIR.replace(">1<", ">2<")
    assert _read(text) == ("", "", [("f", {"a": "1"}), ("f", {"a": "2"})])


def test_stray_text_between_pairs_keeps_the_block_open() -> None:
    text = _PAIR + "\nnote <longcat_arg_key>b</longcat_arg_key><longcat_arg_value>2</longcat_arg_value>"
    tools = [function_tool("f", {"a": {"type": "string"}, "b": {"type": "string"}})]
    assert _read(text, tools) == ("\nnote", "", [("f", {"a": "1", "b": "2"})])


_NEAR_MISSES = '<web_search>hello <web_se x <div> <web_search>\n{{ <web_search>{"query": "a"}</web_search> '


@pytest.mark.parametrize(
    "make",
    [
        lambda n: _NEAR_MISSES * (n // len(_NEAR_MISSES)),  # tags that are none, and calls, in a long content
        lambda n: '<web_search>{"query": "' + "word <web_search> " * (n // 18) + '"}</web_search>',  # a huge value
    ],
    ids=["near-misses", "huge-value"],
)
def test_tool_tags_cost_linear_time(make: Callable[[int], str]) -> None:
    growth = call_growth(lambda n: (make(n), TOOLS), 4096, 4)
    assert growth < MAX_CALL_GROWTH, f"4x the text makes {growth:.2f}x the calls per character"
    four_times(parse_run(make(16_384), TOOLS, 4), parse_run(make(4 * 16_384), TOOLS, 4), "tool tags")


@pytest.mark.parametrize(
    ("text", "may"),
    [
        ('<web_search>{"query": "a"}</web_search>', True),
        ('Sure.\n<any_name>\n {"a": 1}', True),
        ("<div>hello</div>", False),
        ("</web_search>{", False),
        ("no tags at all {}", False),
    ],
)
def test_an_adapter_that_does_not_know_the_tools_sees_a_possible_tool_tag(text: str, may: bool) -> None:
    assert may_hold_tool_tag(text) is may
