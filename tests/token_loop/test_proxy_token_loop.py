"""``longcat-plugins proxy`` in front of vLLM's real token loop without our parsers: a tiny random Qwen3
(``qwen3-tools-first``, the small trained BPE) served by ``vllm.entrypoints.openai.api_server`` with vLLM's own
``hermes`` tool parser and no reasoning parser, as a server someone else runs for a model whose dialect its parser
does not read. (vLLM with no tool parser at all refuses every request that declares tools, unless its ``tool_choice``
is ``"none"``, which the proxy leaves alone: such a server needs a parser, not a proxy.) A regex
(``structured_outputs``) makes the random model write a call in LongCat's dialects after a sentence of its own; the
``hermes`` parser reads none of them, so the markup arrives as ``content``.

The core is the oracle: what the proxy serves, streamed and not, equals the core's reading of the text the upstream
served for the same request (greedy, so the upstream writes the same text for each), with the calls as
``tool_calls``; the official ``openai`` client reads them. A request without tools passes through as the upstream
answered it.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from benchmarks.cpu_server import Server
from longcat_plugins.core import ParserOptions, parse
from longcat_plugins.replay.model_dir import build_runnable_model_dir
from longcat_plugins.templates import template_path
from tests.token_loop.test_token_loop import CITIES, folded_stream, tools

pytest.importorskip("aiohttp")
from tests.proxy.proxy_support import Proxy, proxy

TEMPLATE = "qwen3-tools-first"
CITY = "(" + "|".join(CITIES) + ")"
SENTENCE = r"[A-Z][a-z]{1,8}( [a-z]{1,8}){0,5}\.\n"
#: the upstream's parsers: vLLM's own, which reads none of :data:`OUTPUTS`
UPSTREAM_PARSERS = ["--enable-auto-tool-choice", "--tool-call-parser", "hermes"]
#: dialect -> a regex of an output: a sentence, then one call of ``get_weather`` in the dialect
OUTPUTS = {
    "json": SENTENCE
    + r'<longcat_tool_call>\n\{"name": "get_weather", "arguments": \{"city": "'
    + CITY
    + r'"\}\}\n</longcat_tool_call>',
    "kv": SENTENCE
    + r"<longcat_tool_call>get_weather\n<longcat_arg_key>city</longcat_arg_key>\n<longcat_arg_value>"
    + CITY
    + r"</longcat_arg_value>\n</longcat_tool_call>",
}
#: the test-only logits processor that makes the model write given tokens (the Messages API takes no regex)
FORCING = ["--logits-processors", "tests.token_loop.forced_tokens:ForcedTokens"]
REPO = Path(__file__).resolve().parents[2]
PYTHONPATH = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))


@pytest.fixture(scope="module")
def model_dir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="longcat-proxy-loop-") as root:
        corpus = [f"What is the weather in {c}? Book a trip to {c}." for c in CITIES]
        yield build_runnable_model_dir(Path(root) / "model", corpus, TEMPLATE)


@pytest.fixture(scope="module")
def servers(model_dir: Path) -> Iterator[tuple[Server, Proxy]]:
    with contextlib.ExitStack() as stack:
        args = ["--chat-template", str(template_path(TEMPLATE)), *UPSTREAM_PARSERS, *FORCING]
        server = Server(model_dir, args, model_dir.parent / "vllm.log", env={"PYTHONPATH": PYTHONPATH})
        stack.callback(server.stop)
        server.wait_ready()
        yield server, stack.enter_context(proxy(server.url))


def request(index: int, dialect: str | None, stream: bool = False) -> dict[str, Any]:
    city = CITIES[index % len(CITIES)]
    body: dict[str, Any] = {
        "model": "tiny",
        "messages": [{"role": "user", "content": f"Question {index}: the weather in {city}?"}],
        "max_tokens": 200,
        "temperature": 0.0,
        "chat_template_kwargs": {"enable_thinking": False},
        "stream": stream,
    }
    if dialect is not None:
        body["tools"] = tools(strict=False)
        body["structured_outputs"] = {"regex": OUTPUTS[dialect]}
    return body


def post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    import httpx

    response = httpx.post(f"{url}/v1/chat/completions", json=body, timeout=600)
    assert response.status_code == 200, response.text[:500]
    return dict(response.json())


def streamed(url: str, body: dict[str, Any]) -> dict[str, Any]:
    import httpx

    with httpx.stream("POST", f"{url}/v1/chat/completions", json=body, timeout=600) as response:
        assert response.status_code == 200
        return folded_stream(response.iter_lines())


def whole(answer: dict[str, Any]) -> dict[str, Any]:
    choice = answer["choices"][0]
    message = choice["message"]
    return {
        "content": message.get("content") or "",
        "calls": [(c["function"]["name"], c["function"]["arguments"]) for c in message.get("tool_calls") or ()],
        "finish": choice["finish_reason"],
    }


def reading(text: str) -> dict[str, Any]:
    message = parse(text, tools(strict=False), ParserOptions(reasoning=False))
    return {
        "content": message.content,
        "calls": [(c.name, c.arguments) for c in message.tool_calls],
        "finish": "tool_calls" if message.tool_calls else "stop",
    }


@pytest.mark.parametrize("dialect", list(OUTPUTS))
@pytest.mark.parametrize("index", range(2))
def test_the_proxy_serves_the_cores_reading_of_the_upstreams_text(
    servers: tuple[Server, Proxy], dialect: str, index: int
) -> None:
    upstream, front = servers
    raw = post(upstream.url, request(index, dialect))["choices"][0]["message"]
    assert not raw.get("tool_calls") and raw["content"], raw  # (the markup is text: the upstream reads no calls)
    expected = reading(raw["content"])
    assert len(expected["calls"]) == 1 and json.loads(expected["calls"][0][1])["city"] in CITIES, (raw, expected)
    assert whole(post(front.root, request(index, dialect))) == expected
    served = streamed(front.root, request(index, dialect, stream=True))
    assert {k: served[k] for k in expected} == expected and served["reasoning"] == ""


def test_the_official_client_reads_the_repaired_calls(servers: tuple[Server, Proxy]) -> None:
    openai = pytest.importorskip("openai")
    _, front = servers
    client = openai.OpenAI(base_url=front.url, api_key="unused")
    body = request(0, "kv")
    extra = {key: body.pop(key) for key in ("structured_outputs", "chat_template_kwargs")}
    body.pop("stream")
    answer = client.chat.completions.create(**body, extra_body=extra)
    call = answer.choices[0].message.tool_calls[0]
    assert answer.choices[0].finish_reason == "tool_calls" and call.function.name == "get_weather"
    assert json.loads(call.function.arguments)["city"] in CITIES
    chunks = list(client.chat.completions.create(**body, extra_body=extra, stream=True))
    names = [tc.function.name for c in chunks for tc in (c.choices[0].delta.tool_calls or []) if c.choices]
    assert [n for n in names if n] == ["get_weather"]


def test_a_request_without_tools_passes_through(servers: tuple[Server, Proxy]) -> None:
    upstream, front = servers
    body = request(1, None)
    body["structured_outputs"] = {"regex": OUTPUTS["kv"]}  # (markup, but no tools: it stays content)
    direct, through = post(upstream.url, body), post(front.root, body)
    assert through["choices"][0]["message"]["content"] == direct["choices"][0]["message"]["content"]
    assert "<longcat_tool_call>" in through["choices"][0]["message"]["content"]
    assert not through["choices"][0]["message"].get("tool_calls")


# -- the Anthropic Messages API (/v1/messages) ------------------------------------------------------------------

#: dialect -> the text the model is made to write (:mod:`tests.token_loop.forced_tokens`): a sentence, a call, and
#: (key/value) text after it
MESSAGES_TEXTS = {
    "kv": "Checking {city} now.\n<longcat_tool_call>get_weather\n<longcat_arg_key>city</longcat_arg_key>\n"
    "<longcat_arg_value>{city}</longcat_arg_value>\n</longcat_tool_call>\nDone.",
    "json": 'Checking {city} now.\n<longcat_tool_call>\n{{"name": "get_weather", "arguments": {{"city": "{city}"}}}}'
    "\n</longcat_tool_call>",
}
MESSAGES_TOOLS = [
    {"name": t["function"]["name"], "description": "", "input_schema": t["function"]["parameters"]}
    for t in tools(strict=False)
]


@pytest.fixture(scope="module")
def forced_ids(model_dir: Path) -> Any:
    """text -> the model's tokens of it, then its end of sequence (what the model is made to write)."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(model_dir))

    def ids(text: str) -> list[int]:
        tokens = list(tokenizer.encode(text, add_special_tokens=False))
        assert tokenizer.decode(tokens) == text
        return [*tokens, int(tokenizer.eos_token_id)]

    return ids


