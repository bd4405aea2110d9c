"""Which templates and requests make SGLang's grammar wait for the end of reasoning (``require_reasoning``), both ways.

SGLang finds no thinking switch in ``qwen3-tools-first`` and asks our detector's ``reasoning_default``: for a template
after whose assistant header the model may open ``<think>`` itself (its vocabulary has it, the template speaks of
reasoning), the request reasons unless ``enable_thinking`` is false, and the reasoning-aware grammar backend applies
the grammar from ``</think>`` on; ``longcat-flash-chat`` (LongCat-Flash-Chat does not reason) and a request with
``enable_thinking: false`` get the grammar from the first token.

Each request goes through SGLang's ``OpenAIServingChat`` (the template loaded as ``--chat-template`` loads it, our
parsers); the grammar is compiled by SGLang's ``ReasonerGrammarBackend`` over XGrammar, as the scheduler builds it,
and run over an output token by token (the vocabulary mask before each token, then the token accepted).
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from served_sglang import GeneratingTokenizerManager
from sglang_cases import TOOLS

from longcat_plugins.core.dialects import DIALECTS
from longcat_plugins.replay.tokenizer import train_bpe_tokenizer
from longcat_plugins.templates import template_path
from tests.grammar_cases import written
from tests.support.unopened import READINGS, unopened

pytestmark = pytest.mark.sglang

QWEN_TAGS = ["<|im_start|>", "<|im_end|>", "<think>", "</think>", "<tool_call>", "</tool_call>"]
LONGCAT_TAGS = ["<longcat_tool_call>", "</longcat_tool_call>", "<longcat_think>", "</longcat_think>", "</longcat_s>"]
PLAN = "The user wants the weather in Paris, so I call the tool."
CORPUS = [
    PLAN,
    "Weather in Paris? get_weather city Paris name arguments",
    '{"name": "get_weather", "arguments": {"city": "Paris"}}',
    "Sure, here is the weather.",
]


@dataclass
class Model:
    tokenizer: Any
    serving: Any
    manager: GeneratingTokenizerManager
    dialect: str


def _model(root: Path, tags: list[str], template: str) -> Model:
    from sglang.srt.entrypoints.openai.serving_chat import OpenAIServingChat
    from sglang.srt.parser.template_manager import TemplateManager
    from sglang.srt.runtime_context import publish
    from sglang.srt.server_args import ServerArgs
    from transformers import Qwen3Config

    tokenizer = train_bpe_tokenizer(CORPUS, ["</s>", *tags], vocab_size=400, eos_token="</s>")
    config = Qwen3Config(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2)
    config.architectures = ["Qwen3ForCausalLM"]
    config.save_pretrained(root)
    tokenizer.save_pretrained(root)
    path = template_path(template)
    args = ServerArgs(
        model_path=str(root), device="cpu", tool_call_parser="longcat", reasoning_parser="longcat", chat_template=path
    )
    publish(args, role="test")
    manager = GeneratingTokenizerManager(args, tokenizer)
    templates = TemplateManager()
    templates.initialize_templates(manager, manager.model_path, chat_template=str(path))
    dialect = "hermes" if "<tool_call>" in tags else "json"
    return Model(tokenizer, OpenAIServingChat(manager, templates), manager, dialect)


@pytest.fixture(scope="module")
def models() -> Iterator[dict[str, Model]]:
    with tempfile.TemporaryDirectory(prefix="longcat-gate-") as tmp:
        yield {
            "qwen3": _model(Path(tmp) / "qwen3", QWEN_TAGS, "qwen3-tools-first"),
            "longcat_chat": _model(Path(tmp) / "longcat", LONGCAT_TAGS, "longcat-flash-chat"),
        }


def _serve(
    model: Model,
    thinking: bool | None,
    monkeypatch: pytest.MonkeyPatch,
    tool_choice: Any = "required",
    tools: list[dict[str, Any]] = TOOLS,
    **more: Any,
) -> Any:
    """Serve a request (``tool_choice="required"`` by default); the request SGLang's serving hands the scheduler."""
    from sglang.srt.entrypoints.openai.protocol import ChatCompletionRequest
    from starlette.requests import Request

    monkeypatch.setenv("LONGCAT_TOOL_DIALECT", model.dialect)
    extra: dict[str, Any] = {} if thinking is None else {"chat_template_kwargs": {"enable_thinking": thinking}}
    request = ChatCompletionRequest(
        model="m",
        messages=[{"role": "user", "content": "Weather in Paris?"}],
        tools=tools,
        tool_choice=tool_choice,
        **extra,
        **more,
    )
    model.manager.output = ""
    http = Request({"type": "http", "method": "POST", "path": "/v1/chat/completions", "headers": []})
    asyncio.run(model.serving.handle_request(request, http))
    return model.manager.requests[-1]


