"""``tool_choice="none"`` with tools declared, on SGLang: the grammar keeps every call tag out of the output.

Each request goes through SGLang's ``OpenAIServingChat`` (our template and parsers, a tokenizer manager that records
the request); the grammar is compiled by SGLang's ``ReasonerGrammarBackend`` over XGrammar, as the scheduler builds
it, and run over an output token by token (the vocabulary mask before each token, then the token accepted). An
output without a call tag is taken whole and may end anywhere; an output that holds one is stopped inside the tag,
whether the tag is one token or several, inside reasoning or after it. A grammar the client's request carries is
kept, alone.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_reasoning_gate_templates import LONGCAT_TAGS, QWEN_TAGS, Model, _allowed, _grammar, _model, _serve

from longcat_plugins.core.options import NONE_GRAMMAR_ENV
from longcat_plugins.sglang.no_calls import keep_calls_out
from tests.extra_dialects import KIMI_K2, MINIMAX_M2

pytestmark = pytest.mark.sglang

PLAN = "The user wants the weather in Paris, so I answer in prose."
#: prose that holds parts of call tags, and none whole
ANSWER = "Sure, here is the weather: 3 < 4, a <tool mention, <function and <b>bold</b>."
OPENERS = ["<tool_call>", "<longcat_tool_call>", "<function=", "<longcat_arg_key>", "<function_calls>"]
EXTRA_OPENERS = [KIMI_K2["block"][0], KIMI_K2["separated"][0], MINIMAX_M2["block"][0], MINIMAX_M2["markup"][0]]
PLACE = {"type": "json_schema", "json_schema": {"name": "place", "schema": {"type": "object"}}}


@pytest.fixture(scope="module")
def models() -> Iterator[dict[str, Model]]:
    """``qwen3``: it reasons (``qwen3-tools-first``), Qwen's tags single tokens; ``longcat_chat``: no reasoning,
    LongCat's tags single tokens; ``split``: every call tag split into pieces."""
    split_tags = ["<|im_start|>", "<|im_end|>", "<think>", "</think>"]
    with tempfile.TemporaryDirectory(prefix="longcat-none-") as tmp:
        yield {
            "qwen3": _model(Path(tmp) / "qwen3", QWEN_TAGS, "qwen3-tools-first"),
            "longcat_chat": _model(Path(tmp) / "longcat", LONGCAT_TAGS, "longcat-flash-chat"),
            "split": _model(Path(tmp) / "split", split_tags, "qwen3-tools-first"),
        }


def _first_refused(model: Model, obj: Any, text: str) -> int | None:
    """Where in ``text`` the scheduler's grammar for ``obj`` first refuses a token (the offset of its text); None
    when it takes them all."""
    tokenizer = model.tokenizer
    grammar = _grammar(model, obj)
    ids = tokenizer.encode(text, add_special_tokens=False)
    for i, token in enumerate(ids):
        if not _allowed(model, grammar, token):
            return len(tokenizer.decode(ids[:i], skip_special_tokens=False))
        grammar.accept_token(token)
    return None


def _may_end_after(model: Model, obj: Any, text: str) -> bool:
    grammar = _grammar(model, obj)
    for token in model.tokenizer.encode(text, add_special_tokens=False):
        assert _allowed(model, grammar, token), text
        grammar.accept_token(token)
    return _allowed(model, grammar, model.tokenizer.eos_token_id)


