"""Generates tests/core/corpus.jsonl (the file the tests read):

    python tests/core/make_corpus.py tests/core/corpus.jsonl
"""

# ruff: noqa: RUF001  (DeepSeek's tags are written with the full-width bar)
from __future__ import annotations

import json
import sys


def fn(name, props, required=None):
    params = {"type": "object", "properties": props}
    if required:
        params["required"] = required
    return {"type": "function", "function": {"name": name, "description": f"{name} tool", "parameters": params}}


WEATHER = fn(
    "get_weather",
    {
        "city": {"type": "string"},
        "location": {"type": "string"},
        "days": {"type": "integer"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        "metric": {"type": "boolean"},
    },
    ["city"],
)
WRITE = fn("write_file", {"path": {"type": "string"}, "content": {"type": "string"}}, ["path", "content"])
TIME = fn("get_time", {})
CONFIGURE = fn(
    "configure",
    {
        "count": {"type": "integer"},
        "ratio": {"type": "number"},
        "enabled": {"type": "boolean"},
        "nothing": {"type": "null"},
        "opts": {
            "type": "object",
            "properties": {
                "depth": {"type": "integer"},
                "name": {"type": "string"},
                "inner": {"type": "object", "properties": {"flag": {"type": "boolean"}}},
            },
        },
        "tags": {"type": "array", "items": {"type": "string"}},
        "ids": {"type": "array", "items": {"type": "integer"}},
        "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "mode": {"type": "string", "enum": ["fast", "slow"]},
        "level": {"enum": [1, 2, 3]},
        "flex": {"type": ["integer", "string"]},
        "maybe_num": {"type": ["number", "null"]},
        "note": {"type": "string"},
        "scale": {"oneOf": [{"type": "number"}, {"type": "boolean"}]},
    },
)
ALL = [WEATHER, WRITE, TIME, CONFIGURE]

CASES: list[dict] = []


def case(
    id_, why, text, content="", reasoning="", calls=(), tools="auto", opt_tools=None, opt_reasoning=None, **options
):
    if tools == "auto":  # the request's tools: those the case calls (all known ones typed), else one tool
        called = {name for name, _ in calls}
        tools = [t for t in ALL if t["function"]["name"] in called] or [WEATHER]
    if opt_tools is not None:
        options["tools"] = opt_tools
    if opt_reasoning is not None:
        options["reasoning"] = opt_reasoning
    c = {"id": id_, "why": why, "tools": tools}
    if options:
        c["options"] = options
    c["text"] = text
    c["expect"] = {
        "content": content,
        "reasoning": reasoning,
        "tool_calls": [{"name": n, "arguments": a} for n, a in calls],
    }
    CASES.append(c)


def lc(body):
    return f"<longcat_tool_call>{body}</longcat_tool_call>"


def tc(body):
    return f"<tool_call>{body}</tool_call>"


def xml_fn(name, *params):
    inner = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in params)
    return f"<function={name}>\n{inner}</function>"


def kv(name, *params):
    inner = "".join(
        f"<longcat_arg_key>{k}</longcat_arg_key>\n<longcat_arg_value>{v}</longcat_arg_value>\n" for k, v in params
    )
    return f"<longcat_tool_call>{name}\n{inner}</longcat_tool_call>"


# ---------------------------------------------------------------------------------------------- LongCat JSON
case(
    "lc_json_seed000_format",
    "The exact format of seed 000: JSON on its own line inside <longcat_tool_call>; the newlines are markup.",
    '<longcat_tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</longcat_tool_call>',
    calls=[("get_weather", {"city": "Paris"})],
)
case(
    "lc_json_compact_text_around",
    "No whitespace around the JSON; text before and after the block is content (vLLM longcat drops the text after).",
    "Checking." + lc('{"name":"get_weather","arguments":{"city":"Paris","days":3}}') + "Done.",
    content="Checking.Done.",
    calls=[("get_weather", {"city": "Paris", "days": 3})],
)
case(
    "lc_json_consecutive_blocks",
    "Seed 000: several calls are consecutive blocks. The newline between two blocks is whitespace between markup, "
    "so it is markup (a response of only calls must not get content '\\n'); text next to a block is content.",
    lc('\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n')
    + "\n"
    + lc('\n{"name": "get_time", "arguments": {}}\n'),
    calls=[("get_weather", {"city": "Paris"}), ("get_time", {})],
)
case(
    "lc_json_reversed_keys",
    "Key order is not guaranteed: arguments before name (vLLM longcat streams a wrong name here). The arguments "
    "must not be streamed before the ToolCallStart carrying the name.",
    lc('\n{"arguments": {"city": "Paris", "days": 2}, "name": "get_weather"}\n'),
    calls=[("get_weather", {"city": "Paris", "days": 2})],
)
case(
    "lc_json_reversed_keys_name_inside_arguments",
    "An argument called 'name' inside arguments that come first must not be taken for the tool name.",
    tc('\n{"arguments": {"name": "inner", "x": {"name": "deeper"}}, "name": "outer"}\n'),
    tools=None,
    calls=[("outer", {"name": "inner", "x": {"name": "deeper"}})],
)
case(
    "lc_json_two_objects_one_block",
    "Several JSON objects inside one <longcat_tool_call> block are several calls.",
    lc('\n{"name": "get_time", "arguments": {}}\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n'),
    calls=[("get_time", {}), ("get_weather", {"city": "Oslo"})],
)
case(
    "lc_json_parameters_key_and_extra_members",
    "'parameters' is accepted for 'arguments' (some models emit it); unknown members such as 'id' are ignored.",
    lc('{"id": "x1", "name": "get_weather", "parameters": {"city": "Rome"}, "type": "function"}'),
    calls=[("get_weather", {"city": "Rome"})],
)
case(
    "lc_json_arguments_as_string",
    "Arguments given as a JSON-encoded string (OpenAI wire style) are decoded to the object.",
    lc('{"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}'),
    calls=[("get_weather", {"city": "Paris"})],
)
case(
    "lc_json_missing_or_null_arguments",
    "A call without arguments, or with arguments null, has arguments {} (valid JSON object).",
    lc('{"name": "get_time"}') + lc('{"name": "get_time", "arguments": null}'),
    calls=[("get_time", {}), ("get_time", {})],
)
case(
    "lc_json_non_ascii_and_escapes",
    "Non-ASCII text, \\u escapes (incl. a surrogate pair) and escaped quotes pass through as JSON values.",
    lc(
        '{"name": "write_file", "arguments": {"path": "北京/数据.txt", "content": "naïve 🚀 \\u4e2d\\u6587 \\ud83d\\ude00 \\"q\\" \\\\ end"}}'
    ),
    calls=[("write_file", {"path": "北京/数据.txt", "content": 'naïve 🚀 中文 😀 "q" \\ end'})],
)
case(
    "lc_json_tags_inside_string_values",
    "Call and end-of-sequence tags inside a JSON string value are data, not markup.",
    tc(
        '{"name": "write_file", "arguments": {"path": "a.md", "content": "</tool_call> <tool_call> </longcat_s> <|im_end|> <think>"}}'
    ),
    calls=[("write_file", {"path": "a.md", "content": "</tool_call> <tool_call> </longcat_s> <|im_end|> <think>"})],
)

