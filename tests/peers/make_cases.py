"""The peers' test cases, ported as data (see README.md).

    python tests/peers/make_cases.py tests/peers/cases.jsonl

Each case is the input and the expected output of one test of another project that parses these dialects, copied
verbatim (the test's string literals have the same value here), with its origin: repository, path, commit and test
name. Only inputs and expectations are ported, never code. Where the peer's test declares no tools, the case declares
the tools its calls name with no parameters (``tools_from_source`` false), since a request with no tools gets the
model's text as content. ``declined`` holds the reason when the peer's expectation is a convention of its own that
this project does not follow (the guide lists these).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

VLLM = "vllm-project/vllm"
SGLANG = "sgl-project/sglang"
OLLAMA = "ollama/ollama"

#: Each source file: repository, path and the commit the cases were read at.
SOURCES: dict[str, dict[str, str]] = {
    "vllm_hermes": {
        "repo": VLLM,
        "path": "tests/tool_parsers/test_hermes_tool_parser.py",
        "commit": "0eb73d6a09be117cdd0d4da4d6239321001c0d0c",
    },
    "vllm_longcat": {
        "repo": VLLM,
        "path": "tests/tool_parsers/test_longcat_tool_parser.py",
        "commit": "41c5903d049b80b83a6e570f52f0f55e31316e49",
    },
    "vllm_qwen3coder": {
        "repo": VLLM,
        "path": "tests/tool_parsers/test_qwen3coder_tool_parser.py",
        "commit": "049d8df27dda4fd0caffa289ea12bfe5a47ac794",
    },
    "vllm_qwen3xml": {
        "repo": VLLM,
        "path": "tests/tool_parsers/test_qwen3xml_tool_parser.py",
        "commit": "1cbe721380ab9295854e4db1e819c40b14c54828",
    },
    "vllm_qwen3_reasoning": {
        "repo": VLLM,
        "path": "tests/reasoning/test_qwen3_reasoning_parser.py",
        "commit": "049d8df27dda4fd0caffa289ea12bfe5a47ac794",
    },
    "vllm_deepseek_r1_reasoning": {
        "repo": VLLM,
        "path": "tests/reasoning/test_deepseekr1_reasoning_parser.py",
        "commit": "04dbd8f32c4dc8ef1254eeaabd154a225948cf57",
    },
    "sglang_qwen25": {
        "repo": SGLANG,
        "path": "test/registered/unit/function_call/test_qwen25_detector.py",
        "commit": "1259ec5e5db0b5cdf11a1b081aa4bd9e0d24611a",
    },
    "sglang_hermes": {
        "repo": SGLANG,
        "path": "test/registered/unit/function_call/test_hermes_detector.py",
        "commit": "08b62d5af91337eaee284ce14fb1ac284b0fa6ed",
    },
    "sglang_qwen3_coder_numeric": {
        "repo": SGLANG,
        "path": "test/registered/unit/function_call/test_qwen3_coder_numeric_precision.py",
        "commit": "0dd05db4c29134b82cd4a39ff2bb86f334b272e5",
    },
    "sglang_qwen3_coder": {
        "repo": SGLANG,
        "path": "test/srt/function_call/test_qwen3_coder_detector.py",
        "commit": "c3df60d2a0c2aad61e87e1c4071fd36d859e0be7",
    },
    "sglang_qwen3_coder_unit": {
        "repo": SGLANG,
        "path": "test/registered/unit/function_call/test_qwen3_coder_detector.py",
        "commit": "0bbe61a61a1964be3758c1672c5522aa3aafdd6b",
    },
    "sglang_qwen3_coder_streaming": {
        "repo": SGLANG,
        "path": "test/registered/function_call/test_qwen3_coder_detector/test_cases.py",
        "commit": "2c5fa03198d0630444a1bfe74b4eaae310173eee",
    },
    "ollama_qwen3coder": {
        "repo": OLLAMA,
        "path": "model/parsers/qwen3coder_test.go",
        "commit": "fb30760996871fa9460115c753afd2c60d4ab0f7",
    },
    "ollama_qwen35": {
        "repo": OLLAMA,
        "path": "model/parsers/qwen35_test.go",
        "commit": "fb30760996871fa9460115c753afd2c60d4ab0f7",
    },
    "ollama_qwen3": {
        "repo": OLLAMA,
        "path": "model/parsers/qwen3_test.go",
        "commit": "fb30760996871fa9460115c753afd2c60d4ab0f7",
    },
}

CASES: list[dict[str, Any]] = []
ALL: tuple[str, ...] = ("content", "reasoning", "tool_calls")


def tool(name: str, properties: dict[str, Any] | None = None) -> dict[str, Any]:
    """An OpenAI tool; ``properties`` maps a parameter to its JSON schema."""
    return {
        "type": "function",
        "function": {"name": name, "parameters": {"type": "object", "properties": dict(properties or {})}},
    }


def call(name: str, arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def case(
    source: str,
    test: str,
    text: str,
    *,
    content: str | None = "",
    reasoning: str | None = "",
    calls: list[dict[str, Any]] | None = None,
    tools: list[dict[str, Any]] | None = None,
    tools_from_source: bool = False,
    reasoning_open: bool = False,
    dialect: str,
    declined: str | None = None,
    note: str | None = None,
    suffix: str = "",
    checks: tuple[str, ...] = ALL,
) -> None:
    """One case. ``content``/``reasoning`` ``None`` (a peer's "no content") counts as empty. Without ``tools`` the
    case declares the tools its expected calls name, with no parameters. ``checks`` names the parts the peer's test
    asserts (a test that asserts only the calls is scored on the calls alone)."""
    calls = calls or []
    if tools is None:
        names = list(dict.fromkeys(c["name"] for c in calls))
        tools = [tool(n) for n in names]
    origin = dict(SOURCES[source], test=test)
    entry: dict[str, Any] = {
        "id": f"{source}__{test}{suffix}",
        "peer": source.split("_", 1)[0],
        "source": source,
        "origin": origin,
        "dialect": dialect,
        "tags": ["reasoning"] if dialect == "reasoning" else [],
        "text": text,
        "tools": tools,
        "tools_from_source": tools_from_source,
        "reasoning_open": reasoning_open,
        "expected": {"content": content or "", "reasoning": reasoning or "", "tool_calls": calls},
    }
    if tuple(checks) != ALL:
        entry["checks"] = list(checks)
    if declined:
        entry["declined"] = declined
    if note:
        entry["note"] = note
    CASES.append(entry)


# ----------------------------------------------------------------------------------------------------------------------
# vLLM: tests/tool_parsers/test_hermes_tool_parser.py (the parser is built with no tools in the request)
# ----------------------------------------------------------------------------------------------------------------------

S = "vllm_hermes"
case(
    S,
    "test_hermes_parser_streaming_just_forward_text",
    """This is some prior text that has nothing to do with tool calling.""",
    content="""This is some prior text that has nothing to do with tool calling.""",
    dialect="hermes",
)
case(
    S,
    "test_hermes_parser_streaming_failure_case_bug_19056",
    """<tool_call>
{"name": "final_answer", "arguments": {"trigger": true}}
</tool_call>""",
    calls=[call("final_answer", {"trigger": True})],
    dialect="hermes",
)
case(
    S,
    "test_hermes_parser_streaming",
    '<tool_call>\
{"name": "get_current_temperature",\
"arguments": {"location":\
"San Francisco, California, United States", "unit": "celsius"}}\
</tool_call>',
    calls=[
        call("get_current_temperature", {"location": "San Francisco, California, United States", "unit": "celsius"})
    ],
    dialect="hermes",
)
case(
    S,
    "test_hermes_streaming_tool_call_with_stream_interval",
    (
        '<tool_call>{"name": "get_current_temperature", '
        '"arguments": {"location": "San Francisco", "unit": "celsius"}}'
        "</tool_call>"
    ),
    calls=[call("get_current_temperature", {"location": "San Francisco", "unit": "celsius"})],
    dialect="hermes",
)
case(
    S,
    "test_hermes_streaming_content_then_tool_call_with_stream_interval",
    ('Sure, let me check the weather.<tool_call>{"name": "get_weather", "arguments": {"city": "NYC"}}</tool_call>'),
    content="Sure, let me check the weather.",
    calls=[call("get_weather", {"city": "NYC"})],
    dialect="hermes",
)
case(
    S,
    "test_hermes_streaming_multiple_tool_calls_with_stream_interval",
    (
        '<tool_call>{"name": "search", "arguments": {"q": "cats"}}</tool_call>'
        '<tool_call>{"name": "search", "arguments": {"q": "dogs"}}</tool_call>'
    ),
    calls=[call("search", {"q": "cats"}), call("search", {"q": "dogs"})],
    dialect="hermes",
)
case(
    S,
    "test_hermes_streaming_just_forward_text_with_stream_interval",
    "This is plain text with no tool calling involved.",
    content="This is plain text with no tool calling involved.",
    dialect="hermes",
)
case(
    S,
    "test_hermes_parser_non_streaming_no_tool_call",
    """This is not a tool call.""",
    content="""This is not a tool call.""",
    dialect="hermes",
)
case(
    S,
    "test_hermes_parser_non_streaming_tool_call_until_eos",
    """<tool_call>
{"name": "final_answer", "arguments": {"trigger": true}}""",
    calls=[call("final_answer", {"trigger": True})],
    dialect="hermes",
)
case(
    S,
    "test_hermes_parser_non_streaming_tool_call_invalid_json",
    """<tool_call>
{"name": "final_answer", "arguments": {"trigger": true}""",
    content="""<tool_call>
{"name": "final_answer", "arguments": {"trigger": true}""",
    tools=[tool("final_answer")],
    dialect="hermes",
    declined=(
        "a call cut off at the end of the output is a call with the arguments read so far (DESIGN invariant 2: "
        "arguments are valid JSON also for truncated output); the peer gives up when the outer brace is missing"
    ),
    note="The peer asserts only that no call is made; its parser then returns the text as content.",
)
case(
    S,
    "test_hermes_parser_non_streaming_serialized_arguments",
    '<tool_call>\n{"name": "get_db_config", "arguments": "{\\"param\\": \\"max_connections\\"}"}\n</tool_call>',
    calls=[call("get_db_config", {"param": "max_connections"})],
    dialect="hermes",
)
case(
    S,
    "test_hermes_parser_non_streaming_bare_string_arguments",
    '<tool_call>\n{"name": "do_thing", "arguments": "hello"}\n</tool_call>',
    calls=[call("do_thing", "hello")],
    dialect="hermes",
    declined=(
        "a call's arguments are always a JSON object (the OpenAI API's arguments decode to an object, and tools read "
        'named parameters); the peer returns the JSON string "hello"'
    ),
)
case(
    S,
    "test_hermes_streaming_serialized_arguments_with_stream_interval",
    '<tool_call>{"name": "get_db_config", "arguments": "{\\"param\\": \\"max_connections\\"}"}</tool_call>',
    calls=[call("get_db_config", {"param": "max_connections"})],
    dialect="hermes",
)
case(
    S,
    "test_hermes_streaming_content_and_tool_call_in_single_chunk",
    'Hi!<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>',
    content="Hi!",
    calls=[call("f", {"x": 1})],
    dialect="hermes",
)

# ----------------------------------------------------------------------------------------------------------------------
# vLLM: tests/tool_parsers/test_longcat_tool_parser.py (the shared ToolParserTests with LongCat's outputs)
# ----------------------------------------------------------------------------------------------------------------------

S = "vllm_longcat"
case(
    S,
    "no_tool_calls_output",
    "This is a regular response without any tool calls.",
    content="This is a regular response without any tool calls.",
    dialect="longcat_json",
)
case(
    S,
    "single_tool_call_output",
    '<longcat_tool_call>{"name": "get_weather", "arguments": {"city": "Tokyo"}}</longcat_tool_call>',
    calls=[call("get_weather", {"city": "Tokyo"})],
    dialect="longcat_json",
)
case(
    S,
    "parallel_tool_calls_output",
    (
        '<longcat_tool_call>{"name": "get_weather", '
        '"arguments": {"city": "Tokyo"}}</longcat_tool_call>\n'
        '<longcat_tool_call>{"name": "get_time", '
        '"arguments": {"timezone": "Asia/Tokyo"}}</longcat_tool_call>'
    ),
    calls=[call("get_weather", {"city": "Tokyo"}), call("get_time", {"timezone": "Asia/Tokyo"})],
    dialect="longcat_json",
    note="The peer checks the count and the names; the arguments are the ones the output spells.",
)
case(
    S,
    "various_data_types_output",
    """<longcat_tool_call>{
  "name": "test_function",
  "arguments": {
    "string_field": "hello",
    "int_field": 42,
    "float_field": 3.14,
    "bool_field": true,
    "null_field": null,
    "array_field": ["a", "b", "c"],
    "object_field": {"nested": "value"},
    "empty_array": [],
    "empty_object": {}
  }
}</longcat_tool_call>""",
    calls=[
        call(
            "test_function",
            {
                "string_field": "hello",
                "int_field": 42,
                "float_field": 3.14,
                "bool_field": True,
                "null_field": None,
                "array_field": ["a", "b", "c"],
                "object_field": {"nested": "value"},
                "empty_array": [],
                "empty_object": {},
            },
        )
    ],
    dialect="longcat_json",
)
case(
    S,
    "empty_arguments_output",
    '<longcat_tool_call>{"name": "refresh", "arguments": {}}</longcat_tool_call>',
    calls=[call("refresh", {})],
    dialect="longcat_json",
)
case(
    S,
    "surrounding_text_output",
    (
        "Let me check the weather for you.\n"
        '<longcat_tool_call>{"name": "get_weather", '
        '"arguments": {"city": "Tokyo"}}</longcat_tool_call>\n'
        "Here is the result."
    ),
    content="Let me check the weather for you.\n\nHere is the result.",
    calls=[call("get_weather", {"city": "Tokyo"})],
    dialect="longcat_json",
    note="The peer checks that the call is found; the content is the text outside the call's markup.",
)
case(
    S,
    "escaped_strings_output",
    """<longcat_tool_call>{
  "name": "test_function",
  "arguments": {
    "quoted": "He said \\"hello\\"",
    "path": "C:\\\\Users\\\\file.txt",
    "newline": "line1\\nline2",
    "unicode": "emoji: 🎉"
  }
}</longcat_tool_call>""",
    calls=[
        call(
            "test_function",
            {
                "quoted": 'He said "hello"',
                "path": "C:\\Users\\file.txt",
                "newline": "line1\nline2",
                "unicode": "emoji: 🎉",
            },
        )
    ],
    dialect="longcat_json",
)

# ----------------------------------------------------------------------------------------------------------------------
# vLLM: tests/tool_parsers/test_qwen3coder_tool_parser.py (sample_tools: get_current_weather, calculate_area)
# ----------------------------------------------------------------------------------------------------------------------

S = "vllm_qwen3coder"
WEATHER_PARAMS = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "The city name"},
        "state": {"type": "string", "description": "The state code"},
        "unit": {"type": "string", "enum": ["fahrenheit", "celsius"]},
    },
    "required": ["city", "state"],
}
AREA_PARAMS = {
    "type": "object",
    "properties": {"shape": {"type": "string"}, "dimensions": {"type": "object"}, "precision": {"type": "integer"}},
}
SAMPLE_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_current_weather",
            "description": "Get the current weather",
            "parameters": WEATHER_PARAMS,
        },
    },
    {
        "type": "function",
        "function": {"name": "calculate_area", "description": "Calculate area of a shape", "parameters": AREA_PARAMS},
    },
]
DALLAS = """<tool_call>
<function=get_current_weather>
<parameter=city>
Dallas
</parameter>
<parameter=state>
TX
</parameter>
<parameter=unit>
fahrenheit
</parameter>
</function>
</tool_call>"""
DALLAS_ARGS = {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}
case(
    S,
    "test_extract_tool_calls_no_tools",
    "This is a test response without any tool calls",
    content="This is a test response without any tool calls",
    tools=SAMPLE_TOOLS,
    tools_from_source=True,
    dialect="xml",
)
for test, text, calls, content in [
    ("single_tool", DALLAS, [call("get_current_weather", DALLAS_ARGS)], None),
    (
        "single_tool_with_content",
        "Sure! Let me check the weather for you." + DALLAS,
        [call("get_current_weather", DALLAS_ARGS)],
        "Sure! Let me check the weather for you.",
    ),
    (
        "single_tool_multiline_param",
        """<tool_call>
<function=calculate_area>
<parameter=shape>
rectangle
</parameter>
<parameter=dimensions>
{"width": 10,\x20
 "height": 20}
</parameter>
<parameter=precision>
2
</parameter>
</function>
</tool_call>""",
        [call("calculate_area", {"shape": "rectangle", "dimensions": {"width": 10, "height": 20}, "precision": 2})],
        None,
    ),
    (
        "parallel_tools",
        DALLAS
        + """
<tool_call>
<function=get_current_weather>
<parameter=city>
Orlando
</parameter>
<parameter=state>
FL
</parameter>
<parameter=unit>
fahrenheit
</parameter>
</function>
</tool_call>""",
        [
            call("get_current_weather", DALLAS_ARGS),
            call("get_current_weather", {"city": "Orlando", "state": "FL", "unit": "fahrenheit"}),
        ],
        None,
    ),
    (
        "tool_with_typed_params",
        """Let me calculate that area for you.<tool_call>
<function=calculate_area>
<parameter=shape>
circle
</parameter>
<parameter=dimensions>
{"radius": 15.5}
</parameter>
<parameter=precision>
3
</parameter>
</function>
</tool_call>""",
        [call("calculate_area", {"shape": "circle", "dimensions": {"radius": 15.5}, "precision": 3})],
        "Let me calculate that area for you.",
    ),
]:
    case(
        S,
        f"test_extract_tool_calls[{test}]",
        text,
        content=content,
        calls=calls,
        tools=SAMPLE_TOOLS,
        tools_from_source=True,
        dialect="xml",
    )
case(
    S,
    "test_extract_tool_calls_streaming[parallel_tools]",
    DALLAS
    + """
<tool_call>
<function=get_current_weather>
<parameter=city>
Orlando
</parameter>
<parameter=state>
FL
</parameter>
<parameter=unit>
celsius
</parameter>
</function>
</tool_call>""",
    calls=[
        call("get_current_weather", DALLAS_ARGS),
        call("get_current_weather", {"city": "Orlando", "state": "FL", "unit": "celsius"}),
    ],
    tools=SAMPLE_TOOLS,
    tools_from_source=True,
    dialect="xml",
    note="The streaming test's parallel case differs from the one-pass one (celsius); the others are the same.",
)
case(
    S,
    "test_extract_tool_calls_fallback_no_tags",
    """<function=get_current_weather>
<parameter=city>
Dallas
</parameter>
<parameter=state>
TX
</parameter>
</function>""",
    calls=[call("get_current_weather", {"city": "Dallas", "state": "TX"})],
    tools=SAMPLE_TOOLS,
    tools_from_source=True,
    dialect="xml",
    checks=("tool_calls",),
    note="The peer checks the call's name; the arguments are what the output spells.",
)
case(
    S,
    "test_extract_tool_calls_type_conversion",
    """<tool_call>
<function=test_types>
<parameter=int_param>
42
</parameter>
<parameter=float_param>
3.14
</parameter>
<parameter=bool_param>
true
</parameter>
<parameter=str_param>
hello world
</parameter>
<parameter=obj_param>
{"key": "value"}
</parameter>
</function>
</tool_call>""",
    calls=[
        call(
            "test_types",
            {
                "int_param": 42,
                "float_param": 3.14,
                "bool_param": True,
                "str_param": "hello world",
                "obj_param": {"key": "value"},
            },
        )
    ],
    tools=[
        tool(
            "test_types",
            {
                "int_param": {"type": "integer"},
                "float_param": {"type": "float"},
                "bool_param": {"type": "boolean"},
                "str_param": {"type": "string"},
                "obj_param": {"type": "object"},
            },
        )
    ],
    tools_from_source=True,
    dialect="xml",
    checks=("tool_calls",),
)
case(
    S,
    "test_extract_tool_calls_anyof_type_conversion",
    """<tool_call>
<function=test_anyof>
<parameter=anyof_int>
5
</parameter>
<parameter=anyof_str>
hello
</parameter>
<parameter=anyof_array>
["a", "b", "c"]
</parameter>
<parameter=anyof_obj>
{"key": "value"}
</parameter>
<parameter=type_as_array>
42
</parameter>
<parameter=multi_non_null>
some text
</parameter>
</function>
</tool_call>""",
    calls=[
        call(
            "test_anyof",
            {
                "anyof_int": 5,
                "anyof_str": "hello",
                "anyof_array": ["a", "b", "c"],
                "anyof_obj": {"key": "value"},
                "type_as_array": 42,
                "multi_non_null": "some text",
            },
        )
    ],
    tools=[
        tool(
            "test_anyof",
            {
                "anyof_int": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": 5},
                "anyof_str": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "anyof_array": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]},
                "anyof_obj": {"anyOf": [{"type": "object"}, {"type": "null"}]},
                "type_as_array": {"type": ["integer", "null"]},
                "multi_non_null": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
            },
        )
    ],
    tools_from_source=True,
    dialect="xml",
    checks=("tool_calls",),
)
case(
    S,
    "test_extract_tool_calls_anyof_type_conversion_streaming",
    """<tool_call>
<function=search_web>
<parameter=query>
vllm tool parser
</parameter>
<parameter=count>
10
</parameter>
<parameter=verbose>
true
</parameter>
</function>
</tool_call>""",
    calls=[call("search_web", {"query": "vllm tool parser", "count": 10, "verbose": True})],
    tools=[
        tool(
            "search_web",
            {
                "query": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "count": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": 5},
                "verbose": {"anyOf": [{"type": "boolean"}, {"type": "null"}]},
            },
        )
    ],
    tools_from_source=True,
    dialect="xml",
    checks=("tool_calls",),
)
case(
    S,
    "test_extract_tool_calls_missing_closing_parameter_tag",
    """Let me check the weather for you:
<tool_call>
<function=get_current_weather>
<parameter=city>
Dallas
<parameter=state>
TX
</parameter>
<parameter=unit>
fahrenheit
</parameter>
</function>
</tool_call>""",
    content="Let me check the weather for you:\n",
    calls=[call("get_current_weather", DALLAS_ARGS)],
    tools=SAMPLE_TOOLS,
    tools_from_source=True,
    dialect="xml",
    checks=("tool_calls",),
    note="The peer asserts that the content holds 'Let me check the weather for you:'; the calls are scored.",
)

case(
    S,
    "test_extract_tool_calls_streaming_incremental",
    """I'll check the weather.<tool_call>
<function=get_current_weather>
<parameter=city>
Dallas
</parameter>
<parameter=state>
TX
</parameter>
</function>
</tool_call>""",
    content="I'll check the weather.",
    calls=[call("get_current_weather", {"city": "Dallas", "state": "TX"})],
    tools=SAMPLE_TOOLS,
    tools_from_source=True,
    dialect="xml",
    checks=("tool_calls",),
)
case(
    S,
    "test_extract_tool_calls_streaming_missing_opening_tag",
    """I'll check the weather for you.

<function=get_current_weather>
<parameter=city>
Dallas
</parameter>
<parameter=state>
TX
</parameter>
<parameter=unit>
fahrenheit
</parameter>
</function>
</tool_call>""",
    content="I'll check the weather for you.\n\n",
    calls=[call("get_current_weather", DALLAS_ARGS)],
    tools=SAMPLE_TOOLS,
    tools_from_source=True,
    dialect="xml",
    checks=("tool_calls",),
    note='The peer asserts that the content holds "I\'ll check the weather for you."; the calls are scored.',
)
case(
    S,
    "test_none_tool_calls_filtered",
    (
        "<tool_call>\n"
        "<function=bad_func_no_gt\n"
        "</function>\n"
        "</tool_call>\n"
        "<tool_call>\n"
        "<function=get_current_weather>\n"
        "<parameter=city>Dallas</parameter>\n"
        "<parameter=state>TX</parameter>\n"
        "</function>\n"
        "</tool_call>"
    ),
    calls=[call("get_current_weather", {"city": "Dallas", "state": "TX"})],
    tools=SAMPLE_TOOLS,
    tools_from_source=True,
    dialect="xml",
    checks=("tool_calls",),
    note="The peer asserts exactly one call of get_current_weather (the broken block is no call).",
)
case(
    S,
    "test_anyof_parameter_not_double_encoded",
    (
        "<tool_call>\n"
        "<function=update_record>\n"
        '<parameter=data>{"key": "value", "count": 42}</parameter>\n'
        "</function>\n"
        "</tool_call>"
    ),
    calls=[call("update_record", {"data": {"key": "value", "count": 42}})],
    tools=[tool("update_record", {"data": {"anyOf": [{"type": "object"}, {"type": "null"}]}})],
    tools_from_source=True,
    dialect="xml",
    checks=("tool_calls",),
)
case(
    S,
    "test_streaming_multi_param_single_chunk",
    "<tool_call>" + "\n<function=get_current_weather>" + "\n" + "<parameter=city>\nDallas\n</parameter>"
    "\n<parameter=state>\nTX\n</parameter>"
    "\n<parameter=unit>\nfahrenheit\n</parameter>" + "\n</function>" + "\n</tool_call>",
    calls=[call("get_current_weather", DALLAS_ARGS)],
    tools=SAMPLE_TOOLS,
    tools_from_source=True,
    dialect="xml",
    checks=("tool_calls",),
)
case(
    S,
    "test_no_double_serialization_string_args",
    "<tool_call>\n<function=greet>\n<parameter=message>hello world</parameter>\n</function>\n</tool_call>",
    calls=[call("greet", {"message": "hello world"})],
    tools=[tool("greet", {"message": {"type": "string"}})],
    tools_from_source=True,
    dialect="xml",
    checks=("tool_calls",),
)

# ----------------------------------------------------------------------------------------------------------------------
# vLLM: tests/tool_parsers/test_qwen3xml_tool_parser.py (the shared ToolParserTests with Qwen3 XML outputs; the
# config says supports_typed_arguments=False, so various_data_types_output, whose typing the test leaves open, is not
# ported, nor the malformed inputs, which have no expected reading)
# ----------------------------------------------------------------------------------------------------------------------

S = "vllm_qwen3xml"
case(
    S,
    "no_tool_calls_output",
    "This is a regular response without any tool calls.",
    content="This is a regular response without any tool calls.",
    dialect="xml",
)
case(
    S,
    "single_tool_call_output",
    "<tool_call>\n<function=get_weather>\n<parameter=city>Tokyo</parameter>\n</function>\n</tool_call>",
    calls=[call("get_weather", {"city": "Tokyo"})],
    dialect="xml",
)
case(
    S,
    "parallel_tool_calls_output",
    "<tool_call>\n<function=get_weather>\n<parameter=city>Tokyo</parameter>\n</function>\n</tool_call><tool_call>\n<function=get_time>\n<parameter=timezone>Asia/Tokyo</parameter>\n</function>\n</tool_call>",
    calls=[call("get_weather", {"city": "Tokyo"}), call("get_time", {"timezone": "Asia/Tokyo"})],
    dialect="xml",
    checks=("tool_calls",),
    note="The peer checks the count and the names; the arguments are what the output spells.",
)
case(
    S,
    "empty_arguments_output",
    "<tool_call>\n<function=refresh>\n</function>\n</tool_call>",
    calls=[call("refresh", {})],
    dialect="xml",
)
case(
    S,
    "surrounding_text_output",
    (
        "Let me check the weather for you.\n\n"
        "<tool_call>\n<function=get_weather>\n"
        "<parameter=city>Tokyo</parameter>\n"
        "</function>\n</tool_call>\n\n"
        "I will get that information."
    ),
    content="Let me check the weather for you.\n\n\n\nI will get that information.",
    calls=[call("get_weather", {"city": "Tokyo"})],
    dialect="xml",
    checks=("tool_calls",),
    note="The peer checks that the call is found.",
)
case(
    S,
    "escaped_strings_output",
    (
        "<tool_call>\n<function=test_function>\n"
        '<parameter=quoted>He said "hello"</parameter>\n'
        "<parameter=path>C:\\Users\\file.txt</parameter>\n"
        "<parameter=newline>line1\nline2</parameter>\n"
        "</function>\n</tool_call>"
    ),
    calls=[
        call("test_function", {"quoted": 'He said "hello"', "path": "C:\\Users\\file.txt", "newline": "line1\nline2"})
    ],
    dialect="xml",
    checks=("tool_calls",),
)

# ----------------------------------------------------------------------------------------------------------------------
# vLLM: tests/reasoning/test_qwen3_reasoning_parser.py. "<think> in prompt" outputs start inside reasoning; the
# reasoning parser runs alone there, so a tool call's markup is content (the cases declare no tools).
# ----------------------------------------------------------------------------------------------------------------------

S = "vllm_qwen3_reasoning"
TOOL_CALL_BODY = (
    "<tool_call>\n<function=bash>\n<parameter=command>\ncat /etc/hosts\n</parameter>\n</function>\n</tool_call>"
)
for test, text, reasoning, content, prefilled in [
    (
        "WITHOUT_START_TOKEN",
        "This is a reasoning section</think>This is the rest",
        "This is a reasoning section",
        "This is the rest",
        True,
    ),
    (
        "WITHOUT_START_TOKEN_COMPLETE_REASONING",
        "This is a reasoning section</think>",
        "This is a reasoning section",
        None,
        True,
    ),
    (
        "WITH_THINK",
        "<think>This is a reasoning section</think>This is the rest",
        "This is a reasoning section",
        "This is the rest",
        False,
    ),
    ("WITHOUT_THINK", "This is the rest", "This is the rest", None, True),
    ("COMPLETE_REASONING", "<think>This is a reasoning section</think>", "This is a reasoning section", None, False),
    (
        "MULTILINE_REASONING",
        "<think>This is a reasoning\nsection</think>This is the rest\nThat",
        "This is a reasoning\nsection",
        "This is the rest\nThat",
        False,
    ),
    ("ONLY_OPEN_TAG", "<think>This is a reasoning section", "This is a reasoning section", None, False),
    ("TRUNCATED_NO_START_TOKEN", "This is a reasoning section", "This is a reasoning section", None, True),
    (
        "TOOL_CALL_NO_THINK_END",
        "I need to read the file.\n\n" + TOOL_CALL_BODY,
        "I need to read the file.\n\n",
        TOOL_CALL_BODY,
        True,
    ),
    (
        "TOOL_CALL_WITH_THINK_NO_END",
        "<think>I need to read the file.\n\n" + TOOL_CALL_BODY,
        "I need to read the file.\n\n",
        TOOL_CALL_BODY,
        False,
    ),
    # MULTI_TOKEN_DELTA_CASES: the deltas joined (the corpus streams every case at many splits anyway)
    (
        "end_token_grouped_with_content",
        "reasoning section" + "</think>This is the rest",
        "reasoning section",
        "This is the rest",
        True,
    ),
    ("start_and_end_in_one_delta_no_content", "<think>reasoning</think>", "reasoning", None, False),
    (
        "no_start_end_grouped_with_content",
        "reasoning section" + "</think>content",
        "reasoning section",
        "content",
        True,
    ),
    (
        "tool_call_implicit_reasoning_end",
        "I need to read the file.\n\n" + "<tool_call>\n<function=bash>",
        "I need to read the file.\n\n",
        "<tool_call>\n<function=bash>",
        True,
    ),
    # THINKING_DISABLED_CASES: enable_thinking=False, nothing pre-filled
    ("thinking_disabled_plain_content", "This is plain content", None, "This is plain content", False),
    (
        "thinking_disabled_no_think_tokens",
        "Some output without think tokens",
        None,
        "Some output without think tokens",
        False,
    ),
    (
        "thinking_disabled_with_tool_call",
        "I need to read the file.\n\n" + TOOL_CALL_BODY,
        None,
        "I need to read the file.\n\n" + TOOL_CALL_BODY,
        False,
    ),
]:
    case(
        S,
        test,
        text,
        reasoning=reasoning,
        content=content,
        tools=[],
        reasoning_open=prefilled,
        dialect="reasoning",
    )

# ----------------------------------------------------------------------------------------------------------------------
# vLLM: tests/reasoning/test_deepseekr1_reasoning_parser.py (DeepSeek-R1's template pre-fills <think>)
# ----------------------------------------------------------------------------------------------------------------------

S = "vllm_deepseek_r1_reasoning"
for test, text, reasoning, content, declined in [
    (
        "SIMPLE_REASONING",
        "This is a reasoning section</think>This is the rest",
        "This is a reasoning section",
        "This is the rest",
        None,
    ),
    ("COMPLETE_REASONING", "This is a reasoning section</think>", "This is a reasoning section", None, None),
    ("NO_CONTENT", "This is content", "This is content", None, None),
    ("MULTIPLE_LINES", "This\nThat</think>This is the rest\nThat", "This\nThat", "This is the rest\nThat", None),
    ("SHORTEST_REASONING", "</think>This is the rest", None, "This is the rest", None),
    (
        "REASONING_WITH_THINK",
        "<think>This is a reasoning section</think>This is the rest",
        "This is a reasoning section",
        "This is the rest",
        None,
    ),
    (
        "COMPLETE_REASONING_WITH_THINK",
        "<think>This is a reasoning section</think>",
        "This is a reasoning section",
        None,
        None,
    ),
    (
        "MULTIPLE_LINES_WITH_THINK",
        "<think>This\nThat</think>This is the rest\nThat",
        "This\nThat",
        "This is the rest\nThat",
        None,
    ),
    ("THINK_NO_END", "<think>This is a reasoning section", "This is a reasoning section", None, None),
    (
        "NEW_LINE",
        "\n<think>This is a reasoning section</think>\nThis is the rest",
        "This is a reasoning section",
        "\nThis is the rest",
        "nothing of the output is lost (DESIGN invariant 3): the newline before <think> stays in the reasoning; the "
        "peer drops it in one pass and keeps it when streamed (NEW_LINE_STREAMING, which ours passes)",
    ),
    (
        "NEW_LINE_STREAMING",
        "\n<think>This is a reasoning section</think>\nThis is the rest",
        "\nThis is a reasoning section",
        "\nThis is the rest",
        None,
    ),
]:
    case(
        S,
        test,
        text,
        reasoning=reasoning,
        content=content,
        tools=[],
        reasoning_open=True,
        dialect="reasoning",
        declined=declined,
    )

# ----------------------------------------------------------------------------------------------------------------------
# SGLang: test/registered/unit/function_call/test_qwen25_detector.py
# ----------------------------------------------------------------------------------------------------------------------

S = "sglang_qwen25"
QWEN25_TOOLS = [
    tool(
        "get_weather",
        {
            "city": {"type": "string", "description": "City name"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        },
    ),
    tool("search", {"query": {"type": "string", "description": "Search query"}}),
]
QWEN25_TOOLS[0]["function"]["parameters"]["required"] = ["city"]
QWEN25_TOOLS[1]["function"]["parameters"]["required"] = ["query"]
case(
    S,
    "test_single_tool_call",
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Beijing"}}\n</tool_call>',
    calls=[call("get_weather", {"city": "Beijing"})],
    tools=QWEN25_TOOLS,
    tools_from_source=True,
    dialect="hermes",
)
case(
    S,
    "test_multiple_tool_calls",
    (
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Beijing"}}\n</tool_call>\n'
        '<tool_call>\n{"name": "search", "arguments": {"query": "restaurants"}}\n</tool_call>'
    ),
    calls=[call("get_weather", {"city": "Beijing"}), call("search", {"query": "restaurants"})],
    tools=QWEN25_TOOLS,
    tools_from_source=True,
    dialect="hermes",
    checks=("tool_calls",),
)
case(
    S,
    "test_tool_call_with_preceding_text",
    'Let me check the weather.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Shanghai"}}\n</tool_call>',
    content="Let me check the weather.\n",
    calls=[call("get_weather", {"city": "Shanghai"})],
    tools=QWEN25_TOOLS,
    tools_from_source=True,
    dialect="hermes",
    checks=("tool_calls",),
    note="The peer asserts that the content holds 'check the weather'; the calls are scored.",
)
case(
    S,
    "test_no_tool_call",
    "Hello, how can I help you today?",
    content="Hello, how can I help you today?",
    tools=QWEN25_TOOLS,
    tools_from_source=True,
    dialect="hermes",
)
case(
    S,
    "test_malformed_json",
    "<tool_call>\n{invalid json}\n</tool_call>",
    content="<tool_call>\n{invalid json}\n</tool_call>",
    tools=QWEN25_TOOLS,
    tools_from_source=True,
    dialect="hermes",
    checks=("tool_calls",),
    note="The peer asserts that no call is made.",
)
case(
    S,
    "test_tool_call_with_extra_whitespace",
    '<tool_call>\n  {"name": "get_weather", "arguments": {"city": "Tokyo"}}  \n</tool_call>',
    calls=[call("get_weather", {"city": "Tokyo"})],
    tools=QWEN25_TOOLS,
    tools_from_source=True,
    dialect="hermes",
    checks=("tool_calls",),
)
case(
    S,
    "test_streaming_single_call",
    "<tool_call>\n" + '{"name": "get_weather",' + ' "arguments": {"city": "Beijing"}}' + "\n</tool_call>",
    calls=[call("get_weather", {"city": "Beijing"})],
    tools=QWEN25_TOOLS,
    tools_from_source=True,
    dialect="hermes",
    checks=("tool_calls",),
)
case(
    S,
    "test_streaming_normal_text_before_call",
    "Hello there! ",
    content="Hello there! ",
    tools=QWEN25_TOOLS,
    tools_from_source=True,
    dialect="hermes",
)

# ----------------------------------------------------------------------------------------------------------------------
# SGLang: test/registered/unit/function_call/test_hermes_detector.py (the same tools as the qwen25 tests)
# ----------------------------------------------------------------------------------------------------------------------

S = "sglang_hermes"
case(
    S,
    "test_single_tool_call",
    '<tool_call>{"name": "get_weather", "arguments": {"city": "Beijing"}}</tool_call>',
    calls=[call("get_weather", {"city": "Beijing"})],
    tools=QWEN25_TOOLS,
    tools_from_source=True,
    dialect="hermes",
)
case(
    S,
    "test_multiple_tool_calls",
    (
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Beijing"}}</tool_call>'
        '<tool_call>{"name": "search", "arguments": {"query": "restaurants"}}</tool_call>'
    ),
    calls=[call("get_weather", {"city": "Beijing"}), call("search", {"query": "restaurants"})],
    tools=QWEN25_TOOLS,
    tools_from_source=True,
    dialect="hermes",
    checks=("tool_calls",),
)
case(
    S,
    "test_tool_call_with_leading_text",
    'I will check the weather for you. <tool_call>{"name": "get_weather", "arguments": {"city": "Tokyo"}}</tool_call>',
    content="I will check the weather for you.",
    calls=[call("get_weather", {"city": "Tokyo"})],
    tools=QWEN25_TOOLS,
    tools_from_source=True,
    dialect="hermes",
    declined=(
        "content keeps the whitespace before a call (nothing of the text is lost, and streamed text is never held "
        "back to see whether a call follows); the peer strips it in one pass"
    ),
)
case(
    S,
    "test_no_tool_call",
    "The weather is nice today.",
    content="The weather is nice today.",
    tools=QWEN25_TOOLS,
    tools_from_source=True,
    dialect="hermes",
)
case(
    S,
    "test_tool_call_with_multiple_arguments",
    '<tool_call>{"name": "get_weather", "arguments": {"city": "London", "unit": "celsius"}}</tool_call>',
    calls=[call("get_weather", {"city": "London", "unit": "celsius"})],
    tools=QWEN25_TOOLS,
    tools_from_source=True,
    dialect="hermes",
    checks=("tool_calls",),
)
case(
    S,
    "test_malformed_json_returns_original_text",
    "<tool_call>not valid json</tool_call>",
    content="<tool_call>not valid json</tool_call>",
    tools=QWEN25_TOOLS,
    tools_from_source=True,
    dialect="hermes",
    checks=("tool_calls",),
    note="The peer asserts that no call is made.",
)
case(
    S,
    "test_streaming_single_tool_call",
    "<tool_" + 'call>{"name": "get_weather",' + ' "arguments": {"city": "Beijing"' + "}}</tool_call>",
    calls=[call("get_weather", {"city": "Beijing"})],
    tools=QWEN25_TOOLS,
    tools_from_source=True,
    dialect="hermes",
    checks=("tool_calls",),
    note="The peer asserts that calls are streamed; the call is the one the output spells.",
)
case(
    S,
    "test_streaming_normal_text_before_tool",
    "Hello! Let me help. ",
    content="Hello! Let me help. ",
    tools=QWEN25_TOOLS,
    tools_from_source=True,
    dialect="hermes",
)

# ----------------------------------------------------------------------------------------------------------------------
# SGLang: test/registered/unit/function_call/test_qwen3_coder_numeric_precision.py (check_value's text and schemas)
# ----------------------------------------------------------------------------------------------------------------------

S = "sglang_qwen3_coder_numeric"
NUMERIC = [
    ("test_number_schema_preserves_large_integer_literals", {"type": "number"}, str(v), v)
    for v in (9007199254740993, -9007199254740993, 18446744073709551615, 1790892345000000001)
] + [
    ("test_number_schema_preserves_large_integer_literals", {"type": "number"}, " 9007199254740993 ", 9007199254740993),
    (
        "test_nullable_number_schema_preserves_large_integer_literals",
        {"anyOf": [{"type": "number"}, {"type": "null"}]},
        "9007199254740993",
        9007199254740993,
    ),
    ("test_other_numeric_forms_are_unchanged", {"type": "number"}, "42", 42),
    ("test_other_numeric_forms_are_unchanged", {"type": "number"}, "-12.5", -12.5),
    ("test_other_numeric_forms_are_unchanged", {"type": "number"}, "1.25e3", 1250.0),
    ("test_other_numeric_forms_are_unchanged", {"type": "number"}, "not-a-number", "not-a-number"),
    ("test_other_numeric_forms_are_unchanged", {"type": "number"}, "null", None),
    ("test_integer_and_string_schemas_are_unchanged", {"type": "integer"}, "9007199254740993", 9007199254740993),
    ("test_integer_and_string_schemas_are_unchanged", {"type": "string"}, "9007199254740993", "9007199254740993"),
]
for n, (test, schema, raw, expected) in enumerate(NUMERIC):
    case(
        S,
        test,
        f"<tool_call><function=lookup><parameter=value>{raw}</parameter></function></tool_call>",
        calls=[call("lookup", {"value": expected})],
        tools=[tool("lookup", {"value": schema})],
        tools_from_source=True,
        dialect="xml",
        suffix=f"__{n}",
    )

# ----------------------------------------------------------------------------------------------------------------------
# SGLang: test/srt/function_call/test_qwen3_coder_detector.py
# ----------------------------------------------------------------------------------------------------------------------

S = "sglang_qwen3_coder"
QWEN3_CODER_TOOLS = [
    tool("get_weather", {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}})
]
case(
    S,
    "test_full_parse",
    "<tool_call><function=get_weather><parameter=city>Shanghai</parameter><parameter=unit>celsius</parameter></tool_call>",
    calls=[call("get_weather", {"city": "Shanghai", "unit": "celsius"})],
    tools=QWEN3_CODER_TOOLS,
    tools_from_source=True,
    dialect="xml",
)
case(
    S,
    "test_streaming_parse",
    "Thought: calling weather. "
    + "<tool_call>"
    + "<function=get_weather>"
    + "<parameter=city>Shanghai</parameter>"
    + "</tool_call>",
    content="Thought: calling weather. ",
    calls=[call("get_weather", {"city": "Shanghai"})],
    tools=QWEN3_CODER_TOOLS,
    tools_from_source=True,
    dialect="xml",
)

# ----------------------------------------------------------------------------------------------------------------------
# SGLang: test/registered/unit/function_call/test_qwen3_coder_detector.py (the texts its _call(city_block) builds; the
# 100,000-space value of the linear-time test is left out)
# ----------------------------------------------------------------------------------------------------------------------

S = "sglang_qwen3_coder_unit"
CITY_DAYS_TOOLS = [tool("get_weather", {"city": {"type": "string"}, "days": {"type": "integer"}})]
CITY_DAYS_TOOLS[0]["function"]["parameters"]["required"] = ["city"]


def city_call(city_block: str) -> str:
    """The peer's ``_call``: a get_weather call whose city parameter holds ``city_block``."""
    return (
        "<tool_call>\n<function=get_weather>\n"
        f"<parameter=city>\n{city_block}\n"
        "<parameter=days>\n3\n</parameter>\n"
        "</function>\n</tool_call>"
    )


for n, marker in enumerate(("</parameter1>", "</parameter_function>", "</parameter")):
    case(
        S,
        "TestQwen3CoderDetectorMalformedParameterEnd.test_non_streaming_strips_drifted_end_marker",
        city_call(f"Shanghai\n{marker}"),
        calls=[call("get_weather", {"city": "Shanghai", "days": 3})],
        tools=CITY_DAYS_TOOLS,
        tools_from_source=True,
        dialect="xml",
        checks=("tool_calls",),
        suffix=f"__{n}",
    )
case(
    S,
    "TestQwen3CoderDetectorMalformedParameterEnd.test_well_formed_value_unchanged",
    city_call("Shanghai\n</parameter>"),
    calls=[call("get_weather", {"city": "Shanghai", "days": 3})],
    tools=CITY_DAYS_TOOLS,
    tools_from_source=True,
    dialect="xml",
    checks=("tool_calls",),
)
case(
    S,
    "TestQwen3CoderDetectorMalformedParameterEnd.test_angle_brackets_inside_value_are_kept",
    city_call("a <b>tag</b> city\n</parameter>"),
    calls=[call("get_weather", {"city": "a <b>tag</b> city", "days": 3})],
    tools=CITY_DAYS_TOOLS,
    tools_from_source=True,
    dialect="xml",
    checks=("tool_calls",),
    note="The peer checks the city; days is what the output spells.",
)
for n, value in enumerate(("<config>\n  <p>1</p>\n</parameters>", "x </parameterList>")):
    case(
        S,
        "TestQwen3CoderDetectorMalformedParameterEnd.test_closed_value_ending_like_a_marker_is_kept",
        city_call(f"{value}\n</parameter>"),
        calls=[call("get_weather", {"city": value, "days": 3})],
        tools=CITY_DAYS_TOOLS,
        tools_from_source=True,
        dialect="xml",
        checks=("tool_calls",),
        suffix=f"__{n}",
        note="The peer checks the city; days is what the output spells.",
    )

# ----------------------------------------------------------------------------------------------------------------------
# SGLang: test/registered/function_call/test_qwen3_coder_detector/test_cases.py (tools: test_fixtures.py's
# get_test_tools at 4e563f39802721177a146f26e266a7bca60ddcb5)
# ----------------------------------------------------------------------------------------------------------------------

S = "sglang_qwen3_coder_streaming"
FIXTURE_TOOLS = [
    tool(
        "get_current_weather",
        {
            "location": {"type": "string"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            "days": {"type": "integer"},
        },
    ),
    tool("sql_interpreter", {"query": {"type": "string"}, "dry_run": {"type": "boolean"}}),
    tool(
        "TodoWrite",
        {
            "todos": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"content": {"type": "string"}, "status": {"type": "string"}},
                    "required": ["content", "status"],
                },
            }
        },
    ),
]
FIXTURE_TOOLS[0]["function"]["parameters"]["required"] = ["location"]
BOSTON = {"location": "Boston", "unit": "celsius", "days": 3}
for test, text, content, calls, checks, note in [
    ("plain_text", """This is plain text test""", "This is plain text test", [], ALL, None),
    (
        "single_tool_call",
        """<function=get_current_weather>
<parameter=location>Boston</parameter>
<parameter=unit>celsius</parameter>
<parameter=days>3</parameter>
</function>""",
        "",
        [call("get_current_weather", BOSTON)],
        ALL,
        None,
    ),
    (
        "single_tool_call_with_text",
        """Text prefix + tool call test

<function=get_current_weather>
<parameter=location>Boston</parameter>
<parameter=unit>celsius</parameter>
<parameter=days>3</parameter>
</function>""",
        "Text prefix + tool call test\n\n",
        [call("get_current_weather", BOSTON)],
        ("tool_calls",),
        "The peer's expected text is 'Text prefix + tool call test\\n    \\n', four spaces the output does not hold; "
        "the calls are scored.",
    ),
    (
        "double_tool_call",
        """Text prefix + double tool call test

<function=get_current_weather>
<parameter=location>New York</parameter>
</function>
<function=sql_interpreter>
<parameter=query>SELECT * FROM users</parameter>
<parameter=dry_run>True</parameter>
</function>
""",
        "Text prefix + double tool call test\n\n",
        [
            call("get_current_weather", {"location": "New York"}),
            call("sql_interpreter", {"query": "SELECT * FROM users", "dry_run": True}),
        ],
        ALL,
        None,
    ),
    (
        "random_fragmentation",
        """Text prefix + random fragmentation stress test

<function=get_current_weather>
<parameter=location>San Francisco</parameter>
</function>""",
        "Text prefix + random fragmentation stress test\n\n",
        [call("get_current_weather", {"location": "San Francisco"})],
        ALL,
        None,
    ),
    (
        "implicit_parameter_close",
        """Text prefix + implicit parameter close test

<function=get_current_weather>
<parameter=location>Paris
<parameter=unit>celsius
<parameter=days>3
</function>""",
        "Text prefix + implicit parameter close test\n\n",
        [call("get_current_weather", {"location": "Paris", "unit": "celsius", "days": 3})],
        ALL,
        None,
    ),
    (
        "complex_schema",
        """Text prefix + complex schema tool call test

<function=TodoWrite>
<parameter=todos>
[
 {"content": "Buy a new car", "status": 'pending'},
 {"content": "Buy a new house", "status": "completed"}
]
</parameter>
</function>

""",
        "Text prefix + complex schema tool call test\n\n",
        [
            call(
                "TodoWrite",
                {
                    "todos": [
                        {"content": "Buy a new car", "status": "pending"},
                        {"content": "Buy a new house", "status": "completed"},
                    ]
                },
            )
        ],
        ALL,
        None,
    ),
]:
    case(
        S,
        test,
        text,
        content=content,
        calls=calls,
        tools=FIXTURE_TOOLS,
        tools_from_source=True,
        dialect="xml",
        checks=checks,
        note=note,
    )

# ----------------------------------------------------------------------------------------------------------------------
# Ollama: model/parsers/qwen3coder_test.go, TestQwenToolParser (the raw call the parser is handed; no tools unless
# the step declares them)
# ----------------------------------------------------------------------------------------------------------------------

S = "ollama_qwen3coder"
case(
    S,
    "TestQwenToolParser/simple tool call",
    """<function=get_current_temperature>
<parameter=location>
San Francisco
</parameter>
<parameter=unit>
celsius
</parameter>
</function>""",
    calls=[call("get_current_temperature", {"location": "San Francisco", "unit": "celsius"})],
    dialect="xml",
)
case(
    S,
    "TestQwenToolParser/names with spaces",
    """<function=get current temperature>
<parameter=location with spaces>
San Francisco
</parameter>
<parameter=unit with spaces>
celsius
</parameter>
</function>""",
    calls=[call("get current temperature", {"location with spaces": "San Francisco", "unit with spaces": "celsius"})],
    dialect="xml",
)
case(
    S,
    "TestQwenToolParser/names with quotes",
    """<function="get current temperature">
<parameter="location with spaces">
San Francisco
</parameter>
<parameter="unit with spaces">
"celsius"
</parameter>
</function>""",
    calls=[
        call(
            '"get current temperature"',
            {'"location with spaces"': "San Francisco", '"unit with spaces"': '"celsius"'},
        )
    ],
    dialect="xml",
)
case(
    S,
    "TestQwenToolParser/tool call with typed parameters",
    """<function=calculate>
<parameter=x>
3.14
</parameter>
<parameter=y>
42
</parameter>
<parameter=enabled>
true
</parameter>
<parameter=items>
["a", "b", "c"]
</parameter>
</function>""",
    calls=[call("calculate", {"x": 3.14, "y": 42, "enabled": True, "items": ["a", "b", "c"]})],
    tools=[
        tool(
            "calculate",
            {
                "x": {"type": "number"},
                "y": {"type": "integer"},
                "enabled": {"type": "boolean"},
                "items": {"type": "array"},
            },
        )
    ],
    tools_from_source=True,
    dialect="xml",
)
case(
    S,
    "TestQwenToolParser/ampersands in parameter values",
    """<function=exec>
<parameter=command>
ls && echo "done"
</parameter>
</function>""",
    calls=[call("exec", {"command": 'ls && echo "done"'})],
    dialect="xml",
)
case(
    S,
    "TestQwenToolParser/angle brackets in parameter values",
    """<function=exec>
<parameter=command>
ls && echo "a > b and a < b"
</parameter>
</function>""",
    calls=[call("exec", {"command": 'ls && echo "a > b and a < b"'})],
    dialect="xml",
)
case(
    S,
    "TestQwenToolParser/unicode in function names and parameters",
    """<function=获取天气>
<parameter=城市>
北京
</parameter>
<parameter=message>
Hello! 你好! 🌟 مرحبا
</parameter>
</function>""",
    calls=[call("获取天气", {"城市": "北京", "message": "Hello! 你好! 🌟 مرحبا"})],
    dialect="xml",
)

# ----------------------------------------------------------------------------------------------------------------------
# Ollama: model/parsers/qwen3_test.go (thinking enabled: the template opens <think>)
# ----------------------------------------------------------------------------------------------------------------------

S = "ollama_qwen3"
case(
    S,
    "TestQwen3ParserThinkingEnabled",
    "Let me think...</think>Answer.",
    reasoning="Let me think...",
    content="Answer.",
    tools=[],
    reasoning_open=True,
    dialect="reasoning",
)
case(
    S,
    "TestQwen3ParserThinkingEnabledWithExplicitOpeningTag",
    "<think>\nLet me think...</think>Answer.",
    reasoning="Let me think...",
    content="Answer.",
    tools=[],
    reasoning_open=True,
    dialect="reasoning",
    declined=(
        "reasoning is the exact text between the think tags, whitespace included (nothing is trimmed, so streamed "
        "reasoning never has to hold whitespace back); the peer trims the newline after <think>"
    ),
)
case(
    S,
    "TestQwen3ParserThinkingEnabledWithSplitOpeningTag",
    "<thi" + "nk>Let me think...</think>Answer.",
    reasoning="Let me think...",
    content="Answer.",
    tools=[],
    reasoning_open=True,
    dialect="reasoning",
)
case(S, "TestQwen3ParserThinkingDisabled", "Direct answer", content="Direct answer", tools=[], dialect="reasoning")
case(
    S,
    "TestQwen3ParserToolCall",
    '<tool_call>{"name":"get_weather","arguments":{"location":"San Francisco","unit":"celsius"}}</tool_call>',
    calls=[call("get_weather", {"location": "San Francisco", "unit": "celsius"})],
    dialect="hermes",
)
case(
    S,
    "TestQwen3ParserThinkingWithToolCallBeforeThinkingClose",
    'Let me think<tool_call>{"name":"get_weather","arguments":{"location":"San Francisco","unit":"celsius"}}</tool_call>',  # noqa: E501 (verbatim)
    reasoning="Let me think",
    calls=[call("get_weather", {"location": "San Francisco", "unit": "celsius"})],
    reasoning_open=True,
    dialect="hermes",
    note="The peer checks the content, the reasoning and the call's name; the arguments are what the output spells.",
)
case(
    S,
    "TestQwen3ParserThinkingWithSplitToolOpenTag",
    "Let me think<tool_ca" + 'll>{"name":"get_weather","arguments":{"location":"SF"}}</tool_call>',
    reasoning="Let me think",
    calls=[call("get_weather", {"location": "SF"})],
    reasoning_open=True,
    dialect="hermes",
)
case(
    S,
    "TestQwen35ParserRespectsNoThink",
    "Hello! How can I help you today?",
    content="Hello! How can I help you today?",
    tools=[],
    dialect="reasoning",
)
case(
    S,
    "TestQwen3ParserToolCallIndexing",
    """<tool_call>{"name":"first","arguments":{"a":"1"}}</tool_call>
<tool_call>{"name":"second","arguments":{"b":"2"}}</tool_call>
<tool_call>{"name":"third","arguments":{"c":"3"}}</tool_call>""",
    calls=[call("first", {"a": "1"}), call("second", {"b": "2"}), call("third", {"c": "3"})],
    dialect="hermes",
    checks=("tool_calls",),
)


# ----------------------------------------------------------------------------------------------------------------------
# Ollama: model/parsers/qwen35_test.go (streamed chunks joined; thinking on: the template opens <think>)
# ----------------------------------------------------------------------------------------------------------------------

S = "ollama_qwen35"
LOCATION_TOOL = [tool("get_weather", {"location": {"type": "string"}})]
SF_CALL = "<tool_call><function=get_weather><parameter=location>\nSF\n</parameter></function></tool_call>"
case(
    S,
    "TestQwen35ParserXMLToolCall",
    "<tool_call><function=get_weather><parameter=location>\nSan Francisco\n</parameter><parameter=days>\n3\n</parameter></function></tool_call>",  # noqa: E501 (verbatim)
    calls=[call("get_weather", {"location": "San Francisco", "days": 3})],
    tools=[tool("get_weather", {"location": {"type": "string"}, "days": {"type": "integer"}})],
    tools_from_source=True,
    dialect="xml",
)
case(
    S,
    "TestQwen35ParserThinkingWithExplicitOpeningTag",
    "<think>\nLet me think...</think>Answer.",
    reasoning="Let me think...",
    content="Answer.",
    tools=[],
    reasoning_open=True,
    dialect="reasoning",
    declined=(
        "reasoning is the exact text between the think tags, whitespace included (nothing is trimmed, so streamed "
        "reasoning never has to hold whitespace back); the peer trims the newline after <think>"
    ),
)
case(
    S,
    "TestQwen35ParserAssistantPrefillStartsInContent",
    " and continued",
    content=" and continued",
    tools=[],
    dialect="reasoning",
)
case(
    S,
    "TestQwen35ParserToolCallEmittedInThinkingIsParsed",
    "Need weather lookup" + SF_CALL,
    reasoning="Need weather lookup",
    calls=[call("get_weather", {"location": "SF"})],
    tools=LOCATION_TOOL,
    tools_from_source=True,
    reasoning_open=True,
    dialect="xml",
)
case(
    S,
    "TestQwen35ParserFakeoutPartialToolCallThenThinkCloseAcrossChunks",
    "Need weather lookup<tool_c" + "</thi" + "nk>",
    reasoning="Need weather lookup<tool_c",
    tools=LOCATION_TOOL,
    tools_from_source=True,
    reasoning_open=True,
    dialect="reasoning",
)
case(
    S,
    "TestQwen35ParserToolCallAfterThinkingCloseIsParsed",
    "Need weather lookup</think>" + SF_CALL,
    reasoning="Need weather lookup",
    calls=[call("get_weather", {"location": "SF"})],
    tools=LOCATION_TOOL,
    tools_from_source=True,
    reasoning_open=True,
    dialect="xml",
)
case(
    S,
    "TestQwen35ParserThinkingDisabledPassesContentThrough",
    "Plain answer without think close tag.",
    content="Plain answer without think close tag.",
    tools=[],
    dialect="reasoning",
)
case(
    S,
    "TestQwen35ParserThinkingDisabledWithCloseTagTreatsAsContent",
    "</think>Some content after spurious tag.",
    content="</think>Some content after spurious tag.",
    tools=[],
    dialect="reasoning",
    declined=(
        "a think tag is markup, never content: with a reasoning parser on, a </think> with no opener closes the "
        "reasoning the template or the model implied (issue 29 item 3); the peer keeps it as text when thinking is off"
    ),
)
case(
    S,
    "TestQwen35ParserLeadingThinkCloseProducesContent",
    "</think>The final answer.",
    content="The final answer.",
    tools=[],
    reasoning_open=True,
    dialect="reasoning",
)
case(
    S,
    "TestQwen35ParserStreamingSplitThinkCloseTag",
    "Reasoning text</thi" + "nk>The final answer.",
    reasoning="Reasoning text",
    content="The final answer.",
    tools=[],
    reasoning_open=True,
    dialect="reasoning",
)
case(
    S,
    "TestQwen35ParserStreamingEatsWhitespaceAfterThinkClose",
    "Reasoning</think>" + "\n \t" + "The final answer.",
    reasoning="Reasoning",
    content="The final answer.",
    tools=[],
    reasoning_open=True,
    dialect="reasoning",
    declined=(
        "content is the exact text after </think>, whitespace included (nothing of the output is lost, and nothing is "
        "held back to see whether text follows); the peer drops the whitespace after </think>"
    ),
)
case(
    S,
    "TestQwen35ParserThinkingTruncatedWithoutCloseTag",
    "Reasoning that never closes",
    reasoning="Reasoning that never closes",
    tools=[],
    reasoning_open=True,
    dialect="reasoning",
)


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else Path(__file__).with_name("cases.jsonl")
    out.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in CASES), encoding="utf-8")
    print(f"{len(CASES)} cases -> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
