"""The call shapes real models write besides the canonical dialects (tests/real/ holds the outputs themselves):
each read at every split, and text that is not such a call left as it was."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from longcat_plugins.core import Content, ParserOptions, StreamParser, ToolCallArgs, ToolCallEnd, parse
from tests.support.events import groups_of, split_at, stream, summary
from tests.support.tools import function_tool

TOOLS = [function_tool("get_weather", {"city": {"type": "string"}, "days": {"type": "integer"}})]


def _read(text: str, options: ParserOptions | None = None) -> tuple[str, list[tuple[str, Any]]]:
    whole = summary(parse(text, TOOLS, options))
    for pieces in ([text], list(text), groups_of(text, 3), groups_of(text, 8)):
        assert summary(stream(pieces, TOOLS, options)[0]) == whole, pieces
    return whole[0], [(name, json.loads(arguments)) for name, arguments in whole[2]]


@pytest.mark.parametrize(
    "text",
    [
        '<longcat_tool_call>get_weather {"city": "Oslo", "days": 2}</longcat_tool_call>',
        '<tool_call>get_weather {"city": "Oslo", "days": 2}</tool_call>',
        "<longcat_tool_call>functions.get_weather({city: 'Oslo', days: 2})</longcat_tool_call>",
        '<longcat_tool_call>get_weather\n<longcat_arg_key>{city: "Oslo", days: 2}</longcat_arg_key>\n'
        "</longcat_tool_call>",
        '<longcat_tool_call>get_weather\n<longcat_arg_key>{"city": "Oslo", "days": 2} </longcat',
        "<longcat_tool_call><longcat_arg_key>name</longcat_arg_key><longcat_arg_value>get_weather"
        "</longcat_arg_value><longcat_arg_key>arguments</longcat_arg_key><longcat_arg_value>"
        '{"city": "Oslo", "days": 2}</longcat_arg_value></longcat_tool_call>',
    ],
)
def test_an_object_after_the_name_is_the_arguments(text: str) -> None:
    assert _read(text) == ("", [("get_weather", {"city": "Oslo", "days": 2})])


def test_an_empty_call_and_text_after_the_object() -> None:
    assert _read("<longcat_tool_call>get_weather()</longcat_tool_call>") == ("", [("get_weather", {})])
    content, calls = _read('<longcat_tool_call>get_weather {"city": "Oslo"} and more</longcat_tool_call>')
    assert (content, calls) == (" and more", [("get_weather", {"city": "Oslo"})])


def test_key_value_pairs_after_the_object_are_content_not_a_second_object() -> None:
    text = (
        '<longcat_tool_call>get_weather {"city": "Oslo"}\n<longcat_arg_key>days</longcat_arg_key>'
        "<longcat_arg_value>3</longcat_arg_value></longcat_tool_call>"
    )
    content, calls = _read(text)
    assert calls == [("get_weather", {"city": "Oslo"})]
    assert "<longcat_arg_key>days</longcat_arg_key>" in content and "3" in content


@pytest.mark.parametrize(
    "text",
    [
        "Use <tool_call>get_weather with a city.",
        "<longcat_tool_call>get_weather is the tool",
        '<longcat_tool_call>unknown_tool {"city": "Oslo"}</longcat_tool_call>',
        "<longcat_tool_call><longcat_arg_key>city</longcat_arg_key><longcat_arg_value>Oslo</longcat_arg_value>",
    ],
)
def test_what_is_no_such_call_stays_text(text: str) -> None:
    assert _read(text) == (text, [])


def test_an_orphan_closing_tag_after_a_bare_function_is_markup() -> None:
    text = "Checking.\n\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n</function>\n</tool_call>"
    assert _read(text) == ("Checking.\n\n", [("get_weather", {"city": "Oslo"})])
    assert parse(text, TOOLS, ParserOptions(tools=False)).content == text  # shown as written without tool parsing


def test_a_closing_tag_in_prose_is_text() -> None:
    assert _read("Write </tool_call> to close.") == ("Write </tool_call> to close.", [])


WRITE = [function_tool("write_file", {"path": {"type": "string"}, "note": {"type": ["string", "null"]}})]


def _read_with(tools: Any, text: str) -> tuple[str, list[tuple[str, Any]]]:
    whole = summary(parse(text, tools))
    for pieces in ([text], list(text), groups_of(text, 3)):
        assert summary(stream(pieces, tools)[0]) == whole, pieces
    return whole[0], [(name, json.loads(arguments)) for name, arguments in whole[2]]


@pytest.mark.parametrize(
    ("value", "expected"),
    [("null", None), ("\nnull\n", None), (" null ", None), ("nullable", "nullable"), ("nul", "nul"), ("", "")],
)
def test_a_nullable_string_parameter_reads_null_as_json_null(value: str, expected: Any) -> None:
    xml = f"<function=write_file><parameter=note>{value}</parameter></function>"
    kv = (
        "<longcat_tool_call>write_file<longcat_arg_key>note</longcat_arg_key>"
        f"<longcat_arg_value>{value}</longcat_arg_value></longcat_tool_call>"
    )
    assert _read_with(WRITE, xml)[1] == [("write_file", {"note": expected})]
    if value.strip() == value or expected is None:
        assert _read_with(WRITE, kv)[1] == [("write_file", {"note": expected})]


@pytest.mark.parametrize(
    ("inner", "after"),
    [
        ("a </function> b", "</tool_call>"),
        ("ends with </function>", "</tool_call>"),
        ("<function=f>\n</function>\nmore", "</tool_call>"),
        ("</tool_call> in text", ""),
    ],
)
def test_a_closing_tag_in_a_value_ends_the_call_only_where_what_follows_confirms_it(inner: str, after: str) -> None:
    text = f"<tool_call>\n<function=write_file>\n<parameter=path>\n{inner}\n</parameter>\n</function>\n{after}"
    assert _read_with(WRITE, text) == ("", [("write_file", {"path": inner})])


@pytest.mark.parametrize("follows", ["", "\n</tool_call>", "\n<function=write_file>\n</function>", "\n<|im_end|>"])
def test_a_function_closing_tag_with_a_confirmation_still_ends_an_unclosed_value(follows: str) -> None:
    text = f"<function=write_file>\n<parameter=path>\na.txt\n</function>{follows}"
    content, calls = _read_with(WRITE, text)
    assert calls[0] == ("write_file", {"path": "a.txt"})
    assert content == ""


KV_PAIR = "<longcat_arg_key>city</longcat_arg_key>\n<longcat_arg_value>Oslo</longcat_arg_value>"


@pytest.mark.parametrize(
    ("text", "content"),
    [
        (f"Let me check.\nget_weather\n{KV_PAIR}\n</longcat_tool_call>", "Let me check.\n"),
        (f"functions.get_weather\n{KV_PAIR}", ""),
        (f"Checking.get_weather<longcat_tool_call>\n{KV_PAIR}</longcat_tool_call> done", "Checking. done"),
        (f"get_weather\n{KV_PAIR}\nThat is all.", "\nThat is all."),
        (f"functions.functions.get_weather{KV_PAIR}", "functions."),
    ],
)
def test_a_declared_name_before_key_value_markup_is_the_call_without_its_opening_tag(text: str, content: str) -> None:
    assert _read(text) == (content, [("get_weather", {"city": "Oslo"})])


@pytest.mark.parametrize(
    "text",
    [
        f"my_get_weather\n{KV_PAIR}",
        f"get_weather is the tool:\n{KV_PAIR}",
        "get_weather is a tool; get_weather",
        "get_weather",
        "Call get_weat",
    ],
)
def test_a_name_that_is_not_right_before_the_markup_stays_content(text: str) -> None:
    assert _read(text) == (text, [])


def test_a_possible_name_is_held_back_only_while_it_may_be_one() -> None:
    parser = StreamParser(TOOLS)
    assert [e.text for e in parser.feed("Using get_wea") if isinstance(e, Content)] == ["Using "]
    assert [e.text for e in parser.feed("ther now") if isinstance(e, Content)] == ["get_weather now"]


NAME_SOUP = st.lists(
    st.sampled_from(
        [
            "get_weather",
            "functions.",
            "get_wea",
            ".",
            " ",
            "\n",
            "x",
            "Checking",
            KV_PAIR,
            "<longcat_arg_key>",
            "<longcat_tool_call>",
            "</longcat_tool_call>",
            "<",
            "ther",
            "<longcat_arg_value>v</longcat_arg_value>",
        ]
    ),
    max_size=12,
).map("".join)


@settings(max_examples=300, deadline=None, derandomize=True)  # (fixed examples in CI; tests.fuzz explores)
@given(text=NAME_SOUP, data=st.data())
def test_names_without_tags_are_read_the_same_at_any_split(text: str, data: st.DataObject) -> None:
    whole = summary(parse(text, TOOLS))
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=8))
    assert summary(stream(split_at(text, cuts), TOOLS)[0]) == whole
    assert summary(stream(list(text), TOOLS)[0]) == whole


@pytest.mark.parametrize(
    ("text", "content", "arguments"),
    [
        ("<tool_call>\n<function=write_file>\n<parameter=path>\na.py\n</tool_call>", "", {"path": "a.py"}),
        ("<function=write_file>\n<parameter=path>\na.py\n</longcat_tool_call>", "", {"path": "a.py"}),
        (
            "<tool_call>\n<function=write_file>\n<parameter=path>\na.py\n</tool_call>\nDone.",
            "\nDone.",
            {"path": "a.py"},
        ),
        (
            "<tool_call>\n<function=write_file>\n<parameter=path>\n<function=d>\n</function>\n</tool_call>\n"
            "</parameter>\n</function>\n</tool_call>",
            "",
            {"path": "<function=d>\n</function>\n</tool_call>"},
        ),
    ],
)
def test_a_block_closer_ends_an_open_value_where_what_follows_decides_so(
    text: str, content: str, arguments: Any
) -> None:
    assert _read_with(WRITE, text) == (content, [("write_file", arguments)])


def test_a_run_of_closers_inside_a_value_is_held_back_a_bounded_amount() -> None:
    head = "<tool_call>\n<function=write_file>\n<parameter=path>\nv\n</tool_call>"
    parser = StreamParser(WRITE)
    parser.feed(head)
    # a run past the bound decides: the call has ended, whatever follows
    events = parser.feed(" " * 600)
    assert any(isinstance(e, ToolCallEnd) for e in events)
    assert _read_with(WRITE, head + " " * 600 + "</parameter>")[1] == [("write_file", {"path": "v"})]


@pytest.mark.parametrize(
    ("text", "content", "calls"),
    [
        (
            "<tool_call>write_file>\n<parameter=path>\na.py\n</parameter>\n</tool_call>",
            "",
            [("write_file", {"path": "a.py"})],
        ),
        ('<tool_call>write_file>{"path": "a.py"}</tool_call>', "", [("write_file", {"path": "a.py"})]),
        (
            "<tool_call>other>\n<parameter=path>\na.py\n</parameter>\n</tool_call>",
            "<tool_call>other>\n<parameter=path>\na.py\n</parameter>\n</tool_call>",
            [],
        ),
    ],
)
def test_a_block_naming_its_tool_before_a_closing_angle_is_read_only_for_a_declared_tool(
    text: str, content: str, calls: Any
) -> None:
    assert _read_with(WRITE, text) == (content, calls)


def _value_in(layout: str, value: str) -> str:
    if layout == "xml":
        return f"<tool_call>\n<function=write_file>\n<parameter=path>\n{value}\n</parameter>\n</function>\n</tool_call>"
    return (
        "<longcat_tool_call>write_file\n<longcat_arg_key>path</longcat_arg_key>\n"
        f"<longcat_arg_value>{value}</longcat_arg_value>\n</longcat_tool_call>"
    )


_VALUE_CLOSE = {"xml": "</parameter>", "kv": "</longcat_arg_value>"}


@pytest.mark.parametrize("layout", ["xml", "kv"])
@pytest.mark.parametrize(
    "value", ['echo "{close} done"', "a{close}  b", "{close}x", "a{close}<br> b", "one\nx{close}; y\nthree"]
)
def test_a_value_closing_tag_with_other_text_after_it_on_its_line_is_value_text(layout: str, value: str) -> None:
    value = value.format(close=_VALUE_CLOSE[layout])
    assert _read_with(WRITE, _value_in(layout, value)) == ("", [("write_file", {"path": value})])


_COMPACT = {
    "xml": "<function=write_file><parameter=path>a</parameter>{gap}<parameter=note>b</parameter>{end}</function>",
    "kv": "<longcat_tool_call>write_file<longcat_arg_key>path</longcat_arg_key><longcat_arg_value>a"
    "</longcat_arg_value>{gap}<longcat_arg_key>note</longcat_arg_key><longcat_arg_value>b</longcat_arg_value>{end}"
    "</longcat_tool_call>",
}


@pytest.mark.parametrize("layout", ["xml", "kv"])
@pytest.mark.parametrize(("gap", "end"), [("", ""), (" ", "  "), ("\t\n", " \n"), ("\n", "\r\n")])
def test_a_value_closing_tag_before_a_tag_or_a_line_break_ends_the_value(layout: str, gap: str, end: str) -> None:
    text = _COMPACT[layout].format(gap=gap, end=end)
    assert _read_with(WRITE, text) == ("", [("write_file", {"path": "a", "note": "b"})])


@pytest.mark.parametrize("after", ["", "  ", "\n"])
def test_a_value_closing_tag_at_the_end_of_the_output_ends_the_value(after: str) -> None:
    text = f"<function=write_file><parameter=path>a</parameter>{after}"
    assert _read_with(WRITE, text) == ("", [("write_file", {"path": "a"})])


def test_what_a_value_closing_tag_holds_back_is_bounded() -> None:
    parser = StreamParser(WRITE)
    events = parser.feed("<function=write_file><parameter=path>a</parameter>" + " " * 600)
    assert "".join(e.text for e in events if isinstance(e, ToolCallArgs)) == '{"path": "a"'
    events = parser.feed("x")
    assert "".join(e.text for e in events if isinstance(e, ToolCallArgs)) == ""