# ------------------------------------------------------------------------------------------- Hermes / Qwen JSON
case(
    "hermes_seed003_example",
    "The example of seed 003 (Qwen3 tools-first template) inside <tool_call> (vLLM longcat cannot read <tool_call>).",
    '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Seoul", "unit": "celsius"}}\n</tool_call>',
    calls=[("get_weather", {"location": "Seoul", "unit": "celsius"})],
)
case(
    "hermes_seed003_history_several_lines_one_block",
    "Seed 003 renders several calls as JSON lines inside ONE <tool_call> block; each line is a call.",
    '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Seoul"}}\n'
    '{"name": "get_weather", "arguments": {"location": "Busan"}}\n{"name": "get_time", "arguments": {}}\n</tool_call>',
    calls=[("get_weather", {"location": "Seoul"}), ("get_weather", {"location": "Busan"}), ("get_time", {})],
)
case(
    "hermes_two_blocks_with_text",
    "Two complete blocks with text before, between and after: all text is content. With the whole-text split this "
    "is SGLang qwen25's fault (second complete call in one chunk never emitted; whole call loses its arguments).",
    "Sure, two lookups.\n"
    + tc('\n{"name": "get_weather", "arguments": {"city": "A"}}\n')
    + "\nand\n"
    + tc('\n{"name": "get_weather", "arguments": {"city": "B"}}\n')
    + "\nDone.",
    content="Sure, two lookups.\n\nand\n\nDone.",
    calls=[("get_weather", {"city": "A"}), ("get_weather", {"city": "B"})],
)
case(
    "hermes_text_before_split_tag",
    "Text right before a tag, no space (SGLang qwen25/hermes drops the text before a tag that arrives split; every "
    "split of the corpus test cuts this tag somewhere).",
    'Checking the weather now<tool_call>\n{"name": "get_weather", "arguments": {"city": "Lima"}}\n</tool_call>',
    content="Checking the weather now",
    calls=[("get_weather", {"city": "Lima"})],
)
case(
    "hermes_text_between_objects_in_block",
    "Stray text between two JSON calls inside one block is content; whitespace is attached to what follows it "
    "(markup when a call follows, text when text follows).",
    '<tool_call>\n{"name": "get_time", "arguments": {}}\nand then\n{"name": "get_time", "arguments": {}}\n</tool_call>',
    content="\nand then",
    calls=[("get_time", {}), ("get_time", {})],
)
case(
    "hermes_missing_closing_brace",
    "The outer object lacks its closing brace; the closing tag ends the call and arguments are complete.",
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}\n</tool_call>',
    calls=[("get_weather", {"city": "Paris"})],
)
case(
    "hermes_missing_both_braces_number_last",
    "Both closing braces missing and the last value is a number: the tag right after the number ends the number; "
    'the member is complete and must be kept ({"days": 3}), not dropped.',
    '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": 3</tool_call>',
    calls=[("get_weather", {"city": "Paris", "days": 3})],
)
case(
    "hermes_trailing_commas",
    "Trailing commas in objects and arrays are repaired.",
    tc('{"name": "configure", "arguments": {"tags": ["a", "b",], "count": 2,},}'),
    calls=[("configure", {"tags": ["a", "b"], "count": 2})],
)
case(
    "hermes_raw_control_chars_in_string",
    "Raw newlines and tabs inside JSON strings are escaped (models write code this way).",
    tc('{"name": "write_file", "arguments": {"path": "m.py", "content": "def f():\n\treturn 1\n"}}'),
    calls=[("write_file", {"path": "m.py", "content": "def f():\n\treturn 1\n"})],
)
case(
    "hermes_python_literals",
    "Python True/False/None become JSON literals.",
    tc('{"name": "configure", "arguments": {"enabled": True, "nothing": None, "x": [False, True]}}'),
    calls=[("configure", {"enabled": True, "nothing": None, "x": [False, True]})],
)
case(
    "hermes_single_quoted_python_dict",
    "The whole call is a Python dict repr (single quotes). Spec: every tool call arrives; the reader already repairs "
    "Python literals, and single-quoted strings are the same family of slip. Expected: repaired into the call.",
    "<tool_call>\n{'name': 'get_weather', 'arguments': {'city': 'Paris', 'metric': True}}\n</tool_call>",
    calls=[("get_weather", {"city": "Paris", "metric": True})],
)
case(
    "hermes_single_quoted_arguments",
    "Name is valid JSON but arguments use single quotes. Losing the arguments ({}) and showing the rest as content "
    "is the worst of both; expected: repaired arguments, nothing in content.",
    '<tool_call>\n{"name": "get_weather", "arguments": {\'city\': "Paris", \'note\': \'it\\\'s "x"\'}}\n</tool_call>',
    calls=[("get_weather", {"city": "Paris", "note": 'it\'s "x"'})],
)
case(
    "hermes_non_call_object_after_call",
    "A JSON object that is no call, after a call in the same block: it is text and comes back as content verbatim "
    "(invariant 3: nothing is lost); the closing tag is still markup.",
    tc('{"name": "get_time", "arguments": {}}{"note": "done"}'),
    content='{"note": "done"}',
    calls=[("get_time", {})],
)
case(
    "hermes_unescaped_quotes_in_code",
    "A very common slip when models write code into JSON: unescaped double quotes inside a string. A quote followed "
    "by something that cannot follow a string value (not , } ] : after optional whitespace) is a literal quote. "
    "Otherwise the harness writes a truncated file ('print(') and junk lands in the content.",
    tc('{"name": "write_file", "arguments": {"path": "a.py", "content": "print("hi")\nx = "y""}}'),
    calls=[("write_file", {"path": "a.py", "content": 'print("hi")\nx = "y"'})],
)
case(
    "hermes_unescaped_quotes_dict_literal_in_code",
    "Unescaped quotes in code that also holds ':' and ',' after a quote (a dict literal, a call with several "
    "arguments). Inside a VALUE string a quote followed by ':' cannot end it (only keys are followed by ':'), and a "
    "quote followed by ',' ends it only if the next member/element can start after the comma (a '\"' in an object).",
    tc('{"name": "write_file", "arguments": {"content": "x = {"k": 1}\nprint("a", b)", "path": "a.py"}}'),
    calls=[("write_file", {"content": 'x = {"k": 1}\nprint("a", b)', "path": "a.py"})],
)
case(
    "hermes_unescaped_quotes_markup_in_code",
    "Unescaped quotes around string literals that start with '<' (HTML/XML in code). A quote followed by '<' ends "
    "the string only when a closing tag or end marker follows (the missing-brace case), not any '<'.",
    tc('{"name": "write_file", "arguments": {"content": "html = "<div>" + body", "path": "a.py"}}'),
    calls=[("write_file", {"content": 'html = "<div>" + body', "path": "a.py"})],
)
case(
    "hermes_unescaped_quotes_before_brace_in_code",
    "Unescaped quotes where a quote is followed by '}' inside code (a dict literal with a string value). '}' after "
    "a quote ends the string only if what follows the '}' can follow the end of an object (',', '}', ']', a closing "
    "tag, the end) - here a newline and more code follow.",
    tc('{"name": "write_file", "arguments": {"content": "d = {"k": "v"}\nprint(d)", "path": "a.py"}}'),
    calls=[("write_file", {"content": 'd = {"k": "v"}\nprint(d)', "path": "a.py"})],
)
case(
    "hermes_number_with_leading_zero",
    "A number with a leading zero (zip codes, dates: 03) is not JSON. Repaired like other slips (03 -> 3) rather "
    "than failing the arguments (which would drop the member, lose its text and show '}}' as content).",
    tc('{"name": "get_weather", "arguments": {"city": "Paris", "days": 03}}'),
    calls=[("get_weather", {"city": "Paris", "days": 3})],
)
case(
    "hermes_unknown_tool",
    "A block naming no tool of the request is no call: it comes back as content, verbatim (and is logged).",
    tc('\n{"name": "delete_everything", "arguments": {"really": true}}\n'),
    tools=ALL,
    content=tc('\n{"name": "delete_everything", "arguments": {"really": true}}\n'),
)
case(
    "unknown_tool_think_tag_in_value",
    "Issue 29, item 8: once a block's name is found to name no tool, the rest of the block is read as the call it "
    "is, not as content where think tags are markup: the whole block, and the text after it, comes back verbatim.",
    'ok <tool_call>{"name": "g", "arguments": {"a": "x<think>y"}}</tool_call> done',
    content='ok <tool_call>{"name": "g", "arguments": {"a": "x<think>y"}}</tool_call> done',
)
case(
    "unknown_tool_end_marker_in_value",
    "Issue 29, item 8: an end-of-sequence marker inside a value of a block that names no tool is text of the block.",
    '<tool_call>{"name": "g", "arguments": {"a": "<|im_end|>"}}</tool_call>',
    content='<tool_call>{"name": "g", "arguments": {"a": "<|im_end|>"}}</tool_call>',
)
case(
    "unknown_tool_xml_think_close_in_value",
    "Issue 29, item 8: the same in XML, a closing think tag inside a parameter.",
    "<tool_call><function=g><parameter=a>x</think>y</parameter></function></tool_call>",
    content="<tool_call><function=g><parameter=a>x</think>y</parameter></function></tool_call>",
)
case(
    "unknown_tool_kv_think_open_in_value",
    "Issue 29, item 8: the same in the key/value dialect.",
    kv("g", ("a", "x<think>y")) + " z",
    content=kv("g", ("a", "x<think>y")) + " z",
)
case(
    "unknown_tool_inside_reasoning",
    "A block naming no tool inside reasoning is reasoning, verbatim, tags inside its values included; the "
    "reasoning's own closing tag still closes it.",
    "<think>r <tool_call><function=g><parameter=a>x</think>y</parameter></function></tool_call> more</think>ans",
    content="ans",
    reasoning="r <tool_call><function=g><parameter=a>x</think>y</parameter></function></tool_call> more",
)
case(
    "unknown_tool_then_known_in_one_block",
    "A block whose first call names no tool and whose second names one: the second is a call, the first comes "
    "back as content, verbatim (the block's tags are markup: it held a call).",
    tc('{"name": "g", "arguments": {"a": "x<think>"}}\n{"name": "get_weather", "arguments": {"city": "Paris"}}')
    + " z",
    content='{"name": "g", "arguments": {"a": "x<think>"}}\n z',
    calls=[("get_weather", {"city": "Paris"})],
)
case(
    "unknown_tools_only_in_one_block",
    "A block of two calls, neither naming a tool: the whole block is content, verbatim.",
    tc('{"name": "g", "arguments": {"a": "x"}}\n{"name": "h", "arguments": {"a": "<|im_end|>"}}') + " z",
    content=tc('{"name": "g", "arguments": {"a": "x"}}\n{"name": "h", "arguments": {"a": "<|im_end|>"}}') + " z",
)
case(
    "unknown_tool_mentioned_in_reasoning",
    "A call of no declared tool mentioned inside reasoning, never closed: a think tag between its parameters (not "
    "inside a value) ends it, so the reasoning's closing tag still closes reasoning.",
    "<think>I could use <tool_call><function=foo> here. </think>answer",
    content="answer",
    reasoning="I could use <tool_call><function=foo> here. ",
)
case(
    "unknown_bare_function_then_reasoning",
    "A bare <function= of no declared tool, then a think block: the mention is content, the block reasoning.",
    "<function=e><longcat_think>hmm</longcat_think>ok",
    content="<function=e>ok",
    reasoning="hmm",
)
case(
    "unknown_tool_cut_off",
    "A block naming no tool, cut off inside a value: verbatim.",
    '<tool_call>{"name": "g", "arguments": {"a": "x<think>y',
    content='<tool_call>{"name": "g", "arguments": {"a": "x<think>y',
)
case(
    "unknown_tool_without_tool_parsing",
    "Without tool parsing (our reasoning stage before another tool parser), a block naming no tool reaches the "
    "tool stage verbatim: its think tag is not taken for reasoning.",
    'ok <tool_call>{"name": "g", "arguments": {"a": "x<think>y"}}</tool_call> done',
    content='ok <tool_call>{"name": "g", "arguments": {"a": "x<think>y"}}</tool_call> done',
    opt_tools=False,
)
case(
    "json_string_arguments_one_parameter",
    "Issue 29, item 5 (vLLM's hermes tests): arguments written as a bare string for a tool with one parameter are "
    "that parameter's value, typed by its schema.",
    tc('{"name": "write_note", "arguments": "hello"}') + tc('{"arguments": "3", "name": "wait"}'),
    calls=[("write_note", {"text": "hello"}), ("wait", {"seconds": 3})],
    tools=[fn("write_note", {"text": {"type": "string"}}), fn("wait", {"seconds": {"type": "integer"}})],
)
case(
    "json_string_arguments_several_parameters",
    "Issue 29, item 5: the same for a tool with several parameters cannot say which one it is: the call has no "
    "arguments and the string, as written, is content (nothing of the model's text is lost).",
    tc('{"name": "get_weather", "arguments": "Paris"}'),
    content='"Paris"',
    calls=[("get_weather", {})],
)
case(
    "json_broken_non_object_arguments",
    "Arguments that are no object and break off at a character no JSON value has: the member's text, as written, "
    "is content once (the call has no arguments).",
    lc('{"name": "get_weather", "arguments": r> '),
    content='"arguments": r>',
    calls=[("get_weather", {})],
)
case(
    "hermes_unknown_tool_emitted",
    "With emit_unknown_calls, a tool not among the request's tools is emitted as a call (the harness answers it).",
    tc('\n{"name": "delete_everything", "arguments": {"really": true}}\n'),
    tools=ALL,
    calls=[("delete_everything", {"really": True})],
    emit_unknown_calls=True,
)
case(
    "hermes_no_tools_in_request",
    "tools is null: calls are still parsed.",
    tc('{"name": "get_time", "arguments": {}}'),
    tools=None,
    calls=[("get_time", {})],
)
case(
    "hermes_huge_string_value",
    "An 11000-character string argument full of escapes (streams as raw text; no quadratic work).",
    tc(
        '{"name": "write_file", "arguments": {"path": "big.txt", "content": "'
        + ('line \\"q\\" \\u00e9\\n' * 1000)
        + '"}}'
    ),
    calls=[("write_file", {"path": "big.txt", "content": 'line "q" é\n' * 1000})],
)
case(
    "json_arguments_string_deeply_nested",
    "Invariant 3: no input raises. Arguments given as a JSON-encoded string whose content nests 5000 deep: "
    "decoding it must not raise RecursionError out of feed(); it is no object, so the arguments are {} and the "
    "string, as written, is content (issue 29, item 5: nothing of the model's text is lost).",
    tc('{"name": "get_time", "arguments": "' + "[" * 5000 + '"}'),
    content='"' + "[" * 5000 + '"',
    calls=[("get_time", {})],
)
case(
    "json_arguments_array_deeply_nested",
    "Invariant 3: no input raises. Arguments given as a (balanced) array nested 5000 deep: it is no object, so the "
    "arguments are {} and its text is content; reading it must not raise RecursionError.",
    tc('{"name": "get_time", "arguments": ' + "[" * 5000 + "]" * 5000 + "}"),
    content="[" * 5000 + "]" * 5000,
    calls=[("get_time", {})],
)
case(
    "hermes_deep_nesting",
    "Nested objects and arrays in arguments pass through unchanged.",
    tc(
        '{"name": "configure", "arguments": {"opts": {"inner": {"flag": true, "list": [[1, 2], {"k": [null, -1.5e3]}]}}}}'
    ),
    calls=[("configure", {"opts": {"inner": {"flag": True, "list": [[1, 2], {"k": [None, -1.5e3]}]}}})],
)
case(
    "hermes_empty_block",
    "An empty block holds no call: it comes back as content, verbatim (nothing lost).",
    "<tool_call></tool_call>x<tool_call>\n</tool_call>",
    content="<tool_call></tool_call>x<tool_call>\n</tool_call>",
)
case(
    "hermes_tag_in_prose",
    "A tool-call tag used in prose (followed by text that is no call) comes back as content verbatim.",
    "Wrap calls in <tool_call> tags, like <tool_call>this</tool_call>. Also a<b and c>d.",
    content="Wrap calls in <tool_call> tags, like <tool_call>this</tool_call>. Also a<b and c>d.",
)

