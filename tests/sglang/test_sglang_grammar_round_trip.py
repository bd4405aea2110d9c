"""The structural tag and the parser agree, in every dialect and for every schema shape: the call the model writes for
the intended arguments is accepted by the grammar SGLang compiles for a strict tool, and the parser reads those
arguments back. The tag comes from SGLang's own entry (``LongcatDetector.get_structural_tag`` through
``FunctionCallParser.get_structure_constraint``); xgrammar compiles it and matches the text byte by byte."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
import xgrammar
from sglang.srt.entrypoints.openai.protocol import Tool, ToolChoice
from sglang.srt.function_call.function_call_parser import FunctionCallParser
from xgrammar.testing import _is_grammar_accept_string

from longcat_plugins.core import tags as T
from longcat_plugins.core.dialects import DIALECTS, END_OF_SEQUENCE, Dialect
from tests.extra_dialects import DEEPSEEK_V31
from tests.grammar_cases import BROKEN, QUOTED_EXTRAS, SHAPES, broken_tool, read_back, strict_tool, written
from tests.support.twins.extra_grammars import *  # noqa: F403 (the test-only dialects' round trips, run on SGLang)
from tests.support.twins.extra_grammars import Accepts, ExtraGrammar

pytestmark = pytest.mark.sglang


STRICTNESS = [True, None, False]
STRICTNESS_IDS = ["strict", "strict-unsaid", "not-strict"]
NAMED = {"type": "function", "function": {"name": "lookup"}}


def _grammar(dialect_env: Any, dialect: str, tool: dict[str, Any], tool_choice: Any = "required") -> xgrammar.Grammar:
    dialect_env(dialect)
    parser = FunctionCallParser([Tool.model_validate(tool)], "longcat")
    if isinstance(tool_choice, dict):
        tool_choice = ToolChoice.model_validate(tool_choice)
    constraint = parser.get_structure_constraint(tool_choice)
    assert constraint is not None and constraint[0] == "structural_tag", constraint
    return xgrammar.Grammar.from_structural_tag(constraint[1])


def _accepts(grammar: xgrammar.Grammar, text: str | bytes) -> bool:
    return bool(_is_grammar_accept_string(grammar, text))


@pytest.mark.parametrize("strict", STRICTNESS, ids=STRICTNESS_IDS)
@pytest.mark.parametrize("case", SHAPES, ids=[s[0] for s in SHAPES])
@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_what_the_grammar_accepts_the_parser_reads_back(
    dialect_env: Any, dialect: str, case: Any, strict: bool | None
) -> None:
    """A forced call is held to the tool's parameters whether or not the tool is strict."""
    _, properties, arguments, wrong = case
    tool = strict_tool(properties, strict)
    tag = _grammar(dialect_env, dialect, tool)
    text = written(DIALECTS[dialect], "lookup", arguments)
    assert _accepts(tag, text), text
    assert read_back(text, tool) == [("lookup", arguments)]
    if wrong is not None:
        assert not _accepts(tag, written(DIALECTS[dialect], "lookup", wrong))


