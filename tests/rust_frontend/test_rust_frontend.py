"""vLLM's Rust OpenAI frontend reading a Qwen3 model's tool calls and reasoning with its ``hf`` parsers (the
checkpoint's ``response_template``), end to end, with the official openai client.

One ``VLLM_USE_RUST_FRONTEND=1 vllm serve`` for the module: the Rust frontend (``vllm-rs``, from the vLLM wheel) in
front of vLLM's Python engine core on its CPU platform, whose executor answers from a recording instead of running
a model (``scripted_executor.py``). The model directory is a one-layer Qwen3 without weights, with a tokenizer
trained on the spot, the project's Qwen3 chat template, and transformers' own Qwen3 response template, its
delimiters made literal: the Rust frontend refuses the template as transformers ships it (the first test). What the
client receives is compared with transformers' reading of the recorded text (``parse_response`` with its own Qwen3
template), the reference implementation of the standard.

The facts this module pins about vLLM 0.33's Rust frontend, besides the readings that agree with the reference:
a call its template cannot read (an XML ``<function=...>`` call under the JSON template) is dropped, text and all;
``tool_choice="required"``, a named tool and ``parallel_tool_calls=false`` are accepted (vLLM's Python ``hf`` parser
refuses them) and reach the engine without any constraint; a streamed JSON call's arguments arrive in one piece,
when its closing tag is read; a call cut by ``max_tokens`` is dropped.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.replay_support import Folded, fold_chunks, fold_response, json_arguments, read_stream
from tests.rust_frontend.rust_support import (
    MODEL,
    TEMPLATE_LOADED,
    TEMPLATE_REFUSED,
    RustServer,
    build_model_dir,
    literal_delimiters,
    render_log,
    rust_binary,
    rust_frontend,
    transformers_qwen3_template,
)
from tests.support.tools import get_weather

BINARY = rust_binary()

pytestmark = [
    pytest.mark.vllm,
    pytest.mark.skipif(BINARY is None, reason="this vLLM wheel ships no Rust frontend binary (vllm/vllm-rs)"),
]

TOOLS = [get_weather()]
#: reasoning, a sentence, two Hermes/Qwen JSON calls (the second with ``arguments`` first and a non-ASCII value)
JSON_CALLS = (
    "<think>Two cities, so two calls.</think>I'll check both cities.\n"
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}\n</tool_call>\n'
    '<tool_call>\n{"arguments": {"city": "東京", "days": 2}, "name": "get_weather"}\n</tool_call>'
)
#: the same kind of turn with its call in the XML function dialect, which the JSON template does not read
XML_CALL = (
    "<think>One city.</think>Checking the weather.\n"
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>"
)
#: the executor answers a prompt containing the key with the output
RECORDING = [{"when": "[json-calls]", "output": JSON_CALLS}, {"when": "[xml-call]", "output": XML_CALL}]


def reference(output: str) -> Folded:
    """transformers' reading of ``output`` with its own Qwen3 response template."""
    from transformers.utils.chat_parsing import parse_response

    message = parse_response(output, transformers_qwen3_template(), prefix="<|im_start|>assistant\n")
    calls = [(c["function"]["name"], json.dumps(c["function"]["arguments"])) for c in message.get("tool_calls", [])]
    return Folded(content=message.get("content", ""), reasoning=message.get("thinking", ""), calls=calls)


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    template = literal_delimiters(transformers_qwen3_template())
    return build_model_dir(tmp_path_factory.mktemp("qwen3") / "model", template, RECORDING)


@pytest.fixture(scope="module")
def server(model_dir: Path) -> Iterator[RustServer]:
    with rust_frontend(model_dir) as running:
        yield running


@pytest.fixture(scope="module")
def client(server: RustServer) -> Any:
    from openai import OpenAI

    return OpenAI(base_url=server.base_url, api_key="EMPTY", max_retries=0, timeout=60)


def ask(client: Any, key: str, **kwargs: Any) -> Any:
    """A question the executor answers with the recorded output for ``key``, with the weather tool; streamed, the
    chunks as a list."""
    messages = [{"role": "user", "content": f"Weather in Paris and Tokyo? {key}"}]
    answer = client.chat.completions.create(model=MODEL, messages=messages, tools=TOOLS, **kwargs)
    return read_stream(answer) if kwargs.get("stream") else answer


def fold(answer: Any) -> Folded:
    return fold_chunks(answer) if isinstance(answer, list) else fold_response(answer)


def check_json_calls(got: Folded) -> None:
    expected = reference(JSON_CALLS)
    assert (got.reasoning, got.content) == (expected.reasoning, expected.content)
    assert json_arguments(got) == json_arguments(expected)
    assert (got.reasoning, got.content) == ("Two cities, so two calls.", "I'll check both cities.")
    assert [name for name, _ in got.calls] == ["get_weather", "get_weather"]
    assert json.loads(got.calls[1][1]) == {"city": "東京", "days": 2}
    assert len(set(got.ids)) == 2 and all(got.ids)


