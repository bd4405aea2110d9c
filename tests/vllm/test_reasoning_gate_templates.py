"""Which templates and requests leave the structured-output gate waiting for the end of reasoning, both ways.

A model that may open reasoning itself -- the prompt ends at a ChatML assistant header with no think tag, the
vocabulary has ``<think>`` and the template speaks of reasoning (Qwen3 with ``qwen3-tools-first``) -- is not told that
reasoning ended at the prompt unless the request switched thinking off: under ``tool_choice="required"`` its
``<think>...</think><tool_call>...`` is accepted, and a call at the first token still is. LongCat-Flash-Chat
(``longcat-flash-chat``), a ChatML model whose template never speaks of reasoning, and a request with
``enable_thinking: false`` get the grammar from the first token: a think tag or prose there is refused.

Each request goes through vLLM's ``OpenAIServingChat`` with our parsers; the engine core's ``StructuredOutputManager``
then runs over the output (the API server deciding ``reasoning_ended``, or the engine core from the prompt).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from vllm_support import (
    WEATHER,
    Serving,
    answer,
    build_tokenizer,
    chat_completion,
    create_response,
    make_serving,
    save_model_dir,
)

from longcat_plugins.core.dialects import DIALECTS
from longcat_plugins.templates import template_path
from longcat_plugins.vllm.tokenizer_facts import tokenizer_facts
from tests.grammar_cases import written
from tests.support.unopened import READINGS, unopened
from tests.vllm.test_reasoning_gate import LONGCAT_TAGS, QWEN_TAGS, end_of_turn_allowed, run_gate

pytestmark = pytest.mark.vllm

#: a ChatML template that never speaks of reasoning (Qwen2.5 / Qwen3-Coder style)
PLAIN_CHATML = (
    "{%- for m in messages %}{{- '<|im_start|>' ~ m['role'] ~ '\n' ~ m['content'] ~ '<|im_end|>\n' }}{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\n' }}{%- endif %}"
)
PLAN = "The user wants the weather in Paris, so I call the tool."


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Serving]:
    specs = {
        "qwen3": (QWEN_TAGS, Path(template_path("qwen3-tools-first")).read_text(encoding="utf-8"), "qwen3"),
        "plain_chatml": (QWEN_TAGS, PLAIN_CHATML, "qwen3"),
        "longcat_chat": (
            LONGCAT_TAGS,
            Path(template_path("longcat-flash-chat")).read_text(encoding="utf-8"),
            "longcat_flash",
        ),
    }
    out = {}
    for name, (tags, template, model_type) in specs.items():
        root = tmp_path_factory.mktemp(name)
        save_model_dir(root, build_tokenizer(tags, chat_template=template), model_type=model_type)
        out[name] = make_serving(root)
        if name == "qwen3":  # the same model served with vLLM's own parsers for Qwen3
            out["qwen3_builtin"] = make_serving(root, tool_parser="hermes", reasoning_parser="qwen3")
    return out


def _call(serving: Serving) -> str:
    dialect = DIALECTS[tokenizer_facts(serving.tokenizer).dialect]
    return written(dialect, "get_weather", {"city": "Paris"})


def _gate(serving: Serving, output: str, thinking: bool | None, decided_by: str) -> tuple[Any, Any, list[int]]:
    """Serve a ``tool_choice="required"`` request, then run the engine core's gate over ``output``."""
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    extra: dict[str, Any] = {} if thinking is None else {"chat_template_kwargs": {"enable_thinking": thinking}}
    request = ChatCompletionRequest(
        model="m",
        messages=[{"role": "user", "content": "Weather in Paris?"}],
        tools=[WEATHER],
        tool_choice="required",
        **extra,
    )
    engine = serving.engine
    engine.output, engine.finish_reason = output, "stop"
    chat_completion(serving.chat, request)
    call = engine.calls[-1]
    assert call.sampling_params.structured_outputs is not None, "the request is constrained"
    ids = serving.tokenizer.encode(output, add_special_tokens=False)
    return call, run_gate(serving, call, ids, 1, server_decides=decided_by == "server"), ids