case(
    "near_miss_tags_in_prose",
    "Text that shares a prefix with a tag but is no tag (held while undecided, then released verbatim): "
    "<tool_calls>, <thinking>, <function_x>, <longcat_s> (the opening one), <|im_start|>, <think/> ...",
    "Use <tool_calls>, <thinking>, <function_x>, <longcat_s>, </tool_call_x>, <|im_start|>, <think/> and "
    "<longcat_tool_call_id> freely.",
    content="Use <tool_calls>, <thinking>, <function_x>, <longcat_s>, </tool_call_x>, <|im_start|>, <think/> and "
    "<longcat_tool_call_id> freely.",
)

# -------------------------------------------------------------------------------------------------- truncation
case(
    "trunc_json_mid_string",
    "Cut inside a string value: the string is closed, the call ends with valid JSON.",
    'Let me write.<tool_call>\n{"name": "write_file", "arguments": {"path": "a.txt", "content": "hello wor',
    content="Let me write.",
    calls=[("write_file", {"path": "a.txt", "content": "hello wor"})],
)
case(
    "trunc_json_mid_key",
    "Cut inside a key: the incomplete member is dropped from the arguments; its text is content (nothing is lost).",
    '<longcat_tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "da',
    content=', "da',
    calls=[("get_weather", {"city": "Paris"})],
)
case(
    "trunc_json_after_colon",
    "Cut after a key's colon: the member has no value and is dropped from the arguments; its text is content.",
    '<longcat_tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": ',
    content=', "days": ',
    calls=[("get_weather", {"city": "Paris"})],
)
case(
    "trunc_json_mid_escape",
    "Cut right after a backslash inside a string: the unfinished escape is dropped, the string closed.",
    '<tool_call>{"name": "write_file", "arguments": {"content": "a\\',
    calls=[("write_file", {"content": "a"})],
)
case(
    "trunc_json_mid_unicode_escape",
    "Cut inside a \\u escape: the unfinished escape is dropped like a lone trailing backslash (the text was never "
    "generated); keeping it as the literal characters '\\u00' would put junk in the value.",
    '<tool_call>{"name": "write_file", "arguments": {"content": "caf\\u00',
    calls=[("write_file", {"content": "caf"})],
)
case(
    "trunc_json_mid_number",
    "Cut inside a number: the number read so far is kept (like a cut string is kept), the object is closed.",
    '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": 1',
    calls=[("get_weather", {"city": "Paris", "days": 1})],
)
case(
    "trunc_json_mid_literal",
    "Cut inside a literal (tr...): the member cannot be completed and is dropped from the arguments; its text is "
    "content.",
    '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "metric": tr',
    content=', "metric": tr',
    calls=[("get_weather", {"city": "Paris"})],
)
case(
    "trunc_json_nested",
    "Cut deep inside nested containers: every container is closed.",
    '<tool_call>{"name": "configure", "arguments": {"opts": {"inner": {"list": [1, {"k": "v',
    calls=[("configure", {"opts": {"inner": {"list": [1, {"k": "v"}]}}})],
)
case(
    "trunc_json_before_arguments",
    "Cut after the name, before the arguments value: the call is kept with {}.",
    '<tool_call>\n{"name": "get_time", "argum',
    calls=[("get_time", {})],
)
case(
    "trunc_json_mid_name",
    "Cut inside the name: no call can be announced (the name is unknown), so the block is content, verbatim.",
    'Hi<tool_call>\n{"name": "get_wea',
    content='Hi<tool_call>\n{"name": "get_wea',
)
case(
    "trunc_json_reversed_before_name",
    "Arguments first and cut before the name: no name, no call; the block is content verbatim.",
    '<longcat_tool_call>{"arguments": {"city": "Paris"}, "na',
    content='<longcat_tool_call>{"arguments": {"city": "Paris"}, "na',
)
case(
    "trunc_closing_tag",
    "Cut inside the closing tag after a complete call: the call is complete; the unfinished tag is the block's "
    "markup, cut off (issue 29, item 7: a cut-off tag inside a block is markup at every cut point).",
    '<tool_call>{"name": "get_time", "arguments": {}}</tool_ca',
    calls=[("get_time", {})],
)
case(
    "trunc_opening_tag",
    "Cut inside an opening tag: nothing was called; the text is content verbatim.",
    "Let me look that up.\n<longcat_tool_c",
    content="Let me look that up.\n<longcat_tool_c",
)
case(
    "trunc_unclosed_json_block",
    "The block is never closed but the call is complete: it counts.",
    'x<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}',
    content="x",
    calls=[("get_weather", {"city": "Paris"})],
)
case(
    "trunc_only_open_tag",
    "An opening tag and nothing else: no call; content verbatim.",
    "<tool_call>",
    content="<tool_call>",
)
case(
    "trunc_xml_mid_value",
    "Cut inside an XML string value (vLLM qwen3_coder streams unterminated JSON; SGLang qwen3_coder drops the value "
    "and never sends '}'): the value is closed and kept.",
    "<tool_call>\n<function=write_file>\n<parameter=path>\na.txt\n</parameter>\n<parameter=content>\nhello wor",
    calls=[("write_file", {"path": "a.txt", "content": "hello wor"})],
)
case(
    "trunc_xml_mid_typed_value",
    "Cut inside a non-string value: typed by schema from what arrived.",
    "<tool_call>\n<function=configure>\n<parameter=count>\n12",
    calls=[("configure", {"count": 12})],
)
case(
    "trunc_xml_in_parameter_header",
    "Cut inside a '<parameter=' header: that parameter never started; the call keeps the complete ones, and the "
    "unfinished header, whose name was begun, is content with the newline before it (nothing of the text is lost; "
    "'<parameter=' alone, cut off, is markup).",
    "<tool_call>\n<function=write_file>\n<parameter=path>\na.txt\n</parameter>\n<parameter=cont",
    content="\n<parameter=cont",
    calls=[("write_file", {"path": "a.txt"})],
)
case(
    "trunc_xml_in_quoted_parameter_header",
    "Cut inside a header whose name is quoted: content, as an unquoted one is.",
    '<tool_call>\n<function=write_file>\n<parameter=path>\na.txt\n</parameter>\n<parameter="cont',
    content='\n<parameter="cont',
    calls=[("write_file", {"path": "a.txt"})],
)
case(
    "trunc_xml_in_function_header",
    "Cut inside '<function=' header: no call; the block is content verbatim.",
    "Ok.\n<tool_call>\n<function=write_fi",
    content="Ok.\n<tool_call>\n<function=write_fi",
)
case(
    "trunc_xml_in_value_closing_tag",
    "Cut inside </parameter>: the value was complete ('hello', its trailing newline is markup); the unfinished tag "
    "is not part of the value: it is the value's markup, cut off (issue 29, item 7).",
    "<tool_call>\n<function=write_file>\n<parameter=content>\nhello\n</param",
    calls=[("write_file", {"content": "hello"})],
)
case(
    "trunc_kv_mid_value",
    "Cut inside a key/value string value: the value is closed and kept.",
    "<longcat_tool_call>get_weather\n<longcat_arg_key>city</longcat_arg_key>\n<longcat_arg_value>Par",
    calls=[("get_weather", {"city": "Par"})],
)
case(
    "trunc_kv_in_value_closing_tag",
    "Cut inside </longcat_arg_value>: the value is 'Paris'; the unfinished tag is markup (issue 29, item 7).",
    "<longcat_tool_call>get_weather\n<longcat_arg_key>city</longcat_arg_key>\n<longcat_arg_value>Paris</longcat_arg_v",
    calls=[("get_weather", {"city": "Paris"})],
)
case(
    "trunc_kv_in_key",
    "Cut inside a key: the complete parameters are kept; the unfinished key (of a parameter that never started), "
    "whose name was begun, is content, as a key that never closes is ('<longcat_arg_key>' alone, cut off, is "
    "markup).",
    "<longcat_tool_call>get_weather\n<longcat_arg_key>city</longcat_arg_key>\n<longcat_arg_value>Paris"
    "</longcat_arg_value>\n<longcat_arg_key>da",
    content="<longcat_arg_key>da",
    calls=[("get_weather", {"city": "Paris"})],
)

