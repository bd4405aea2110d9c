"""Constrained decoding for ``tool_choice`` required / named / strict auto, in each dialect.

SGLang swallows exceptions from ``get_structural_tag`` (constrained decoding then silently turns off), so the tags are
built directly and through ``FunctionCallParser.get_structure_constraint``, compiled by XGrammar, and checked
against real outputs, which our parser must then read back.
"""

from __future__ import annotations

import json

import pytest
import xgrammar
from sglang.srt.entrypoints.openai.protocol import Tool, ToolChoice
from sglang.srt.function_call.function_call_parser import FunctionCallParser
from sglang_cases import TOOLS
from xgrammar.testing import _is_grammar_accept_string as grammar_accepts

from longcat_plugins.sglang.dialect import DIALECTS, ENV_VAR

pytestmark = pytest.mark.sglang

SGLANG_TOOLS = [Tool.model_validate(t) for t in TOOLS]
PARIS = {"city": "Paris", "days": 3}

#: a call to get_weather(PARIS) as the model writes it in each dialect
CALLS = {
    "json": '<longcat_tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}'
    "\n</longcat_tool_call>",
    "kv": "<longcat_tool_call>get_weather\n<longcat_arg_key>city</longcat_arg_key>\n"
    "<longcat_arg_value>Paris</longcat_arg_value>\n<longcat_arg_key>days</longcat_arg_key>\n"
    "<longcat_arg_value>3</longcat_arg_value>\n</longcat_tool_call>",
    "xml": "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n"
    "</parameter>\n</function>\n</tool_call>",
    "hermes": '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}\n</tool_call>',
}
OTHER_CALLS = {
    "json": '<longcat_tool_call>\n{"name": "write_file", "arguments": {"path": "a", "content": "b"}}'
    "\n</longcat_tool_call>",
    "kv": "<longcat_tool_call>write_file\n<longcat_arg_key>path</longcat_arg_key>\n"
    "<longcat_arg_value>a</longcat_arg_value>\n<longcat_arg_key>content</longcat_arg_key>\n"
    "<longcat_arg_value>b</longcat_arg_value>\n</longcat_tool_call>",
    "xml": "<tool_call>\n<function=write_file>\n<parameter=path>\na\n</parameter>\n<parameter=content>\nb\n"
    "</parameter>\n</function>\n</tool_call>",
    "hermes": '<tool_call>\n{"name": "write_file", "arguments": {"path": "a", "content": "b"}}\n</tool_call>',
}
NAMED = ToolChoice(type="function", function={"name": "get_weather"})


@pytest.fixture(params=sorted(DIALECTS))
def dialect(request: pytest.FixtureRequest, dialect_env) -> str:
    dialect_env(request.param)
    return request.param


def compiled(parser: FunctionCallParser, tool_choice, **kwargs) -> xgrammar.Grammar:
    constraint = parser.get_structure_constraint(tool_choice, **kwargs)
    assert constraint is not None and constraint[0] == "structural_tag", constraint
    return xgrammar.Grammar.from_structural_tag(constraint[1])


def test_default_dialect_is_longcat_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert FunctionCallParser(SGLANG_TOOLS, "longcat").detector.dialect.name == "json"


def test_unknown_dialect_fails_loudly(dialect_env) -> None:
    dialect_env("yaml")
    with pytest.raises(ValueError, match=ENV_VAR):
        FunctionCallParser(SGLANG_TOOLS, "longcat")


def test_unknown_dialect_is_reported_at_start_up(dialect_env, caplog: pytest.LogCaptureFixture) -> None:
    from longcat_plugins.sglang import register

    dialect_env("yaml")
    with caplog.at_level("ERROR", logger="longcat_plugins"):
        register()
    assert "LONGCAT_TOOL_DIALECT='yaml': expected one of json, kv, xml, hermes" in caplog.text
    assert "every request with tools will fail" in caplog.text


def test_required(dialect: str) -> None:
    parser = FunctionCallParser(SGLANG_TOOLS, "longcat")
    assert parser.owns_tool_format()
    grammar = compiled(parser, "required")
    assert grammar_accepts(grammar, CALLS[dialect])
    assert grammar_accepts(grammar, OTHER_CALLS[dialect])
    assert grammar_accepts(grammar, CALLS[dialect] + "\n" + OTHER_CALLS[dialect])
    assert not grammar_accepts(grammar, "No call at all.")
    # and what the grammar lets through is what our parser reads
    _, items = parser.parse_non_stream(CALLS[dialect])
    assert [(i.name, json.loads(i.parameters)) for i in items] == [("get_weather", PARIS)]


def test_named_tool(dialect: str) -> None:
    parser = FunctionCallParser(SGLANG_TOOLS, "longcat", tool_choice=NAMED)
    grammar = compiled(parser, NAMED)
    assert grammar_accepts(grammar, CALLS[dialect])
    assert not grammar_accepts(grammar, OTHER_CALLS[dialect])