@pytest.mark.parametrize("bounds", [{"maxLength": 6}, {"minLength": 2}], ids=["max-length", "min-length"])
@pytest.mark.parametrize("dialect", sorted(name for name, d in DIALECTS.items() if d.parameter is not None))
def test_a_counted_string_holds_whole_utf8_text(dialect_env: Any, dialect: str, bounds: dict[str, int]) -> None:
    """A markup string value with a length bound counts characters: a whole character of any width is one, the
    three-byte encoding of a surrogate (no UTF-8) is refused, as is a lone continuation byte."""
    tag = _grammar(dialect_env, dialect, strict_tool({"code": {"type": "string", **bounds}}))
    text = written(DIALECTS[dialect], "lookup", {"code": "aé🙂"}).encode()
    assert _accepts(tag, text)
    for broken in (b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\x80"):
        assert not _accepts(tag, text.replace("é".encode(), broken)), broken


def test_kv_nullable_string_is_free_text(dialect_env: Any) -> None:
    # ["string", "null"] once got a JSON grammar in key/value: it forced "\"Paris\"", read back with its quotes
    tool = strict_tool({"city": {"type": ["string", "null"]}})
    tag = _grammar(dialect_env, "kv", tool)
    text = written(DIALECTS["kv"], "lookup", {"city": "Paris"})
    assert f"{T.ARG_VALUE_OPEN}Paris{T.ARG_VALUE_CLOSE}" in text
    assert _accepts(tag, text)
    assert read_back(text, tool) == [("lookup", {"city": "Paris"})]


@pytest.mark.parametrize("strict", STRICTNESS, ids=STRICTNESS_IDS)
@pytest.mark.parametrize("tool_choice", ["required", NAMED], ids=["required", "named"])
@pytest.mark.parametrize(("case", "properties", "extra", "arguments"), BROKEN, ids=[c[0] for c in BROKEN])
@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_a_forced_call_that_breaks_the_schema_is_refused(
    dialect_env: Any,
    dialect: str,
    case: str,
    properties: dict[str, Any],
    extra: dict[str, Any],
    arguments: list[tuple[str, Any]],
    tool_choice: Any,
    strict: bool | None,
) -> None:
    """Missing required keys, values outside ``enum``, wrong types, repeated or unknown keys, whitespace a string
    value would keep, strings out of their bounds: refused in every dialect, strict or not."""
    tool = broken_tool(properties, extra, strict)
    grammar = _grammar(dialect_env, dialect, tool, tool_choice)
    assert not _accepts(grammar, written(DIALECTS[dialect], "lookup", arguments))


@pytest.mark.parametrize("tool_choice", ["required", "named", "auto"])
@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_one_call_when_the_request_asks_for_one(dialect_env: Any, dialect: str, tool_choice: str) -> None:
    """``parallel_tool_calls: false``: the grammar takes one call and refuses a second, in every dialect, also under
    auto with no strict tool (the call envelope only: its arguments stay free); with parallel calls allowed, a
    forced answer may hold two and an auto one is not constrained."""
    dialect_env(dialect)
    tool = strict_tool({"days": {"type": "integer"}}, None)
    parser = FunctionCallParser([Tool.model_validate(tool)], "longcat")
    choice: Any = ToolChoice.model_validate(NAMED) if tool_choice == "named" else tool_choice
    table = DIALECTS[dialect]
    one = written(table, "lookup", {"days": 3})
    two = f"{one}\n{one}"
    constraint = parser.get_structure_constraint(choice, parallel_tool_calls=False)
    assert constraint is not None and constraint[0] == "structural_tag", constraint
    single = xgrammar.Grammar.from_structural_tag(constraint[1])
    assert _accepts(single, one)
    assert not _accepts(single, two)
    if tool_choice == "auto":
        assert _accepts(single, written(table, "lookup", {"days": "three"}))  # arguments free: no tool is strict
        assert _accepts(single, "No call needed.")
        assert parser.get_structure_constraint(choice, parallel_tool_calls=True) is None
    if tool_choice == "required":
        several = parser.get_structure_constraint(choice, parallel_tool_calls=True)
        assert several is not None
        assert _accepts(xgrammar.Grammar.from_structural_tag(several[1]), two)


@pytest.fixture
def extra_grammar(monkeypatch: pytest.MonkeyPatch, dialect_env: Any) -> ExtraGrammar:
    """A test-only dialect registered for the test, its grammar the structural tag SGLang's ``FunctionCallParser``
    asks of our detector (the shared tests: ``tests/support/twins/extra_grammars.py``)."""

    def grammar(dialect: Dialect, tool: dict[str, Any]) -> Accepts:
        monkeypatch.setitem(DIALECTS, dialect.name, dialect)
        compiled = _grammar(dialect_env, dialect.name, tool)
        return lambda text: _accepts(compiled, text)

    return grammar


def test_the_reasoning_before_a_forced_call_holds_no_end_of_sequence(dialect_env: Any) -> None:
    """A forced call of a request that reasons: the grammar SGLang is given covers the reasoning, which holds no
    end-of-sequence token of any dialect the parser reads (DeepSeek-V3.1's declared one too), so that the turn cannot
    end inside it."""
    from longcat_plugins.sglang.forced_reasoning import cover_reasoning

    dialect_env("hermes")
    parser = FunctionCallParser([Tool.model_validate(strict_tool({"city": {"type": "string"}}))], "longcat")
    constraint = parser.get_structure_constraint("required")
    assert constraint is not None and constraint[0] == "structural_tag", constraint
    tag = constraint[1] if isinstance(constraint[1], str) else constraint[1].model_dump_json(by_alias=True)
    adapted = SimpleNamespace(sampling_params={"structural_tag": tag}, require_reasoning=True)
    assert cover_reasoning(adapted, SimpleNamespace(tool_choice="required"))
    grammar = xgrammar.Grammar.from_structural_tag(adapted.sampling_params["structural_tag"])
    call = written(DIALECTS["hermes"], "lookup", {"city": "Paris"})
    assert _accepts(grammar, f"Paris it is.</think>\n{call}")
    (declared_marker,) = DEEPSEEK_V31["end_of_sequence"]
    assert declared_marker in END_OF_SEQUENCE
    for marker in END_OF_SEQUENCE:
        assert not _accepts(grammar, f"Paris{marker} it is.</think>\n{call}"), marker


@pytest.mark.parametrize("dialect", QUOTED_EXTRAS, ids=[d.name for d in QUOTED_EXTRAS])
def test_a_named_call_in_a_quoted_dialect_is_forced_and_read_back(
    monkeypatch: pytest.MonkeyPatch, dialect_env: Any, dialect: Dialect
) -> None:
    """A named tool in a quoted body (FunctionGemma's): the grammar SGLang builds takes the call as the declaration
    writes it, which the parser reads back, and refuses one of the wrong type or of another tool."""
    monkeypatch.setitem(DIALECTS, dialect.name, dialect)
    tool = strict_tool({"city": {"type": "string"}, "days": {"type": "integer"}})
    grammar = _grammar(dialect_env, dialect.name, tool, NAMED)
    call = written(dialect, "lookup", {"city": 'Paris, "FR"', "days": 3})
    assert _accepts(grammar, call)
    assert read_back(call, tool) == [("lookup", {"city": 'Paris, "FR"', "days": 3})]
    assert not _accepts(grammar, written(dialect, "lookup", {"city": "Paris", "days": "3"}))
    assert not _accepts(grammar, written(dialect, "other", {"city": "Paris", "days": 3}))