DECIDERS = ["server", "engine"]


@pytest.mark.parametrize("decided_by", DECIDERS)
@pytest.mark.parametrize("thinking", [None, True])
def test_qwen3_reasons_before_a_forced_call(models: dict[str, Serving], thinking: bool | None, decided_by: str) -> None:
    """The forced call's grammar covers the reasoning: the server has it applied from the first token; an engine that
    decides from the prompt alone starts it after ``</think>``, and it takes the call there."""
    serving = models["qwen3"]
    call_text = _call(serving)
    output = f"<think>\n{PLAN}\n</think>\n\n{call_text}"
    call, count, ids = _gate(serving, output, thinking, decided_by)
    assert call.kwargs["reasoning_ended"] is True
    assert count.refused == []
    think_end = ids.index(serving.tokenizer.convert_tokens_to_ids("</think>"))
    assert count.constrained == (len(ids) if decided_by == "server" else len(ids) - think_end - 1)


@pytest.mark.parametrize("tool_choice", ["required", "named", "auto"])
@pytest.mark.parametrize("thinking", [None, True])
def test_a_forced_turn_cannot_end_inside_the_reasoning(
    models: dict[str, Serving], thinking: bool | None, tool_choice: str
) -> None:
    """Qwen3 thinks: under required or a named tool, the end of the turn (its end-of-sequence token) is refused
    inside the reasoning and after it until the call is complete, and allowed once it is; under auto (a strict tool
    brings the grammar in) the turn may end inside the reasoning, as before."""
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    serving = models["qwen3"]
    extra: dict[str, Any] = {} if thinking is None else {"chat_template_kwargs": {"enable_thinking": thinking}}
    tool = {"type": "function", "function": {**WEATHER["function"], "strict": True}}
    choice: Any = {"required": "required", "auto": "auto"}.get(tool_choice, NAMED)
    request = ChatCompletionRequest(
        model="m", messages=[{"role": "user", "content": "Weather?"}], tools=[tool], tool_choice=choice, **extra
    )
    engine = serving.engine
    engine.output, engine.finish_reason = "x", "stop"
    chat_completion(serving.chat, request)
    call = engine.calls[-1]
    end_of_turn = serving.tokenizer.eos_token_id
    assert isinstance(end_of_turn, int)
    tokenize = serving.tokenizer.encode
    for prefix, may_end in [
        ("<think>\nI call the tool.", tool_choice == "auto"),
        ("<think>\nI call the tool.\n</think>\n\n", tool_choice == "auto"),
        (f"<think>\nI call the tool.\n</think>\n\n{_call(serving)}", True),
    ]:
        assert end_of_turn_allowed(serving, call, tokenize(prefix, add_special_tokens=False), end_of_turn) is (
            may_end
        ), prefix


NAMED = {"type": "function", "function": {"name": "get_weather"}}
STRICT_WEATHER = {"type": "function", "function": {**WEATHER["function"], "strict": True}}
PLACE = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
#: a response format in each API's terms: Chat Completions' ``response_format``, the Responses API's ``text.format``
RESPONSE_FORMATS = {
    "json_schema": {
        "chat": {"type": "json_schema", "json_schema": {"name": "place", "schema": PLACE}},
        "responses": {"type": "json_schema", "name": "place", "schema": PLACE},
    },
    "json_object": {"chat": {"type": "json_object"}, "responses": {"type": "json_object"}},
}
ANSWER = '{"city": "Paris"}'