def messages_request(text_ids: list[int], stream: bool) -> dict[str, Any]:
    return {
        "model": "tiny",
        "max_tokens": 200,
        "temperature": 0.0,
        "messages": [{"role": "user", "content": "The weather?"}],
        "tools": MESSAGES_TOOLS,
        "chat_template_kwargs": {"enable_thinking": False},
        "vllm_xargs": {"forced_token_ids": text_ids},
        "stream": stream,
    }


def message_reading(text: str) -> dict[str, Any]:
    """The core's reading of a text, as a Messages client sums up an answer."""
    parsed = parse(text, tools(strict=False), ParserOptions(reasoning=False))
    calls = [(c.name, json.loads(c.arguments)) for c in parsed.tool_calls]
    return {"text": parsed.content, "calls": calls, "stop_reason": "tool_use" if calls else "end_turn"}


def message_summary(blocks: list[dict[str, Any]], stop_reason: str | None) -> dict[str, Any]:
    return {
        "text": "".join(b["text"] for b in blocks if b["type"] == "text"),
        "calls": [(b["name"], b["input"]) for b in blocks if b["type"] == "tool_use"],
        "stop_reason": stop_reason,
    }


def streamed_message(url: str, body: dict[str, Any]) -> tuple[list[dict[str, Any]], str | None]:
    """A streamed Messages answer folded as a client folds it (event names checked, blocks by index)."""
    import httpx

    blocks: list[dict[str, Any]] = []
    arguments: dict[int, str] = {}
    stop_reason, name = None, None
    with httpx.stream("POST", f"{url}/v1/messages", json=body, timeout=600) as response:
        assert response.status_code == 200
        for line in response.iter_lines():
            if line.startswith("event: "):
                name = line.removeprefix("event: ")
                continue
            if not line.startswith("data: "):
                continue
            event = json.loads(line.removeprefix("data: "))
            assert event["type"] == name
            if event["type"] == "content_block_start":
                assert event["index"] == len(blocks)
                blocks.append(dict(event["content_block"]))
            elif event["type"] == "content_block_delta":
                delta = event["delta"]
                if delta["type"] == "text_delta":
                    blocks[event["index"]]["text"] += delta["text"]
                elif delta["type"] == "input_json_delta":
                    arguments[event["index"]] = arguments.get(event["index"], "") + delta["partial_json"]
            elif event["type"] == "content_block_stop" and event["index"] in arguments:
                blocks[event["index"]]["input"] = json.loads(arguments.pop(event["index"]))
            elif event["type"] == "message_delta":
                stop_reason = event["delta"]["stop_reason"]
    return blocks, stop_reason


