"""The proxy in front of a real upstream: the replay server started without our parsers (``serve --no-parsers``),
so the model's markup arrives in ``content``. What the proxy serves to the official ``openai`` client and to
LangChain, streamed and not, must equal what the replay server WITH our parsers serves for the same recording (the
core as the oracle): content, reasoning, the calls' names and arguments, the finish reason (ids may differ). The
recording has no reasoning, and the requests close it in the prompt (``enable_thinking: false``): without a reasoning
parser ``<think>`` stays in the content, and the client library leaves it there (it reads each channel the upstream
sent as it is)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from proxy_support import REPO, TOOLS, Proxy, proxy

from tests.support.server import running

RECORDING = Path(__file__).resolve().parent / "recordings" / "weather_xml.jsonl"
VENVS = Path(os.environ.get("LONGCAT_VENVS", REPO / ".venvs"))
ENGINE_PYTHON = VENVS / "vllm" / "bin" / "python"
MODEL = "Qwen3"
QUESTION = [{"role": "user", "content": "Weather in Paris and Tokyo?"}]
KEY = "sk-test"
#: Qwen3's template closes reasoning in the prompt: the oracle's reasoning parser then reads the output as content
NO_THINKING = {"chat_template_kwargs": {"enable_thinking": False}}

if not ENGINE_PYTHON.exists():
    if os.environ.get("LONGCAT_REQUIRE_CLIENTS", "").strip() == "1":
        raise ImportError(f"LONGCAT_REQUIRE_CLIENTS=1 but {ENGINE_PYTHON} is missing: run scripts/env_vllm.sh")
    pytest.skip(f"the replay server needs {ENGINE_PYTHON}", allow_module_level=True)


def replay(*args: str, recording: Path = RECORDING) -> Any:
    """``longcat-plugins serve --replay RECORDING`` in the vLLM environment (its URL ends in /v1)."""
    path = [str(REPO), os.environ.get("PYTHONPATH")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, path)), HF_HUB_OFFLINE="1")
    command = [str(ENGINE_PYTHON), "-m", "longcat_plugins", "serve", "--replay", str(recording), "--port", "0"]
    return running([*command, *args], "replay server", REPO, env)


@pytest.fixture(scope="module")
def oracle() -> Iterator[str]:
    with replay() as started:
        yield started.url


@pytest.fixture(scope="module")
def bare() -> Iterator[str]:
    with replay("--no-parsers") as started:
        yield started.url


@pytest.fixture(scope="module")
def px(bare: str) -> Iterator[Proxy]:
    with proxy(bare) as running_proxy:
        yield running_proxy


def _openai(url: str) -> Any:
    from openai import OpenAI

    return OpenAI(base_url=url, api_key=KEY, max_retries=0, timeout=120)


def _reasoning(message: Any) -> str:
    extra = message.model_extra or {}
    return str(extra.get("reasoning") or extra.get("reasoning_content") or "")


def openai_turn(
    url: str, stream: bool, *, model: str = MODEL, extra_body: Any = NO_THINKING, tools: bool = True
) -> dict[str, Any]:
    """What the openai client makes of one answer: content, reasoning, calls (name, parsed arguments), finish."""
    request: dict[str, Any] = {"model": model, "messages": QUESTION, "extra_body": extra_body}
    if tools:
        request["tools"] = TOOLS
    client = _openai(url)
    if not stream:
        choice = client.chat.completions.create(**request).choices[0]
        message = choice.message
        calls = [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []]
        ids = [c.id for c in message.tool_calls or []]
        return {
            "content": message.content or "",
            "reasoning": _reasoning(message),
            "calls": calls,
            "finish_reason": choice.finish_reason,
            "ids_ok": all(ids) and len(set(ids)) == len(ids),
        }
    content, reasoning, finish = "", "", None
    slots: dict[int, dict[str, Any]] = {}
    for piece in client.chat.completions.create(stream=True, **request):
        for choice in piece.choices:
            delta = choice.delta
            content += delta.content or ""
            reasoning += _reasoning(delta)
            for call in delta.tool_calls or []:
                slot = slots.setdefault(call.index, {"id": call.id, "name": "", "arguments": ""})
                if call.function is not None:
                    slot["name"] += call.function.name or ""
                    slot["arguments"] += call.function.arguments or ""
            finish = choice.finish_reason or finish
    calls = [(slots[i]["name"], json.loads(slots[i]["arguments"])) for i in sorted(slots)]
    ids = [slots[i]["id"] for i in sorted(slots)]
    return {
        "content": content,
        "reasoning": reasoning,
        "calls": calls,
        "finish_reason": finish,
        "ids_ok": all(ids) and len(set(ids)) == len(ids),
    }


def test_without_parsers_the_markup_is_in_the_content(bare: str) -> None:
    """The upstream the proxy repairs: no calls, the markup as text."""
    for stream in (False, True):
        served = openai_turn(bare, stream)
        assert served["calls"] == [] and served["reasoning"] == ""
        assert "<tool_call>\n<function=get_weather>" in served["content"]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_openai_client_through_the_proxy_gets_what_the_parsers_serve(oracle: str, px: Proxy, stream: bool) -> None:
    expected = openai_turn(oracle, stream)
    assert len(expected["calls"]) == 2 and expected["finish_reason"] == "tool_calls"
    assert openai_turn(px.url, stream) == expected


def langchain_turn(url: str, stream: bool) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    from langchain_openai import ChatOpenAI

    llm = ChatOpenAI(model=MODEL, base_url=url, api_key=KEY, max_retries=0, timeout=120, extra_body=NO_THINKING)
    bound = llm.bind_tools(TOOLS)
    if stream:
        message = None
        for piece in bound.stream(QUESTION):
            message = piece if message is None else message + piece
        assert message is not None
    else:
        message = bound.invoke(QUESTION)
    text = message.content if isinstance(message.content, str) else str(message.content)
    return text, [(c["name"], c["args"]) for c in message.tool_calls]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_langchain_through_the_proxy_gets_what_the_parsers_serve(oracle: str, px: Proxy, stream: bool) -> None:
    expected = langchain_turn(oracle, stream)
    assert len(expected[1]) == 2
    assert langchain_turn(px.url, stream) == expected


def test_the_log_holds_no_key(px: Proxy) -> None:
    assert "POST /v1/chat/completions 200" in px.log_text()
    assert KEY not in px.log_text()


def test_longcat_tags_reach_the_proxy_only_with_special_tokens_kept() -> None:
    """LongCat's tags are special tokens: a server without our parsers drops them from the text (vLLM's default
    ``skip_special_tokens``). The key/value calls are still read (``<longcat_arg_key>`` is text), but the reasoning
    runs into the content; asked to keep the special tokens, the tags reach the proxy."""
    recording = RECORDING.parent / "weather_key_value.jsonl"
    request: dict[str, Any] = {"model": "LongCat-Flash-Chat", "messages": QUESTION, "tools": TOOLS}
    expected = [("get_weather", {"city": city, "unit": "celsius"}) for city in ("Paris", "Tokyo")]
    with replay("--no-parsers", recording=recording) as upstream, proxy(upstream.url) as through:
        client = _openai(through.url)
        for extra, content in (
            ({}, "Two cities, so two calls at once.I'll check both cities.\n\n\n"),
            (
                {"skip_special_tokens": False},
                "<longcat_think>Two cities, so two calls at once.</longcat_think>I'll check both cities.\n",
            ),
        ):
            choice = client.chat.completions.create(**request, extra_body=extra).choices[0]
            calls = [(c.function.name, json.loads(c.function.arguments)) for c in choice.message.tool_calls or []]
            assert (choice.message.content, calls, choice.finish_reason) == (content, expected, "tool_calls")
