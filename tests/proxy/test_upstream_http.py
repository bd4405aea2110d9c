"""The proxy against a tiny aiohttp app standing for the upstream HTTP server (not for an engine): what passes
through unchanged, and what a broken upstream gets (a clear error, nothing lost, one warning line)."""

from __future__ import annotations

import asyncio
import gzip
import json
import socket
import threading
import time
from collections.abc import Iterator

import httpx
import pytest
from aiohttp import web
from proxy_support import Proxy, Upstream, chat_request, chunk, data, fold_sse, proxy, sse_answer, upstream

SECRET = "sk-proxy-test-secret-4b1d"
CUSTOM = "custom-value-77f3"


@pytest.fixture(scope="module")
def up() -> Iterator[Upstream]:
    with upstream() as running:
        yield running


@pytest.fixture(scope="module")
def px(up: Upstream) -> Iterator[Proxy]:
    with proxy(up.url + "/v1", "--max-event-bytes", str(4 * 1024 * 1024)) as running:
        yield running


@pytest.fixture(autouse=True)
def fresh(up: Upstream) -> None:
    up.seen.clear()
    up.handler = None


def fixed(status: int, body: bytes, content_type: str, **headers: str) -> object:
    async def handler(request: web.Request, _body: bytes) -> web.StreamResponse:
        return web.Response(status=status, body=body, headers={"Content-Type": content_type, **headers})

    return handler


def warnings(px: Proxy) -> list[str]:
    return [line for line in px.log_text().splitlines() if " WARNING " in line]


# ---------------------------------------------------------------- pass-through


def test_models_route_passes_through(up: Upstream, px: Proxy) -> None:
    body = b'{"object": "list", "data": [{"id": "m", "object": "model"}]}'
    up.handler = fixed(200, body, "application/json", **{"X-Upstream": "yes"})
    answer = httpx.get(f"{px.url}/models?limit=2&after=a%20b", timeout=30)
    assert answer.status_code == 200
    assert answer.content == body
    assert answer.headers["x-upstream"] == "yes"
    assert [(s.method, s.path_qs) for s in up.seen] == [("GET", "/v1/models?limit=2&after=a%20b")]


def test_request_without_tools_passes_through_byte_identical(up: Upstream, px: Proxy) -> None:
    """No tools: the request body reaches the upstream as sent, the answer comes back as sent (even an answer
    with markup in its content, which a request with tools would have repaired)."""
    sent = b'{ "model":"m",  "messages":[{"role":"user","content":"hi \\u00e9"}], "stream":false }'
    answer_body = (
        b'{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant",'
        b'"content":"<tool_call>\\n{\\"name\\": \\"get_weather\\", \\"arguments\\": {}}\\n</tool_call>"},'
        b'"finish_reason":"stop"}]}'
    )
    up.handler = fixed(200, answer_body, "application/json")
    answer = httpx.post(f"{px.url}/chat/completions", content=sent, headers={"Content-Type": "application/json"})
    assert answer.status_code == 200
    assert answer.content == answer_body
    assert up.seen[0].body == sent


def test_body_that_is_not_json_passes_through(up: Upstream, px: Proxy) -> None:
    up.handler = fixed(400, b'{"error": {"message": "bad json"}}', "application/json")
    answer = httpx.post(f"{px.url}/chat/completions", content=b"{not json", timeout=30)
    assert (answer.status_code, answer.content) == (400, b'{"error": {"message": "bad json"}}')
    assert up.seen[0].body == b"{not json"


@pytest.mark.parametrize("stream", [False, True])
def test_upstream_error_comes_back_as_sent(up: Upstream, px: Proxy, stream: bool) -> None:
    body = b'{"error": {"message": "tool_choice=required needs a parser", "type": "BadRequestError", "code": 400}}'
    up.handler = fixed(400, body, "application/json")
    answer = httpx.post(f"{px.url}/chat/completions", json=chat_request(stream, tool_choice="required"), timeout=30)
    assert (answer.status_code, answer.content) == (400, body)


