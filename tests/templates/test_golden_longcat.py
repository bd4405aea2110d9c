"""Golden renders of longcat-flash-chat, written out by hand from seed 000 and the LongCat-Flash-Chat model
card."""

from __future__ import annotations

import json

import pytest
from jinja2.exceptions import TemplateError
from template_cases import (
    FIRST_TURN,
    MULTI_TURN,
    SEARCH,
    TOOL_CALLS,
    TOOL_CALLS_DONE,
    TOOLS_FIRST_TURN,
    WEATHER,
    WITH_SYSTEM,
    assistant,
    system,
    user,
)

from longcat_plugins.templates import render

NAME = "longcat-flash-chat"

WEATHER_SCHEMA = (
    "{\n"
    '  "type": "object",\n'
    '  "properties": {\n'
    '    "city": {\n'
    '      "type": "string",\n'
    '      "description": "City name"\n'
    "    }\n"
    "  },\n"
    '  "required": [\n'
    '    "city"\n'
    "  ]\n"
    "}"
)
SEARCH_SCHEMA = (
    "{\n"
    '  "type": "object",\n'
    '  "properties": {\n'
    '    "query": {\n'
    '      "type": "string"\n'
    "    },\n"
    '    "limit": {\n'
    '      "type": "integer"\n'
    "    }\n"
    "  },\n"
    '  "required": [\n'
    '    "query"\n'
    "  ]\n"
    "}"
)
NOTE = (
    "**Note**: For each function call, return a json object with function name and arguments within "
    "<longcat_tool_call></longcat_tool_call> XML tags as follows:\n"
    "<longcat_tool_call>\n"
    '{"name": <function-name>, "arguments": <args-dict>}\n'
    "</longcat_tool_call>\n"
    "When multiple functions need to be called simultaneously, each function call should be wrapped in its "
    "own "
    "<longcat_tool_call> tag and placed consecutively. For example:\n"
    "<longcat_tool_call>\n"
    '{"name": <function-name>, "arguments": <args-dict>}\n'
    "</longcat_tool_call><longcat_tool_call>\n"
    '{"name": <function-name>, "arguments": <args-dict>}\n'
    "</longcat_tool_call>"
)
TOOLS_HEADER = "## Tools\nYou have access to the following tools: \n\n### Tool namespace: function\n\n"
WEATHER_BLOCK = (
    "#### Tool name: get_weather\n\nDescription: Get the current weather\n\nInputSchema: \n" + WEATHER_SCHEMA + "\n\n"
)
SEARCH_BLOCK = "#### Tool name: search\n\nDescription: Search the web\n\nInputSchema: \n" + SEARCH_SCHEMA + "\n\n"
MESSAGES = "\n\n## Messages\n"

TOOL_CALLS_TEXT = (
    "[Round 0] USER:Weather in Paris and Tokyo? ASSISTANT:"
    "<longcat_tool_call>\n"
    '{"name": "get_weather", "arguments": {"city": "Paris"}}\n'
    "</longcat_tool_call>"
    "<longcat_tool_call>\n"
    '{"name": "get_weather", "arguments": {"city": "Tokyo"}}\n'
    "</longcat_tool_call></longcat_s>"
    " [Round 1] USER:"
    "<longcat_tool_response>\n18°C, sunny\n</longcat_tool_response>"
    "<longcat_tool_response>\n25°C, rain\n</longcat_tool_response>"
    " ASSISTANT:"
)


def test_first_turn() -> None:
    assert render(NAME, FIRST_TURN) == "[Round 0] USER:What is 2+2? ASSISTANT:"


def test_system_prompt() -> None:
    assert render(NAME, WITH_SYSTEM) == "SYSTEM:You are a helpful assistant. [Round 0] USER:Hi ASSISTANT:"


def test_multi_turn_rounds_from_zero() -> None:
    assert render(NAME, MULTI_TURN) == (
        "SYSTEM:You are a helpful assistant. [Round 0] USER:Hi ASSISTANT:Hello! How can I help?</longcat_s>"
        " [Round 1] USER:Tell me a joke. ASSISTANT:Why did the chicken cross the road?</longcat_s>"
        " [Round 2] USER:Why? ASSISTANT:"
    )


def test_multi_turn_without_system() -> None:
    messages = [user("a"), assistant("b"), user("c")]
    assert render(NAME, messages) == "[Round 0] USER:a ASSISTANT:b</longcat_s> [Round 1] USER:c ASSISTANT:"