def _serve(serving: Serving, api: str, tool_choice: str, response_format: str, thinking: bool | None) -> Any:
    """Serve a request with a strict tool, ``tool_choice`` (``auto``, ``required`` or ``named``) and a response
    format through vLLM's ``OpenAIServingChat`` or ``OpenAIServingResponses``: the engine call it made."""
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.entrypoints.openai.responses.protocol import ResponsesRequest

    extra: dict[str, Any] = {} if thinking is None else {"chat_template_kwargs": {"enable_thinking": thinking}}
    engine = serving.engine
    engine.output, engine.finish_reason = "x", "stop"
    fmt = RESPONSE_FORMATS[response_format][api]
    if api == "chat":
        choice: Any = NAMED if tool_choice == "named" else tool_choice
        request: Any = ChatCompletionRequest(
            model="m",
            messages=[{"role": "user", "content": "Weather in Paris?"}],
            tools=[STRICT_WEATHER],
            tool_choice=choice,
            response_format=fmt,
            **extra,
        )
        chat_completion(serving.chat, request)
    else:
        choice = {"type": "function", "name": "get_weather"} if tool_choice == "named" else tool_choice
        request = ResponsesRequest(
            model="m",
            input="Weather in Paris?",
            tools=[{"type": "function", **STRICT_WEATHER["function"]}],
            tool_choice=choice,
            text={"format": fmt},
            **extra,
        )
        create_response(serving, request)
    call = engine.calls[-1]
    assert call.sampling_params.structured_outputs is not None, "the request is constrained"
    return call


def _refused(serving: Serving, call: Any, output: str, decided_by: str) -> list[int]:
    """The tokens of ``output``, then the end of the turn, that the engine core's gate refuses."""
    ids = [*serving.tokenizer.encode(output, add_special_tokens=False), serving.tokenizer.eos_token_id]
    return run_gate(serving, call, ids, 1, server_decides=decided_by == "server").refused


APIS = ["chat", "responses"]


@pytest.mark.parametrize("model", ["qwen3", "qwen3_builtin"])
@pytest.mark.parametrize("decided_by", DECIDERS)
@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("response_format", list(RESPONSE_FORMATS))
@pytest.mark.parametrize("thinking", [None, True])
def test_auto_with_a_response_format_takes_the_answer_or_a_call_after_the_reasoning(
    models: dict[str, Serving], thinking: bool | None, response_format: str, api: str, decided_by: str, model: str
) -> None:
    """``tool_choice="auto"``, a strict tool and a response format: vLLM offers the calls' grammar or the response
    format, from the end of the reasoning (it builds the calls' grammar from a copy of the request that asks for a
    call; the request itself forces none). After Qwen3's reasoning the answer is accepted, and so is a valid call;
    a call that breaks the strict tool's schema is refused. The turn may end inside the reasoning. With our parsers
    as with vLLM's own for Qwen3 (``--tool-call-parser hermes --reasoning-parser qwen3``)."""
    serving = models[model]
    call = _serve(serving, api, "auto", response_format, thinking)
    reasoning = f"<think>\n{PLAN}\n</think>"
    dialect = DIALECTS[tokenizer_facts(serving.tokenizer).dialect]
    assert _refused(serving, call, reasoning + ANSWER, decided_by) == []
    assert _refused(serving, call, reasoning + _call(serving), decided_by) == []
    assert _refused(serving, call, reasoning + written(dialect, "get_weather", {"city": 3}), decided_by) != []
    assert _refused(serving, call, reasoning + written(dialect, "get_time", {"city": "Paris"}), decided_by) != []
    assert call.kwargs.get("reasoning_ended") is not True, "the grammar starts where the reasoning ends"
    end_of_turn = serving.tokenizer.eos_token_id
    assert isinstance(end_of_turn, int)
    inside = serving.tokenizer.encode(f"<think>\n{PLAN}", add_special_tokens=False)
    assert end_of_turn_allowed(serving, call, inside, end_of_turn)


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("tool_choice", ["required", "named"])
@pytest.mark.parametrize("thinking", [None, True])
def test_a_forced_call_with_a_response_format_still_covers_the_reasoning(
    models: dict[str, Serving], thinking: bool | None, tool_choice: str, api: str
) -> None:
    """A request that forces a call itself (vLLM then leaves its response format aside) gets the grammar from the
    first token, the reasoning covered: the turn cannot end inside the reasoning, nor after it before the call; the
    answer is refused after the reasoning, the call accepted."""
    serving = models["qwen3"]
    call = _serve(serving, api, tool_choice, "json_schema", thinking)
    if api == "chat":
        assert call.kwargs["reasoning_ended"] is True
    reasoning = f"<think>\n{PLAN}\n</think>"
    assert _refused(serving, call, reasoning + _call(serving), "server") == []
    assert _refused(serving, call, reasoning + ANSWER, "server") != []
    end_of_turn = serving.tokenizer.eos_token_id
    assert isinstance(end_of_turn, int)
    tokenize = serving.tokenizer.encode
    for prefix, may_end in [
        (f"<think>\n{PLAN}", False),
        (reasoning, False),
        (reasoning + _call(serving), True),
    ]:
        ids = tokenize(prefix, add_special_tokens=False)
        assert end_of_turn_allowed(serving, call, ids, end_of_turn) is may_end, prefix