@pytest.mark.parametrize("dialect", list(MESSAGES_TEXTS))
def test_messages_through_the_proxy_are_the_cores_reading_of_the_upstreams_text(
    servers: tuple[Server, Proxy], forced_ids: Any, dialect: str
) -> None:
    import httpx

    upstream, front = servers
    text = MESSAGES_TEXTS[dialect].format(city=CITIES[0])
    ids = forced_ids(text)
    raw = httpx.post(f"{upstream.url}/v1/messages", json=messages_request(ids, False), timeout=600).json()
    assert [b["type"] for b in raw["content"]] == ["text"] and raw["stop_reason"] == "end_turn", raw
    expected = message_reading(raw["content"][0]["text"])
    assert len(expected["calls"]) == 1 and expected["calls"][0][1] == {"city": CITIES[0]}, (raw, expected)
    whole = httpx.post(f"{front.root}/v1/messages", json=messages_request(ids, False), timeout=600).json()
    assert message_summary(whole["content"], whole["stop_reason"]) == expected
    assert whole["content"][1]["id"].startswith("toolu_")
    blocks, stop_reason = streamed_message(front.root, messages_request(ids, True))
    assert message_summary(blocks, stop_reason) == expected
    kinds = ["text", "tool_use", "text"] if dialect == "kv" else ["text", "tool_use"]
    assert [b["type"] for b in blocks] == [b["type"] for b in whole["content"]] == kinds


