"""``tool_choice="none"`` with tools declared: the grammar keeps every call tag out of the output.

Each request goes through vLLM's ``OpenAIServingChat`` (our template, our tool and reasoning parsers), which builds
the request's grammar; the engine core's ``StructuredOutputManager``, built from the same config with our reasoning
parser class, compiles it with vLLM's xgrammar backend and runs over a fixed output token by token, as the scheduler
drives it (``grammar_bitmask`` before each token, ``accept_tokens`` after). An output without a call tag is taken
whole; an output that holds one is stopped inside the tag, whether the tag is one token or several, inside reasoning
or after it. A grammar the client's request carries is kept, alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_reasoning_gate import QWEN_TAGS, end_of_turn_allowed, run_gate
from vllm_support import (
    TOOLS,
    Serving,
    build_tokenizer,
    chat_completion,
    create_response,
    make_serving,
    save_model_dir,
)

from longcat_plugins.core.call_openers import CALL_OPENERS
from longcat_plugins.core.options import NONE_GRAMMAR_ENV
from longcat_plugins.templates import template_path
from tests.extra_dialects import KIMI_K2, MINIMAX_M2

pytestmark = pytest.mark.vllm

LONGCAT_TAGS = [
    "<longcat_tool_call>", "</longcat_tool_call>", "<longcat_arg_key>", "</longcat_arg_key>", "</longcat_s>",
]  # fmt: skip
#: prose that holds parts of call tags, and none whole
ANSWER = "No tool needed: 3 < 4, a <tool mention, <function, <longcat_tool and <b>bold</b>."
PLAN = "The user asks in prose; I answer in prose."
RESPONSE_FORMAT = {
    "type": "json_schema",
    "json_schema": {"name": "place", "schema": {"type": "object", "properties": {"city": {"type": "string"}}}},
}


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Serving]:
    """``qwen_thinking``: the output starts inside reasoning, Qwen's tags are single tokens; ``longcat_chat``: no
    reasoning, LongCat's call tags single tokens, Qwen's split; ``split``: every call tag split into pieces."""
    xml_template = Path(template_path("xml-function-thinking")).read_text(encoding="utf-8")
    chat_template = Path(template_path("longcat-flash-chat")).read_text(encoding="utf-8")
    specs = {
        "qwen_thinking": (QWEN_TAGS, xml_template, "qwen3"),
        "longcat_chat": (LONGCAT_TAGS, chat_template, "longcat_flash"),
        "split": (["<|im_start|>", "<|im_end|>", "<think>", "</think>"], xml_template, "qwen3"),
    }
    out = {}
    for name, (tags, template, model_type) in specs.items():
        root = tmp_path_factory.mktemp(name)
        save_model_dir(root, build_tokenizer(tags, chat_template=template), model_type=model_type)
        out[name] = make_serving(root)
    return out


def _request(tool_choice: Any = "none", **kwargs: Any) -> Any:
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    messages = [{"role": "user", "content": "Weather in Paris?"}]
    return ChatCompletionRequest(model="m", messages=messages, tools=TOOLS, tool_choice=tool_choice, **kwargs)


def _engine_call(serving: Serving, output: str, request: Any) -> Any:
    """The engine call the serving layer made for ``request`` (the model writes ``output``), and its response."""
    serving.engine.output, serving.engine.finish_reason = output, "stop"
    response = chat_completion(serving.chat, request)
    return serving.engine.calls[-1], response


def _first_refused(serving: Serving, call: Any, text: str) -> int | None:
    """Where in ``text`` the engine core's gate first refuses a token (the offset of that token's text), walking its
    tokens one at a time; None when it takes them all."""
    tokenizer = serving.tokenizer
    ids = tokenizer.encode(text, add_special_tokens=False)
    for i in range(1, len(ids) + 1):
        if run_gate(serving, call, ids[:i], 1).refused:
            return len(tokenizer.decode(ids[: i - 1], skip_special_tokens=False))
    return None


def _outputs(model: str) -> list[str]:
    """Outputs without a call tag, as the model may write them under ``none``."""
    if model == "qwen_thinking":  # (the prompt opened reasoning)
        return [f"{PLAN}</think>\n\n{ANSWER}", f"{PLAN} <tool</think>{ANSWER}<think>more</think>end", PLAN]
    return [ANSWER, f"<think>{PLAN}</think>{ANSWER}", ""]


@pytest.mark.parametrize("model", ["qwen_thinking", "longcat_chat", "split"])
def test_an_output_without_a_call_tag_is_taken_whole(models: dict[str, Serving], model: str) -> None:
    serving = models[model]
    for output in _outputs(model):
        call, _ = _engine_call(serving, output, _request())
        structured = call.sampling_params.structured_outputs
        assert structured is not None and structured.structural_tag is not None
        # constrained from the first token, reasoning included
        assert call.kwargs["reasoning_ended"] is True
        ids = serving.tokenizer.encode(output, add_special_tokens=False)
        count = run_gate(serving, call, ids, 1)
        assert count.refused == [], output
        assert count.constrained == len(ids)
        assert end_of_turn_allowed(serving, call, ids, serving.tokenizer.eos_token_id)


def _with_opener(opener: str, reasoning: bool) -> tuple[str, int]:
    """An output whose call starts with ``opener`` (inside reasoning the prompt opened, or after it), and where the
    opener starts."""
    before = f"{PLAN} I call it now: " if reasoning else f"{PLAN}</think>\nCalling. "
    return f"{before}{opener}get_weather\n{{}}", len(before)


OPENERS = ["<tool_call>", "<longcat_tool_call>", "<function=", "<longcat_arg_key>", "<function_calls>"]
EXTRA_OPENERS = [KIMI_K2["block"][0], KIMI_K2["separated"][0], MINIMAX_M2["block"][0], MINIMAX_M2["markup"][0]]


def test_the_openers_are_those_of_every_dialect_the_parser_reads() -> None:
    assert set(OPENERS + EXTRA_OPENERS) <= set(CALL_OPENERS)
    assert "</tool_call>" not in CALL_OPENERS and "<think>" not in CALL_OPENERS


@pytest.mark.parametrize("reasoning", [True, False], ids=["in_reasoning", "after_reasoning"])
@pytest.mark.parametrize("opener", OPENERS + EXTRA_OPENERS)
@pytest.mark.parametrize("model", ["qwen_thinking", "split"])
def test_a_call_tag_is_refused_inside_the_tag(
    models: dict[str, Serving], model: str, opener: str, reasoning: bool
) -> None:
    serving = models[model]
    output, start = _with_opener(opener, reasoning)
    call, _ = _engine_call(serving, output, _request())
    refused_at = _first_refused(serving, call, output)
    assert refused_at is not None, output
    # everything before the tag is taken; the tag is stopped before it is whole
    assert start <= refused_at < start + len(opener), (refused_at, start)


@pytest.mark.parametrize("opener", ["<longcat_tool_call>", "<longcat_arg_key>"])
def test_a_single_token_tag_is_masked(models: dict[str, Serving], opener: str) -> None:
    """LongCat-Flash-Chat's tags are single special tokens: the mask itself forbids them at every step."""
    serving = models["longcat_chat"]
    output = f"Calling. {opener}get_weather\n"
    call, _ = _engine_call(serving, output, _request())
    refused_at = _first_refused(serving, call, output)
    assert refused_at == len("Calling. ")