@pytest.mark.parametrize("decided_by", DECIDERS)
@pytest.mark.parametrize("thinking", [None, True])
def test_qwen3_that_does_not_reason_calls_at_the_first_token(
    models: dict[str, Serving], thinking: bool | None, decided_by: str
) -> None:
    """A call tag at the first token ends the reasoning that never opened and is the grammar's first token."""
    serving = models["qwen3"]
    output = _call(serving)
    _, count, ids = _gate(serving, output, thinking, decided_by)
    assert count.refused == []
    assert count.fed == len(ids)


@pytest.mark.parametrize("decided_by", DECIDERS)
def test_qwen3_with_thinking_off_is_constrained_from_the_first_token(
    models: dict[str, Serving], decided_by: str
) -> None:
    serving = models["qwen3"]
    call, count, ids = _gate(serving, f"<think>\n{PLAN}\n</think>\n\n{_call(serving)}", False, decided_by)
    assert call.kwargs["reasoning_ended"] is True
    assert count.refused and count.refused[0] == ids[0]
    _, count, ids = _gate(serving, _call(serving), False, decided_by)
    assert count.refused == [] and count.constrained == len(ids)


@pytest.mark.parametrize("decided_by", DECIDERS)
@pytest.mark.parametrize("model", ["longcat_chat", "plain_chatml"])
@pytest.mark.parametrize("opening", ["think", "prose"])
def test_a_model_that_does_not_reason_is_constrained_from_the_first_token(
    models: dict[str, Serving], model: str, opening: str, decided_by: str
) -> None:
    serving = models[model]
    think = tokenizer_facts(serving.tokenizer).think_start
    start = f"{think}\n{PLAN}\n" if opening == "think" else "Sure, "
    call, count, ids = _gate(serving, start + _call(serving), None, decided_by)
    assert call.kwargs["reasoning_ended"] is True
    assert count.refused and count.refused[0] == ids[0]
    _, count, ids = _gate(serving, _call(serving), None, decided_by)
    assert count.refused == [] and count.constrained == len(ids)



@pytest.mark.parametrize(("model", "thinking"), list(READINGS))
def test_a_closing_tag_with_no_opener_closes_the_reasoning_the_model_implied(
    models: dict[str, Serving], model: str, thinking: bool | None
) -> None:
    """``X</think>Y`` from a model whose prompt did not open reasoning: ``X`` is reasoning where the model may open
    reasoning itself (the gate waits for the same end), content where it may not; streamed as whole."""
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    serving = models[model]
    think_end = tokenizer_facts(serving.tokenizer).think_end
    output, reasoning, content = unopened(think_end, model, thinking)
    extra: dict[str, Any] = {} if thinking is None else {"chat_template_kwargs": {"enable_thinking": thinking}}
    engine = serving.engine
    engine.output, engine.finish_reason = output, "stop"
    for stream in (False, True):
        for group in (1, 4) if stream else (1,):
            engine.group = group
            request = ChatCompletionRequest(
                model="m",
                messages=[{"role": "user", "content": "Weather in Paris?"}],
                tools=[WEATHER],
                stream=stream,
                **extra,
            )
            served = answer(serving, request)
            assert (served.reasoning, served.content) == (reasoning, content), (stream, group)
