"""The proxy's Responses API (``/v1/responses``) in front of the replay server without our parsers
(``serve --no-parsers``): the model's reasoning, its closing ``</think>`` and its call markup arrive as the text of
one message item. What the official ``openai`` client (``client.responses.create``, and the streaming helper that
rebuilds the response from the events by their indexes) and an OpenAI Agents SDK agent get through the proxy with
the reasoning option on must equal what vLLM's own ``/v1/responses`` serves WITH our parsers for the same recording
(the core as the oracle): the items in order, their text, the calls' names and arguments, the reasoning (ids may
differ). The recording is the first turn of ``longcat_plugins/examples/weather_agent_qwen3_coder.jsonl``, served with
its template, which opens reasoning in the prompt: the output starts inside it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from proxy_support import Proxy, proxy
from test_replay import KEY, replay

RECORDING = Path(__file__).resolve().parent / "recordings" / "weather_xml_thinking.jsonl"
MODEL = "Qwen3-Coder"
QUESTION = "Weather in Paris and Tokyo?"
TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
            "required": ["city"],
        },
    }
]


@pytest.fixture(scope="module")
def oracle() -> Iterator[str]:
    with replay(recording=RECORDING) as started:
        yield started.url


@pytest.fixture(scope="module")
def bare() -> Iterator[str]:
    with replay("--no-parsers", recording=RECORDING) as started:
        yield started.url


@pytest.fixture(scope="module")
def px(bare: str) -> Iterator[Proxy]:
    with proxy(bare, "--reasoning") as running_proxy:
        yield running_proxy


@pytest.fixture(scope="module")
def px_plain(bare: str) -> Iterator[Proxy]:
    """The proxy without the reasoning option."""
    with proxy(bare) as running_proxy:
        yield running_proxy


def _openai(url: str) -> Any:
    from openai import OpenAI

    return OpenAI(base_url=url, api_key=KEY, max_retries=0, timeout=120)


def items_of(output: list[Any]) -> list[tuple[Any, ...]]:
    """Output items as a client reads them: (type, text) or ("function_call", name, parsed arguments)."""
    items: list[tuple[Any, ...]] = []
    for item in output:
        if item.type == "function_call":
            items.append((item.type, item.name, json.loads(item.arguments)))
        else:
            items.append((item.type, "".join(part.text for part in item.content or ())))
    return items


def openai_turn(url: str, stream: bool) -> dict[str, Any]:
    """What the openai client makes of one answer: the items, and streamed, the text each kind of delta built."""
    client = _openai(url)
    request: dict[str, Any] = {"model": MODEL, "input": QUESTION, "tools": TOOLS}
    if not stream:
        response = client.responses.create(**request)
        return {"items": items_of(response.output), "text": response.output_text, "status": response.status}
    deltas: dict[str, str] = {}
    numbers: list[int] = []
    with client.responses.stream(**request) as events:
        for event in events:
            numbers.append(event.sequence_number)
            if event.type.endswith(".delta") and isinstance(getattr(event, "delta", None), str):
                deltas[event.type] = deltas.get(event.type, "") + event.delta
        response = events.get_final_response()
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)
    return {
        "items": items_of(response.output),
        "text": response.output_text,
        "status": response.status,
        "deltas": {kind: text for kind, text in deltas.items() if kind != "response.function_call_arguments.delta"},
    }


def test_without_parsers_the_markup_is_in_the_message(bare: str) -> None:
    """The upstream the proxy repairs: one message item, the reasoning's closer and the markup in its text."""
    items = openai_turn(bare, stream=False)["items"]
    assert [item[0] for item in items] == ["message"]
    assert "</think>" in items[0][1] and "<tool_call>\n<function=get_weather>" in items[0][1]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_openai_client_through_the_proxy_gets_what_the_parsers_serve(oracle: str, px: Proxy, stream: bool) -> None:
    expected = openai_turn(oracle, stream)
    assert [item[0] for item in expected["items"]] == ["reasoning", "message", "function_call", "function_call"]
    assert openai_turn(px.url, stream) == expected


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_without_the_reasoning_option_the_think_block_stays_in_the_message(
    oracle: str, px_plain: Proxy, stream: bool
) -> None:
    reasoning, message, *calls = openai_turn(oracle, stream)["items"]
    got = openai_turn(px_plain.url, stream)["items"]
    assert got == [("message", reasoning[1] + "</think>" + message[1]), *calls]


def agent_turn(url: str, stream: bool) -> dict[str, Any]:
    """An OpenAI Agents SDK agent with one function tool, on the Responses API at ``url``: the calls it ran, its
    output (the first tool's result: it stops there), the kinds of items of its run."""
    agents = pytest.importorskip("agents")
    from openai import AsyncOpenAI

    ran: list[tuple[str, str]] = []

    @agents.function_tool
    def get_weather(city: str, unit: str = "celsius") -> str:
        """Current weather for a city."""
        ran.append((city, unit))
        return f"sunny in {city}"

    async def run() -> Any:
        client = AsyncOpenAI(base_url=url, api_key=KEY, max_retries=0, timeout=120)
        model = agents.OpenAIResponsesModel(model=MODEL, openai_client=client)
        agent = agents.Agent(name="weather", tools=[get_weather], model=model, tool_use_behavior="stop_on_first_tool")
        if not stream:
            return await agents.Runner.run(agent, QUESTION)
        result = agents.Runner.run_streamed(agent, QUESTION)
        async for _ in result.stream_events():
            pass
        return result

    agents.set_tracing_disabled(True)
    result = asyncio.run(run())
    return {"ran": ran, "output": result.final_output, "items": [type(i).__name__ for i in result.new_items]}


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_an_agents_sdk_agent_through_the_proxy_runs_what_the_parsers_serve(
    oracle: str, px: Proxy, stream: bool
) -> None:
    expected = agent_turn(oracle, stream)
    assert expected["ran"] == [("Paris", "celsius"), ("Tokyo", "celsius")]
    assert agent_turn(px.url, stream) == expected


def test_the_log_holds_no_key(px: Proxy) -> None:
    assert "POST /v1/responses 200" in px.log_text()
    assert KEY not in px.log_text()
