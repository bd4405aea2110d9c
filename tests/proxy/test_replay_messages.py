"""The proxy's Anthropic Messages API (``/v1/messages``) in front of a real upstream: the replay server started
without our parsers (``serve --no-parsers``), so the model's markup arrives in a text block. What the official
``anthropic`` client gets through the proxy (``base_url``: the proxy's root), with ``messages.create`` and
``messages.stream``, and the raw events of ``create(stream=True)``, must equal what the replay server WITH our
parsers serves on ``/v1/messages`` for the same recording (vLLM's own Messages API over our parsers, the oracle):
thinking, text, the ``tool_use`` blocks' names and inputs, the stop reason, the order of the blocks (ids differ).

The recording starts inside reasoning (its template pre-fills ``<think>``) and closes it with ``</think>``, then
writes a sentence and two calls. The oracle knows the prompt; the proxy does not: with the repair's reasoning option
(``--reasoning``) the closer decides, and the answer equals the oracle's. Without the option the reasoning stays
text, as the upstream sent it: the calls and the stop reason still equal the oracle's."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from proxy_support import REPO, Proxy, proxy

from longcat_plugins.core import ParserOptions, parse
from tests.support.server import running

RECORDING = Path(__file__).resolve().parent / "recordings" / "weather_xml_thinking.jsonl"
VENVS = Path(os.environ.get("LONGCAT_VENVS", REPO / ".venvs"))
ENGINE_PYTHON = VENVS / "vllm" / "bin" / "python"
MODEL = "Qwen3-Coder"
KEY = "sk-test"
QUESTION = [{"role": "user", "content": "Weather in Paris and Tokyo?"}]
TOOLS: list[dict[str, Any]] = [
    {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "input_schema": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
            "required": ["city"],
        },
    }
]
WAYS = ["create", "stream", "raw_events"]

pytest.importorskip("anthropic")
if not ENGINE_PYTHON.exists():
    if os.environ.get("LONGCAT_REQUIRE_CLIENTS", "").strip() == "1":
        raise ImportError(f"LONGCAT_REQUIRE_CLIENTS=1 but {ENGINE_PYTHON} is missing: run scripts/env_vllm.sh")
    pytest.skip(f"the replay server needs {ENGINE_PYTHON}", allow_module_level=True)


def replay(*args: str) -> Any:
    """``longcat-plugins serve --replay RECORDING`` in the vLLM environment (its URL ends in /v1)."""
    path = [str(REPO), os.environ.get("PYTHONPATH")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, path)), HF_HUB_OFFLINE="1")
    command = [str(ENGINE_PYTHON), "-m", "longcat_plugins", "serve", "--replay", str(RECORDING), "--port", "0"]
    return running([*command, *args], "replay server", REPO, env)


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, str]]:
    """The oracle and the upstream without parsers (started together), and the two proxies in front of the latter:
    name -> URL (a replay server's ends in /v1; a proxy's is its root, as an anthropic client is given it)."""
    with contextlib.ExitStack() as stack:
        contexts = [replay(), replay("--no-parsers")]
        with ThreadPoolExecutor(2) as pool:
            started = list(pool.map(lambda c: c.__enter__(), contexts))
        for context in contexts:
            stack.push(context)
        oracle, bare = (s.url for s in started)
        plain: Proxy = stack.enter_context(proxy(bare))
        thinking: Proxy = stack.enter_context(proxy(bare, "--reasoning"))
        yield {"oracle": oracle.removesuffix("/v1"), "bare": bare.removesuffix("/v1"), "proxy": plain.root,
               "reasoning": thinking.root, "proxy_log": str(plain.log)}  # fmt: skip


def _client(root: str) -> Any:
    import anthropic

    return anthropic.Anthropic(base_url=root, api_key=KEY, max_retries=0, timeout=120)


def _summary(blocks: list[Any], stop_reason: str | None) -> dict[str, Any]:
    """What a client makes of a message: its blocks' kinds in order, the thinking and the text joined, the calls
    (name, input), the stop reason, and whether the calls' ids are distinct."""

    def field(block: Any, name: str) -> Any:
        return block.get(name) if isinstance(block, dict) else getattr(block, name, None)

    kinds = [field(b, "type") for b in blocks]
    ids = [field(b, "id") for b in blocks if field(b, "type") == "tool_use"]
    return {
        "kinds": kinds,
        "thinking": "".join(field(b, "thinking") or "" for b in blocks if field(b, "type") == "thinking"),
        "text": "".join(field(b, "text") or "" for b in blocks if field(b, "type") == "text"),
        "calls": [(field(b, "name"), field(b, "input")) for b in blocks if field(b, "type") == "tool_use"],
        "stop_reason": stop_reason,
        "ids_ok": all(ids) and len(set(ids)) == len(ids),
    }