# -------------------------------------------------------------------------------------------------------- XML
case(
    "xml_seed004_system_prompt_example",
    "The exact example of seed 004's system prompt; multi-line value loses one leading and one trailing newline.",
    "<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n</parameter>\n"
    "<parameter=example_parameter_2>\nThis is the value for the second parameter\nthat can span\nmultiple lines\n"
    "</parameter>\n</function>\n</tool_call>",
    tools=None,
    calls=[
        (
            "example_function_name",
            {
                "example_parameter_1": "value_1",
                "example_parameter_2": "This is the value for the second parameter\nthat can span\nmultiple lines",
            },
        )
    ],
)
case(
    "xml_design_write_file",
    "The design's XML example, preceded by reasoning and text (seed 004 template: <think> pre-opened).",
    "I need to create the file.\n</think>\n\nCreating it now.\n<tool_call>\n<function=write_file>\n<parameter=path>\n"
    'src/app.py\n</parameter>\n<parameter=content>\nprint("hi")\n</parameter>\n</function>\n</tool_call>',
    reasoning="I need to create the file.\n",
    content="\n\nCreating it now.\n",
    calls=[("write_file", {"path": "src/app.py", "content": 'print("hi")'})],
    reasoning_open=True,
)
case(
    "xml_in_longcat_wrapper",
    "An XML function block inside <longcat_tool_call>.",
    lc("\n" + xml_fn("get_weather", ("city", "Paris"), ("days", "3")) + "\n"),
    calls=[("get_weather", {"city": "Paris", "days": 3})],
)
case(
    "xml_bare_function",
    "An XML function block with no wrapper; text after it is content.",
    "Calling.\n" + xml_fn("get_weather", ("city", "Paris")) + "\nafter",
    content="Calling.\n\nafter",
    calls=[("get_weather", {"city": "Paris"})],
)
case(
    "xml_two_functions_one_block",
    "Two function blocks inside one <tool_call> block are two calls.",
    "<tool_call>\n" + xml_fn("get_time") + "\n" + xml_fn("get_weather", ("city", "Oslo")) + "\n</tool_call>",
    calls=[("get_time", {}), ("get_weather", {"city": "Oslo"})],
)
case(
    "xml_two_blocks_seed004_history_style",
    "Seed 004 renders each call in its own <tool_call> block followed by a newline: whitespace between blocks and "
    "after the last block (before the end of the output) is markup, not content.",
    "<tool_call>\n"
    + xml_fn("get_time")
    + "\n</tool_call>\n<tool_call>\n"
    + xml_fn("get_weather", ("city", "Oslo"))
    + "\n</tool_call>\n",
    calls=[("get_time", {}), ("get_weather", {"city": "Oslo"})],
)
case(
    "xml_value_newlines_and_lt",
    "Only ONE leading and ONE trailing newline are markup; '<' in a value that starts no terminator tag is text; "
    "a </tool_call> inside a value is text too (values end only at </parameter>, <parameter=, </function>).",
    '<tool_call>\n<function=write_file>\n<parameter=content>\n\nif a < b and c<d:\n    x = "<div>" # </tool_call>\n\n'
    "</parameter>\n<parameter=path>x.py</parameter>\n</function>\n</tool_call>",
    calls=[("write_file", {"content": '\nif a < b and c<d:\n    x = "<div>" # </tool_call>\n', "path": "x.py"})],
)
case(
    "values_contain_call_markup",
    "A coding agent writing a chat template: call-opening tags INSIDE a value are value text (only the value's own "
    "terminators end it; the 'next call starts' rule applies to the call body, not to values). XML and key/value.",
    "<tool_call>\n<function=write_file>\n<parameter=content>\nUse <tool_call>, <longcat_tool_call> and <function=x> "
    "here.\n</parameter>\n</function>\n</tool_call>"
    + kv("write_file", ("content", "a <longcat_tool_call> b <function=y> <tool_call>")),
    calls=[
        ("write_file", {"content": "Use <tool_call>, <longcat_tool_call> and <function=x> here."}),
        ("write_file", {"content": "a <longcat_tool_call> b <function=y> <tool_call>"}),
    ],
)
case(
    "xml_parameter_close_with_text_after_it_in_a_value",
    "A value's own closing tag followed on its line by other text is value text (a shell command that prints the "
    "tag) when the value's closing tag comes again before anything else that would end the value; a line break, a "
    "tag of the markup or the end of the output right after it ends the value.",
    tc('\n<function=write_file>\n<parameter=content>\necho "</parameter> done"\n</parameter>\n'
       "<parameter=path>\nrun.sh\n</parameter>\n</function>\n"),
    calls=[("write_file", {"content": 'echo "</parameter> done"', "path": "run.sh"})],
)
case(
    "xml_parameter_close_compact_layout",
    "The compact layout real models write: a value's closing tag right before the next tag (after spaces or none) "
    "ends the value.",
    tc("<function=write_file><parameter=path>a.txt</parameter><parameter=content>x</parameter>  </function>"),
    calls=[("write_file", {"path": "a.txt", "content": "x"})],
)
case(
    "kv_value_close_with_text_after_it_in_a_value",
    "The same in the key/value dialect: </longcat_arg_value> and more text on its line, then the value's closing "
    "tag, is value text; followed by a line break or a tag of the markup it ends the value.",
    kv("write_file", ("content", "</longcat_arg_value> and more"), ("path", "a.txt"))
    + lc("write_file<longcat_arg_key>path</longcat_arg_key><longcat_arg_value>b.txt</longcat_arg_value>"
         "<longcat_arg_key>content</longcat_arg_key><longcat_arg_value>y</longcat_arg_value>"),
    calls=[
        ("write_file", {"content": "</longcat_arg_value> and more", "path": "a.txt"}),
        ("write_file", {"path": "b.txt", "content": "y"}),
    ],
)
case(
    "xml_value_mentions_the_markup_on_one_line",
    "A value that mentions the markup on one line: its own closer and the call's closer with text after them are "
    "value text, and so is the header of a parameter the call already has (a repeat cannot start a parameter); "
    "the closer on its own line ends the value.",
    tc("\n<function=write_file>\n<parameter=path>\nnotes.md\n</parameter>\n<parameter=content>\n"
       "Close tags inline: </parameter> and </function> and <parameter=path> are text here.\n</parameter>\n"
       "</function>\n"),
    calls=[
        (
            "write_file",
            {
                "path": "notes.md",
                "content": "Close tags inline: </parameter> and </function> and <parameter=path> are text here.",
            },
        )
    ],
)
case(
    "kv_value_closer_then_stray_text",
    "A value's closing tag, stray text on its line, then the next key: the tag closed the value (the next key "
    "would end it anyway, without its closer) and the stray text is content; a boolean and an integer as the "
    "schema says, a string the same.",
    lc("configure\n<longcat_arg_key>enabled</longcat_arg_key>\n<longcat_arg_value>true</longcat_arg_value> "
       '"quoted"<longcat_arg_key>count</longcat_arg_key>\n<longcat_arg_value>3</longcat_arg_value> three\n'
       "<longcat_arg_key>note</longcat_arg_key>\n<longcat_arg_value>ok</longcat_arg_value> (done)\n"),
    content=' "quoted" three (done)',
    calls=[("configure", {"enabled": True, "count": 3, "note": "ok"})],
)
case(
    "xml_value_closer_then_stray_text",
    "The same in XML: stray text after a value's closing tag on its line, before the next header or the call's "
    "closer, is content; an integer value ends at its own closing tag whatever follows it.",
    tc("\n<function=configure>\n<parameter=note>\nok\n</parameter> (noted)\n<parameter=count>\n3\n"
       "</parameter> items\n</parameter>\n</function>\n"),
    content=" (noted) items\n</parameter>",
    calls=[("configure", {"note": "ok", "count": 3})],
)
case(
    "xml_missing_parameter_close",
    "A value not closed by </parameter> ends at the next <parameter= or at </function>.",
    "<tool_call>\n<function=write_file>\n<parameter=path>\na.txt\n<parameter=content>\nbody\n</function>\n</tool_call>",
    calls=[("write_file", {"path": "a.txt", "content": "body"})],
)
case(
    "xml_missing_function_close",
    "</function> missing: </tool_call> ends the call.",
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</tool_call>",
    calls=[("get_weather", {"city": "Paris"})],
)
case(
    "xml_parameter_without_gt_same_line",
    "'<parameter=' with no '>' (vLLM qwen3_coder leaks it into arguments): it is no parameter; the text comes back "
    "as content, with the newline before it (whitespace next to text is text), and the call keeps its valid "
    "parameters.",
    "<tool_call>\n<function=write_file>\n<parameter=path>\na.txt\n</parameter>\n<parameter=content body</parameter>\n"
    "</function>\n</tool_call>",
    content="\n<parameter=content body</parameter>",
    calls=[("write_file", {"path": "a.txt"})],
)
case(
    "xml_parameter_without_gt_newline",
    "The realistic form: '<parameter=path' then a newline. Not a parameter; the malformed text is content. Every "
    "character that is not markup is kept: the newline between 'a.txt' and the stray '</parameter>' is text "
    "(the tag after it is not markup here), and so is the newline before the stray '<parameter=path'.",
    "<tool_call>\n<function=write_file>\n<parameter=path\na.txt\n</parameter>\n</function>\n</tool_call>",
    content="\n<parameter=path\na.txt\n</parameter>",
    calls=[("write_file", {})],
)
case(
    "xml_stray_text_in_function",
    "Text inside a function block that is not a parameter is content (whitespace goes with what follows it).",
    "<tool_call>\n<function=get_weather>\nLet me see.\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
    content="\nLet me see.",
    calls=[("get_weather", {"city": "Paris"})],
)
case(
    "xml_function_header_malformed",
    "'<function=' with no '>' and an empty function name: no call can be read; the blocks are content verbatim.",
    "<tool_call>\n<function=get_time\n</function>\n</tool_call><tool_call><function=></function></tool_call>",
    content="<tool_call>\n<function=get_time\n</function>\n</tool_call><tool_call><function=></function></tool_call>",
)
case(
    "xml_empty_and_unclosed",
    "A function with no parameters, an empty value, then an unclosed block at the end of the output.",
    "<tool_call>\n<function=get_time>\n</function>\n</tool_call>"
    "<tool_call>\n<function=write_file>\n<parameter=content></parameter>\n<parameter=path>\nx\n</parameter>\n",
    calls=[("get_time", {}), ("write_file", {"content": "", "path": "x"})],
)
case(
    "xml_unclosed_function_then_next_function",
    "</function> forgotten: a '<function=' in a function body (not inside a value) can only start the next call, "
    "like an opening wrapper tag after an unclosed block does for the JSON dialect. Two calls, nothing in content.",
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
    "<function=get_time>\n</function>\n</tool_call>",
    calls=[("get_weather", {"city": "Paris"}), ("get_time", {})],
)
case(
    "xml_unclosed_block_then_next_block",
    "</function></tool_call> forgotten, then the next <tool_call> block: it ends the open call and starts the next "
    "(the core already does this for JSON blocks).",
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
    "<tool_call>\n<function=get_time>\n</function>\n</tool_call>",
    calls=[("get_weather", {"city": "Paris"}), ("get_time", {})],
)
case(
    "kv_unclosed_block_then_next_block",
    "</longcat_tool_call> forgotten, then the next key/value block: two calls.",
    "<longcat_tool_call>get_weather\n<longcat_arg_key>city</longcat_arg_key>\n<longcat_arg_value>Paris"
    "</longcat_arg_value>\n<longcat_tool_call>get_time\n</longcat_tool_call>",
    calls=[("get_weather", {"city": "Paris"}), ("get_time", {})],
)
case(
    "json_unclosed_block_then_next_block",
    "A JSON call missing its closing brace and closing tag, then the next block: two calls.",
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}\n<tool_call>\n'
    '{"name": "get_time", "arguments": {}}\n</tool_call>',
    calls=[("get_weather", {"city": "Paris"}), ("get_time", {})],
)
case(
    "xml_json_body",
    "Issue 29, item 4: a JSON object as the body of <function=NAME> (Hermes-trained models write it) is the "
    "arguments; the whitespace around it is markup.",
    tc('\n<function=get_weather>\n{"city": "Paris", "days": 3}\n</function>\n'),
    calls=[("get_weather", {"city": "Paris", "days": 3})],
)
case(
    "xml_json_body_bare_function",
    "The same with no block around the call, the object right after the tag.",
    'Sure. <function=get_weather>{"city": "Paris"}</function>',
    content="Sure. ",
    calls=[("get_weather", {"city": "Paris"})],
)
case(
    "xml_json_body_then_parameter",
    "A parameter after a JSON body: the arguments are complete, so the parameter is content (a key is never given "
    "twice).",
    tc('<function=get_weather>{"city": "Paris"}\n<parameter=days>\n4\n</parameter>\n</function>'),
    content="<parameter=days>\n4\n</parameter>",
    calls=[("get_weather", {"city": "Paris"})],
)
case(
    "xml_json_body_cut_off",
    "A JSON body cut off by the end of the output: the call is closed with valid JSON.",
    '<tool_call><function=get_weather>\n{"city": "Par',
    calls=[("get_weather", {"city": "Par"})],
)
case(
    "xml_unknown_tool_untyped",
    "Unknown tool emitted anyway (emit_unknown_calls): with no schema every value is a string (no guessing).",
    "<tool_call>\n<function=launch>\n<parameter=count>\n5\n</parameter>\n<parameter=flag>\ntrue\n</parameter>\n"
    "</function>\n</tool_call>",
    calls=[("launch", {"count": "5", "flag": "true"})],
    emit_unknown_calls=True,
)
case(
    "xml_huge_value",
    "An 11200-character multi-line value with quotes, backslashes and '<' (streams, JSON-escaped).",
    "<tool_call>\n<function=write_file>\n<parameter=path>\nbig.txt\n</parameter>\n<parameter=content>\n"
    + ("x = \"a\\b\" if i < n else 'c'\n" * 400)
    + "</parameter>\n</function>\n</tool_call>",
    calls=[("write_file", {"path": "big.txt", "content": ("x = \"a\\b\" if i < n else 'c'\n" * 400)[:-1]})],
)
case(
    "xml_non_ascii",
    "Non-ASCII names and values.",
    "<tool_call>\n<function=write_file>\n<parameter=path>\n文档/说明.md\n</parameter>\n<parameter=content>\n"
    "Ünïcödé — 你好 🚀\n</parameter>\n</function>\n</tool_call>",
    calls=[("write_file", {"path": "文档/说明.md", "content": "Ünïcödé — 你好 🚀"})],
)

