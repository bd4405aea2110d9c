"""End to end through vLLM's ``OpenAIServingChat``: a real model config, renderer (our xml-function-thinking
template), parser composition and SSE encoding; only the engine is scripted: it yields ``RequestOutput``s for a
fixed token sequence, in deltas for streaming requests and as one final output otherwise, as vLLM's engine does.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from vllm_support import TOOLS, RecordingEngine, build_tokenizer, chat_completion, save_model_dir

from longcat_plugins.core import ParserOptions, parse
from longcat_plugins.replay.platform import use_cpu_platform
from longcat_plugins.templates import template_path

pytestmark = pytest.mark.vllm

SPECIAL = ["<|im_start|>", "<|im_end|>", "<think>", "</think>", "<tool_call>", "</tool_call>"]

TWO_CALLS = (
    "The user wants two cities.</think>\n\nChecking both.\n<tool_call>\n<function=get_weather>\n"
    "<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>\n"
    "<tool_call>\n<function=write_file>\n<parameter=path>\nout/report.md\n</parameter>\n<parameter=content>\n"
    '# Weather\n\n"Paris": sunny\n</parameter>\n</function>\n</tool_call>'
)
TRUNCATED = (
    "Short.</think>\n<tool_call>\n<function=write_file>\n<parameter=path>\nx.py\n</parameter>\n"
    "<parameter=content>\ndef main():\n    print('hi"
)
NO_CALL = "Nothing to call.</think>\n\nIt is sunny in Paris."


@pytest.fixture(scope="module")
def serving(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, RecordingEngine]:
    use_cpu_platform()
    from vllm.config import ModelConfig, VllmConfig
    from vllm.entrypoints.openai.chat_completion.serving import OpenAIServingChat
    from vllm.entrypoints.openai.models.serving import BaseModelPath, OpenAIServingModels
    from vllm.renderers.online_renderer import OnlineRenderer
    from vllm.renderers.registry import renderer_from_config

    template = Path(template_path("xml-function-thinking")).read_text(encoding="utf-8")
    root = save_model_dir(tmp_path_factory.mktemp("model"), build_tokenizer(SPECIAL, chat_template=template))
    model_config = ModelConfig(model=str(root), tokenizer=str(root))
    vllm_config = VllmConfig(model_config=model_config)
    renderer = renderer_from_config(vllm_config)
    engine = RecordingEngine(model_config, vllm_config, renderer)
    models = OpenAIServingModels(engine_client=engine, base_model_paths=[BaseModelPath(name="m", model_path=str(root))])
    parsers: dict[str, Any] = {"enable_auto_tools": True, "tool_parser": "longcat", "reasoning_parser": "longcat"}
    online = OnlineRenderer(
        model_config,
        renderer,
        request_logger=None,
        chat_template=None,
        chat_template_content_format="auto",
        **parsers,
    )
    chat = OpenAIServingChat(
        engine,
        models,
        "assistant",
        online_renderer=online,
        request_logger=None,
        chat_template=None,
        chat_template_content_format="auto",
        **parsers,
    )
    return chat, engine


def _request(**kwargs: Any) -> Any:
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    return ChatCompletionRequest(
        model="m", messages=[{"role": "user", "content": "Weather in Paris, and save a report"}], tools=TOOLS, **kwargs
    )


def _fold(chunks_: list[dict[str, Any]]) -> tuple[str, str, list[dict[str, str]], str | None]:
    content, reasoning, finish = "", "", None
    calls: dict[int, dict[str, str]] = {}
    for chunk in chunks_:
        assert "error" not in chunk, chunk
        for choice in chunk["choices"]:
            delta = choice["delta"]
            content += delta.get("content") or ""
            reasoning += delta.get("reasoning") or ""
            for call in delta.get("tool_calls") or []:
                index = call["index"]
                function = call.get("function") or {}
                if index not in calls:
                    assert index == len(calls)
                    assert call["id"] and call["type"] == "function" and function["name"]
                    calls[index] = {"id": call["id"], "name": function["name"], "arguments": ""}
                else:
                    assert "id" not in call and not function.get("name")
                calls[index]["arguments"] += function.get("arguments") or ""
            if choice.get("finish_reason") is not None:
                assert finish is None, "one finish_reason per choice"
                finish = choice["finish_reason"]
    return content, reasoning, [calls[i] for i in range(len(calls))], finish


def _expected(output: str) -> Any:
    return parse(output, TOOLS, ParserOptions(reasoning=True, tools=True, reasoning_open=True))


@pytest.mark.parametrize("group", [1, 7, 64])
@pytest.mark.parametrize(
    ("output", "engine_finish", "api_finish"),
    [(TWO_CALLS, "stop", "tool_calls"), (TRUNCATED, "length", "length"), (NO_CALL, "stop", "stop")],
    ids=["two_calls", "truncated", "no_call"],
)
def test_sse_stream(
    serving: tuple[Any, RecordingEngine], output: str, engine_finish: str, api_finish: str, group: int
) -> None:
    chat, engine = serving
    engine.output, engine.group, engine.finish_reason = output, group, engine_finish
    chunks_ = chat_completion(chat, _request(stream=True))
    assert chunks_[0]["choices"][0]["delta"]["role"] == "assistant"
    assert len({c["id"] for c in chunks_}) == 1
    content, reasoning, calls, finish = _fold(chunks_)
    expected = _expected(output)
    assert finish == api_finish
    assert reasoning == expected.reasoning
    assert content.strip() == expected.content.strip()
    assert [(c["name"], c["arguments"]) for c in calls] == [(c.name, c.arguments) for c in expected.tool_calls]
    assert len({c["id"] for c in calls}) == len(calls)
    for call in calls:
        assert isinstance(json.loads(call["arguments"]), dict)
    sampling_params = engine.calls[-1].sampling_params
    assert sampling_params.skip_special_tokens is False


def test_two_calls_have_the_right_arguments(serving: tuple[Any, RecordingEngine]) -> None:
    chat, engine = serving
    engine.output, engine.group, engine.finish_reason = TWO_CALLS, 3, "stop"
    _, _, calls, _ = _fold(chat_completion(chat, _request(stream=True)))
    assert [(c["name"], json.loads(c["arguments"])) for c in calls] == [
        ("get_weather", {"city": "Paris", "days": 3}),
        ("write_file", {"path": "out/report.md", "content": '# Weather\n\n"Paris": sunny'}),
    ]


def test_non_streaming(serving: tuple[Any, RecordingEngine]) -> None:
    chat, engine = serving
    engine.output, engine.finish_reason = TWO_CALLS, "stop"
    response = asyncio.run(chat.create_chat_completion(_request(stream=False)))
    choice = response.choices[0]
    expected = _expected(TWO_CALLS)
    assert choice.finish_reason == "tool_calls"
    assert choice.message.reasoning == expected.reasoning
    assert choice.message.content.strip() == expected.content.strip()
    assert [(c.function.name, c.function.arguments) for c in choice.message.tool_calls] == [
        (c.name, c.arguments) for c in expected.tool_calls
    ]


def test_required_is_constrained_in_the_xml_dialect_and_parsed(serving: tuple[Any, RecordingEngine]) -> None:
    chat, engine = serving
    engine.output, engine.group, engine.finish_reason = TWO_CALLS, 5, "stop"
    _, _, calls, finish = _fold(chat_completion(chat, _request(stream=True, tool_choice="required")))
    sampling_params = engine.calls[-1].sampling_params
    tag = json.loads(sampling_params.structured_outputs.structural_tag)
    begins = [t["begin"] for t in _call_tags(tag["format"])]
    assert begins == ["<tool_call>\n<function=get_weather>\n", "<tool_call>\n<function=write_file>\n"]
    assert [c["name"] for c in calls] == ["get_weather", "write_file"]
    assert finish == "tool_calls"


def _call_tags(node: Any) -> list[dict[str, Any]]:
    """The tags of the list of calls in a structural tag's format (after the reasoning a forced call may follow)."""
    if isinstance(node, dict):
        if "tags" in node:
            return list(node["tags"])
        return [tag for value in node.values() for tag in _call_tags(value)]
    if isinstance(node, list):
        return [tag for value in node for tag in _call_tags(value)]
    return []