def test_a_json_answer_the_client_asks_for_is_kept(models: dict[str, Serving]) -> None:
    """``response_format`` under ``none``: the client's grammar, alone, from where reasoning ends (as vLLM decides
    it without tools): a call tag inside one of its strings is the client's data."""
    serving = models["qwen_thinking"]
    output = f'{PLAN}</think>{{"city": "Paris <function=x>"}}'  # (a tag as text in a string: the client's data)
    call, _ = _engine_call(serving, output, _request(response_format=RESPONSE_FORMAT))
    structured = call.sampling_params.structured_outputs
    assert structured.structural_tag is None and structured.json is not None
    assert call.kwargs["reasoning_ended"] is False
    count = run_gate(serving, call, serving.tokenizer.encode(output, add_special_tokens=False), 1)
    assert count.refused == []


def test_structured_outputs_the_client_sends_are_kept(models: dict[str, Serving]) -> None:
    serving = models["longcat_chat"]
    call, _ = _engine_call(serving, "yes", _request(structured_outputs={"choice": ["yes", "no"]}))
    structured = call.sampling_params.structured_outputs
    assert structured.structural_tag is None and structured.choice == ["yes", "no"]


@pytest.mark.parametrize("tool_choice", ["auto", "required"])
def test_other_tool_choices_are_left_as_they_were(models: dict[str, Serving], tool_choice: str) -> None:
    serving = models["longcat_chat"]
    output = '<longcat_tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</longcat_tool_call>'
    call, _ = _engine_call(serving, output, _request(tool_choice))
    structured = call.sampling_params.structured_outputs
    if tool_choice == "auto":
        assert structured is None
    else:  # the forced call's tag (this model's dialect: key/value)
        assert structured.structural_tag is not None and "longcat_arg_key" in structured.structural_tag


def test_a_request_without_tools_is_left_as_it_was(models: dict[str, Serving]) -> None:
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    serving = models["longcat_chat"]
    request = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "Hi"}])
    call, _ = _engine_call(serving, ANSWER, request)
    assert call.sampling_params.structured_outputs is None


def test_the_operator_can_turn_it_off(models: dict[str, Serving], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(NONE_GRAMMAR_ENV, "0")
    serving = models["longcat_chat"]
    output = "Calling. <longcat_tool_call>get_weather\n</longcat_tool_call>"
    call, response = _engine_call(serving, output, _request())
    assert call.sampling_params.structured_outputs is None
    assert response.choices[0].message.content == output  # (the model's text, verbatim, as before)


def test_a_streamed_answer_is_constrained_the_same(models: dict[str, Serving]) -> None:
    serving = models["qwen_thinking"]
    output = f"{PLAN}</think>{ANSWER}"
    call, chunks = _engine_call(serving, output, _request(stream=True))
    assert call.sampling_params.structured_outputs.structural_tag is not None
    assert call.kwargs["reasoning_ended"] is True
    content = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
    assert content == ANSWER


def test_a_responses_request_is_constrained_too(models: dict[str, Serving]) -> None:
    from vllm.entrypoints.openai.responses.protocol import ResponsesRequest

    serving = models["longcat_chat"]
    serving.engine.output, serving.engine.finish_reason = ANSWER, "stop"
    function = TOOLS[0]["function"]
    tool = {"type": "function", "name": function["name"], "parameters": function["parameters"]}
    request = ResponsesRequest(model="m", input="Weather in Paris?", tools=[tool], tool_choice="none")
    response = create_response(serving, request)
    assert getattr(response, "error", None) is None, response
    call = serving.engine.calls[-1]
    assert call.sampling_params.structured_outputs.structural_tag is not None
    assert _first_refused(serving, call, "Calling. <longcat_tool_call>") == len("Calling. ")
