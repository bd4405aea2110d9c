"""Constrained decoding in the model's own dialect: ``tool_choice="required"`` / named tools go through vLLM's
``Parser.adjust_request``, which asks our tool parser for a structural tag. The tag is compiled by xgrammar (the
backend vLLM uses) and must accept a call in the dialect, which the core then parses back."""

from __future__ import annotations

import json
from typing import Any

import pytest
from vllm_support import TOOLS, build_tokenizer, chat_request

from longcat_plugins.core import ParserOptions, parse
from longcat_plugins.vllm.tokenizer_facts import DIALECT_ENV, tokenizer_facts

pytestmark = pytest.mark.vllm

SAMPLES = {
    "json": '<longcat_tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}\n'
    "</longcat_tool_call>",
    "hermes": '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}\n</tool_call>',
    "kv": "<longcat_tool_call>get_weather\n<longcat_arg_key>city</longcat_arg_key>\n"
    "<longcat_arg_value>Paris</longcat_arg_value>\n<longcat_arg_key>days</longcat_arg_key>\n"
    "<longcat_arg_value>2</longcat_arg_value>\n</longcat_tool_call>",
    "xml": "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
    "<parameter=days>\n2\n</parameter>\n</function>\n</tool_call>",
}


class FakeTokenizer:
    """Only what dialect detection reads: the vocabulary and the chat template."""

    def __init__(self, tokens: list[str], chat_template: str = "") -> None:
        self._vocab = {t: i for i, t in enumerate(tokens)}
        self.chat_template = chat_template

    def get_vocab(self) -> dict[str, int]:
        return self._vocab


@pytest.fixture(scope="module")
def tokenizer() -> Any:
    return build_tokenizer()


def _accepts(structural_tag_json: str, text: str) -> bool:
    import xgrammar
    from xgrammar.testing import _is_grammar_accept_string

    return _is_grammar_accept_string(xgrammar.Grammar.from_structural_tag(structural_tag_json), text)


def _adjusted(tokenizer: Any, **request_kwargs: Any) -> Any:
    from vllm.parser.parser_manager import ParserManager

    parser_cls = ParserManager.get_parser(
        tool_parser_name="longcat", reasoning_parser_name="longcat", enable_auto_tools=True, tokenizer=tokenizer
    )
    request = chat_request(**request_kwargs)
    return parser_cls(tokenizer, request.tools, chat_template_kwargs={}).adjust_request(request)


@pytest.mark.parametrize(
    ("tokens", "template", "dialect"),
    [
        (["<longcat_tool_call>", "<longcat_arg_key>"], "", "kv"),
        (["<tool_call>"], "{{ '<tool_call>\n<function=' }}", "xml"),
        (["<longcat_tool_call>"], "", "json"),
        (["<tool_call>"], "", "hermes"),
        ([], "", "json"),
    ],
)
def test_dialect_from_vocabulary(tokens: list[str], template: str, dialect: str) -> None:
    assert tokenizer_facts(FakeTokenizer(tokens, template)).dialect == dialect


def test_dialect_override(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeTokenizer(["<longcat_tool_call>", "<longcat_arg_key>"])
    monkeypatch.setenv(DIALECT_ENV, "xml")
    assert tokenizer_facts(fake).dialect == "xml"
    monkeypatch.setenv(DIALECT_ENV, "nonsense")  # a typo is an error that names the choices, not a silent default
    with pytest.raises(ValueError, match="LONGCAT_TOOL_DIALECT='nonsense': expected one of json, kv, xml, hermes"):
        tokenizer_facts(fake)


@pytest.mark.parametrize("strict", [True, False])
@pytest.mark.parametrize("dialect", sorted(SAMPLES))
def test_required_gives_the_dialects_structural_tag(
    monkeypatch: pytest.MonkeyPatch, tokenizer: Any, dialect: str, strict: bool
) -> None:
    monkeypatch.setenv(DIALECT_ENV, dialect)
    tools = [{**t, "function": {**t["function"], "strict": strict}} for t in TOOLS]
    request = _adjusted(tokenizer, tools=tools, tool_choice="required")
    tag = request.structured_outputs.structural_tag
    assert tag is not None
    sample = SAMPLES[dialect]
    assert _accepts(tag, sample)
    assert _accepts(tag, sample + "\n" + sample)  # several calls
    assert not _accepts(tag, "no call at all")
    message = parse(sample, TOOLS, ParserOptions(reasoning=False))
    assert [(c.name, json.loads(c.arguments)) for c in message.tool_calls] == [
        ("get_weather", {"city": "Paris", "days": 2})
    ]


@pytest.mark.parametrize("dialect", sorted(SAMPLES))
def test_named_tool_choice_allows_one_call_of_that_tool(
    monkeypatch: pytest.MonkeyPatch, tokenizer: Any, dialect: str
) -> None:
    monkeypatch.setenv(DIALECT_ENV, dialect)
    request = _adjusted(tokenizer, tool_choice={"type": "function", "function": {"name": "get_weather"}})
    tag = request.structured_outputs.structural_tag
    assert _accepts(tag, SAMPLES[dialect])
    assert not _accepts(tag, SAMPLES[dialect] + "\n" + SAMPLES[dialect])
    assert "write_file" not in tag


def test_auto_without_strict_tools_is_unconstrained(tokenizer: Any) -> None:
    request = _adjusted(tokenizer, tool_choice="auto")
    assert request.structured_outputs is None or request.structured_outputs.structural_tag is None


def test_tokenizer_decides_without_override(tokenizer: Any) -> None:
    # the test tokenizer has <longcat_arg_key> as a token: LongCat key/value
    request = _adjusted(tokenizer, tool_choice="required")
    assert _accepts(request.structured_outputs.structural_tag, SAMPLES["kv"])
