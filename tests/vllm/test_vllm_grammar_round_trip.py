"""The structural tag and the parser agree, in every dialect and for every schema shape: the call the model writes for
the intended arguments is accepted by the grammar vLLM compiles for a strict tool, and the parser reads those
arguments back. The tag comes from vLLM's own entry (``Parser.adjust_request`` asks our tool parser, which asks the
structural-tag registry); xgrammar compiles it and matches the text byte by byte."""

from __future__ import annotations

from typing import Any

import pytest
from vllm_support import build_tokenizer, chat_request

from longcat_plugins.core import tags as T
from longcat_plugins.core.dialects import DIALECTS
from longcat_plugins.vllm.tokenizer_facts import DIALECT_ENV
from tests.grammar_cases import SHAPES, read_back, strict_tool, written

pytestmark = pytest.mark.vllm


@pytest.fixture(scope="module")
def tokenizer() -> Any:
    return build_tokenizer()


def _structural_tag(
    monkeypatch: pytest.MonkeyPatch, tokenizer: Any, dialect: str, tool: dict[str, Any], parallel: bool = True
) -> str:
    from vllm.parser.parser_manager import ParserManager

    monkeypatch.setenv(DIALECT_ENV, dialect)
    parser_cls = ParserManager.get_parser(
        tool_parser_name="longcat", reasoning_parser_name="longcat", enable_auto_tools=True, tokenizer=tokenizer
    )
    request = chat_request(tools=[tool], tool_choice="required", parallel_tool_calls=parallel)
    tag = parser_cls(tokenizer, request.tools, chat_template_kwargs={}).adjust_request(request)
    structural_tag = tag.structured_outputs.structural_tag
    assert structural_tag is not None
    return str(structural_tag)


def _accepts(structural_tag: str, text: str) -> bool:
    import xgrammar
    from xgrammar.testing import _is_grammar_accept_string

    return bool(_is_grammar_accept_string(xgrammar.Grammar.from_structural_tag(structural_tag), text))


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
) -> None:
    """``parallel_tool_calls=false`` limits the calls (vLLM stops the list of calls after the first), never the
    arguments of the one call."""
    tool = strict_tool(properties)
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
