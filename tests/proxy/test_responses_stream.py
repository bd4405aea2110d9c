"""The proxy's Responses API (``/v1/responses``) against a tiny upstream that answers with hand-built events in
vLLM's shapes: what reaches the client on the wire (each event under its ``event:`` name, repaired), what passes
through as it is (a request without function tools, an event that is not the API's, what follows the terminal
event), a request without tools with ``--reasoning`` (its reasoning split, as on every route), and the proxy's own
errors in this API's stream."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from aiohttp import web
from proxy_support import Proxy, Upstream, proxy, sse_answer, upstream
from test_errors import FAULTY, assert_openai_error

from longcat_plugins.proxy.responses_api import error_event

CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
TOOLS = [
    {
        "type": "function",
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    }
]
REQUEST: dict[str, Any] = {"model": "m", "input": "Weather in Paris?", "tools": TOOLS, "stream": True}


def message(text: str, status: str = "completed") -> dict[str, Any]:
    part = {"annotations": [], "text": text, "type": "output_text", "logprobs": None}
    return {"id": "msg_up", "content": [part] if text else [], "role": "assistant", "status": status, "type": "message"}


def events_of(parts: list[str]) -> list[dict[str, Any]]:
    text = "".join(parts)
    where = {"item_id": "msg_up", "output_index": 0}
    response = {"id": "resp_1", "object": "response", "model": "m", "status": "in_progress", "output": []}
    events = [
        {"type": "response.created", "response": response},
        {"type": "response.output_item.added", "item": message("", "in_progress"), "output_index": 0},
        {"type": "response.content_part.added", "content_index": 0, **where, "part": message("x")["content"][0]},
        *(
            {"type": "response.output_text.delta", "content_index": 0, "delta": p, **where, "logprobs": []}
            for p in parts
        ),
        {"type": "response.output_text.done", "content_index": 0, "text": text, **where, "logprobs": []},
        {"type": "response.content_part.done", "content_index": 0, **where, "part": message(text)["content"][0]},
        {"type": "response.output_item.done", "item": message(text), "output_index": 0},
        {"type": "response.completed", "response": {**response, "status": "completed", "output": [message(text)]}},
    ]
    return [{**event, "sequence_number": n} for n, event in enumerate(events)]


def named(event: dict[str, Any]) -> bytes:
    return f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()


def read_events(raw: bytes) -> list[tuple[str | None, Any]]:
    """(event name, parsed data) of each event on the wire."""
    out: list[tuple[str | None, Any]] = []
    for block in raw.decode().split("\n\n"):
        if not block.strip():
            continue
        name, data = None, None
        for line in block.split("\n"):
            if line.startswith("event: "):
                name = line.removeprefix("event: ")
            elif line.startswith("data: "):
                text = line.removeprefix("data: ")
                try:
                    data = json.loads(text)
                except ValueError:
                    data = text
        out.append((name, data))
    return out


@pytest.fixture(scope="module")
def up() -> Iterator[Upstream]:
    with upstream() as running:
        yield running


@pytest.fixture(scope="module")
def px(up: Upstream) -> Iterator[Proxy]:
    with proxy(up.url + "/v1") as running:
        yield running


def post(px: Proxy, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(f"{px.url}/responses", json=body, timeout=30)


def test_a_stream_is_repaired_and_every_event_keeps_its_name(up: Upstream, px: Proxy) -> None:
    up.handler = sse_answer([named(e) for e in events_of(["Let me check. <tool", "_call>", CALL[11:], " Done."])])
    got = read_events(post(px, REQUEST).content)
    assert all(name == data["type"] for name, data in got)
    kinds = [data["type"] for _, data in got]
    assert kinds.count("response.output_item.added") == 3 and kinds[-1] == "response.completed"
    output = got[-1][1]["response"]["output"]
    assert [item["type"] for item in output] == ["message", "function_call", "message"]
    assert (output[0]["content"][0]["text"], output[2]["content"][0]["text"]) == ("Let me check. ", " Done.")
    assert (output[1]["name"], json.loads(output[1]["arguments"])) == ("get_weather", {"city": "Paris"})
    assert [data["sequence_number"] for _, data in got] == list(range(len(got)))


def test_a_whole_answer_is_repaired(up: Upstream, px: Proxy) -> None:
    answer = {"id": "resp_1", "object": "response", "status": "completed", "output": [message("Hi " + CALL)]}

    async def handler(request: web.Request, body: bytes) -> web.StreamResponse:
        return web.json_response(answer)

    up.handler = handler
    output = post(px, {**REQUEST, "stream": False}).json()["output"]
    assert [item["type"] for item in output] == ["message", "function_call"]
    assert output[0] == message("Hi ") and output[1]["call_id"].startswith("call_")


def test_a_request_without_function_tools_passes_through(up: Upstream, px: Proxy) -> None:
    raw = b"".join(named(e) for e in events_of(["Hi ", CALL]))
    up.handler = sse_answer([raw])
    assert post(px, {**REQUEST, "tools": [{"type": "web_search"}]}).content == raw
    assert post(px, {**REQUEST, "tool_choice": "none"}).content == raw


@pytest.fixture(scope="module")
def px_reasoning(up: Upstream) -> Iterator[Proxy]:
    with proxy(up.url + "/v1", "--reasoning") as running:
        yield running


def test_with_reasoning_a_request_without_tools_gets_its_reasoning_item(
    up: Upstream, px: Proxy, px_reasoning: Proxy
) -> None:
    """``--reasoning`` repairs every request, as on the other routes: a request without function tools gets its think
    block as a reasoning item (the call markup stays text); without the switch its answer passes through as sent."""
    text = "<think>Two cities.</think>Checking. " + CALL
    raw = b"".join(named(e) for e in events_of(["<think>Two", " cities.</think>Checking. ", CALL]))
    bare = {key: value for key, value in REQUEST.items() if key != "tools"}
    want = [("reasoning", "Two cities."), ("message", "Checking. " + CALL)]

    def summary(output: list[dict[str, Any]]) -> list[tuple[str, str]]:
        return [(item["type"], "".join(part["text"] for part in item["content"])) for item in output]

    up.handler = sse_answer([raw])
    assert post(px, bare).content == raw
    got = read_events(post(px_reasoning, bare).content)
    assert all(name == data["type"] for name, data in got)
    assert summary(got[-1][1]["response"]["output"]) == want
    assert "response.reasoning_text.delta" in [data["type"] for _, data in got]
    answer = {"id": "resp_1", "object": "response", "status": "completed", "output": [message(text)]}

    async def whole(request: web.Request, body: bytes) -> web.StreamResponse:
        return web.json_response(answer)

    up.handler = whole
    assert post(px, {**bare, "stream": False}).json() == answer
    assert summary(post(px_reasoning, {**bare, "stream": False}).json()["output"]) == want


def test_an_event_that_is_not_the_apis_passes_the_rest_through(up: Upstream, px: Proxy) -> None:
    """What the repair held back is sent (closed), then the upstream's bytes as they came."""
    events = events_of(["Hi <tool_", "call>"])
    rest = b"data: not json\n\n" + b"".join(named(e) for e in events[5:])
    up.handler = sse_answer([b"".join(named(e) for e in events[:5]), rest])
    raw = post(px, REQUEST).content
    assert raw.endswith(rest)
    repaired = read_events(raw[: -len(rest)])
    assert repaired[-1][1]["type"] == "response.output_item.done"
    assert repaired[-1][1]["item"]["content"][0]["text"] == "Hi <tool_call>"
    assert "streamed answer of" in px.log_text()