# ---------------------------------------------------------------------------------------------- schema typing
case(
    "xml_schema_typing_all_types",
    "Values typed by schema when they close: integer, number, boolean (True), null, object with nested typed "
    "members, arrays of strings and of integers (item typing), anyOf integer|null, string enum, integer enum, "
    "oneOf number|boolean.",
    "<tool_call>\n"
    + xml_fn(
        "configure",
        ("count", "5"),
        ("ratio", "0.25"),
        ("enabled", "True"),
        ("nothing", "null"),
        ("opts", '{"depth": "2", "name": "x", "inner": {"flag": "false"}}'),
        ("tags", '["a", "b"]'),
        ("ids", '[1, "2"]'),
        ("limit", "none"),
        ("mode", "fast"),
        ("level", "2"),
        ("scale", "1e3"),
    )
    + "\n</tool_call>",
    calls=[
        (
            "configure",
            {
                "count": 5,
                "ratio": 0.25,
                "enabled": True,
                "nothing": None,
                "opts": {"depth": 2, "name": "x", "inner": {"flag": False}},
                "tags": ["a", "b"],
                "ids": [1, 2],
                "limit": None,
                "mode": "fast",
                "level": 2,
                "scale": 1000.0,
            },
        )
    ],
)
case(
    "xml_schema_typing_failures_keep_raw",
    "When a value does not fit its schema the raw string is kept (no crash, no dropped call): integer 'many', "
    "boolean 'yes', number 'NaN', object 'not json', enum string 'medium' (still a string).",
    "<tool_call>\n"
    + xml_fn(
        "configure",
        ("count", "many"),
        ("enabled", "yes"),
        ("ratio", "NaN"),
        ("opts", "not json"),
        ("mode", "medium"),
    )
    + "\n</tool_call>",
    calls=[("configure", {"count": "many", "enabled": "yes", "ratio": "NaN", "opts": "not json", "mode": "medium"})],
)
case(
    "xml_schema_typing_integer_vs_number",
    "integer '7.0' is 7 (integral), integer '7.5' is not an integer (raw); number '3' stays 3; type list "
    "number|null 'null' is null; a type list admitting integer and string gives the integer when the text is one "
    "written as strict JSON (issue 29, item 6: vLLM's qwen3_coder reads it so too).",
    "<tool_call>\n"
    + xml_fn(
        "configure",
        ("count", "7.0"),
        ("limit", "7.5"),
        ("ratio", "3"),
        ("maybe_num", "null"),
        ("flex", "42"),
    )
    + "\n</tool_call>",
    calls=[("configure", {"count": 7, "limit": "7.5", "ratio": 3, "maybe_num": None, "flex": 42})],
)
case(
    "xml_schema_python_literal_object",
    "An object/array value written as a Python literal (single quotes, True) is accepted.",
    "<tool_call>\n"
    + xml_fn("configure", ("opts", "{'depth': 3, 'inner': {'flag': True}}"), ("tags", "['x', 'y']"))
    + "\n</tool_call>",
    calls=[("configure", {"opts": {"depth": 3, "inner": {"flag": True}}, "tags": ["x", "y"]})],
)
case(
    "xml_schema_anyof_nested_object",
    "Spec (issue 2, invariant 5): typing follows anyOf/oneOf AND nested properties/items - so the members of an "
    "object given through an anyOf branch are typed by that branch's properties.",
    "<tool_call>\n" + xml_fn("configure", ("limit", '{"depth": "2", "ids": ["4"]}')) + "\n</tool_call>",
    tools=[
        fn(
            "configure",
            {
                "limit": {
                    "anyOf": [
                        {
                            "type": "object",
                            "properties": {
                                "depth": {"type": "integer"},
                                "ids": {"type": "array", "items": {"type": "integer"}},
                            },
                        },
                        {"type": "null"},
                    ]
                }
            },
        )
    ],
    calls=[("configure", {"limit": {"depth": 2, "ids": [4]}})],
)
case(
    "xml_schema_local_refs",
    "Pydantic and MCP tool schemas put nested models in $defs and point at them with $ref (Optional[Model] is "
    "anyOf [$ref, null]). 'Typed by the tool's JSON schema' has to follow local refs, else object parameters "
    "arrive as JSON-in-a-string.",
    "<tool_call>\n"
    + xml_fn("setup", ("opts", '{"depth": "2"}'), ("maybe", '{"depth": 3}'), ("n", "4"))
    + "\n</tool_call>",
    tools=[
        {
            "type": "function",
            "function": {
                "name": "setup",
                "parameters": {
                    "type": "object",
                    "$defs": {"Opts": {"type": "object", "properties": {"depth": {"type": "integer"}}}},
                    "properties": {
                        "opts": {"$ref": "#/$defs/Opts"},
                        "maybe": {"anyOf": [{"$ref": "#/$defs/Opts"}, {"type": "null"}], "default": None},
                        "n": {"type": "integer"},
                    },
                },
            },
        }
    ],
    calls=[("setup", {"opts": {"depth": 2}, "maybe": {"depth": 3}, "n": 4})],
)
case(
    "kv_schema_typing",
    "Key/value values are typed by schema like XML values (integer, boolean, array, object).",
    kv("configure", ("count", "3"), ("enabled", "false"), ("ids", "[4, 5]"), ("opts", '{"depth": 1}'), ("note", "7")),
    calls=[("configure", {"count": 3, "enabled": False, "ids": [4, 5], "opts": {"depth": 1}, "note": "7"})],
)

# ------------------------------------------------------------------------------------------------ key / value
case(
    "kv_basic",
    "The LongCat key/value dialect (docs/design.md, dialects).",
    "<longcat_tool_call>get_weather\n<longcat_arg_key>city</longcat_arg_key>\n<longcat_arg_value>Paris"
    "</longcat_arg_value>\n</longcat_tool_call>",
    calls=[("get_weather", {"city": "Paris"})],
)
case(
    "kv_values_kept_as_is",
    "Key/value values are kept as-is (newlines included; unlike XML, no newline is markup).",
    kv("write_file", ("path", "a.txt"), ("content", "\nline 1\n  line 2\n")),
    calls=[("write_file", {"path": "a.txt", "content": "\nline 1\n  line 2\n"})],
)
case(
    "kv_consecutive_blocks_and_no_args",
    "Consecutive key/value blocks, compact (no newlines), and a call with no arguments.",
    "<longcat_tool_call>get_time</longcat_tool_call><longcat_tool_call>get_weather<longcat_arg_key>city"
    "</longcat_arg_key><longcat_arg_value>Oslo</longcat_arg_value></longcat_tool_call>",
    calls=[("get_time", {}), ("get_weather", {"city": "Oslo"})],
)
case(
    "kv_huge_value_non_ascii",
    "An 8800-character non-ASCII value with quotes and backslashes.",
    kv("write_file", ("path", "zh.txt"), ("content", '中文"引号"\\反斜杠\n' * 800)),
    calls=[("write_file", {"path": "zh.txt", "content": '中文"引号"\\反斜杠\n' * 800})],
)
case(
    "kv_missing_value_close",
    "A value not closed by </longcat_arg_value> ends at the next key.",
    "<longcat_tool_call>get_weather\n<longcat_arg_key>city</longcat_arg_key>\n<longcat_arg_value>Paris\n"
    "<longcat_arg_key>days</longcat_arg_key>\n<longcat_arg_value>2</longcat_arg_value>\n</longcat_tool_call>",
    calls=[("get_weather", {"city": "Paris\n", "days": 2})],
)
case(
    "kv_prose_in_wrapper",
    "A <longcat_tool_call> block holding prose is no call: content verbatim.",
    "<longcat_tool_call>hello there, no call here</longcat_tool_call>",
    content="<longcat_tool_call>hello there, no call here</longcat_tool_call>",
)

# ---------------------------------------------------------------------------------------------- mixed dialects
case(
    "mixed_dialects_one_output",
    "One output using every dialect in turn: the body dialect is chosen per call from what follows the tag.",
    "A"
    + lc('{"name": "get_time", "arguments": {}}')
    + "B"
    + tc('{"name": "get_weather", "arguments": {"city": "X"}}')
    + "C"
    + tc("\n" + xml_fn("get_weather", ("city", "Y")) + "\n")
    + "D"
    + kv("get_weather", ("city", "Z"))
    + "E"
    + xml_fn("get_time")
    + "F",
    content="ABCDEF",
    calls=[
        ("get_time", {}),
        ("get_weather", {"city": "X"}),
        ("get_weather", {"city": "Y"}),
        ("get_weather", {"city": "Z"}),
        ("get_time", {}),
    ],
)

# ------------------------------------------------------------------------------------------------- reasoning
case(
    "reasoning_think_then_call",
    "<think> reasoning, then text and a call.",
    "<think>\nThe user wants weather.\n</think>\n\nChecking."
    + lc('{"name": "get_weather", "arguments": {"city": "Paris"}}'),
    reasoning="\nThe user wants weather.\n",
    content="\n\nChecking.",
    calls=[("get_weather", {"city": "Paris"})],
)
case(
    "reasoning_longcat_think",
    "<longcat_think> reasoning.",
    "<longcat_think>plan</longcat_think>answer",
    reasoning="plan",
    content="answer",
)
case(
    "reasoning_preopened_implicit_end_by_call",
    "Reasoning pre-opened by the template and never closed: the call tag ends it implicitly.",
    "I should call the tool." + lc('\n{"name": "get_time", "arguments": {}}\n'),
    reasoning="I should call the tool.",
    calls=[("get_time", {})],
    reasoning_open=True,
)
case(
    "reasoning_preopened_and_repeated_open_tag",
    "Reasoning pre-opened by the template, and the model still starts with its own <think> (models trained with "
    "and without the pre-filled tag do this; adapters cannot always know). The redundant opening tag at the very "
    "start of the reasoning is markup, not reasoning text (vLLM's reasoning parsers strip it too).",
    "<think>\nplan\n</think>\n\nanswer",
    reasoning="\nplan\n",
    content="\n\nanswer",
    reasoning_open=True,
)
case(
    "reasoning_interleaved_with_calls",
    "Thinking between tool calls (interleaved reasoning): each <think> section is reasoning, each block a call. "
    "Whitespace after a call block is markup when another block or the end follows, also with reasoning in between "
    "(an engine's tool stage never sees the reasoning its reasoning stage took out, and decides it the same way); "
    "the newline after the first </think> and the one before 'done' are content.",
    "<think>first</think>\n"
    + tc('\n{"name": "get_time", "arguments": {}}\n')
    + "\n<think>second</think>\n"
    + tc("\n" + xml_fn("get_weather", ("city", "Paris")) + "\n")
    + "\ndone",
    reasoning="firstsecond",
    content="\n\ndone",
    calls=[("get_time", {}), ("get_weather", {"city": "Paris"})],
)
case(
    "reasoning_mentions_tags",
    "Inside reasoning, <function=...> and </longcat_tool_call> are just text; only a call-opening wrapper tag ends "
    "reasoning (a bare <function= in reasoning is more likely discussion of the format than a call).",
    "<think>Format: <function=name> ... </function> and </longcat_tool_call>.</think>Ok.",
    reasoning="Format: <function=name> ... </function> and </longcat_tool_call>.",
    content="Ok.",
)
case(
    "reasoning_call_tag_mentioned_in_reasoning",
    "A call tag inside reasoning ends reasoning only when a call follows it. Here reasoning merely talks about the "
    "format: the block that is not a call comes back as reasoning, and reasoning goes on to its </think>.",
    "<think>Maybe emit <tool_call> here.</think>Answer.",
    reasoning="Maybe emit <tool_call> here.",
    content="Answer.",
)
case(
    "reasoning_empty_and_repeated",
    "Empty reasoning, and two reasoning sections.",
    "<think></think>a<think>b</think>c",
    reasoning="b",
    content="ac",
)
case(
    "reasoning_unclosed_at_end",
    "Reasoning never closed: everything is reasoning; </longcat_s> does not leak.",
    "<think>still thinking</longcat_s>",
    reasoning="still thinking",
)

# ---------------------------------------------------------------------------------------------- end of sequence
case(
    "eos_markers_never_leak",
    "</longcat_s> and <|im_end|> in text, after a call, and after reasoning are never content.",
    "<longcat_think>r</longcat_think>Hello</longcat_s>"
    + lc('{"name": "get_time", "arguments": {}}')
    + "</longcat_s><|im_end|>",
    reasoning="r",
    content="Hello",
    calls=[("get_time", {})],
)
case(
    "eos_inside_unclosed_block",
    "<|im_end|> right after a call inside an unclosed block: the call is complete, the marker is not content.",
    '<tool_call>\n{"name": "get_time", "arguments": {}}\n<|im_end|>',
    calls=[("get_time", {})],
)

