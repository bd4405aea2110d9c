"""Readable unit tests per dialect (docs/design.md, dialects), the seeds' example formats, options, and progress.

Progress (invariant 5): a string value streams as it is generated - argument fragments arrive before the value's
closing tag does - in every dialect.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from typing import Any

import pytest

from longcat_plugins.core import ParsedMessage, ParserOptions, StreamParser, parse
from longcat_plugins.core.events import Content, Event, Reasoning, ToolCallArgs, ToolCallEnd, ToolCallStart
from tests.support.events import feed, fold
from tests.support.tools import function_tool, get_weather

WEATHER = get_weather("Current weather", place="location")
WRITE_FILE = function_tool(
    "write_file", {"path": {"type": "string"}, "content": {"type": "string"}, "mode": {"type": "integer"}}
)
TOOLS = [WEATHER, WRITE_FILE]


def calls_of(message: ParsedMessage) -> list[tuple[str, Any]]:
    return [(c.name, json.loads(c.arguments)) for c in message.tool_calls]


def args_text(events: Iterable[Event], index: int = 0) -> str:
    return "".join(e.text for e in events if isinstance(e, ToolCallArgs) and e.index == index)


# -- LongCat JSON (seed 000) ------------------------------------------------------------------------------------


def test_longcat_json_seed000_format() -> None:
    # seed 000: '<longcat_tool_call>\n{"name": <function-name>, "arguments": <args-dict>}\n</longcat_tool_call>'
    text = '<longcat_tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris"}}\n</longcat_tool_call>'
    message = parse(text, TOOLS)
    assert calls_of(message) == [("get_weather", {"location": "Paris"})]
    assert message.content == ""
    assert message.reasoning == ""


def test_longcat_json_consecutive_blocks_are_several_calls() -> None:
    # seed 000: "多个函数调用连续使用多个标签" - several calls use several consecutive tags
    block = '<longcat_tool_call>\n{{"name": "get_weather", "arguments": {{"location": "{}"}}}}\n</longcat_tool_call>'
    message = parse(block.format("Paris") + "\n" + block.format("Rome"), TOOLS)
    assert calls_of(message) == [("get_weather", {"location": "Paris"}), ("get_weather", {"location": "Rome"})]
    assert [c.index for c in message.tool_calls] == [0, 1]
    assert message.tool_calls[0].id != message.tool_calls[1].id


def test_longcat_json_whitespace_is_optional() -> None:
    text = '<longcat_tool_call>{"name":"get_weather","arguments":{"location":"Paris"}}</longcat_tool_call>'
    assert calls_of(parse(text, TOOLS)) == [("get_weather", {"location": "Paris"})]


def test_longcat_json_text_after_the_call_is_kept() -> None:
    # vLLM's built-in longcat parser drops the text after a call
    text = 'Sure.<longcat_tool_call>{"name": "get_weather", "arguments": {}}</longcat_tool_call>Anything else?'
    assert parse(text, TOOLS).content == "Sure.Anything else?"


def test_longcat_json_arguments_before_name_stream_after_the_start() -> None:
    # vLLM's built-in longcat parser streams a wrong name when "arguments" precedes "name"
    parts = ['<longcat_tool_call>{"arguments": {"location": ', '"Paris", "name": "x"}, ', '"name": "get_weather"}']
    batches = feed([*parts, "</longcat_tool_call>"], TOOLS).batches
    events = [e for batch in batches for e in batch]
    assert not any(isinstance(e, (ToolCallStart, ToolCallArgs)) for e in batches[0] + batches[1])
    assert isinstance(events[0], ToolCallStart) and events[0].name == "get_weather"
    assert json.loads(args_text(events)) == {"location": "Paris", "name": "x"}
    # once the name is known, the arguments read before it are released at once, in the same feed
    assert any(isinstance(e, ToolCallArgs) for e in batches[2])


# -- Hermes / Qwen JSON (seed 003) ------------------------------------------------------------------------------


def test_hermes_seed003_example() -> None:
    text = '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Seoul", "unit": "celsius"}}\n</tool_call>'
    assert calls_of(parse(text, TOOLS)) == [("get_weather", {"location": "Seoul", "unit": "celsius"})]


def test_hermes_seed003_history_rendering_several_calls_in_one_block() -> None:
    # the Go template renders:
    # <tool_call>\n{{ range .ToolCalls }}{"name": "..", "arguments": {..}}\n{{ end }}</tool_call>
    text = (
        "<tool_call>\n"
        '{"name": "get_weather", "arguments": {"location":"Seoul"}}\n'
        '{"name": "write_file", "arguments": {"path":"a.txt","content":"x"}}\n'
        "</tool_call>"
    )
    message = parse(text, TOOLS)
    assert calls_of(message) == [
        ("get_weather", {"location": "Seoul"}),
        ("write_file", {"path": "a.txt", "content": "x"}),
    ]
    assert message.content == ""


def test_hermes_whole_output_in_one_delta_emits_every_call_with_arguments() -> None:
    # SGLang qwen25/hermes: a whole call in one chunk loses its arguments; a second complete call is never emitted
    one = '<tool_call>\n{"name": "get_weather", "arguments": {"location": "A"}}\n</tool_call>'
    two = '<tool_call>\n{"name": "get_weather", "arguments": {"location": "B"}}\n</tool_call>'
    batches = feed([one + two], TOOLS).batches
    starts = [e for e in batches[0] if isinstance(e, ToolCallStart)]
    ends = [e for e in batches[0] if isinstance(e, ToolCallEnd)]
    assert [s.index for s in starts] == [0, 1] and [e.index for e in ends] == [0, 1]
    assert json.loads(args_text(batches[0], 0)) == {"location": "A"}
    assert json.loads(args_text(batches[0], 1)) == {"location": "B"}


def test_text_before_a_split_tag_is_kept() -> None:
    # SGLang qwen25/hermes: text before a split tag is dropped
    parts = ["Let me check <tool", '_call>\n{"name": "get_weather", "arguments": {}}\n</tool_call>']
    batches = feed(parts, TOOLS).batches
    assert batches[0] == [Content("Let me check ")]
    assert fold(batches).content == "Let me check "


# -- XML function (seed 004) ------------------------------------------------------------------------------------

SEED004_EXAMPLE = (
    "<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n</parameter>\n"
    "<parameter=example_parameter_2>\nThis is the value for the second parameter\nthat can span\nmultiple lines\n"
    "</parameter>\n</function>\n</tool_call>"
)


def test_xml_seed004_system_prompt_example() -> None:
    message = parse(SEED004_EXAMPLE)
    assert calls_of(message) == [
        (
            "example_function_name",
            {
                "example_parameter_1": "value_1",
                "example_parameter_2": "This is the value for the second parameter\nthat can span\nmultiple lines",
            },
        )
    ]
    assert message.content == ""


def test_xml_seed004_generation_prompt_preopens_reasoning() -> None:
    # seed 004 with enable_thinking: the prompt ends in '<|im_start|>assistant\n<think>\n'
    text = (
        "The user wants a file.\n</think>\n\nWriting it.\n<tool_call>\n<function=write_file>\n<parameter=path>\n"
        'src/app.py\n</parameter>\n<parameter=content>\nprint("hi")\n</parameter>\n</function>\n</tool_call>'
    )
    message = parse(text, TOOLS, ParserOptions(reasoning_open=True))
    assert message.reasoning == "The user wants a file.\n"
    assert message.content == "\n\nWriting it.\n"
    assert calls_of(message) == [("write_file", {"path": "src/app.py", "content": 'print("hi")'})]


def test_xml_seed004_no_thinking_prompt() -> None:
    # seed 004 without thinking: the prompt ends in '<think></think>', the output has no reasoning to split
    text = (
        "Done.\n<tool_call>\n<function=get_weather>\n<parameter=location>\nParis\n</parameter>\n</function>\n"
        "</tool_call>"
    )
    message = parse(text, TOOLS)
    assert (message.reasoning, message.content) == ("", "Done.\n")
    assert calls_of(message) == [("get_weather", {"location": "Paris"})]


def test_xml_seed004_history_rendering_round_trips() -> None:
    # seed 004 renders history calls as '<tool_call>\n<function=N>\n' + '<parameter=k>\nv\n</parameter>\n'...
    # with non-string values as tojson
    text = (
        "<think></think>Two calls.\n"
        "<tool_call>\n<function=write_file>\n<parameter=path>\na.txt\n</parameter>\n<parameter=mode>\n420\n</parameter>\n"
        "</function>\n</tool_call>\n"
        "<tool_call>\n<function=get_weather>\n<parameter=location>\nOslo\n</parameter>\n<parameter=days>\n3\n"
        "</parameter>\n</function>\n</tool_call>\n"
    )
    message = parse(text, TOOLS)
    assert calls_of(message) == [
        ("write_file", {"path": "a.txt", "mode": 420}),
        ("get_weather", {"location": "Oslo", "days": 3}),
    ]
    assert message.content == "Two calls.\n"


def test_xml_inside_longcat_wrapper_and_bare() -> None:
    body = "<function=get_weather>\n<parameter=location>\nParis\n</parameter>\n</function>"
    expected = [("get_weather", {"location": "Paris"})]
    assert calls_of(parse(f"<longcat_tool_call>\n{body}\n</longcat_tool_call>", TOOLS)) == expected
    bare = parse(f"Calling now.\n{body}", TOOLS)
    assert calls_of(bare) == expected
    assert bare.content == "Calling now.\n"


def test_xml_values_are_typed_by_schema() -> None:
    text = (
        "<function=write_file>\n<parameter=mode>\n0644\n</parameter>\n"
        "<parameter=content>\n0644\n</parameter>\n</function>"
    )
    # integer parameter: int("0644") == 644; the string parameter keeps its text
    assert calls_of(parse(text, TOOLS)) == [("write_file", {"mode": 644, "content": "0644"})]


def test_xml_malformed_parameter_does_not_leak_into_arguments() -> None:
    # vLLM qwen3_coder: a malformed '<parameter=' can leak into the streamed arguments
    text = (
        "<tool_call>\n<function=write_file>\n<parameter=path>\na\n</parameter>\n"
        "<parameter=content x</parameter>\n</function>\n</tool_call>"
    )
    for parts in ([text], list(text)):
        message = feed(parts, TOOLS).message
        assert calls_of(message) == [("write_file", {"path": "a"})]
        assert "<parameter=content x" in message.content


# -- LongCat key/value ------------------------------------------------------------------------------------------


def test_key_value_design_example() -> None:
    text = (
        "<longcat_tool_call>get_weather\n<longcat_arg_key>location</longcat_arg_key>\n"
        "<longcat_arg_value>Paris</longcat_arg_value>\n</longcat_tool_call>"
    )
    assert calls_of(parse(text, TOOLS)) == [("get_weather", {"location": "Paris"})]


def test_key_value_typed_and_multiple_calls() -> None:
    def block(name: str, *pairs: tuple[str, str]) -> str:
        kv = "".join(
            f"<longcat_arg_key>{k}</longcat_arg_key>\n<longcat_arg_value>{v}</longcat_arg_value>\n" for k, v in pairs
        )
        return f"<longcat_tool_call>{name}\n{kv}</longcat_tool_call>"

    text = block("get_weather", ("location", "Paris"), ("days", "2")) + "\n" + block("write_file", ("mode", "7"))
    message = parse(text, TOOLS)
    assert calls_of(message) == [("get_weather", {"location": "Paris", "days": 2}), ("write_file", {"mode": 7})]
    assert message.content == ""


def test_key_value_value_kept_as_is() -> None:
    text = (
        "<longcat_tool_call>write_file\n<longcat_arg_key>content</longcat_arg_key>\n"
        "<longcat_arg_value>\n  indented\n</longcat_arg_value>\n</longcat_tool_call>"
    )
    assert calls_of(parse(text, TOOLS)) == [("write_file", {"content": "\n  indented\n"})]


# -- reasoning, end markers, options ----------------------------------------------------------------------------


@pytest.mark.parametrize("tag", ["think", "longcat_think"])
def test_reasoning_tags(tag: str) -> None:
    message = parse(f"<{tag}>step 1</{tag}>The answer.")
    assert (message.reasoning, message.content) == ("step 1", "The answer.")


def test_preopened_reasoning_ends_at_a_call_tag() -> None:
    text = 'thinking...<longcat_tool_call>{"name": "get_weather", "arguments": {}}</longcat_tool_call>'
    message = parse(text, TOOLS, ParserOptions(reasoning_open=True))
    assert message.reasoning == "thinking..."
    assert calls_of(message) == [("get_weather", {})]


@pytest.mark.parametrize("marker", ["</longcat_s>", "<|im_end|>"])
def test_end_markers_never_leak_even_when_split(marker: str) -> None:
    text = f"Hello{marker}"
    for parts in ([text], list(text), ["Hello", marker[:3], marker[3:]]):
        assert feed(parts).message.content == "Hello"


def test_tools_disabled_keeps_call_markup_as_content_but_reasoning_still_ends() -> None:
    text = '<tool_call>{"name": "get_weather", "arguments": {}}</tool_call>'
    message = parse("r" + text, TOOLS, ParserOptions(tools=False, reasoning_open=True))
    assert message.tool_calls == []
    assert (message.reasoning, message.content) == ("r", text)


def test_reasoning_disabled_keeps_think_tags_as_content() -> None:
    message = parse("<think>x</think>y", None, ParserOptions(reasoning=False))
    assert (message.reasoning, message.content) == ("", "<think>x</think>y")


def test_id_factory_gives_the_call_ids() -> None:
    text = '<tool_call>{"name": "a", "arguments": {}}</tool_call><tool_call>{"name": "b", "arguments": {}}</tool_call>'
    message = parse(text, None, ParserOptions(id_factory=lambda i: f"id-{i}"))
    assert [c.id for c in message.tool_calls] == ["id-0", "id-1"]


def test_default_ids_are_openai_style_and_unique() -> None:
    text = '<tool_call>{"name": "a", "arguments": {}}</tool_call>' * 3
    ids = [c.id for c in parse(text).tool_calls]
    assert len(set(ids)) == 3 and all(i.startswith("call_") for i in ids)


def test_unknown_tool_is_content_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    text = '<tool_call>{"name": "rm_rf", "arguments": {"path": "/"}}</tool_call>'
    with caplog.at_level(logging.WARNING, logger="longcat_plugins"):
        message = parse(text, TOOLS)
    assert calls_of(message) == []
    assert message.content == text
    assert "rm_rf" in caplog.text


def test_unknown_tool_is_emitted_and_logged_when_asked(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="longcat_plugins"):
        message = parse(
            '<tool_call>{"name": "rm_rf", "arguments": {"path": "/"}}</tool_call>',
            TOOLS,
            ParserOptions(emit_unknown_calls=True),
        )
    assert calls_of(message) == [("rm_rf", {"path": "/"})]
    assert "rm_rf" in caplog.text


@pytest.mark.parametrize(
    ("written", "resolved"),
    [("get_weather", "get_weather"), ("functions.get_weather", "get_weather"), ("tools.get_weather", "get_weather")],
)
def test_a_namespace_prefix_resolves_to_the_declared_tool(written: str, resolved: str) -> None:
    for text in (
        f'<tool_call>{{"name": "{written}", "arguments": {{"city": "Oslo"}}}}</tool_call>',
        f"<function={written}><parameter=city>Oslo</parameter></function>",
        f"<longcat_tool_call>{written}\n<longcat_arg_key>city</longcat_arg_key>"
        "<longcat_arg_value>Oslo</longcat_arg_value></longcat_tool_call>",
    ):
        assert calls_of(parse(text, TOOLS)) == [(resolved, {"city": "Oslo"})]


def _every_shape(written: str) -> list[str]:
    """A call of ``written`` with ``city`` Oslo in every shape that names its tool: each dialect's block, a bare
    markup call, the key/value pairs without their block, a call object with no tag."""
    pair = "<longcat_arg_key>city</longcat_arg_key><longcat_arg_value>Oslo</longcat_arg_value>"
    return [
        f'<tool_call>{{"name": "{written}", "arguments": {{"city": "Oslo"}}}}</tool_call>',
        f'<longcat_tool_call>\n{{"name": "{written}", "arguments": {{"city": "Oslo"}}}}\n</longcat_tool_call>',
        f"<tool_call>\n<function={written}>\n<parameter=city>\nOslo\n</parameter>\n</function>\n</tool_call>",
        f"<function={written}><parameter=city>Oslo</parameter></function>",
        f"<longcat_tool_call>{written}\n{pair}</longcat_tool_call>",
        f"{written}\n{pair}",
        f'{{"name": "{written}", "arguments": {{"city": "Oslo"}}}}',
    ]


def _city_tool(name: str) -> dict[str, Any]:
    return function_tool(name, {"city": {"type": "string"}})


@pytest.mark.parametrize(
    ("declared", "written", "resolved"),
    [
        (["l.weather"], "functions.l.weather", "l.weather"),
        (["l.weather"], "l.weather", "l.weather"),
        (["l.weather", "weather"], "functions.l.weather", "l.weather"),
        (["tools.search"], "functions.tools.search", "tools.search"),
        (["l.weather"], "functions.functions.l.weather", "l.weather"),
    ],
)
def test_a_dotted_tool_name_written_with_a_namespace_is_the_declared_tool(
    declared: list[str], written: str, resolved: str
) -> None:
    tools = [_city_tool(name) for name in declared]
    for text in _every_shape(written):
        if written.startswith("functions.functions.") and text.startswith(("{", written)):
            continue  # (with no tag, only the namespace written once)
        for pieces in ([text], list(text)):
            message = feed(pieces, tools).message
            assert (message.content, calls_of(message)) == ("", [(resolved, {"city": "Oslo"})]), text


@pytest.mark.parametrize(
    ("declared", "written"),
    [(["l.weather", "x"], "functions.x.y"), (["l.weather"], "functions.x.weather"), (["tools.search"], "tools")],
)
def test_an_undeclared_dotted_name_with_a_namespace_is_content(declared: list[str], written: str) -> None:
    tools = [_city_tool(name) for name in declared]
    for text in _every_shape(written):
        message = parse(text, tools)
        assert (message.content, calls_of(message)) == (text, []), text


@pytest.mark.parametrize(
    "text",
    [
        "See <function=example_function_name> in the prompt.",
        "<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n</parameter>\n</function>",
        "<longcat_tool_call>Step 5 - Write daily memory:<longcat_tool_call>Bash</longcat_tool_call>",
    ],
)
def test_a_name_that_is_no_declared_tool_is_content(text: str) -> None:
    message = parse(text, TOOLS)
    assert calls_of(message) == []
    assert message.content == text


def test_finish_is_idempotent_and_feed_after_finish_is_ignored() -> None:
    parser = StreamParser(TOOLS)
    parser.feed('<tool_call>{"name": "get_weather", "arguments": {"location": "Pa')
    final = parser.finish()
    assert isinstance(final[-1], ToolCallEnd)
    assert parser.finish() == [] and parser.feed("more") == []
    assert json.loads(parser.calls[0].arguments) == {"location": "Pa"}


# -- progress (invariant 5) -------------------------------------------------------------------------------------

LONG = "0123456789abcdef" * 64  # 1024 characters


def _streamed_before_close(prefix: str, closing: str, chunk: int = 16) -> tuple[str, list[list[Event]]]:
    """Feed ``prefix``, then LONG in chunks (and nothing else); return the arguments streamed so far and batches."""
    parser = StreamParser(TOOLS)
    batches = [parser.feed(prefix)]
    batches += [parser.feed(LONG[i : i + chunk]) for i in range(0, len(LONG), chunk)]
    streamed = args_text(e for batch in batches for e in batch)
    batches.append(parser.feed(closing))
    batches.append(parser.finish())
    return streamed, batches


@pytest.mark.parametrize(
    ("prefix", "closing"),
    [
        pytest.param(
            "<tool_call>\n<function=write_file>\n<parameter=content>\n",
            "\n</parameter>\n</function>\n</tool_call>",
            id="xml",
        ),
        pytest.param(
            "<longcat_tool_call>write_file\n<longcat_arg_key>content</longcat_arg_key>\n<longcat_arg_value>",
            "</longcat_arg_value>\n</longcat_tool_call>",
            id="key-value",
        ),
        pytest.param(
            '<longcat_tool_call>\n{"name": "write_file", "arguments": {"content": "',
            '"}}\n</longcat_tool_call>',
            id="longcat-json",
        ),
        pytest.param(
            '<tool_call>\n{"name": "write_file", "arguments": {"content": "', '"}}\n</tool_call>', id="hermes"
        ),
        pytest.param("<function=write_file>\n<parameter=content>\n", "\n</parameter>\n</function>", id="xml-bare"),
    ],
)
def test_long_string_value_streams_before_its_closing_tag(prefix: str, closing: str) -> None:
    streamed, batches = _streamed_before_close(prefix, closing)
    # everything but a bounded hold-back was streamed before the closing tag arrived ...
    assert LONG[: len(LONG) - 16] in streamed
    # ... in many fragments, not one at the end
    assert sum(1 for batch in batches[1:-2] if any(isinstance(e, ToolCallArgs) for e in batch)) >= len(LONG) // 16 - 2
    assert json.loads(args_text(e for batch in batches for e in batch)) == {"content": LONG}


def test_string_value_fragments_are_json_escaped_as_they_stream() -> None:
    parser = StreamParser(TOOLS)
    parser.feed("<tool_call>\n<function=write_file>\n<parameter=content>\n")
    events = parser.feed('say "hi"\\ \t ok')
    assert args_text(events) == 'say \\"hi\\"\\\\ \\t ok'


def test_plain_text_is_released_at_once() -> None:
    parser = StreamParser(TOOLS)
    assert parser.feed("Hello, world") == [Content("Hello, world")]
    assert parser.feed(" a <") == [Content(" a ")]  # '<' could start a tag: held
    assert parser.feed(" b") == [Content("< b")]  # '< ' starts no tag: released with what follows
    assert parser.feed(" x<y z") == [Content(" x<y z")]  # decided within the delta: nothing held
    assert parser.feed("<tool") == []
    assert parser.feed("box>") == [Content("<toolbox>")]


def test_reasoning_streams_as_it_arrives() -> None:
    parser = StreamParser(None, ParserOptions(reasoning_open=True))
    assert parser.feed("step one, ") == [Reasoning("step one, ")]
    assert parser.feed("step two") == [Reasoning("step two")]
    assert parser.feed("</think>ok") == [Content("ok")]


def test_several_calls_start_and_end_in_one_feed() -> None:
    text = "".join(f'<tool_call>{{"name": "get_weather", "arguments": {{"days": {i}}}}}</tool_call>' for i in range(3))
    events = StreamParser(TOOLS).feed(text)
    kinds = [(type(e).__name__, getattr(e, "index", None)) for e in events]
    assert kinds == [
        ("ToolCallStart", 0), ("ToolCallArgs", 0), ("ToolCallEnd", 0),
        ("ToolCallStart", 1), ("ToolCallArgs", 1), ("ToolCallEnd", 1),
        ("ToolCallStart", 2), ("ToolCallArgs", 2), ("ToolCallEnd", 2),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("body", "closing"),
    [
        pytest.param('<tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris"}', "}", id="json"),
        pytest.param(
            "<tool_call>\n<function=get_weather>\n<parameter=location>\nParis\n</parameter>\n", "</function>", id="xml"
        ),
        pytest.param(
            "<longcat_tool_call>get_weather\n<longcat_arg_key>location</longcat_arg_key>\n"
            "<longcat_arg_value>Paris</longcat_arg_value>\n",
            "</longcat_tool_call>",
            id="key-value",
        ),
    ],
)
def test_a_call_ends_as_soon_as_its_closing_markup_arrives(body: str, closing: str) -> None:
    parser = StreamParser(TOOLS)
    events = parser.feed(body)
    assert not any(isinstance(e, ToolCallEnd) for e in events)
    events = parser.feed(closing)
    assert any(isinstance(e, ToolCallEnd) for e in events), "the end is not held until finish()"
    assert json.loads(parser.calls[0].arguments) == {"location": "Paris"}


@pytest.mark.parametrize(
    "header",
    [
        pytest.param('<tool_call>\n{"name": "get_weather", "arguments": {"loc', id="json"),
        pytest.param('<longcat_tool_call>{"name": "get_weather", ', id="longcat-json"),
        pytest.param("<tool_call>\n<function=get_weather>\n<param", id="xml"),
        pytest.param("<longcat_tool_call>get_weather\n<longcat_arg_key>loc", id="key-value"),
    ],
)
def test_a_call_starts_as_soon_as_its_name_is_known(header: str) -> None:
    events = StreamParser(TOOLS).feed(header)
    starts = [e for e in events if isinstance(e, ToolCallStart)]
    assert [(s.index, s.name) for s in starts] == [(0, "get_weather")]
