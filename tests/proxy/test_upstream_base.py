"""Any upstream address: the proxy serves the OpenAI API at its own ``/v1`` and maps it onto the upstream's base
URL, whatever its path (``https://api.novita.ai/v3/openai``, ``https://api.deepinfra.com/v1/openai``, a gateway's
prefix). The upstream here is a tiny aiohttp app that answers only under its base (404 elsewhere), as such a
host does; the client is the official ``openai`` client with ``base_url=<proxy>/v1``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from aiohttp import web
from openai import OpenAI
from proxy_support import TOOLS, Handler, Proxy, Upstream, chunk, data, proxy, upstream

MARKUP = (
    "Let me check.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n"
    "</tool_call>"
)
QUESTION = [{"role": "user", "content": "Weather in Paris?"}]
MODELS = {"object": "list", "data": [{"id": "m", "object": "model", "owned_by": "test"}]}


def mounted(base_path: str) -> Handler:
    """A server whose OpenAI API is at ``base_path``: chat completions answer with the call as text in the content
    (streamed or not), ``/models`` lists one model, anything else is a 404."""

    async def handler(request: web.Request, body: bytes) -> web.StreamResponse:
        path = request.path
        if path == f"{base_path}/models":
            return web.json_response(MODELS)
        if path != f"{base_path}/chat/completions" or request.method != "POST":
            return web.json_response({"error": {"message": f"no route {request.method} {path}"}}, status=404)
        if not json.loads(body).get("stream"):
            message = {"role": "assistant", "content": MARKUP}
            answer = {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "created": 1,
                "model": "m",
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            }
            return web.json_response(answer)
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        await response.write(data(chunk("", role="assistant")))
        for piece in (MARKUP[:20], MARKUP[20:50], MARKUP[50:]):
            await response.write(data(chunk(piece)))
        await response.write(data(chunk(finish="stop")) + b"data: [DONE]\n\n")
        return response

    return handler


@pytest.fixture(scope="module")
def up() -> Iterator[Upstream]:
    with upstream() as running:
        yield running


@pytest.fixture(autouse=True)
def fresh(up: Upstream) -> None:
    up.seen.clear()
    up.handler = None


def client(px: Proxy) -> OpenAI:
    return OpenAI(base_url=px.url, api_key="sk-test", max_retries=0, timeout=60)


def calls_of(px: Proxy, stream: bool) -> tuple[str, list[tuple[str, Any]], str | None]:
    """Content, calls (name, parsed arguments) and finish reason the openai client gets through the proxy."""
    if not stream:
        choice = client(px).chat.completions.create(model="m", messages=QUESTION, tools=TOOLS).choices[0]
        calls = [(c.function.name, json.loads(c.function.arguments)) for c in choice.message.tool_calls or []]
        return choice.message.content or "", calls, choice.finish_reason
    content, finish, slots = "", None, {}
    for piece in client(px).chat.completions.create(model="m", messages=QUESTION, tools=TOOLS, stream=True):
        for choice in piece.choices:
            content += choice.delta.content or ""
            finish = choice.finish_reason or finish
            for call in choice.delta.tool_calls or []:
                slot = slots.setdefault(call.index, ["", ""])
                if call.function is not None:
                    slot[0] += call.function.name or ""
                    slot[1] += call.function.arguments or ""
    return content, [(name, json.loads(arguments)) for name, arguments in slots.values()], finish


# base path of the upstream's API, as given to --upstream
BASES = ["/v3/openai", "/v1/openai", "/gateway/llm/v1", "/v1", ""]


@pytest.mark.parametrize("base_path", BASES, ids=["novita", "deepinfra", "gateway-v1", "v1", "bare-host"])
def test_the_openai_client_is_repaired_whatever_the_upstreams_base(up: Upstream, base_path: str) -> None:
    """``--upstream http://host/BASE``: ``<proxy>/v1/chat/completions`` goes to ``BASE/chat/completions`` and comes
    back repaired, streamed or not; ``/v1/models`` passes through to ``BASE/models``. A URL without a path is a
    server's root, whose API is at ``/v1``."""
    api = base_path or "/v1"
    up.handler = mounted(api)
    with proxy(up.url + base_path) as px:
        for stream in (False, True):
            content, calls, finish = calls_of(px, stream)
            assert (content, calls, finish) == ("Let me check.\n", [("get_weather", {"city": "Paris"})], "tool_calls")
        assert [m.id for m in client(px).models.list()] == ["m"]
    assert [(s.method, s.path_qs) for s in up.seen] == [
        ("POST", f"{api}/chat/completions"),
        ("POST", f"{api}/chat/completions"),
        ("GET", f"{api}/models"),
    ]


@pytest.mark.parametrize(
    ("base_path", "path", "expected"),
    [
        ("/v1", "/health", "/health"),
        ("", "/metrics?x=1", "/metrics?x=1"),
        ("/gateway/llm/v1", "/health", "/gateway/llm/health"),
        ("/v3/openai", "/v1", "/v3/openai"),
        ("/v3/openai", "/v1/files/f-1?purpose=a%20b", "/v3/openai/files/f-1?purpose=a%20b"),
    ],
)
def test_where_each_route_goes(up: Upstream, base_path: str, path: str, expected: str) -> None:
    """Routes outside ``/v1`` go to the server's root, which is known when the base ends in ``/v1`` (or is the
    root itself); the query is kept as sent."""
    up.handler = mounted("/nowhere")
    with proxy(up.url + base_path) as px:
        httpx.get(px.root + path, timeout=30)
    assert [s.path_qs for s in up.seen] == [expected]


@pytest.mark.parametrize("path", ["/health", "/chat/completions", "/v2/models"])
def test_routes_outside_v1_of_a_base_without_v1_are_a_404_of_the_proxy(up: Upstream, path: str) -> None:
    """``https://host/v3/openai`` has no root the proxy could map ``/health`` onto: the proxy answers 404 itself,
    in the OpenAI API's error shape, and the upstream sees nothing."""
    up.handler = mounted("/v3/openai")
    with proxy(up.url + "/v3/openai") as px:
        answer = httpx.get(px.root + path, timeout=30)
    assert answer.status_code == 404
    assert answer.headers["content-type"].startswith("application/json")
    error = answer.json()["error"]
    assert set(error) >= {"message", "type", "code"}
    assert error["code"] == 404 and error["type"] == "invalid_request_error"
    assert path in error["message"] and "/v1" in error["message"]
    assert up.seen == []
