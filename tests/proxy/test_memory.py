"""Many concurrent streams through the proxy with flat memory: the proxy's resident size (its process, read from
/proc) grows by far less than what passes through it, during the streams and after them."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import httpx
import pytest
from aiohttp import web
from proxy_support import Upstream, chat_request, chunk, data, fold_sse, proxy, upstream

STREAMS = 32
EVENTS = 512
PIECE = "All quiet in Paris today. " * 40  # ~1 KiB of content an event: 512 KiB a stream, 16 MiB a round
MIB = 1024

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")


async def long_answer(request: web.Request, body: bytes) -> web.StreamResponse:
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    await response.prepare(request)
    await response.write(data(chunk("", role="assistant")))
    for _ in range(EVENTS):
        await response.write(data(chunk(PIECE)))
    await response.write(data(chunk("", finish="stop")) + b"data: [DONE]\n\n")
    return response


async def one_round(url: str) -> list[int]:
    async with httpx.AsyncClient(timeout=300) as client:

        async def one() -> int:
            answer = await client.post(f"{url}/chat/completions", json=chat_request(True))
            folded = fold_sse(answer.content)
            assert folded.done and folded.finish_reason == "stop"
            assert folded.content == PIECE * EVENTS
            return len(answer.content)

        return await asyncio.gather(*(one() for _ in range(STREAMS)))


def test_concurrent_streams_keep_memory_flat() -> None:
    with upstream(long_answer) as up, proxy(up.url) as px:
        assert isinstance(up, Upstream)
        asyncio.run(one_round(px.url))  # warm-up: imports, buffers, the allocator's pools
        before = px.rss_kib()
        peak = before
        done = threading.Event()

        def sample() -> None:
            nonlocal peak
            while not done.is_set():
                peak = max(peak, px.rss_kib())
                time.sleep(0.01)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        passed = 0
        try:
            for _ in range(3):
                passed += sum(asyncio.run(one_round(px.url)))
        finally:
            done.set()
            sampler.join()
        after = px.rss_kib()
    print(
        f"proxy RSS {before / MIB:.1f} MiB before, peak {peak / MIB:.1f}, after {after / MIB:.1f}; "
        f"{passed / MIB / 1024:.0f} MiB passed through in {3 * STREAMS} streams"
    )
    # generous margins: one round is ~30 MiB through the proxy (16 MiB of content, JSON-framed), three rounds ~90
    assert peak - before < 24 * MIB
    assert after - before < 12 * MIB
