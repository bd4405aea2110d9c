"""The structural tag and the parser agree, in every dialect and for every schema shape: the call the model writes for
the intended arguments is accepted by the grammar vLLM compiles for a strict tool, and the parser reads those
arguments back. The tag comes from vLLM's own entry (``Parser.adjust_request`` asks our tool parser, which asks the
structural-tag registry); xgrammar compiles it and matches the text byte by byte."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from vllm_support import build_tokenizer, chat_request

from longcat_plugins.core import tags as T
from longcat_plugins.core.dialects import DIALECTS, Dialect
from longcat_plugins.vllm.tokenizer_facts import DIALECT_ENV
from tests.grammar_cases import BROKEN, QUOTED_EXTRAS, SHAPES, broken_tool, read_back, strict_tool, written
from tests.support.twins.extra_grammars import *  # noqa: F403 (the test-only dialects' round trips, run on vLLM)
from tests.support.twins.extra_grammars import Accepts, ExtraGrammar

pytestmark = pytest.mark.vllm


@pytest.fixture(scope="module")
def tokenizer() -> Any:
    return build_tokenizer()


def _structural_tag(
    monkeypatch: pytest.MonkeyPatch,
    tokenizer: Any,
    dialect: str,
    tool: dict[str, Any],
    parallel: bool = True,
    tool_choice: Any = "required",
) -> str:
    from vllm.parser.parser_manager import ParserManager

    monkeypatch.setenv(DIALECT_ENV, dialect)
    parser_cls = ParserManager.get_parser(
        tool_parser_name="longcat", reasoning_parser_name="longcat", enable_auto_tools=True, tokenizer=tokenizer
    )
    request = chat_request(tools=[tool], tool_choice=tool_choice, parallel_tool_calls=parallel)
    tag = parser_cls(tokenizer, request.tools, chat_template_kwargs={}).adjust_request(request)
    structural_tag = tag.structured_outputs.structural_tag
    assert structural_tag is not None
    return str(structural_tag)


def _accepts(structural_tag: str, text: str | bytes) -> bool:
    import xgrammar
    from xgrammar.testing import _is_grammar_accept_string

    return bool(_is_grammar_accept_string(xgrammar.Grammar.from_structural_tag(structural_tag), text))


STRICTNESS = [True, None, False]
STRICTNESS_IDS = ["strict", "strict-unsaid", "not-strict"]
NAMED = {"type": "function", "function": {"name": "lookup"}}


@pytest.mark.parametrize("strict", STRICTNESS, ids=STRICTNESS_IDS)
@pytest.mark.parametrize("parallel", [True, False], ids=["parallel", "single-call"])
@pytest.mark.parametrize(("shape", "properties", "arguments", "wrong"), SHAPES, ids=[s[0] for s in SHAPES])
@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_what_the_grammar_accepts_the_parser_reads_back(
    monkeypatch: pytest.MonkeyPatch,
    tokenizer: Any,
    dialect: str,
    shape: str,
    properties: dict[str, Any] | None,
    arguments: dict[str, Any],
    wrong: dict[str, Any] | None,
    parallel: bool,
    strict: bool | None,
) -> None:
    """``parallel_tool_calls=false`` limits the calls (vLLM stops the list of calls after the first), never the
    arguments of the one call. A forced call is held to the tool's parameters whether or not the tool is strict."""
    tool = strict_tool(properties, strict)
    tag = _structural_tag(monkeypatch, tokenizer, dialect, tool, parallel)
    text = written(DIALECTS[dialect], "lookup", arguments)
    assert _accepts(tag, text), text
    assert read_back(text, tool) == [("lookup", arguments)]
    if wrong is not None:
        assert not _accepts(tag, written(DIALECTS[dialect], "lookup", wrong))


def test_kv_nullable_string_is_free_text(monkeypatch: pytest.MonkeyPatch, tokenizer: Any) -> None:
    # ["string", "null"] once got a JSON grammar in key/value: it forced "\"Paris\"", read back with its quotes
    tool = strict_tool({"city": {"type": ["string", "null"]}})
    tag = _structural_tag(monkeypatch, tokenizer, "kv", tool)
    text = written(DIALECTS["kv"], "lookup", {"city": "Paris"})
    assert f"{T.ARG_VALUE_OPEN}Paris{T.ARG_VALUE_CLOSE}" in text
    assert _accepts(tag, text)
    assert read_back(text, tool) == [("lookup", {"city": "Paris"})]


MARKUP = sorted(name for name, dialect in DIALECTS.items() if dialect.parameter is not None)