def _grammar(model: Model, obj: Any) -> Any:
    """The scheduler's grammar for ``obj``: compiled by SGLang's reasoning-aware backend, configured from the
    request's custom parameters as the scheduler's grammar manager configures it."""
    from sglang.srt.constrained.reasoner_grammar_backend import ReasonerGrammarBackend
    from sglang.srt.constrained.xgrammar_backend import XGrammarGrammarBackend
    from sglang.srt.parser.reasoning_parser import ReasoningParser
    from sglang.srt.sampling.sampling_params import get_request_reasoning_in_grammar

    tokenizer = model.tokenizer
    inner = XGrammarGrammarBackend(tokenizer, vocab_size=len(tokenizer), model_eos_token_ids=[tokenizer.eos_token_id])
    parser = ReasoningParser("longcat", stream_reasoning=False, tokenizer=tokenizer)
    backend = ReasonerGrammarBackend(inner, parser, tokenizer)
    params = obj.sampling_params
    # (the grammar manager's key: a JSON schema before a structural tag)
    key = ("json", params["json_schema"]) if params.get("json_schema") else ("structural_tag", params["structural_tag"])
    value, _ = backend.get_cached_or_future_value(key, obj.require_reasoning)
    grammar = value.result() if hasattr(value, "result") else value
    if get_request_reasoning_in_grammar(obj.sampling_params.get("custom_params")):
        grammar.set_reasoning_in_grammar()
    return grammar