def check_xml_call_dropped(got: Folded) -> None:
    """The JSON template cannot read the XML call: the frontend gives up on it, and its text is in no field."""
    assert got.calls == []
    assert (got.reasoning, got.content) == ("One city.", "Checking the weather.\n")
    assert got.finish_reason == "stop"


# -- the template -------------------------------------------------------------------------------------------------


def test_transformers_qwen3_template_is_refused(model_dir: Path, tmp_path: Path) -> None:
    """transformers' Qwen3 template as shipped: its ``\\s*``-led patterns have no literal prefix, which the Rust
    frontend requires (it then answers every chat request with HTTP 500)."""
    assert BINARY is not None
    shipped = shutil.copytree(model_dir, tmp_path / "model")
    config_path = shipped / "tokenizer_config.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    config["response_template"] = transformers_qwen3_template()
    config_path.write_text(json.dumps(config), encoding="utf-8")
    log = render_log(shipped, BINARY)
    assert TEMPLATE_REFUSED in log, log
    assert "must start with a literal prefix" in log
    assert TEMPLATE_LOADED not in log


def test_literal_delimiters_are_loaded(model_dir: Path) -> None:
    assert BINARY is not None
    log = render_log(model_dir, BINARY)
    assert TEMPLATE_LOADED in log, log
    assert TEMPLATE_REFUSED not in log


# -- the served model -----------------------------------------------------------------------------------------------


def test_models_endpoint(server: RustServer, client: Any) -> None:
    assert [m.id for m in client.models.list().data] == [MODEL]
    log = server.log_text()
    assert TEMPLATE_LOADED in log
    assert "vllm-rs frontend" in log  # vllm serve launched the Rust frontend, not the Python API server


def test_json_calls(client: Any) -> None:
    response = ask(client, "[json-calls]")
    got = fold_response(response)
    check_json_calls(got)
    assert got.finish_reason == "tool_calls"
    assert response.usage.completion_tokens > 0


def test_json_calls_streamed(client: Any) -> None:
    chunks = ask(client, "[json-calls]", stream=True)
    got = fold_chunks(chunks)
    check_json_calls(got)
    assert got.finish_reason == "tool_calls"
    assert got.same_message() == fold_response(ask(client, "[json-calls]")).same_message()
    fragments = [
        call.index
        for chunk in chunks
        for choice in chunk.choices
        for call in choice.delta.tool_calls or []
        if call.function is not None and call.function.arguments
    ]
    assert fragments == [0, 1]  # each call's arguments in one piece


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_a_call_the_template_cannot_read_is_dropped(client: Any, stream: bool) -> None:
    with pytest.raises(ValueError, match="could not parse region as JSON"):
        reference(XML_CALL)  # transformers refuses the whole output
    check_xml_call_dropped(fold(ask(client, "[xml-call]", stream=stream)))


def test_concurrent_requests_get_their_own_outputs(client: Any) -> None:
    cases = [("[json-calls]", False), ("[xml-call]", True), ("[json-calls]", True), ("[xml-call]", False)] * 2
    with ThreadPoolExecutor(len(cases)) as pool:
        answers = list(pool.map(lambda case: fold(ask(client, case[0], stream=case[1])), cases))
    for (key, _), got in zip(cases, answers, strict=True):
        if key == "[json-calls]":
            check_json_calls(got)
        else:
            check_xml_call_dropped(got)


@pytest.mark.parametrize(
    ("tool_choice", "finish_reason"),
    [("required", "tool_calls"), ({"type": "function", "function": {"name": "get_weather"}}, "stop")],
    ids=["required", "named"],
)
def test_forced_tool_choice_is_not_refused_nor_constrained(
    server: RustServer, client: Any, tool_choice: Any, finish_reason: str
) -> None:
    response = ask(client, "[json-calls]", tool_choice=tool_choice)
    got = fold_response(response)
    check_json_calls(got)
    assert got.finish_reason == finish_reason
    assert server.engine_request(response.id)["structured_outputs"] is None


def test_parallel_tool_calls_false_keeps_the_first_call(server: RustServer, client: Any) -> None:
    response = ask(client, "[json-calls]", parallel_tool_calls=False)
    got = fold_response(response)
    assert json_arguments(got) == [("get_weather", {"city": "Paris", "unit": "celsius"})]
    assert server.engine_request(response.id)["structured_outputs"] is None


def test_a_call_cut_by_max_tokens_is_dropped(model_dir: Path, client: Any) -> None:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    inside = len(tokenizer.encode(JSON_CALLS[: JSON_CALLS.index('"Paris"')], add_special_tokens=False).ids)
    for stream in (False, True):
        got = fold(ask(client, "[json-calls]", max_tokens=inside, stream=stream))
        assert got.finish_reason == "length"
        assert got.calls == []
        assert (got.reasoning, got.content) == ("Two cities, so two calls.", "I'll check both cities.\n")