@pytest.mark.parametrize("bounds", [{"maxLength": 6}, {"minLength": 2}], ids=["max-length", "min-length"])
@pytest.mark.parametrize("dialect", MARKUP)
def test_a_counted_string_holds_whole_utf8_text(
    monkeypatch: pytest.MonkeyPatch, tokenizer: Any, dialect: str, bounds: dict[str, int]
) -> None:
    """A markup string value with a length bound counts characters: a whole character of any width is one, the
    three-byte encoding of a surrogate (no UTF-8: the detokenizer serves it as U+FFFD) is refused, as is a lone
    continuation byte."""
    tool = strict_tool({"code": {"type": "string", **bounds}})
    tag = _structural_tag(monkeypatch, tokenizer, dialect, tool)
    text = written(DIALECTS[dialect], "lookup", {"code": "aé🙂"}).encode()
    assert _accepts(tag, text)
    for broken in (b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\x80"):
        assert not _accepts(tag, text.replace("é".encode(), broken)), broken


JSON_BODIES = sorted(name for name, dialect in DIALECTS.items() if dialect.parameter is None)


@pytest.mark.xfail(
    strict=True,
    reason="XGrammar's JSON strings take the three-byte encoding of a surrogate (ED A0-BF ..), which is no UTF-8; the"
    " token loop's real-vocabulary models are steered off it (longcat_plugins.replay.steering: surrogate_leads)."
    " When XGrammar refuses it, this passes, and the steering can go.",
)
@pytest.mark.parametrize("dialect", JSON_BODIES)
def test_a_json_string_holds_whole_utf8_text(monkeypatch: pytest.MonkeyPatch, tokenizer: Any, dialect: str) -> None:
    tool = strict_tool({"code": {"type": "string"}})
    tag = _structural_tag(monkeypatch, tokenizer, dialect, tool)
    text = written(DIALECTS[dialect], "lookup", {"code": "aQQ"}).encode()
    assert _accepts(tag, text.replace(b"QQ", "é".encode()))
    assert not _accepts(tag, text.replace(b"QQ", b"\xed\xa0\x80"))


@pytest.mark.parametrize("strict", STRICTNESS, ids=STRICTNESS_IDS)
@pytest.mark.parametrize("tool_choice", ["required", NAMED], ids=["required", "named"])
@pytest.mark.parametrize(("case", "properties", "extra", "arguments"), BROKEN, ids=[c[0] for c in BROKEN])
@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_a_forced_call_that_breaks_the_schema_is_refused(
    monkeypatch: pytest.MonkeyPatch,
    tokenizer: Any,
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
    tag = _structural_tag(monkeypatch, tokenizer, dialect, tool, tool_choice=tool_choice)
    assert not _accepts(tag, written(DIALECTS[dialect], "lookup", arguments))


def test_auto_holds_only_strict_tools(monkeypatch: pytest.MonkeyPatch, tokenizer: Any) -> None:
    """Under ``tool_choice="auto"`` a strict tool brings the grammar in; a tool declared ``strict: false`` beside it
    keeps free arguments, as vLLM's own builders do."""
    strict = broken_tool({"city": {"type": "string"}}, {}, True)
    loose = broken_tool({"days": {"type": "integer"}}, {}, False)
    loose["function"]["name"] = "loose"
    for dialect in sorted(DIALECTS):
        monkeypatch.setenv(DIALECT_ENV, dialect)
        from vllm.parser.parser_manager import ParserManager

        parser_cls = ParserManager.get_parser(
            tool_parser_name="longcat", reasoning_parser_name="longcat", enable_auto_tools=True, tokenizer=tokenizer
        )
        request = chat_request(tools=[strict, loose], tool_choice="auto")
        adjusted = parser_cls(tokenizer, request.tools, chat_template_kwargs={}).adjust_request(request)
        tag = str(adjusted.structured_outputs.structural_tag)
        table = DIALECTS[dialect]
        assert _accepts(tag, written(table, "loose", {"days": "three"})), dialect
        assert not _accepts(tag, written(table, "lookup", {"city": 3} if table.body == "json" else {})), dialect


def test_a_schema_the_grammar_engine_cannot_compile_falls_back_to_the_shape(
    monkeypatch: pytest.MonkeyPatch, tokenizer: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A pattern xgrammar cannot compile (a lookbehind): the call is still forced, its arguments any of the dialect's
    shape, and one log line names the tool."""
    tool = strict_tool({"code": {"type": "string", "pattern": "(?<=x)y"}}, None)
    tool["function"]["name"] = "uncompilable"
    caplog.set_level(logging.WARNING, logger="longcat_plugins")
    for dialect in sorted(DIALECTS):
        logged = []
        for _ in range(2):
            caplog.clear()
            tag = _structural_tag(monkeypatch, tokenizer, dialect, tool)
            logged.append([r.getMessage() for r in caplog.records if "'uncompilable'" in r.getMessage()])
            table = DIALECTS[dialect]
            assert _accepts(tag, written(table, "uncompilable", {"code": "anything"})), dialect
            assert not _accepts(tag, "no call at all"), dialect
        assert [len(lines) for lines in logged] == [1, 0], logged


def _strict_level_tag(
    monkeypatch: pytest.MonkeyPatch, tokenizer: Any, dialect: str, tools: list[Any], level: str | None, **request: Any
) -> str | None:
    """The structural tag vLLM's ``Parser`` asks of our tool parser on a server started with ``--tool-strict-level``."""
    from vllm.parser.parser_manager import ParserManager

    monkeypatch.setenv(DIALECT_ENV, dialect)
    parser_cls = ParserManager.get_parser(
        tool_parser_name="longcat",
        reasoning_parser_name="longcat",
        enable_auto_tools=True,
        tokenizer=tokenizer,
        tool_strict_level=level,
    )
    parser = parser_cls(tokenizer, tools, chat_template_kwargs={})
    adjusted = parser.adjust_request(chat_request(tools=tools, **request))
    structured = adjusted.structured_outputs
    return None if structured is None or structured.structural_tag is None else str(structured.structural_tag)


@pytest.mark.parametrize("tool_choice", ["required", NAMED, "auto"], ids=["required", "named", "auto"])
@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_one_call_when_the_request_asks_for_one(
    monkeypatch: pytest.MonkeyPatch, tokenizer: Any, dialect: str, tool_choice: Any
) -> None:
    """``parallel_tool_calls: false``: the grammar takes one call and refuses a second, in every dialect, also under
    auto (vLLM raises the strict level so that the call envelope is in the grammar); with parallel calls allowed a
    forced answer may hold two."""
    tool = strict_tool({"city": {"type": "string"}}, None)
    one = written(DIALECTS[dialect], "lookup", {"city": "Paris"})
    two = f"{one}\n{one}"
    single = _strict_level_tag(monkeypatch, tokenizer, dialect, [tool], None, tool_choice=tool_choice,
                               parallel_tool_calls=False)  # fmt: skip
    assert single is not None
    assert _accepts(single, one)
    assert not _accepts(single, two)
    if tool_choice == "required":
        several = _strict_level_tag(monkeypatch, tokenizer, dialect, [tool], None, tool_choice=tool_choice)
        assert several is not None and _accepts(several, two)


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_the_server_strict_level_is_honoured(monkeypatch: pytest.MonkeyPatch, tokenizer: Any, dialect: str) -> None:
    """``--tool-strict-level``: ``function`` holds auto calls to the dialect's envelope with free arguments;
    ``parameter`` holds every tool's arguments to its schema; ``auto`` leaves an auto request of non-strict tools
    free."""
    tool = strict_tool({"days": {"type": "integer"}}, None)
    table = DIALECTS[dialect]
    good, bad = written(table, "lookup", {"days": 3}), written(table, "lookup", {"days": "three"})
    assert _strict_level_tag(monkeypatch, tokenizer, dialect, [tool], "auto", tool_choice="auto") is None
    envelope = _strict_level_tag(monkeypatch, tokenizer, dialect, [tool], "function", tool_choice="auto")
    assert envelope is not None and _accepts(envelope, good) and _accepts(envelope, bad)
    held = _strict_level_tag(monkeypatch, tokenizer, dialect, [tool], "parameter", tool_choice="auto")
    assert held is not None and _accepts(held, good) and not _accepts(held, bad)


def _register(monkeypatch: pytest.MonkeyPatch, dialect: Dialect) -> str:
    """Registers ``dialect`` for the test (its structural-tag model too, as the plugin registers one per dialect)."""
    from longcat_plugins.vllm import structural_tag
    from longcat_plugins.vllm.names import STRUCTURAL_TAG_MODELS

    monkeypatch.setitem(DIALECTS, dialect.name, dialect)
    monkeypatch.setitem(STRUCTURAL_TAG_MODELS, dialect.name, f"longcat_plugins_{dialect.name}")
    monkeypatch.setattr(structural_tag, "_registered", False)
    structural_tag.register_structural_tags()
    return dialect.name


@pytest.fixture
def extra_grammar(monkeypatch: pytest.MonkeyPatch, tokenizer: Any) -> ExtraGrammar:
    """A test-only dialect registered for the test, its grammar the structural tag vLLM's ``Parser`` asks of our
    tool parser (the shared tests: ``tests/support/twins/extra_grammars.py``)."""

    def grammar(dialect: Dialect, tool: dict[str, Any]) -> Accepts:
        tag = _structural_tag(monkeypatch, tokenizer, _register(monkeypatch, dialect), tool)
        return lambda text: _accepts(tag, text)

    return grammar


@pytest.mark.parametrize("dialect", QUOTED_EXTRAS, ids=[d.name for d in QUOTED_EXTRAS])
def test_a_named_call_in_a_quoted_dialect_is_forced_and_read_back(
    monkeypatch: pytest.MonkeyPatch, tokenizer: Any, dialect: Dialect
) -> None:
    """A named tool in a quoted body (FunctionGemma's): the structural tag vLLM's ``Parser`` asks for takes the call
    as the declaration writes it, which the parser reads back, and refuses one of the wrong type or of another
    tool."""
    tool = strict_tool({"city": {"type": "string"}, "days": {"type": "integer"}})
    tag = _structural_tag(monkeypatch, tokenizer, _register(monkeypatch, dialect), tool, tool_choice=NAMED)
    call = written(dialect, "lookup", {"city": 'Paris, "FR"', "days": 3})
    assert _accepts(tag, call)
    assert read_back(call, tool) == [("lookup", {"city": 'Paris, "FR"', "days": 3})]
    assert not _accepts(tag, written(dialect, "lookup", {"city": "Paris", "days": "3"}))
    assert not _accepts(tag, written(dialect, "other", {"city": "Paris", "days": 3}))
