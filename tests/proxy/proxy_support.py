"""What the proxy's tests share: the proxy as a process, a tiny upstream app in a thread, reading an SSE answer."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
import threading
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web

from tests.support.server import running

REPO = Path(__file__).resolve().parents[2]


@dataclass
class Proxy:
    url: str  # ends in /v1
    pid: int
    log: Path

    @property
    def root(self) -> str:
        return self.url.removesuffix("/v1")

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def access_lines(self) -> list[str]:
        """The access log: one line a request."""
        return [line for line in self.log_text().splitlines() if ACCESS.search(line)]

    def rss_kib(self) -> int:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise AssertionError("no VmRSS")


#: an access-log line: the logger's name, then the method and path
ACCESS = re.compile(r"\baccess: [A-Z]+ /")
#: the command that runs ``longcat-plugins proxy`` (its arguments follow)
PROXY_COMMAND = ("-m", "longcat_plugins", "proxy")


def proxy_env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))


@contextmanager
def proxy(upstream: str, *args: str, command: Sequence[str] = PROXY_COMMAND) -> Iterator[Proxy]:
    """``longcat-plugins proxy --upstream UPSTREAM --port 0 ARGS`` in this interpreter, until the block ends
    (``command``: another script taking the proxy's arguments)."""
    argv = [sys.executable, *command, "--upstream", upstream, "--port", "0", *args]
    with running(argv, "proxy", REPO, proxy_env()) as started:
        yield Proxy(started.url, started.process.pid, started.log)


Handler = Callable[[web.Request, bytes], Awaitable[web.StreamResponse]]


@dataclass
class Seen:
    method: str
    path_qs: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Upstream:
    """A tiny aiohttp server in a thread of its own: it records each request and answers with ``handler``."""

    handler: Handler | None = None
    url: str = ""
    seen: list[Seen] = field(default_factory=list)
    loop: asyncio.AbstractEventLoop | None = None
    #: set by a handler when its client went away (see :func:`until_disconnected`)
    disconnected: threading.Event = field(default_factory=threading.Event)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        self.seen.append(Seen(request.method, request.rel_url.raw_path_qs, dict(request.headers), body))
        assert self.handler is not None
        return await self.handler(request, body)


@contextmanager
def upstream(handler: Handler | None = None) -> Iterator[Upstream]:
    up = Upstream(handler)
    ready = threading.Event()
    stop: list[Callable[[], None]] = []

    def serve() -> None:
        async def main() -> None:
            app = web.Application(client_max_size=1 << 30)
            app.router.add_route("*", "/{path:.*}", up._handle)
            runner = web.AppRunner(app, handler_cancellation=True, access_log=None)
            await runner.setup()
            site = web.TCPSite(runner, "127.0.0.1", 0)
            await site.start()
            up.url = f"http://127.0.0.1:{runner.addresses[0][1]}"
            up.loop = asyncio.get_running_loop()
            done = asyncio.Event()
            stop.append(lambda: up.loop.call_soon_threadsafe(done.set) if up.loop else None)
            ready.set()
            await done.wait()
            await runner.cleanup()

        asyncio.run(main())

    thread = threading.Thread(target=serve, name="upstream", daemon=True)
    thread.start()
    assert ready.wait(30), "the test upstream did not start"
    try:
        yield up
    finally:
        stop[0]()
        thread.join(30)


def sse_answer(events: list[bytes], *, pause: float = 0.0) -> Handler:
    """A handler streaming ``events`` (raw bytes, written one by one) as ``text/event-stream``."""

    async def handler(request: web.Request, body: bytes) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for raw in events:
            await response.write(raw)
            if pause:
                await asyncio.sleep(pause)
        await response.write_eof()
        return response

    return handler


def chunk(content: str | None = None, finish: str | None = None, **delta: Any) -> dict[str, Any]:
    """A chat-completion chunk of one choice."""
    if content is not None:
        delta["content"] = content
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def data(value: Any) -> bytes:
    return b"data: " + json.dumps(value).encode() + b"\n\n"


@dataclass
class Folded:
    """A streamed answer as a client sees it: the data events' JSON, [DONE], and anything else."""

    chunks: list[dict[str, Any]]
    done: bool
    other: list[str]

    @property
    def content(self) -> str:
        return "".join(c["choices"][0]["delta"].get("content") or "" for c in self.chunks if c.get("choices"))

    @property
    def finish_reason(self) -> str | None:
        reasons = [c["choices"][0].get("finish_reason") for c in self.chunks if c.get("choices")]
        return next((r for r in reversed(reasons) if r), None)


def fold_sse(raw: bytes) -> Folded:
    """Read an SSE answer leniently (what a client would make of it): data events' JSON, [DONE], other lines."""
    chunks: list[dict[str, Any]] = []
    other: list[str] = []
    done = False
    for block in raw.decode("utf-8", "replace").split("\n\n"):
        if not block.strip():
            continue
        if block.startswith("data: "):
            text = block.removeprefix("data: ")
            if text == "[DONE]":
                done = True
                continue
            try:
                chunks.append(json.loads(text))
                continue
            except ValueError:
                pass
        other.append(block)
    return Folded(chunks, done, other)


TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather for a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]


def chat_request(stream: bool, **extra: Any) -> dict[str, Any]:
    return {
        "model": "m",
        "messages": [{"role": "user", "content": "Weather in Paris?"}],
        "tools": TOOLS,
        "stream": stream,
        **extra,
    }