def _token_id(engine: RecordingEngine, token: str) -> int:
    return int(engine.renderer.tokenizer.convert_tokens_to_ids(token))


#: (stop token, whether it may end the output inside a call): an ordinary token may, an end of sequence may not
STOP_TOKENS = [("print", True), ("<tool_call>", True), ("</s>", False), ("<|im_end|>", False)]


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
@pytest.mark.parametrize(("token", "cuts"), STOP_TOKENS)
def test_a_call_a_stop_token_cut_comes_back_as_text(
    serving: tuple[Any, RecordingEngine], token: str, cuts: bool, stream: bool
) -> None:
    """``stop_token_ids``: a call the output ends in comes back as text when the stop token may be written inside
    a call (as with a stop string), as a call when it is an end of sequence (the model's own end of turn)."""
    chat, engine = serving
    engine.output, engine.group, engine.finish_reason = TRUNCATED, 4, "stop"
    request = _request(stream=stream, stop_token_ids=[_token_id(engine, token)])
    if stream:
        content, reasoning, calls, finish = _fold(chat_completion(chat, request))
        served = (content, reasoning, [(c["name"], c["arguments"]) for c in calls], finish)
    else:
        choice = asyncio.run(chat.create_chat_completion(request)).choices[0]
        message = choice.message
        calls_ = [(c.function.name, c.function.arguments) for c in message.tool_calls]
        served = (message.content or "", message.reasoning or "", calls_, choice.finish_reason)
    expected = parse(TRUNCATED, TOOLS, ParserOptions(reasoning_open=True, cut_calls_as_text=cuts))
    assert bool(expected.tool_calls) is not cuts
    calls_expected = [(c.name, c.arguments) for c in expected.tool_calls]
    assert (served[0].strip(), served[1], served[2]) == (expected.content.strip(), expected.reasoning, calls_expected)
    assert served[3] == ("stop" if cuts else "tool_calls")