# ------------------------------------------------------------------------------------------- scale and options
case(
    "xml_2000_parameters",
    "2000 short parameters in one call (vLLM qwen3_coder re-converts all arguments at every parameter boundary): "
    "every parameter arrives, in order, untyped strings for an unknown tool.",
    "<tool_call>\n<function=bulk>\n"
    + "".join(f"<parameter=p{i}>\nv{i}\n</parameter>\n" for i in range(2000))
    + "</function>\n</tool_call>",
    tools=None,
    calls=[("bulk", {f"p{i}": f"v{i}" for i in range(2000)})],
)
case(
    "agent_transcript_xml_thinking",
    "A realistic agent turn (seed 004 style, reasoning pre-opened): reasoning, a sentence, three calls in their own "
    "blocks with newlines between them, and the end marker.",
    "The user wants the repo cleaned up. First list files, then read the config, then fix it.\n</think>\n\n"
    "I'll start by looking around.\n"
    "<tool_call>\n<function=get_time>\n</function>\n</tool_call>\n"
    "<tool_call>\n<function=write_file>\n<parameter=path>\nconfig/settings.toml\n</parameter>\n"
    '<parameter=content>\n[server]\nport = 8080\nname = "demo"\n</parameter>\n</function>\n</tool_call>\n'
    '<tool_call>\n<function=configure>\n<parameter=count>\n3\n</parameter>\n<parameter=tags>\n["a"]\n'
    "</parameter>\n</function>\n</tool_call><|im_end|>",
    reasoning="The user wants the repo cleaned up. First list files, then read the config, then fix it.\n",
    content="\n\nI'll start by looking around.\n",
    calls=[
        ("get_time", {}),
        ("write_file", {"path": "config/settings.toml", "content": '[server]\nport = 8080\nname = "demo"'}),
        ("configure", {"count": 3, "tags": ["a"]}),
    ],
    reasoning_open=True,
)
case(
    "option_reasoning_disabled",
    "ParserOptions(reasoning=False): think tags are not split off, they are content; calls are still parsed.",
    "<think>x</think>y" + tc('{"name": "get_time", "arguments": {}}'),
    content="<think>x</think>y",
    calls=[("get_time", {})],
    opt_reasoning=False,
)
case(
    "option_tools_disabled",
    "ParserOptions(tools=False): call markup stays content verbatim, but a call tag still ends open reasoning.",
    "thinking" + tc('{"name": "get_time", "arguments": {}}') + "<function=get_time>\n</function>",
    reasoning="thinking",
    content=tc('{"name": "get_time", "arguments": {}}') + "<function=get_time>\n</function>",
    tools=[TIME],
    reasoning_open=True,
    opt_tools=False,
)

case(
    "eos_in_unclosed_xml_and_kv_bodies",
    "End markers after the last parameter of a call whose closing tags never came (XML in a block, bare XML, "
    "key/value, and right after a function header). Spec: </longcat_s> and <|im_end|> are never shown as content; "
    "in a call body they are markup like anywhere else. The calls are complete.",
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<|im_end|>"
    "<function=get_weather>\n<parameter=city>\nRome\n</parameter>\n</longcat_s>"
    "<longcat_tool_call>get_weather\n<longcat_arg_key>city</longcat_arg_key>\n<longcat_arg_value>Oslo"
    "</longcat_arg_value>\n</longcat_s>"
    "<tool_call>\n<function=get_time></longcat_s>",
    calls=[
        ("get_weather", {"city": "Paris"}),
        ("get_weather", {"city": "Rome"}),
        ("get_weather", {"city": "Oslo"}),
        ("get_time", {}),
    ],
)

# ---------------------------------------------------------------------------------------- closers inside a value
case(
    "xml_unclosed_value_ends_at_block_closer",
    "A parameter that never closes: the block's closer ends the value and the call (issue 22, item 2); the one "
    "newline before it is markup.",
    "<tool_call>\n<function=write_file>\n<parameter=path>\na.py\n</tool_call>",
    calls=[("write_file", {"path": "a.py"})],
)
case(
    "xml_unclosed_typed_value_ends_at_block_closer",
    "Qwen3-Coder-30B shape: a boolean written ' True   ' right before </tool_call>: typed by the schema.",
    "<tool_call>\n<function=configure>\n<parameter=enabled> True   </tool_call>",
    calls=[("configure", {"enabled": True})],
)
case(
    "xml_unclosed_value_ends_at_longcat_closer",
    "The same with the LongCat wrapper's closer, then text after the block.",
    "<longcat_tool_call><function=write_file>\n<parameter=path>\na.py\n</longcat_tool_call>\nDone.",
    content="\nDone.",
    calls=[("write_file", {"path": "a.py"})],
)
case(
    "xml_value_holds_closers_as_text",
    "A model writing an XML file: closers inside the value followed by </parameter> are text (issue 22, item 3).",
    "<tool_call>\n<function=write_file>\n<parameter=content>\n<function=demo>\n</function>\n</tool_call>\n"
    "</parameter>\n</function>\n</tool_call>",
    calls=[("write_file", {"content": "<function=demo>\n</function>\n</tool_call>"})],
)
case(
    "xml_unclosed_value_then_next_block",
    "An unclosed value's block closer followed by the next block: the first call ends there.",
    "<function=write_file>\n<parameter=path>\na.py\n</tool_call>\n"
    + tc("\n" + xml_fn("write_file", ("path", "b.py")) + "\n"),
    calls=[("write_file", {"path": "a.py"}), ("write_file", {"path": "b.py"})],
)
case(
    "xml_value_block_closer_mid_line_is_text",
    "A block closer with more text on its line is value text.",
    "<tool_call>\n<function=write_file>\n<parameter=content>\nsee </tool_call> here\n</parameter>\n</function>\n"
    "</tool_call>",
    calls=[("write_file", {"content": "see </tool_call> here"})],
)

# ------------------------------------------------------------------------------------ broken JSON in a call
case(
    "json_broken_member_is_content",
    "A small model's broken member (issue 22, item 1): the call keeps what was read, and everything the reader did "
    "not pass on is content, verbatim.",
    tc('\n{"name":"write_file","arguments":{"path":"a.py", oops}}\n'),
    content=", oops}}",
    calls=[("write_file", {"path": "a.py"})],
)
case(
    "json_colon_inside_key_quotes",
    "Qwen3-4B shape: a key written \"content:\" then the value's quote: the colon is read as the member's colon; the "
    "extra closing brace is content.",
    tc('\n{"name":"write_file","arguments":{"path":"t.py","content:""import tkinter as tk\\nroot = tk.Tk()\\n"}}}\n'),
    content="}",
    calls=[("write_file", {"path": "t.py", "content": "import tkinter as tk\nroot = tk.Tk()\n"})],
)
case(
    "json_key_without_colon_is_content",
    "A key followed by a value with no colon: the member is content from its comma on.",
    tc('{"name": "get_weather", "arguments": {"city": "Paris" , \'days\' 3}}'),
    content=" , 'days' 3}}",
    calls=[("get_weather", {"city": "Paris"})],
)

case(
    "json_bare_word_values_are_strings",
    "Unquoted words as values (a path, an encoding): read as strings.",
    tc('{"name": "write_file", "arguments": {"path": notes/a.md, "content": utf-8}}'),
    calls=[("write_file", {"path": "notes/a.md", "content": "utf-8"})],
)

# ------------------------------------------------------------------------------ an array without its brackets
ASK = fn(
    "ask_user",
    {
        "questions": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"question": {"type": "string"}, "header": {"type": "string"}},
            },
        }
    },
)
case(
    "kv_array_as_bare_objects",
    "LongCat key/value shape (issue 22, item 4): an array parameter written as comma-separated objects without "
    "brackets is the array.",
    kv(
        "ask_user",
        ("questions", '{"question": "Which city?", "header": "City"}, {"question": "Which day?", "header": "Day"}'),
    ),
    calls=[
        (
            "ask_user",
            {
                "questions": [
                    {"question": "Which city?", "header": "City"},
                    {"question": "Which day?", "header": "Day"},
                ]
            },
        )
    ],
    tools=[ASK],
)
case(
    "kv_no_opening_tag_opener_where_the_closer_belongs",
    "Real-output residue (issue 29, item 7): a key/value call whose block was never opened (name line, argument "
    "pairs) and a <longcat_tool_call> where the closing tag belongs: the call of the declared tool, the misplaced "
    "tag markup.",
    "Checking.\nget_weather\n<longcat_arg_key>city</longcat_arg_key>\n<longcat_arg_value>Paris</longcat_arg_value>"
    "\n<longcat_tool_call>",
    content="Checking.\n",
    calls=[("get_weather", {"city": "Paris"})],
)
case(
    "kv_no_opening_tag_then_a_real_block",
    "The same tag opening a block that holds a call is that call's opening tag.",
    "get_weather\n<longcat_arg_key>city</longcat_arg_key>\n<longcat_arg_value>Paris</longcat_arg_value>\n"
    + kv("get_weather", ("city", "Rome")),
    calls=[("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Rome"})],
)
case(
    "kv_one_object_for_an_array_of_objects",
    "Real-output residue (issue 29, item 7): one JSON object written where the schema says array of objects is "
    "that array of one.",
    kv("ask_user", ("questions", '{"question": "Which city?", "header": "City"}')),
    calls=[("ask_user", {"questions": [{"question": "Which city?", "header": "City"}]})],
    tools=[ASK],
)
TYPED = fn(
    "typed",
    {
        "ratio": {"type": "number"},
        "count": {"type": "integer"},
        "f": {"type": "float"},
        "d": {"type": "double"},
        "i": {"type": "int"},
        "b": {"type": "bool"},
        "o": {"type": "dict"},
        "l": {"type": "list"},
        "todos": {"type": ["array", "string"]},
        "items": {"anyOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "string"}]},
        "sn": {"type": ["string", "number"]},
    },
)
case(
    "schema_types_as_real_tools_write_them",
    "Issue 29, item 6: null for a number or integer is JSON null; float, double, int, bool, dict and list mean "
    "the JSON types (as vLLM's qwen3_coder reads them); a union with a string gives the other type where the "
    "text is that value as strict JSON (an array for [array, string] and an anyOf of them, a number for [string, "
    "number]), and the string otherwise.",
    tc(
        xml_fn(
            "typed",
            ("ratio", "null"),
            ("count", "null"),
            ("f", "3.14"),
            ("d", "2"),
            ("i", "5"),
            ("b", "false"),
            ("o", '{"a": 1}'),
            ("l", "[1, 2]"),
            ("todos", '[{"content": "x", "status": "pending"}]'),
            ("items", '["1", 2]'),
            ("sn", "42"),
        )
    ),
    calls=[
        (
            "typed",
            {
                "ratio": None,
                "count": None,
                "f": 3.14,
                "d": 2,
                "i": 5,
                "b": False,
                "o": {"a": 1},
                "l": [1, 2],
                "todos": [{"content": "x", "status": "pending"}],
                "items": [1, 2],
                "sn": 42,
            },
        )
    ],
    tools=[TYPED],
)
case(
    "schema_unions_keep_strings",
    "The same unions with text that is no strict JSON value of the other type: strings, streamed as they arrive, "
    "in the key/value dialect too.",
    kv("typed", ("todos", "write the tests [later]"), ("items", "[1, 2"), ("sn", "007")),
    calls=[("typed", {"todos": "write the tests [later]", "items": "[1, 2", "sn": "007"})],
    tools=[TYPED],
)
case(
    "xml_array_as_bare_values",
    "The same in XML, with Python-style elements.",
    tc(xml_fn("configure", ("ids", "1, 2, 3"), ("tags", "'a', 'b'"))),
    calls=[("configure", {"ids": [1, 2, 3], "tags": ["a", "b"]})],
)

# ------------------------------------------------------------------------------------------ Qwen3.5 variants
case(
    "qwen35_name_then_parameters",
    "Qwen3.5 shape (issue 22, item 5): <tool_call>NAME> then XML parameters, the <function= left out.",
    "<tool_call>write_file>\n<parameter=path>\na.py\n</parameter>\n<parameter=content>\nx = 1\n</parameter>\n"
    "</tool_call>",
    calls=[("write_file", {"path": "a.py", "content": "x = 1"})],
)
case(
    "qwen35_name_then_json",
    "Qwen3.5 shape: <tool_call>NAME>{json}.",
    tc('get_weather>{"city": "Paris", "days": 2}'),
    calls=[("get_weather", {"city": "Paris", "days": 2})],
)
case(
    "qwen35_name_then_parameters_undeclared",
    "The same naming no declared tool: the block is content, verbatim.",
    "<tool_call>web_fetch>\n<parameter=url>\nhttps://example.com\n</parameter>\n</tool_call>",
    content="<tool_call>web_fetch>\n<parameter=url>\nhttps://example.com\n</parameter>\n</tool_call>",
)

# ----------------------------------------------------- GLM-4.7 key/value (a test-only dialect: tests/extra_dialects.py)
GLM_WEATHER = fn("get_current_weather", {"location": {"type": "string"}}, ["location"])
GLM_ALL_FUNC = fn("get_all_func", {})
case(
    "glm_multiline_reported",
    "GLM-4.6/4.7's layout, as reported from the model in alibaba/rtp-llm pull request 525: the name on the block's "
    "first line, a line break after each tag pair; the line breaks are markup.",
    "<tool_call>get_current_weather\n<arg_key>location</arg_key>\n<arg_value>杭州</arg_value>\n</tool_call>",
    calls=[("get_current_weather", {"location": "杭州"})],
    tools=[GLM_WEATHER],
)
case(
    "glm_no_arguments_reported",
    "GLM-4.7 writes a call with no pair at all, as reported in alibaba/rtp-llm pull request 525: no arguments.",
    "<tool_call>get_all_func</tool_call>",
    calls=[("get_all_func", {})],
    tools=[GLM_ALL_FUNC],
)
case(
    "glm_compact",
    "GLM-4.7's compact layout, no line breaks; text around the block is content; values typed by the schema.",
    "Checking.<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value><arg_key>days</arg_key>"
    "<arg_value>3</arg_value></tool_call>Done.",
    content="Checking.Done.",
    calls=[("get_weather", {"city": "Beijing", "days": 3})],
)
case(
    "glm_value_closer_inside_value",
    "A value's closing tag followed on its line by other text, then the value's closing tag, is value text (code "
    "that writes the tag), as in LongCat's key/value dialect; LongCat's tags inside a GLM value are data.",
    "<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>t.py</arg_value>\n<arg_key>content</arg_key>\n"
    "<arg_value>s = '</arg_value>' + '</longcat_arg_value>'</arg_value>\n</tool_call>",
    calls=[("write_file", {"path": "t.py", "content": "s = '</arg_value>' + '</longcat_arg_value>'"})],
)
case(
    "glm_and_hermes_share_the_block_tag",
    "GLM's block opens with Hermes JSON's tag: what follows the tag decides, block by block.",
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n'
    "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Lyon</arg_value>\n</tool_call>",
    calls=[("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Lyon"})],
)
case(
    "glm_undeclared_name",
    "A GLM call naming no declared tool: the block is content, verbatim.",
    "<tool_call>web_fetch<arg_key>url</arg_key><arg_value>https://example.com</arg_value></tool_call>",
    content="<tool_call>web_fetch<arg_key>url</arg_key><arg_value>https://example.com</arg_value></tool_call>",
)