def test_no_generation_prompt() -> None:
    assert render(NAME, FIRST_TURN, add_generation_prompt=False) == "[Round 0] USER:What is 2+2?"
    history = [user("a"), assistant("b")]
    assert render(NAME, history, add_generation_prompt=False) == "[Round 0] USER:a ASSISTANT:b</longcat_s>"
    assert render(NAME, history, add_generation_prompt=True) == "[Round 0] USER:a ASSISTANT:b</longcat_s>"


def test_tools_block() -> None:
    expected = (
        TOOLS_HEADER
        + WEATHER_BLOCK
        + SEARCH_BLOCK
        + NOTE
        + MESSAGES
        + "SYSTEM:You are a helpful assistant. "
        + "[Round 0] USER:What's the weather in Paris and Tokyo? ASSISTANT:"
    )
    assert render(NAME, TOOLS_FIRST_TURN, [WEATHER, SEARCH]) == expected


def test_tools_without_system() -> None:
    expected = TOOLS_HEADER + WEATHER_BLOCK + NOTE + MESSAGES + "[Round 0] USER:Hi ASSISTANT:"
    assert render(NAME, [user("Hi")], [WEATHER]) == expected


def test_input_schema_is_python_json_dumps_indent_2() -> None:
    parameters = {
        "type": "object",
        "properties": {
            "城市": {"type": "string", "description": '城市名 <b> & "q"'},
            "n": {"enum": [1, 2.5]},
        },
    }
    tool = {"type": "function", "function": {"name": "f", "description": "d", "parameters": parameters}}
    rendered = render(NAME, [user("x")], [tool])
    by_hand = (
        "{\n"
        '  "type": "object",\n'
        '  "properties": {\n'
        '    "\\u57ce\\u5e02": {\n'
        '      "type": "string",\n'
        '      "description": "\\u57ce\\u5e02\\u540d <b> & \\"q\\""\n'
        "    },\n"
        '    "n": {\n'
        '      "enum": [\n'
        "        1,\n"
        "        2.5\n"
        "      ]\n"
        "    }\n"
        "  }\n"
        "}"
    )
    assert by_hand == json.dumps(parameters, indent=2)
    assert "InputSchema: \n" + by_hand + "\n\n**Note**" in rendered


def test_tool_without_description_or_parameters() -> None:
    tool = {"type": "function", "function": {"name": "ping"}}
    rendered = render(NAME, [user("x")], [tool])
    assert "#### Tool name: ping\n\nDescription: \n\nInputSchema: \n{}\n\n**Note**" in rendered


def test_tool_calls_in_history_and_tool_results() -> None:
    assert render(NAME, TOOL_CALLS) == TOOL_CALLS_TEXT


def test_tool_calls_then_answer() -> None:
    expected = TOOL_CALLS_TEXT + "Paris: sunny; Tokyo: rain.</longcat_s> [Round 2] USER:Thanks! ASSISTANT:"
    assert render(NAME, TOOL_CALLS_DONE) == expected


def test_tool_calls_with_tools_block() -> None:
    assert render(NAME, TOOL_CALLS, [WEATHER]) == TOOLS_HEADER + WEATHER_BLOCK + NOTE + MESSAGES + TOOL_CALLS_TEXT


def test_content_before_tool_call_and_object_arguments() -> None:
    calls = [{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Zürich"}}}]
    messages = [user("w?"), assistant("Let me check.", calls)]
    assert render(NAME, messages, add_generation_prompt=False) == (
        "[Round 0] USER:w? ASSISTANT:Let me check.<longcat_tool_call>\n"
        '{"name": "get_weather", "arguments": {"city": "Zürich"}}\n'
        "</longcat_tool_call></longcat_s>"
    )


def test_system_message_after_the_first_is_refused() -> None:
    with pytest.raises(TemplateError, match="one system message"):
        render(NAME, [user("a"), system("b")])


def test_header_comment_lists_whitespace_choices() -> None:
    from longcat_plugins.templates import load

    source = load(NAME)
    assert source.startswith("{#-")
    header = source[: source.index("-#}")]
    for needle in (
        "model card",
        "trailing space",
        "json.dumps(parameters, indent=2)",
        "</longcat_s>",
        "[Round",
    ):
        assert needle in header