#: a key/value key the model leaves open, then a call the output ends in (where a stop string cut it)
OPEN_KEY_THEN_CUT_CALL = (
    "Short.</think>\n<longcat_tool_call>get_weather\n<longcat_arg_key>ci"
    "<tool_call>\n<function=write_file>\n<parameter=path>\nx.py"
)


def _served(chat: Any, request: Any) -> tuple[str, str, list[tuple[str, str]], str | None]:
    if request.stream:
        content, reasoning, calls, finish = _fold(chat_completion(chat, request))
        return content, reasoning, [(c["name"], c["arguments"]) for c in calls], finish
    response = asyncio.run(chat.create_chat_completion(request))
    assert not hasattr(response, "error"), response
    choice = response.choices[0]
    message = choice.message
    calls_ = [(c.function.name, c.function.arguments) for c in message.tool_calls]
    return message.content or "", message.reasoning or "", calls_, choice.finish_reason


@pytest.mark.parametrize("group", [1, 7, 64, 4096])
@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
def test_a_key_left_open_then_a_call_a_stop_cut_is_served_as_the_core_reads_it(
    serving: tuple[Any, RecordingEngine], stream: bool, group: int
) -> None:
    """With a ``stop`` in the request, the call the output ends in is withdrawn (text) while the call before it,
    ended by its open key, is given out: the request does not fail, and gives the core's reading."""
    chat, engine = serving
    engine.output, engine.group, engine.finish_reason = OPEN_KEY_THEN_CUT_CALL, group, "stop"
    served = _served(chat, _request(stream=stream, stop=["STOP"]))
    expected = parse(OPEN_KEY_THEN_CUT_CALL, TOOLS, ParserOptions(reasoning_open=True, cut_calls_as_text=True))
    calls_expected = [(c.name, c.arguments) for c in expected.tool_calls]
    assert calls_expected == [("get_weather", "{}")]
    assert (served[0].strip(), served[1], served[2]) == (expected.content.strip(), expected.reasoning, calls_expected)
    assert served[3] == "tool_calls"


def test_the_tool_parser_reads_a_key_left_open_then_a_call_a_stop_cut() -> None:
    """``extract_tool_calls``, the tool parser's own non-streaming entry, on the same output after its reasoning."""
    from longcat_plugins.vllm.tool_parser import LongcatToolParser

    text = OPEN_KEY_THEN_CUT_CALL.split("</think>", 1)[1]
    request = _request(stop=["STOP"])
    info = LongcatToolParser(build_tokenizer(SPECIAL), TOOLS).extract_tool_calls(text, request)
    expected = parse(text, TOOLS, ParserOptions(reasoning=False, cut_calls_as_text=True))
    assert info.tools_called
    assert [(c.function.name, c.function.arguments) for c in info.tool_calls] == [
        (c.name, c.arguments) for c in expected.tool_calls
    ]
    assert info.content == expected.content


#: a parameter given again and again (as a hostile prompt can make a model write it)
REPEATED_PARAMETER = (
    "Short.</think>\n<longcat_tool_call>get_weather\n"
    + "<longcat_arg_key>city</longcat_arg_key>\n<longcat_arg_value>Paris</longcat_arg_value>\n" * 300
    + "</longcat_tool_call>"
)


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
def test_a_repeated_parameter_is_one_log_line_per_request(
    serving: tuple[Any, RecordingEngine], stream: bool, caplog: pytest.LogCaptureFixture
) -> None:
    chat, engine = serving
    engine.output, engine.group, engine.finish_reason = REPEATED_PARAMETER, 5, "stop"
    with caplog.at_level("WARNING", logger="longcat_plugins"):
        _served(chat, _request(stream=stream))
    lines = [r.getMessage() for r in caplog.records if "given again" in r.getMessage()]
    assert len(lines) == 1 and "(299 times in this output" in lines[0], lines