@pytest.mark.parametrize("model_name", ["qwen3", "longcat_chat", "split"])
def test_an_output_without_a_call_tag_is_taken_whole(
    models: dict[str, Model], model_name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = models[model_name]
    obj = _serve(model, None, monkeypatch, tool_choice="none")
    assert json.loads(obj.sampling_params["structural_tag"])
    outputs = [ANSWER, f"<think>\n{PLAN}\n</think>\n\n{ANSWER}", f"<think>\n{PLAN} <tool", ""]
    for output in outputs:
        assert _first_refused(model, obj, output) is None, output
        assert _may_end_after(model, obj, output), output


@pytest.mark.parametrize("where", ["in_reasoning", "after_reasoning", "no_reasoning"])
@pytest.mark.parametrize("opener", OPENERS + EXTRA_OPENERS)
@pytest.mark.parametrize("model_name", ["qwen3", "split"])
def test_a_call_tag_is_refused_inside_the_tag(
    models: dict[str, Model], model_name: str, opener: str, where: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = models[model_name]
    obj = _serve(model, None, monkeypatch, tool_choice="none")
    before = {
        "in_reasoning": f"<think>\n{PLAN} I call it: ",
        "after_reasoning": f"<think>\n{PLAN}\n</think>\n\nCalling. ",
        "no_reasoning": "Calling. ",
    }[where]
    output = f"{before}{opener}get_weather\n{{}}"
    refused_at = _first_refused(model, obj, output)
    assert refused_at is not None and len(before) <= refused_at < len(before) + len(opener), refused_at


@pytest.mark.parametrize("thinking", [None, True, False])
def test_the_grammar_covers_the_reasoning(
    models: dict[str, Model], thinking: bool | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From the first token, whether the request reasons or not (SGLang would otherwise wait for ``</think>``)."""
    from sglang.srt.sampling.sampling_params import get_request_reasoning_in_grammar

    obj = _serve(models["qwen3"], thinking, monkeypatch, tool_choice="none")
    assert obj.require_reasoning is (thinking is not False)
    assert get_request_reasoning_in_grammar(obj.sampling_params.get("custom_params")) is obj.require_reasoning


def test_longcat_single_token_tags_are_masked(models: dict[str, Model], monkeypatch: pytest.MonkeyPatch) -> None:
    model = models["longcat_chat"]
    obj = _serve(model, None, monkeypatch, tool_choice="none")
    assert _first_refused(model, obj, "Sure. <longcat_tool_call>get_weather") == len("Sure. ")


def test_a_json_answer_the_client_asks_for_is_kept(models: dict[str, Model], monkeypatch: pytest.MonkeyPatch) -> None:
    obj = _serve(models["qwen3"], None, monkeypatch, tool_choice="none", response_format=PLACE)
    assert obj.sampling_params.get("json_schema") and not obj.sampling_params.get("structural_tag")


def test_a_regex_the_client_asks_for_is_kept(models: dict[str, Model], monkeypatch: pytest.MonkeyPatch) -> None:
    obj = _serve(models["qwen3"], None, monkeypatch, tool_choice="none", regex="(yes|no)")
    assert obj.sampling_params.get("regex") == "(yes|no)" and not obj.sampling_params.get("structural_tag")


def test_auto_is_left_as_it_was(models: dict[str, Model], monkeypatch: pytest.MonkeyPatch) -> None:
    obj = _serve(models["qwen3"], None, monkeypatch, tool_choice="auto")
    assert not obj.sampling_params.get("structural_tag")


def test_the_operator_can_turn_it_off(models: dict[str, Model], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(NONE_GRAMMAR_ENV, "off")
    obj = _serve(models["qwen3"], None, monkeypatch, tool_choice="none")
    assert not obj.sampling_params.get("structural_tag")


class _Input:
    def __init__(self, **sampling_params: Any) -> None:
        self.sampling_params = sampling_params
        self.require_reasoning = False


class _Request:
    tool_choice = "none"
    tools = ("a tool",)


@pytest.mark.parametrize(("backend", "kept_out"), [(None, True), ("xgrammar", True), ("llguidance", False)])
def test_only_a_backend_that_compiles_structural_tags_gets_one(backend: str | None, kept_out: bool) -> None:
    adapted = _Input()
    assert keep_calls_out(adapted, _Request(), backend) is kept_out
    assert ("structural_tag" in adapted.sampling_params) is kept_out