def test_the_anthropic_client_reads_the_repaired_calls(servers: tuple[Server, Proxy], forced_ids: Any) -> None:
    anthropic = pytest.importorskip("anthropic")
    _, front = servers
    body = messages_request(forced_ids(MESSAGES_TEXTS["kv"].format(city=CITIES[1])), False)
    extra = {key: body.pop(key) for key in ("vllm_xargs", "chat_template_kwargs", "temperature")}
    body.pop("stream")
    client = anthropic.Anthropic(base_url=front.root, api_key="unused", max_retries=0)
    with client.messages.stream(**body, extra_body=extra) as stream:
        final = stream.get_final_message()
    assert final.stop_reason == "tool_use"
    assert [(b.type, getattr(b, "input", None)) for b in final.content] == [
        ("text", None),
        ("tool_use", {"city": CITIES[1]}),
        ("text", None),
    ]


# -- the Responses API (/v1/responses) ----------------------------------------------------------------------------


def responses_request(index: int, dialect: str, stream: bool = False) -> dict[str, Any]:
    """:func:`request` on the Responses API: the same question, tools declared flat."""
    chat = request(index, dialect, stream)
    flat = [{"type": "function", **tool["function"]} for tool in chat["tools"]]
    return {
        "model": chat["model"],
        "input": chat["messages"][0]["content"],
        "max_output_tokens": chat["max_tokens"],
        "temperature": chat["temperature"],
        "chat_template_kwargs": chat["chat_template_kwargs"],
        "stream": stream,
        "tools": flat,
        "structured_outputs": chat["structured_outputs"],
    }


def response_items(output: list[dict[str, Any]]) -> list[tuple[str, ...]]:
    return [
        (item["type"], item["name"], item["arguments"])
        if item["type"] == "function_call"
        else (item["type"], "".join(part["text"] for part in item["content"]))
        for item in output
    ]


def post_response(url: str, body: dict[str, Any]) -> dict[str, Any]:
    import httpx

    response = httpx.post(f"{url}/v1/responses", json=body, timeout=600)
    assert response.status_code == 200, response.text[:500]
    return dict(response.json())


def streamed_response(url: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    """The events of a streamed answer, each checked against its ``event:`` name."""
    import httpx

    events: list[dict[str, Any]] = []
    name = None
    with httpx.stream("POST", f"{url}/v1/responses", json=body, timeout=600) as response:
        assert response.status_code == 200
        for line in response.iter_lines():
            if line.startswith("event: "):
                name = line.removeprefix("event: ")
            elif line.startswith("data: "):
                event = json.loads(line.removeprefix("data: "))
                assert event["type"] == name
                events.append(event)
    return events


def items_streamed(events: list[dict[str, Any]]) -> list[tuple[str, ...]]:
    """The items a streamed answer built: from their deltas, by output_index (which must follow the order the items
    were added in), checked against the items' ``.done`` events and the terminal event's output."""
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    added = [e for e in events if e["type"] == "response.output_item.added"]
    assert [e["output_index"] for e in added] == list(range(len(added)))
    built = ["" for _ in added]
    for event in events:
        if event["type"].endswith(".delta"):
            assert event["item_id"] == added[event["output_index"]]["item"]["id"]
            built[event["output_index"]] += event["delta"]
    done = [e["item"] for e in events if e["type"] == "response.output_item.done"]
    assert events[-1]["type"] == "response.completed" and events[-1]["response"]["output"] == done
    items = response_items(done)
    assert [item[-1] for item in items] == built
    return items


@pytest.mark.parametrize("dialect", list(OUTPUTS))
def test_the_responses_api_through_the_proxy_serves_the_cores_reading(
    servers: tuple[Server, Proxy], dialect: str
) -> None:
    upstream, front = servers
    raw = post_response(upstream.url, responses_request(0, dialect))["output"]
    assert [item["type"] for item in raw] == ["message"], raw  # (the markup is text: the upstream reads no calls)
    text = raw[0]["content"][0]["text"]
    expected_reading = reading(text)
    assert expected_reading["content"] and len(expected_reading["calls"]) == 1, (text, expected_reading)
    expected = [("message", expected_reading["content"]), ("function_call", *expected_reading["calls"][0])]
    assert response_items(post_response(front.root, responses_request(0, dialect))["output"]) == expected
    assert items_streamed(streamed_response(front.root, responses_request(0, dialect, stream=True))) == expected