def test_what_follows_the_terminal_event_passes_through(up: Upstream, px: Proxy) -> None:
    up.handler = sse_answer([b"".join(named(e) for e in events_of(["Hi ", CALL])) + b"data: [DONE]\n\n"])
    got = read_events(post(px, REQUEST).content)
    assert got[-1] == (None, "[DONE]") and got[-2][0] == "response.completed"
    assert [item["type"] for item in got[-2][1]["response"]["output"]] == ["message", "function_call"]


def test_the_error_event_of_the_proxy() -> None:
    """A fault of the proxy after the stream started: an ``error`` event with the API's fields, and the error object
    the openai client raises from."""
    body = {"error": {"message": "boom", "type": "server_error", "param": None, "code": 500}}
    [(name, data)] = read_events(error_event(body))
    assert name == "error" and data["type"] == "error"
    assert (data["code"], data["message"], data["error"]) == ("500", "boom", body["error"])


def test_a_fault_of_the_proxy_is_an_error_in_the_apis_shape(up: Upstream) -> None:
    """The repair fails (a bug of the proxy's): a whole answer is a 500 in OpenAI's shape, a stream that has started
    ends with an ``error`` event, which the openai client raises."""
    import openai

    answer = {"id": "resp_1", "object": "response", "status": "completed", "output": [message("Hi")]}

    async def whole(request: web.Request, body: bytes) -> web.StreamResponse:
        return web.json_response(answer)

    with proxy(up.url + "/v1", command=FAULTY) as px:
        up.handler = whole
        assert_openai_error(post(px, {**REQUEST, "stream": False}), 500, "server_error")
        up.handler = sse_answer([named(e) for e in events_of(["Hi"])])
        got = read_events(post(px, REQUEST).content)
        assert got[-1][0] == "error" and (got[-1][1]["code"], got[-1][1]["error"]["type"]) == ("500", "server_error")
        client = openai.OpenAI(base_url=px.url, api_key="unused", max_retries=0)
        with pytest.raises(openai.APIError, match="internal error"):
            list(client.responses.create(model="m", input="hi", tools=TOOLS, stream=True))  # type: ignore[arg-type]