def _allowed(model: Model, grammar: Any, token: int) -> bool:
    mask = grammar.allocate_vocab_mask(len(model.tokenizer), 1, "cpu")
    mask.fill_(-1)
    grammar.fill_vocab_mask(mask, 0)
    return bool((int(mask[0, token // 32]) >> (token % 32)) & 1)


def _refusals(model: Model, obj: Any, output: str) -> list[int]:
    """The tokens of ``output`` that the scheduler's grammar for ``obj`` refuses (it stops at the first)."""
    grammar = _grammar(model, obj)
    for token in model.tokenizer.encode(output, add_special_tokens=False):
        if not _allowed(model, grammar, token):
            return [token]
        grammar.accept_token(token)
    return []


NAMED = {"type": "function", "function": {"name": "get_weather"}}


@pytest.mark.parametrize("tool_choice", ["required", "named", "auto"])
@pytest.mark.parametrize("thinking", [None, True])
def test_a_forced_turn_cannot_end_inside_the_reasoning(
    models: dict[str, Model], thinking: bool | None, tool_choice: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Qwen3 thinks: under required or a named tool the grammar covers the reasoning, so the end of the turn is refused
    inside the reasoning and after it until the call is complete, and allowed once it is; under auto (a strict tool
    brings the grammar in) the grammar waits for the end of reasoning, and the turn may end inside it, as before."""
    model = models["qwen3"]
    tools = [{"type": "function", "function": {**TOOLS[0]["function"], "strict": True}}, *TOOLS[1:]]
    choice: Any = {"required": "required", "auto": "auto"}.get(tool_choice, NAMED)
    obj = _serve(model, thinking, monkeypatch, tool_choice=choice, tools=tools)
    assert obj.require_reasoning is True
    end_of_turn = model.tokenizer.eos_token_id
    for prefix, may_end in [
        (f"<think>\n{PLAN}", tool_choice == "auto"),
        (f"<think>\n{PLAN}\n</think>\n\n", tool_choice == "auto"),
        (f"<think>\n{PLAN}\n</think>\n\n{_call(model)}", True),
    ]:
        grammar = _grammar(model, obj)
        for token in model.tokenizer.encode(prefix, add_special_tokens=False):
            assert _allowed(model, grammar, token), (prefix, token)
            grammar.accept_token(token)
        assert _allowed(model, grammar, end_of_turn) is may_end, prefix


def _call(model: Model) -> str:
    return written(DIALECTS[model.dialect], "get_weather", {"city": "Paris"})


PLACE = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
RESPONSE_FORMATS = {
    "json_schema": {"type": "json_schema", "json_schema": {"name": "place", "schema": PLACE}},
    "json_object": {"type": "json_object"},
}
ANSWER = '{"city": "Paris"}'


@pytest.mark.parametrize("response_format", list(RESPONSE_FORMATS))
@pytest.mark.parametrize("thinking", [None, True])
def test_auto_with_a_response_format_takes_the_answer_after_the_reasoning(
    models: dict[str, Model], thinking: bool | None, response_format: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tool_choice="auto"``, a strict tool and a response format: SGLang keeps the response format (it leaves
    the tools' grammar aside beside another constraint, with its own parsers too) and applies it where the
    reasoning ends. The reasoning is not covered (the request forces no call): after it the answer is accepted, and
    the turn may end inside it."""
    model = models["qwen3"]
    tools = [{"type": "function", "function": {**TOOLS[0]["function"], "strict": True}}, *TOOLS[1:]]
    fmt = RESPONSE_FORMATS[response_format]
    obj = _serve(model, thinking, monkeypatch, tool_choice="auto", tools=tools, response_format=fmt)
    assert obj.require_reasoning is True
    end_of_turn = model.tokenizer.eos_token_id
    for prefix in (f"<think>\n{PLAN}\n</think>{ANSWER}", f"<think>\n{PLAN}"):
        grammar = _grammar(model, obj)
        for token in model.tokenizer.encode(prefix, add_special_tokens=False):
            assert _allowed(model, grammar, token), (prefix, token)
            grammar.accept_token(token)
        assert _allowed(model, grammar, end_of_turn), prefix


@pytest.mark.parametrize("thinking", [None, True])
def test_qwen3_reasons_before_a_forced_call(
    models: dict[str, Model], thinking: bool | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = models["qwen3"]
    obj = _serve(model, thinking, monkeypatch)
    assert json.loads(obj.sampling_params["structural_tag"])
    assert obj.require_reasoning is True
    assert _refusals(model, obj, f"<think>\n{PLAN}\n</think>{_call(model)}") == []


def test_qwen3_with_thinking_off_is_constrained_from_the_first_token(
    models: dict[str, Model], monkeypatch: pytest.MonkeyPatch
) -> None:
    model = models["qwen3"]
    obj = _serve(model, False, monkeypatch)
    assert obj.require_reasoning is False
    think = model.tokenizer.convert_tokens_to_ids("<think>")
    assert _refusals(model, obj, f"<think>\n{PLAN}\n</think>{_call(model)}") == [think]
    assert _refusals(model, obj, _call(model)) == []


@pytest.mark.parametrize("opening", ["think", "prose"])
def test_longcat_flash_chat_is_constrained_from_the_first_token(
    models: dict[str, Model], opening: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = models["longcat_chat"]
    obj = _serve(model, None, monkeypatch)
    assert obj.require_reasoning is False
    start = f"<longcat_think>\n{PLAN}\n</longcat_think>" if opening == "think" else "Sure, "
    first = model.tokenizer.encode(start, add_special_tokens=False)[0]
    assert _refusals(model, obj, start + _call(model)) == [first]
    assert _refusals(model, obj, _call(model)) == []


def test_the_default_comes_from_the_served_template(models: dict[str, Model]) -> None:
    from longcat_plugins.sglang.reasoning import thinking_default

    assert thinking_default(models["qwen3"].tokenizer) == "enable_thinking"
    assert thinking_default(models["longcat_chat"].tokenizer) is None
    assert thinking_default(None) is None



@pytest.mark.parametrize(("model_name", "thinking"), [k for k in READINGS if k[0] in ("qwen3", "longcat_chat")])
def test_a_closing_tag_with_no_opener_closes_the_reasoning_the_model_implied(
    models: dict[str, Model], model_name: str, thinking: bool | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``X</think>Y`` from a model whose prompt did not open reasoning: ``X`` is reasoning where the model may open
    reasoning itself, content where it may not; streamed (1 and 4 tokens per step) as whole."""
    from sglang.srt.entrypoints.openai.protocol import ChatCompletionRequest
    from starlette.requests import Request

    from tests.served.fold import FOLDS, sse_events

    model = models[model_name]
    monkeypatch.setenv("LONGCAT_TOOL_DIALECT", model.dialect)
    tag = "</longcat_think>" if model_name == "longcat_chat" else "</think>"
    model.manager.output, reasoning, content = unopened(tag, model_name, thinking)
    extra: dict[str, Any] = {} if thinking is None else {"chat_template_kwargs": {"enable_thinking": thinking}}
    for stream, group in ((False, 1), (True, 1), (True, 4)):
        model.manager.group = group
        request = ChatCompletionRequest(
            model="m", messages=[{"role": "user", "content": "Weather in Paris?"}], tools=TOOLS, stream=stream, **extra
        )
        http = Request({"type": "http", "method": "POST", "path": "/v1/chat/completions", "headers": []})

        async def run(request: Any = request, http: Any = http, stream: bool = stream) -> Any:
            response = await model.serving.handle_request(request, http)
            if not stream:
                return response.model_dump() if hasattr(response, "model_dump") else json.loads(response.body)
            frames = [f if isinstance(f, str) else f.decode() async for f in response.body_iterator]
            return sse_events("".join(frames))

        served = FOLDS[("chat", stream)](asyncio.run(run()))
        assert (served.reasoning, served.content) == (reasoning, content), (stream, group)