def test_headers_reach_the_upstream_and_stay_out_of_the_log(up: Upstream, px: Proxy) -> None:
    up.handler = sse_answer([data(chunk("Hello", finish="stop")), b"data: [DONE]\n\n"])
    headers = {"Authorization": f"Bearer {SECRET}", "X-Custom": CUSTOM, "Connection": "keep-alive"}
    logged = len(px.access_lines())
    for path, request in (
        (
            "/v1/chat/completions",
            lambda: httpx.post(f"{px.url}/chat/completions", json=chat_request(True), headers=headers),
        ),
        ("/v1/models", lambda: httpx.get(f"{px.url}/models?key={SECRET}", headers=headers)),
    ):
        assert request().status_code == 200
        seen = {k.lower(): v for k, v in up.seen[-1].headers.items()}
        assert seen["authorization"] == f"Bearer {SECRET}"
        assert seen["x-custom"] == CUSTOM
        logged += 1
        deadline = time.monotonic() + 30  # the access line is written once the answer is sent
        while len(px.access_lines()) < logged and time.monotonic() < deadline:
            time.sleep(0.05)
        assert f"{path} 200" in px.access_lines()[-1]
    assert SECRET not in px.log_text() and CUSTOM not in px.log_text()


def test_other_methods_pass_through(up: Upstream, px: Proxy) -> None:
    up.handler = fixed(204, b"", "text/plain")
    answer = httpx.delete(f"{px.url}/files/file-1?x=1", timeout=30)
    assert answer.status_code == 204
    assert [(s.method, s.path_qs) for s in up.seen] == [("DELETE", "/v1/files/file-1?x=1")]


def test_non_json_answer_to_a_repaired_request_passes_through(up: Upstream, px: Proxy) -> None:
    up.handler = fixed(200, b"<html>gateway says hi</html>", "application/json")
    answer = httpx.post(f"{px.url}/chat/completions", json=chat_request(False), timeout=30)
    assert (answer.status_code, answer.content) == (200, b"<html>gateway says hi</html>")


def test_unreachable_upstream_is_a_502_naming_it() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    with proxy(f"http://127.0.0.1:{port}") as px:
        for request in (
            lambda: httpx.get(f"{px.url}/models", timeout=30),
            lambda: httpx.post(f"{px.url}/chat/completions", json=chat_request(True), timeout=30),
        ):
            answer = request()
            assert answer.status_code == 502
            error = answer.json()["error"]
            assert f"http://127.0.0.1:{port}" in error["message"]
            assert "could not be reached" in error["message"] and "Connect" in error["message"]
            assert error["code"] == 502


