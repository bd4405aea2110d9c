"""What the proxy says when something is wrong: credentials in ``--upstream`` are refused at start (and never
shown), and every error the proxy makes itself (502 upstream down, 500 its own fault, 400 a request it cannot read,
404 a route it does not serve) is in the OpenAI API's error shape, as JSON."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from proxy_support import (
    REPO,
    Proxy,
    Upstream,
    chat_request,
    chunk,
    data,
    fold_sse,
    proxy,
    proxy_env,
    sse_answer,
    upstream,
)

PASSWORD = "pw-5e3cr3t-9c1"
FAULTY = (str(Path(__file__).resolve().parent / "faulty_proxy.py"),)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed again: nothing listens there


def run_proxy_command(*args: str) -> subprocess.CompletedProcess[str]:
    """``longcat-plugins proxy ARGS --port 0``, expected to stop by itself (a proxy that starts is stopped by the
    timeout, and the test fails)."""
    command = [sys.executable, "-m", "longcat_plugins", "proxy", *args, "--port", "0"]
    return subprocess.run(command, capture_output=True, text=True, timeout=30, cwd=REPO, env=proxy_env(), check=False)


def assert_openai_error(answer: httpx.Response, status: int, kind: str) -> dict[str, Any]:
    assert answer.status_code == status
    assert answer.headers["content-type"].split(";")[0] == "application/json"
    error = answer.json()["error"]
    assert isinstance(error["message"], str) and error["message"]
    assert (error["type"], error["code"]) == (kind, status)
    return dict(error)


# ---------------------------------------------------------------- credentials


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (f"http://user:{PASSWORD}@127.0.0.1:{{port}}/v1", "http://user:***@127.0.0.1:{port}/v1"),
        (f"https://{PASSWORD}@gateway.example/v3/openai", "https://***@gateway.example/v3/openai"),
        (f"http://user:{PASSWORD}@127.0.0.1:{{port}}", "http://user:***@127.0.0.1:{port}"),
    ],
    ids=["user-password", "token-as-user", "bare-host"],
)
def test_credentials_in_the_upstream_url_are_refused_at_start(url: str, shown: str) -> None:
    """Clients send their own API key, which the proxy passes on: a credential in the URL would be lent to every
    client, and is in the process list. The error says what to do instead and never shows the secret."""
    port = free_port()
    result = run_proxy_command("--upstream", url.format(port=port))
    assert result.returncode == 2
    assert PASSWORD not in result.stdout + result.stderr
    [line] = result.stderr.splitlines()
    assert line.startswith(f"longcat-plugins proxy: error: --upstream {shown.format(port=port)}: ")
    assert "API key" in line and "Authorization" in line


@pytest.mark.parametrize(
    "url",
    [f"ftp://user:{PASSWORD}@host/v1", f"http://user:{PASSWORD}@host/v1?key=1", f"user:{PASSWORD}@host:8000"],
)
def test_other_mistakes_never_show_the_password(url: str) -> None:
    result = run_proxy_command("--upstream", url)
    assert result.returncode == 2
    assert PASSWORD not in result.stdout + result.stderr
    assert "user:***@host" in result.stderr


# ---------------------------------------------------------------- the proxy's own errors


def test_unreachable_upstream_is_an_openai_error() -> None:
    port = free_port()
    with proxy(f"http://127.0.0.1:{port}/v1") as px:
        for answer in (
            httpx.get(f"{px.url}/models", timeout=30),
            httpx.post(f"{px.url}/chat/completions", json=chat_request(False), timeout=30),
            httpx.post(f"{px.url}/chat/completions", json=chat_request(True), timeout=30),
        ):
            error = assert_openai_error(answer, 502, "upstream_error")
            assert f"http://127.0.0.1:{port}/v1 could not be reached" in error["message"]


def raw_exchange(px: Proxy, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send ``request`` as bytes; the status, headers and body of the answer (read to the connection's end)."""
    host, port = px.root.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=30) as s:
        s.sendall(request)
        received = b""
        while piece := s.recv(65536):
            received += piece
    head, _, body = received.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in header_lines)}
    if headers.get("transfer-encoding") == "chunked":
        size, _, rest = body.partition(b"\r\n")
        body = rest[: int(size, 16)]
    return int(status_line.split()[1]), headers, body


@pytest.fixture(scope="module")
def up() -> Iterator[Upstream]:
    with upstream() as running:
        yield running


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"GET /v1/models HTTP/1.1\r\nHost: proxy\r\nthis line is no header\r\n\r\n",
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: proxy\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
        b"GET /v1/models HTTP/1.1\r\nHost: proxy\r\nX-Long: " + b"a" * 20000 + b"\r\n\r\n",
    ],
    ids=["header", "chunked-body", "header-too-long"],
)
def test_a_request_the_proxy_cannot_read_is_an_openai_400(up: Upstream, request_bytes: bytes) -> None:
    up.handler = sse_answer([b"data: [DONE]\n\n"])
    with proxy(up.url + "/v1") as px:
        status, headers, body = raw_exchange(px, request_bytes)
        lines = px.access_lines()
    assert status == 400 and headers["content-type"].split(";")[0] == "application/json"
    error = json.loads(body)["error"]
    assert (error["type"], error["code"]) == ("invalid_request_error", 400) and error["message"]
    assert len(lines) == 1 and " 400 " in lines[0]


def test_a_fault_of_the_proxy_is_an_openai_500(up: Upstream) -> None:
    """The repair fails (a bug of the proxy's): a non-streamed answer is a 500 in OpenAI's shape; a stream that has
    started ends with an error event. The log has the traceback (for the bug report), the client does not."""
    message = {"role": "assistant", "content": "Hello"}
    body = {"object": "chat.completion", "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
    with proxy(up.url + "/v1", command=FAULTY) as px:
        up.handler = lambda request, _body: _json(body)
        answer = httpx.post(f"{px.url}/chat/completions", json=chat_request(False), timeout=30)
        error = assert_openai_error(answer, 500, "server_error")
        assert "Traceback" not in error["message"] and "injected" not in error["message"]
        up.handler = sse_answer([data(chunk("Hello")), data(chunk(" world", finish="stop")), b"data: [DONE]\n\n"])
        answer = httpx.post(f"{px.url}/chat/completions", json=chat_request(True), timeout=30)
        assert answer.status_code == 200
        folded = fold_sse(answer.content)
        assert not folded.done and folded.content == ""
        stream_error = folded.chunks[-1]["error"]
        assert (stream_error["type"], stream_error["code"]) == ("server_error", 500)
        log = px.log_text()
    assert log.count("InjectedFault: a fault injected into the repair") == 2


async def _json(value: Any) -> Any:
    from aiohttp import web

    return web.json_response(value)