def turn(root: str, way: str) -> dict[str, Any]:
    """One answer as the anthropic client reads it: ``create``, ``stream`` (its accumulated final message), or the
    raw events of ``create(stream=True)`` folded here (and checked: indexes in order, one block open at a time)."""
    import json

    client = _client(root)
    request: dict[str, Any] = {"model": MODEL, "max_tokens": 512, "messages": QUESTION, "tools": TOOLS}
    if way == "create":
        answer = client.messages.create(**request)
        return _summary(answer.content, answer.stop_reason)
    if way == "stream":
        with client.messages.stream(**request) as stream:
            final = stream.get_final_message()
        return _summary(final.content, final.stop_reason)
    blocks: list[dict[str, Any]] = []
    arguments: dict[int, str] = {}
    open_index, stop_reason = None, None
    for event in client.messages.create(stream=True, **request):
        if event.type == "content_block_start":
            assert open_index is None and event.index == len(blocks)
            open_index = event.index
            blocks.append(event.content_block.model_dump())
        elif event.type == "content_block_delta":
            assert event.index == open_index
            delta = event.delta
            block = blocks[event.index]
            if delta.type == "text_delta":
                block["text"] += delta.text
            elif delta.type == "thinking_delta":
                block["thinking"] += delta.thinking
            elif delta.type == "input_json_delta":
                arguments[event.index] = arguments.get(event.index, "") + delta.partial_json
        elif event.type == "content_block_stop":
            assert event.index == open_index
            if event.index in arguments:
                blocks[event.index]["input"] = json.loads(arguments[event.index])
            open_index = None
        elif event.type == "message_delta":
            assert open_index is None
            stop_reason = event.delta.stop_reason
    return _summary(blocks, stop_reason)


def test_without_parsers_the_markup_is_in_the_text(servers: dict[str, str]) -> None:
    """The upstream the proxy repairs: one text block, the reasoning and the markup in it."""
    served = turn(servers["bare"], "create")
    assert served["kinds"] == ["text"] and served["stop_reason"] == "end_turn"
    assert "</think>" in served["text"] and "<tool_call>\n<function=get_weather>" in served["text"]


@pytest.mark.parametrize("way", WAYS)
def test_with_the_reasoning_option_the_client_gets_what_the_parsers_serve(servers: dict[str, str], way: str) -> None:
    expected = turn(servers["oracle"], way)
    assert expected["kinds"] == ["thinking", "text", "tool_use", "tool_use"] and expected["stop_reason"] == "tool_use"
    assert turn(servers["reasoning"], way) == expected


@pytest.mark.parametrize("way", WAYS)
def test_without_the_option_the_calls_are_the_parsers_and_the_reasoning_stays_text(
    servers: dict[str, str], way: str
) -> None:
    expected = turn(servers["oracle"], way)
    served = turn(servers["proxy"], way)
    assert (served["calls"], served["stop_reason"], served["ids_ok"]) == (expected["calls"], "tool_use", True)
    raw = turn(servers["bare"], "create")["text"]
    tools = [{"type": "function", "function": {"name": t["name"], "parameters": t["input_schema"]}} for t in TOOLS]
    assert served["kinds"] == ["text", "tool_use", "tool_use"]
    assert served["text"] == parse(raw, tools, ParserOptions(reasoning=False)).content
    assert served["text"].startswith(expected["thinking"]) and served["text"].endswith(expected["text"])


def test_the_log_holds_no_key(servers: dict[str, str]) -> None:
    log = Path(servers["proxy_log"]).read_text(encoding="utf-8", errors="replace")
    assert "POST /v1/messages 200" in log and KEY not in log
