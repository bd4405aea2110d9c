"""The proxy's Anthropic Messages API (``/v1/messages``) in front of a tiny upstream: its events keep their
``event:`` names, an upstream's error event ends the stream as received (the blocks the repair opened closed
first), and the errors the proxy makes itself on this route are in Anthropic's shape (``{"type": "error", "error":
{"type", "message"}}``; streamed as ``event: error``), read as such by the anthropic client."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from proxy_support import Upstream, proxy, sse_answer, upstream
from test_errors import FAULTY, free_port

TOOLS = [
    {
        "name": "get_weather",
        "description": "Weather for a city",
        "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    }
]
CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'


def messages_request(stream: bool, **extra: Any) -> dict[str, Any]:
    return {
        "model": "m",
        "max_tokens": 100,
        "messages": [{"role": "user", "content": "Weather in Paris?"}],
        "tools": TOOLS,
        "stream": stream,
        **extra,
    }


def named(value: dict[str, Any]) -> bytes:
    return f"event: {value['type']}\ndata: {json.dumps(value)}\n\n".encode()


def text_stream(parts: list[str], *, end: bool = True) -> list[bytes]:
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": []}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "ping"},
        *({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}} for p in parts),
    ]
    if end:
        events += [
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": {}},
            {"type": "message_stop"},
        ]
    return [named(e) for e in events]


def read_events(raw: bytes) -> list[tuple[str | None, dict[str, Any]]]:
    """(event name, data) of each event of an SSE answer."""
    out = []
    for block in raw.decode().split("\n\n"):
        if not block.strip():
            continue
        name, data = None, None
        for line in block.splitlines():
            if line.startswith("event: "):
                name = line.removeprefix("event: ")
            elif line.startswith("data: "):
                data = json.loads(line.removeprefix("data: "))
        assert data is not None, block
        out.append((name, data))
    return out


@pytest.fixture(scope="module")
def up() -> Iterator[Upstream]:
    with upstream() as running:
        yield running


def test_streamed_events_keep_their_names_and_the_call_is_a_tool_use_block(up: Upstream) -> None:
    up.handler = sse_answer(text_stream(["Sure. <tool_", CALL[6:40], CALL[40:], " Done."]))
    with proxy(up.url + "/v1") as px:
        answer = httpx.post(f"{px.url}/messages", json=messages_request(True), timeout=30)
    events = read_events(answer.content)
    assert all(name == data["type"] for name, data in events)
    assert [d["type"] for _, d in events if d["type"] in ("ping", "message_start", "message_stop")] == [
        "message_start",
        "ping",
        "message_stop",
    ]
    starts = [(d["index"], d["content_block"]["type"]) for _, d in events if d["type"] == "content_block_start"]
    assert starts == [(0, "text"), (1, "tool_use"), (2, "text")]
    arguments = "".join(
        d["delta"]["partial_json"] for _, d in events if d["type"] == "content_block_delta" and d["index"] == 1
    )
    assert json.loads(arguments) == {"city": "Paris"}
    assert [d["delta"]["stop_reason"] for _, d in events if d["type"] == "message_delta"] == ["tool_use"]


def test_an_upstream_error_event_passes_after_the_open_blocks_close(up: Upstream) -> None:
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    up.handler = sse_answer([*text_stream(["Sure. ", CALL[:50]], end=False), named(error)])
    with proxy(up.url + "/v1") as px:
        answer = httpx.post(f"{px.url}/messages", json=messages_request(True), timeout=30)
    events = read_events(answer.content)
    assert events[-1] == ("error", error)
    assert [d["type"] for _, d in events[-3:-1]] == ["content_block_delta", "content_block_stop"]
    assert events[-2][1]["index"] == 1  # (the tool_use block the repair opened, closed before the error)


def test_a_request_without_tools_passes_as_received(up: Upstream) -> None:
    sent = text_stream(["Sure. ", CALL])
    up.handler = sse_answer(sent)
    request = messages_request(True)
    del request["tools"]
    with proxy(up.url + "/v1") as px:
        answer = httpx.post(f"{px.url}/messages", json=request, timeout=30)
    assert answer.content == b"".join(sent)


def test_an_unreachable_upstream_is_an_anthropic_error() -> None:
    import anthropic

    port = free_port()
    with proxy(f"http://127.0.0.1:{port}/v1") as px:
        for stream in (False, True):
            answer = httpx.post(f"{px.url}/messages", json=messages_request(stream), timeout=30)
            assert answer.status_code == 502
            body = answer.json()
            assert body["type"] == "error" and body["error"]["type"] == "api_error"
            assert f"http://127.0.0.1:{port}/v1 could not be reached" in body["error"]["message"]
        client = anthropic.Anthropic(base_url=px.root, api_key="k", max_retries=0, timeout=30)
        with pytest.raises(anthropic.APIStatusError) as raised:
            client.messages.create(**{k: v for k, v in messages_request(False).items() if k != "stream"})
    assert raised.value.status_code == 502 and raised.value.body["error"]["type"] == "api_error"


def test_a_fault_of_the_proxy_is_an_anthropic_error(up: Upstream) -> None:
    """The repair fails (a bug of the proxy's): a whole answer is a 500 in Anthropic's shape; a stream that has
    started ends with an ``event: error``."""
    whole = {"type": "message", "role": "assistant", "content": [{"type": "text", "text": "Hi"}]}

    async def answer_json(request: Any, body: bytes) -> Any:
        from aiohttp import web

        return web.json_response(whole)

    with proxy(up.url + "/v1", command=FAULTY) as px:
        up.handler = answer_json
        answer = httpx.post(f"{px.url}/messages", json=messages_request(False), timeout=30)
        assert answer.status_code == 500 and answer.json()["error"]["type"] == "api_error"
        assert answer.json()["type"] == "error" and "injected" not in answer.text
        up.handler = sse_answer(text_stream(["Hi"]))
        streamed = httpx.post(f"{px.url}/messages", json=messages_request(True), timeout=30)
    name, data = read_events(streamed.content)[-1]
    assert name == "error" and data["type"] == "error" and data["error"]["type"] == "api_error"