# ------------------------------------- Kimi-K2, a name, a separator, then JSON (a test-only dialect: tests/extra_dialects.py)
case(
    "kimi_guidance_layout",
    "Kimi-K2's format as Moonshot's tool-call guidance documents it (huggingface.co/moonshotai/Kimi-K2-Instruct, "
    "docs/tool_call_guidance.md): a line break inside the section around the call; the namespace and the index are "
    "no part of the name, the line breaks are markup.",
    "<|tool_calls_section_begin|>\n<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>"
    '{"city": "Beijing"}<|tool_call_end|>\n<|tool_calls_section_end|>',
    calls=[("get_weather", {"city": "Beijing"})],
)
case(
    "kimi_two_calls_one_section",
    "Two calls in one section, indices 0 and 1, text before the section is content.",
    "Checking both.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
    '<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_call_begin|>functions.get_time:1'
    '<|tool_call_argument_begin|>{"timezone": "Europe/Paris"}<|tool_call_end|><|tool_calls_section_end|>',
    content="Checking both.",
    calls=[("get_weather", {"city": "Paris"}), ("get_time", {"timezone": "Europe/Paris"})],
)
case(
    "kimi_dotted_name",
    "A declared name that holds a dot, written with the namespace and an index: the longest declared part.",
    "<|tool_calls_section_begin|><|tool_call_begin|>functions.l.weather:0<|tool_call_argument_begin|>"
    '{"city": "Lyon"}<|tool_call_end|><|tool_calls_section_end|>',
    calls=[("l.weather", {"city": "Lyon"})],
    tools=[fn("l.weather", {"city": {"type": "string"}}, ["city"])],
)
case(
    "kimi_undeclared_name",
    "A Kimi-K2 call naming no declared tool: the section is content, verbatim.",
    "<|tool_calls_section_begin|><|tool_call_begin|>functions.web_fetch:0<|tool_call_argument_begin|>"
    '{"url": "https://example.com"}<|tool_call_end|><|tool_calls_section_end|>',
    content="<|tool_calls_section_begin|><|tool_call_begin|>functions.web_fetch:0<|tool_call_argument_begin|>"
    '{"url": "https://example.com"}<|tool_call_end|><|tool_calls_section_end|>',
)

case(
    "kimi_call_end_left_out_then_text",
    "A call whose closing tag was left out, then text in its section: the call ends where the text begins; the text, "
    "and the space before it, is content.",
    "Sure.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>"
    '{"city": "Paris"} and more text<|tool_calls_section_end|>',
    content="Sure. and more text",
    calls=[("get_weather", {"city": "Paris"})],
)

# --------------------------------------- DeepSeek-V3.1, a name, a separator, then JSON (a test-only dialect: tests/extra_dialects.py)
case(
    "deepseek_template_format",
    "DeepSeek-V3.1's format as its chat template instructs the model (huggingface.co/deepseek-ai/DeepSeek-V3.1, "
    "tokenizer_config.json: tool_call_name<｜tool▁sep｜>tool_call_arguments), then its end-of-sentence token, markup.",
    "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>"
    '{"city": "Beijing"}<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>',
    calls=[("get_weather", {"city": "Beijing"})],
)
case(
    "deepseek_calls_chained",
    "Several calls chained in one section with nothing between them, as the template asks; text before is content.",
    "Let me look.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>"
    '{"city": "Paris"}<｜tool▁call▁end｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>'
    '{"city": "Lyon", "days": 2}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    content="Let me look.",
    calls=[("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Lyon", "days": 2})],
)
case(
    "deepseek_end_of_sentence_alone",
    "DeepSeek-V3.1's end-of-sentence token after plain text is markup.",
    "The weather is fine.<｜end▁of▁sentence｜>",
    content="The weather is fine.",
)
case(
    "deepseek_undeclared_name",
    "A DeepSeek-V3.1 call naming no declared tool: the section is content, verbatim.",
    "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>web_fetch<｜tool▁sep｜>"
    '{"url": "https://example.com"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    content="<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>web_fetch<｜tool▁sep｜>"
    '{"url": "https://example.com"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
)

case(
    "deepseek_call_end_left_out_then_text",
    "A call with no closing tag and no section, then a line break and text: content, the line break kept.",
    "Hi.<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Paris\"}\nThe weather will be...",
    content="Hi.\nThe weather will be...",
    calls=[("get_weather", {"city": "Paris"})],
)

# ---------------------------------- MiniMax-M2, markup with name attributes (a test-only dialect: tests/extra_dialects.py)
case(
    "minimax_guide_layout",
    "MiniMax-M2's format as MiniMax's tool-calling guide documents it (github.com/MiniMax-AI/MiniMax-M2.5, "
    "docs/tool_calling_guide.md, as in sgl-model-gateway's MiniMax-M2 parser tests): a line each, text before the "
    "block is content, text after it too.",
    'Let me search for that.\n<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Beijing'
    '</parameter>\n<parameter name="days">2</parameter>\n</invoke>\n</minimax:tool_call>\nThe weather will be...',
    content="Let me search for that.\n\nThe weather will be...",
    calls=[("get_weather", {"city": "Beijing", "days": 2})],
)
case(
    "minimax_two_invokes_one_block",
    "Two invokes in one block, after reasoning closed: two calls in order.",
    '</think><minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n'
    '</invoke>\n<invoke name="get_weather">\n<parameter name="city">Lyon</parameter>\n</invoke>\n'
    "</minimax:tool_call>",
    calls=[("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Lyon"})],
    opt_reasoning=True,
    reasoning_open=True,
)
case(
    "minimax_value_holds_markup",
    "A value that holds another dialect's tags and an unclosed '<' is the value's text.",
    '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">a <b> </tool_call> c</parameter>\n'
    "</invoke>\n</minimax:tool_call>",
    calls=[("get_weather", {"city": "a <b> </tool_call> c"})],
)
case(
    "minimax_cut_in_parameter_header",
    "Cut inside a MiniMax-M2 parameter header, after its name was begun: content; the complete parameter is kept.",
    '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n'
    '<parameter name="da',
    content='\n<parameter name="da',
    calls=[("get_weather", {"city": "Paris"})],
)
case(
    "minimax_undeclared_name",
    "A MiniMax-M2 call naming no declared tool: the block is content, verbatim.",
    '<minimax:tool_call>\n<invoke name="web_fetch">\n<parameter name="url">https://example.com</parameter>\n'
    "</invoke>\n</minimax:tool_call>",
    content='<minimax:tool_call>\n<invoke name="web_fetch">\n<parameter name="url">https://example.com</parameter>'
    "\n</invoke>\n</minimax:tool_call>",
)

# -------------------------- Hunyuan-A13B, a JSON array of calls in a block (a test-only dialect: tests/extra_dialects.py)
case(
    "hunyuan_guide_layout",
    "Hunyuan-A13B's format (vLLM's hunyuan_a13b tool parser): a JSON array of call objects in <tool_calls>; text "
    "before the block is content.",
    'Let me check.\n<tool_calls>[{"name": "get_weather", "arguments": {"city": "Beijing"}}]</tool_calls>',
    content="Let me check.\n",
    calls=[("get_weather", {"city": "Beijing"})],
)
case(
    "hunyuan_two_calls_one_list",
    "Two calls in one array, after reasoning closed: two calls in order.",
    '</think><tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}, '
    '{"name": "get_time", "arguments": {"timezone": "Europe/Paris"}}]</tool_calls>',
    calls=[("get_weather", {"city": "Paris"}), ("get_time", {"timezone": "Europe/Paris"})],
    opt_reasoning=True,
    reasoning_open=True,
)
case(
    "hunyuan_not_hermes",
    "Its block tag is Hermes JSON's with an 's': a Hermes call beside it is read as Hermes JSON.",
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Lyon"}}\n</tool_call>\n'
    '<tool_calls>\n[{"name": "get_weather", "arguments": {"city": "Nice"}}]\n</tool_calls>',
    calls=[("get_weather", {"city": "Lyon"}), ("get_weather", {"city": "Nice"})],
)
case(
    "hunyuan_undeclared_name",
    "A Hunyuan-A13B call naming no declared tool: the block is content, verbatim.",
    '<tool_calls>[{"name": "web_fetch", "arguments": {"url": "https://example.com"}}]</tool_calls>',
    content='<tool_calls>[{"name": "web_fetch", "arguments": {"url": "https://example.com"}}]</tool_calls>',
)