def test_strict_auto_allows_text(dialect: str) -> None:
    strict = [Tool.model_validate({**t, "function": {**t["function"], "strict": True}}) for t in TOOLS]
    parser = FunctionCallParser(strict, "longcat")
    grammar = compiled(parser, "auto")
    assert grammar_accepts(grammar, "Plain answer.")
    assert grammar_accepts(grammar, "Let me look. " + CALLS[dialect])


def test_plain_auto_is_unconstrained(dialect: str) -> None:
    assert FunctionCallParser(SGLANG_TOOLS, "longcat").get_structure_constraint("auto") is None


def test_thinking_mode_finishes_reasoning_first(dialect: str) -> None:
    parser = FunctionCallParser(SGLANG_TOOLS, "longcat")
    grammar = compiled(parser, "required", thinking_mode=True)
    assert grammar_accepts(grammar, "I should check.</think>" + CALLS[dialect])
    assert grammar_accepts(grammar, "I should check.</longcat_think>" + CALLS[dialect])


def test_parallel_tool_calls_false_allows_one_call(dialect: str) -> None:
    parser = FunctionCallParser(SGLANG_TOOLS, "longcat")
    grammar = compiled(parser, "required", parallel_tool_calls=False)
    assert grammar_accepts(grammar, CALLS[dialect])
    assert not grammar_accepts(grammar, CALLS[dialect] + "\n" + OTHER_CALLS[dialect])


def test_structure_info_matches_the_tag(dialect: str) -> None:
    detector = FunctionCallParser(SGLANG_TOOLS, "longcat").detector
    assert detector.supports_structural_tag()
    info = detector.structure_info()("get_weather")
    tag = detector.get_structural_tag(tools=SGLANG_TOOLS, tool_choice="required")
    by_begin = {t.begin: t for t in tag.format.tags}
    assert info.begin in by_begin and by_begin[info.begin].end == info.end
    assert tag.format.triggers == [info.trigger] and info.begin.startswith(info.trigger)
    assert CALLS[dialect].startswith(info.begin) and CALLS[dialect].endswith(info.end)


@pytest.mark.parametrize(
    "tool_choice", ["auto", "required", "none", NAMED, {"type": "function", "function": {"name": "write_file"}}]
)
@pytest.mark.parametrize("thinking_mode", [False, True])
def test_get_structural_tag_never_raises_for_valid_requests(dialect: str, tool_choice, thinking_mode: bool) -> None:
    detector = FunctionCallParser(SGLANG_TOOLS, "longcat").detector
    tag = detector.get_structural_tag(
        tools=SGLANG_TOOLS, tool_choice=tool_choice, thinking_mode=thinking_mode, message_start=True
    )
    xgrammar.Grammar.from_structural_tag(tag)


def test_named_tool_that_does_not_exist_is_an_error() -> None:
    detector = FunctionCallParser(SGLANG_TOOLS, "longcat").detector
    with pytest.raises(ValueError):
        detector.get_structural_tag(tools=SGLANG_TOOLS, tool_choice={"type": "function", "function": {"name": "nope"}})


def test_kv_values_are_typed_by_the_schema(dialect_env) -> None:
    dialect_env("kv")
    grammar = compiled(FunctionCallParser(SGLANG_TOOLS, "longcat"), "required")
    pair = "<longcat_arg_key>{}</longcat_arg_key>\n<longcat_arg_value>{}</longcat_arg_value>\n"
    call = "<longcat_tool_call>{}\n{}</longcat_tool_call>"
    assert grammar_accepts(grammar, call.format("get_weather", pair.format("city", "Paris") + pair.format("days", "3")))
    # the parameters in their declared order, each once, the required ones always (as the JSON grammar holds them)
    assert not grammar_accepts(grammar, call.format("get_weather", pair.format("days", "3") + pair.format("city", "P")))
    assert not grammar_accepts(grammar, call.format("get_weather", pair.format("city", "P") + pair.format("city", "Q")))
    assert not grammar_accepts(grammar, call.format("get_weather", pair.format("days", "3")))
    assert not grammar_accepts(grammar, call.format("get_weather", pair.format("city", "P") + pair.format("days", "x")))
    assert not grammar_accepts(grammar, call.format("get_weather", pair.format("country", "FR")))
    multi_line = pair.format("path", "a.md") + pair.format("content", "# Title\n\n<b>x</b> 1 < 2\n")
    assert grammar_accepts(grammar, call.format("write_file", multi_line))
    _, items = FunctionCallParser(SGLANG_TOOLS, "longcat").parse_non_stream(call.format("write_file", multi_line))
    assert json.loads(items[0].parameters) == {"path": "a.md", "content": "# Title\n\n<b>x</b> 1 < 2\n"}