def test_an_answer_with_tool_calls_is_not_touched(up: Upstream, px: Proxy) -> None:
    """The upstream read the calls itself: its answer comes back as sent, markup in the content included."""
    call = {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
    message = {"role": "assistant", "content": "<tool_call>\n<function=get_weather>\n</function>\n</tool_call>"}
    body = json.dumps(
        {"choices": [{"index": 0, "message": {**message, "tool_calls": [call]}, "finish_reason": "tool_calls"}]},
        separators=(",", ":"),
    )
    up.handler = fixed(200, body.encode(), "application/json")
    answer = httpx.post(f"{px.url}/chat/completions", json=chat_request(False), timeout=30)
    assert answer.content == body.encode()
    sent = [
        chunk(tool_calls=[{"index": 0, **call}]),
        chunk("<tool_call>\n<function=get_weather>\n"),
        chunk("</function>\n</tool_call>", finish="tool_calls"),
    ]
    up.handler = sse_answer([*map(data, sent), b"data: [DONE]\n\n"])
    folded = fold_sse(post_stream(px).content)
    assert folded.done and folded.chunks == sent


def test_each_event_is_sent_on_before_the_next_arrives(up: Upstream, px: Proxy) -> None:
    """No buffering: the upstream sends its second event only once the client has read the first through the
    proxy (a proxy that waited for more would wait forever; the bound only keeps a broken one from hanging)."""
    got_first = threading.Event()

    async def lockstep(request: web.Request, body: bytes) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        await response.write(data(chunk("Hello")))
        assert await asyncio.get_running_loop().run_in_executor(None, got_first.wait, 60)
        await response.write(data(chunk(" world", finish="stop")) + b"data: [DONE]\n\n")
        return response

    up.handler = lockstep
    received = b""
    with httpx.stream("POST", f"{px.url}/chat/completions", json=chat_request(True), timeout=90) as answer:
        for piece in answer.iter_raw():
            received += piece
            if fold_sse(received).content == "Hello":
                got_first.set()
    folded = fold_sse(received)
    assert got_first.is_set() and folded.content == "Hello world" and folded.done


def test_silent_upstream_is_a_502_after_the_timeout(up: Upstream) -> None:
    async def silent(request: web.Request, body: bytes) -> web.StreamResponse:
        await asyncio.sleep(60)
        return web.Response(text="too late")

    up.handler = silent
    with proxy(up.url, "--timeout", "1") as px:
        answer = httpx.post(f"{px.url}/chat/completions", json=chat_request(True), timeout=60)
    assert answer.status_code == 502
    assert answer.json()["error"]["message"] == f"the upstream server {up.url}/v1 could not be reached: timed out"


def test_compressed_answers_pass_through_compressed(up: Upstream, px: Proxy) -> None:
    """Bytes as sent, Content-Encoding kept; a request the proxy repairs asks the upstream for no compression."""
    packed = gzip.compress(b'{"object": "list", "data": []}')
    up.handler = fixed(200, packed, "application/json", **{"Content-Encoding": "gzip"})
    with httpx.stream("GET", f"{px.url}/models", headers={"Accept-Encoding": "gzip"}, timeout=30) as answer:
        assert answer.headers["content-encoding"] == "gzip"
        assert b"".join(answer.iter_raw()) == packed
    assert up.seen[-1].headers["Accept-Encoding"] == "gzip"
    answer = httpx.post(f"{px.url}/chat/completions", json=chat_request(False), headers={"Accept-Encoding": "gzip"})
    assert answer.content == b'{"object": "list", "data": []}'  # still compressed: passed through, decoded by httpx
    assert up.seen[-1].headers["Accept-Encoding"] == "identity"


# ---------------------------------------------------------------- a broken upstream stream


def post_stream(px: Proxy) -> httpx.Response:
    return httpx.post(f"{px.url}/chat/completions", json=chat_request(True), timeout=60)


def test_stream_cut_without_done_releases_what_the_repair_holds(up: Upstream, px: Proxy) -> None:
    """The stream ends in what could be the start of a tag: the repair held it, the end of the stream releases it."""
    up.handler = sse_answer([data(chunk("", role="assistant")), data(chunk("Hello ")), data(chunk("<tool_ca"))])
    answer = post_stream(px)
    folded = fold_sse(answer.content)
    assert folded.content == "Hello <tool_ca"
    assert not folded.done and not folded.other


def test_data_line_that_is_not_json(up: Upstream, px: Proxy) -> None:
    up.handler = sse_answer(
        [
            data(chunk("Hello ")),
            data(chunk("<tool_ca")),
            b"data: {broken json\n\n",
            data(chunk("ll>")),
            b"data: [DONE]\n\n",
        ]
    )
    answer = post_stream(px)
    assert answer.status_code == 200
    folded = fold_sse(answer.content)
    assert folded.content == "Hello <tool_call>"
    assert folded.other == ["data: {broken json"]
    assert folded.done
    assert answer.content.endswith(data(chunk("ll>")) + b"data: [DONE]\n\n")  # the rest as it was sent
    [warning] = warnings_since(px, "a data line is not a JSON object")
    assert "broken json" not in warning


def test_broken_sse_framing(up: Upstream, px: Proxy) -> None:
    """A line that is no SSE field (a server writing JSON lines): what came before is repaired and released, the
    rest passes through as received."""
    rest = b'{"choices": [{"delta": {"content": "x"}}]}\n' + data(chunk(" world")) + b"data: [DONE]\n\n"
    up.handler = sse_answer([data(chunk("Hello <")), rest])
    answer = post_stream(px)
    assert answer.status_code == 200
    assert answer.content.endswith(rest)
    assert fold_sse(answer.content.removesuffix(rest)).content == "Hello <"
    warnings_since(px, "is not an SSE field")


def test_multi_megabyte_chunk_under_the_cap(up: Upstream, px: Proxy) -> None:
    big = "word " * (600 * 1024)  # 3 MiB of content in one event (the cap is 4 MiB here)
    up.handler = sse_answer([data(chunk(big)), data(chunk("!", finish="stop")), b"data: [DONE]\n\n"])
    folded = fold_sse(post_stream(px).content)
    assert folded.content == big + "!"
    assert folded.done and folded.finish_reason == "stop"


def test_event_over_the_cap_ends_with_an_error_event(up: Upstream, px: Proxy) -> None:
    big = "x" * (5 * 1024 * 1024)
    up.handler = sse_answer([data(chunk("Hello ")), data(chunk(big)), data(chunk("more")), b"data: [DONE]\n\n"])
    answer = post_stream(px)
    folded = fold_sse(answer.content)
    assert folded.content == "Hello "
    assert not folded.done
    error = folded.chunks[-1]["error"]
    assert "larger than 4194304 bytes" in error["message"] and error["code"] == "event_too_large"
    assert len(answer.content) < 1024 * 1024
    warnings_since(px, "larger than 4194304 bytes")


def test_non_streamed_answer_over_the_cap_passes_through(up: Upstream, px: Proxy) -> None:
    body = json.dumps({"choices": [{"index": 0, "message": {"content": "y" * (5 * 1024 * 1024)}}]}).encode()
    up.handler = fixed(200, body, "application/json")
    answer = httpx.post(f"{px.url}/chat/completions", json=chat_request(False), timeout=60)
    assert answer.content == body
    warnings_since(px, "is larger than 4194304 bytes: passed through unrepaired")


def breaking_off(first: bytes, content_type: str) -> object:
    """A handler that sends ``first`` (chunked) and then drops the connection."""

    async def handler(request: web.Request, body: bytes) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": content_type})
        await response.prepare(request)
        await response.write(first)
        await asyncio.sleep(0.2)
        assert request.transport is not None
        request.transport.abort()
        return response

    return handler


def read_until_broken(method: str, url: str, **kw: object) -> tuple[bytes, bool]:
    """The bytes of an answer, and whether its connection broke before its end."""
    received = b""
    try:
        with httpx.stream(method, url, timeout=30, **kw) as answer:  # type: ignore[arg-type]
            for piece in answer.iter_raw():
                received += piece
    except httpx.RemoteProtocolError:
        return received, True
    return received, False


def test_an_answer_that_breaks_off_breaks_off_for_the_client(up: Upstream, px: Proxy) -> None:
    """Not a shorter answer that looks complete: the client's connection breaks too, after what the proxy had."""
    up.handler = breaking_off(b'{"object": "list", "da', "application/json")
    assert read_until_broken("GET", f"{px.url}/models") == (b'{"object": "list", "da', True)
    up.handler = breaking_off(data(chunk("Hello ")) + data(chunk("<tool_ca")), "text/event-stream")
    received, broken = read_until_broken("POST", f"{px.url}/chat/completions", json=chat_request(True))
    assert broken and fold_sse(received).content == "Hello <tool_ca"
    warnings_since(px, "the answer broke off (ClientPayloadError")


def test_client_that_disconnects_closes_the_upstream_request(up: Upstream, px: Proxy) -> None:
    async def endless(request: web.Request, body: bytes) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        try:
            while True:
                await response.write(data(chunk("tick ")))
                await asyncio.sleep(0.05)
        except (asyncio.CancelledError, ConnectionError):
            up.disconnected.set()
            raise

    up.disconnected.clear()
    up.handler = endless
    with httpx.stream("POST", f"{px.url}/chat/completions", json=chat_request(True), timeout=30) as answer:
        next(answer.iter_bytes())
    assert up.disconnected.wait(30), "the upstream request is still open"


_seen_warnings: dict[str, int] = {}


def warnings_since(px: Proxy, needle: str) -> list[str]:
    """The proxy's warning lines that hold ``needle``: exactly one new one since the last look."""
    lines = [line for line in warnings(px) if needle in line]
    new = lines[_seen_warnings.get(needle, 0) :]
    _seen_warnings[needle] = len(lines)
    assert len(new) == 1, (needle, new)
    return new