# ------------- FunctionGemma, bare keys and quoted values in a block (a test-only dialect: tests/extra_dialects.py)
#: the tools of the FunctionGemma cases, as their sources declare them
FG_WEATHER = fn(
    "get_current_weather",
    {"location": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
    ["location"],
)
FG_TEMPERATURE = fn(
    "get_current_temperature",
    {"location": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
    ["location", "unit"],
)
FG_TIME = fn("get_time", {"timezone": {"type": "string"}})
FG_SEARCH = fn("search", {"query": {"type": "string"}, "limit": {"type": "integer"}, "sort": {"type": "string"}})
FG_FLASHLIGHT_ON = fn("turn_on_flashlight", {})
FG_FLASHLIGHT_OFF = fn("turn_off_flashlight", {})
FG_EVENT = fn("create_calendar_event", {"datetime": {"type": "string"}, "title": {"type": "string"}})
FG_EMAIL = fn("send_email", {"to": {"type": "string"}, "subject": {"type": "string"}})
FG_MOBILE = [FG_FLASHLIGHT_ON, FG_FLASHLIGHT_OFF, FG_EVENT, FG_EMAIL]


def fg(body):
    return f"<start_function_call>{body}<end_function_call>"


case(
    "fg_google_guide_call",
    "FunctionGemma's call as Google's guide shows the model writing it (ai.google.dev/gemma/docs/functiongemma/"
    "formatting-and-best-practices, 'Turn 3: Model Issues Function Call'): a string between <escape> tokens.",
    fg("call:get_current_weather{location:<escape>Tokyo, Japan<escape>}"),
    calls=[("get_current_weather", {"location": "Tokyo, Japan"})],
    tools=[FG_WEATHER],
)
case(
    "fg_google_guide_two_arguments",
    "Google's guide, 'Scenario B: Enriched Description' (same page): two arguments separated by a comma.",
    fg("call:get_current_temperature{location:<escape>Paris<escape>,unit:<escape>celsius<escape>}"),
    calls=[("get_current_temperature", {"location": "Paris", "unit": "celsius"})],
    tools=[FG_TEMPERATURE],
)
case(
    "fg_vllm_text_before_call",
    "vLLM's tests/tool_parsers/test_functiongemma_tool_parser.py (test_text_before_tool_call): the text before the "
    "block is content, verbatim (vLLM strips its trailing space).",
    "Let me check the weather for you. " + fg("call:get_current_weather{location:<escape>Paris<escape>}"),
    content="Let me check the weather for you. ",
    calls=[("get_current_weather", {"location": "Paris"})],
    tools=[FG_WEATHER],
)
case(
    "fg_vllm_two_calls",
    "vLLM's test_multiple_tool_calls: two blocks one after the other, two calls in order.",
    fg("call:get_current_weather{location:<escape>London<escape>}") + fg("call:get_time{timezone:<escape>UTC<escape>}"),
    calls=[("get_current_weather", {"location": "London"}), ("get_time", {"timezone": "UTC"})],
    tools=[FG_WEATHER, FG_TIME],
)
case(
    "fg_vllm_items_without_commas",
    "vLLM's test_streamed_arguments_form_valid_json_with_three_keys writes the items with no comma between them: a "
    "key after a value is the next item; a quoted value of an integer parameter is typed by the schema.",
    fg("call:search{query:<escape>python<escape>limit:<escape>10<escape>sort:<escape>relevance<escape>}"),
    calls=[("search", {"query": "python", "limit": 10, "sort": "relevance"})],
    tools=[FG_SEARCH],
)
case(
    "fg_fine_tuned_calendar_event",
    "A fine-tuned FunctionGemma's output (tidepool-heavy-industries/functiongemma-training, FINAL_SUMMARY.md, "
    "'Function with parameters', in the block its training data writes it in).",
    fg("call:create_calendar_event{datetime:<escape>2026-11-20T10:00:00<escape>,title:<escape>Team Meeting<escape>}"),
    calls=[("create_calendar_event", {"datetime": "2026-11-20T10:00:00", "title": "Team Meeting"})],
    tools=FG_MOBILE,
)
case(
    "fg_fine_tuned_no_arguments_and_parallel",
    "The same project's call with no arguments (its training data: call:turn_on_flashlight{}) and a parallel call "
    "after it ('Both turn_on_flashlight and create_calendar_event in one response'), then the turn's end token.",
    fg("call:turn_on_flashlight{}")
    + fg("call:create_calendar_event{datetime:<escape>2026-11-20T10:00:00<escape>,title:<escape>Team Meeting<escape>}")
    + "<end_of_turn>",
    calls=[
        ("turn_on_flashlight", {}),
        ("create_calendar_event", {"datetime": "2026-11-20T10:00:00", "title": "Team Meeting"}),
    ],
    tools=FG_MOBILE,
)
case(
    "fg_base_model_no_call_syntax",
    "The base model's output prompted with raw text (the same project's FINDINGS.md, 'Actual Output (Base)'): no "
    "call: mark, no braces; neither block is a call, both are content, verbatim.",
    "<start_function_call>turn_on_flashlight<escape>turn_off_flashlight<escape><start_function_call>send_email",
    content="<start_function_call>turn_on_flashlight<escape>turn_off_flashlight<escape><start_function_call>send_email",
    tools=FG_MOBILE,
)
case(
    "fg_fine_tuned_name_only",
    "The fine-tuned model's output prompted with raw text (FINDINGS.md, 'Actual Output (Fine-tuned)'): a name with no "
    "call: mark and no arguments is no call; the end-of-turn token is markup.",
    "<start_function_call>create_calendar_event\n<end_of_turn>",
    content="<start_function_call>create_calendar_event\n",
    tools=FG_MOBILE,
)
case(
    "fg_hand_written_layout",
    "The layout FINDINGS.md expects (written by hand there, not a model's): each call on its own line in its block, "
    "a space after the comma; the line breaks are markup (inside the blocks, and between two blocks).",
    "<start_function_call>\ncall:turn_on_flashlight{}\n<end_function_call>\n<start_function_call>\n"
    "call:create_calendar_event{datetime:<escape>2026-11-20T10:00:00<escape>, title:<escape>Review Q4 Strategy Draft"
    "<escape>}\n<end_function_call>",
    calls=[
        ("turn_on_flashlight", {}),
        ("create_calendar_event", {"datetime": "2026-11-20T10:00:00", "title": "Review Q4 Strategy Draft"}),
    ],
    tools=FG_MOBILE,
)
case(
    "fg_wrong_name",
    "The base model sometimes names a tool that is not declared (FINAL_SUMMARY.md: 'Sometimes wrong "
    "(turn_flashlight)'): the block is content, verbatim.",
    fg("call:turn_flashlight{}"),
    content=fg("call:turn_flashlight{}"),
    tools=FG_MOBILE,
)
case(
    "fg_cut_in_a_string",
    "Google's guide call cut inside its string value: the value so far, as valid JSON.",
    "<start_function_call>call:get_current_weather{location:<escape>Tok",
    calls=[("get_current_weather", {"location": "Tok"})],
    tools=[FG_WEATHER],
)
case(
    "fg_unquoted_values",
    "A value that is no string is written bare, as JSON (llama.cpp's FunctionGemma format, common/chat: "
    "'key2:123 ... non-string values are raw'; not a model's output); a string holds the body's marks as text.",
    fg("call:search{query:<escape>a{b}:c, d<escape>,limit:25}"),
    calls=[("search", {"query": "a{b}:c, d", "limit": 25})],
    tools=[FG_SEARCH],
)

# ------------- Mistral, [TOOL_CALLS]NAME[ARGS]{json}, blocks with no closing tag (a test-only dialect: tests/extra_dialects.py)
# (the layout mistral-common's tokenizers write: src/mistral_common/tokens/tokenizers/instruct.py, InstructTokenizerV11
# and InstructTokenizerV13 ``_encode_tool_calls_in_assistant_message``, and ``encode_think`` for Magistral's reasoning)
case(
    "mistral_v13_two_calls",
    "Mistral's tokenizer v13 layout (Mistral Small 3.2, Devstral): each call is [TOOL_CALLS]NAME[ARGS]{json}, one "
    "after another with no closing tag; each call ends its block.",
    '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]get_time[ARGS]{"timezone": "Europe/Paris"}',
    calls=[("get_weather", {"city": "Paris"}), ("get_time", {"timezone": "Europe/Paris"})],
)
case(
    "mistral_v11_call_id",
    "Mistral's tokenizer v11 layout writes [CALL_ID]ID between the name and [ARGS]: markup (the id is the call's); "
    "text before the call is content.",
    'Let me check.[TOOL_CALLS]get_weather[CALL_ID]a1B2c3D4e[ARGS]{"city": "Paris", "days": 3}',
    content="Let me check.",
    calls=[("get_weather", {"city": "Paris", "days": 3})],
)
case(
    "mistral_magistral_reasoning",
    "Magistral reasons in [THINK]...[/THINK], then calls.",
    '[THINK]The user wants the weather in Paris [FR].[/THINK][TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}',
    reasoning="The user wants the weather in Paris [FR].",
    calls=[("get_weather", {"city": "Paris"})],
    opt_reasoning=True,
)
case(
    "mistral_text_after_call",
    "Text after a call: the block ended with the call; the text, and the space before it, is content.",
    '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"} Done [ok].',
    content=" Done [ok].",
    calls=[("get_weather", {"city": "Paris"})],
)
case(
    "mistral_undeclared_name",
    "A Mistral call naming no declared tool: the block is content, verbatim.",
    '[TOOL_CALLS]web_fetch[ARGS]{"url": "https://example.com"}',
    content='[TOOL_CALLS]web_fetch[ARGS]{"url": "https://example.com"}',
)
case(
    "mistral_tag_in_prose",
    "Brackets in prose, and the block's tag followed by no call: all text, verbatim.",
    "Use a [list] like [1, 2] or the [TOOL_CALLS] token in prose.",
    content="Use a [list] like [1, 2] or the [TOOL_CALLS] token in prose.",
)

# ------------------- Llama 3.x JSON, <|python_tag|> then calls separated by ';' (a test-only dialect: tests/extra_dialects.py)
# (the call object Meta's prompt format and the Llama 3.1 chat template write, {"name": ..., "parameters": {...}}, after
# <|python_tag|>, several separated by "; " as vLLM's llama3_json tool parser reads them, and the turn's end token)
case(
    "llama_one_call_eom",
    "One call after <|python_tag|>, its arguments under 'parameters', then <|eom_id|>: markup.",
    '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris", "days": 3}}<|eom_id|>',
    calls=[("get_weather", {"city": "Paris", "days": 3})],
)
case(
    "llama_two_calls_separated",
    "Two calls separated by '; ' in one block, then <|eot_id|>: two calls, the separator markup.",
    '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}; '
    '{"name": "get_time", "parameters": {"timezone": "Europe/Paris"}}<|eot_id|>',
    calls=[("get_weather", {"city": "Paris"}), ("get_time", {"timezone": "Europe/Paris"})],
)
case(
    "llama_text_after_call",
    "Text after a call ends the block (it has no closing tag): the text, and the space before it, is content.",
    'Checking.<|python_tag|>{"name": "get_weather", "parameters": {"city": "Lyon"}} I will report back.',
    content="Checking. I will report back.",
    calls=[("get_weather", {"city": "Lyon"})],
)
case(
    "llama_separator_then_text",
    "A separator that no call follows is text.",
    '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Nice"}}; that is all.',
    content="; that is all.",
    calls=[("get_weather", {"city": "Nice"})],
)
case(
    "llama_undeclared_name",
    "A Llama call naming no declared tool: the block is content, verbatim.",
    '<|python_tag|>{"name": "web_fetch", "parameters": {"url": "https://example.com"}}',
    content='<|python_tag|>{"name": "web_fetch", "parameters": {"url": "https://example.com"}}',
)

if __name__ == "__main__":
    out = sys.argv[1]
    ids = [c["id"] for c in CASES]
    assert len(ids) == len(set(ids)), "duplicate ids"
    with open(out, "w", encoding="utf-8") as f:
        for c in CASES:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
    print(len(CASES), "cases")
