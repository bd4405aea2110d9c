"""One access-log line a request, however it ends, and no error in the log when a client closes its connection.

The official sync ``openai`` client closes the response as soon as it reads ``[DONE]``; here the upstream ends its
answer after ``[DONE]`` at once or after a short pause, or keeps writing a little (comments, with small gaps), so
that the client's close meets the proxy at every point of the end of a stream: relaying what follows ``[DONE]``,
or writing the end of the answer. Other clients close in the middle of a stream (the upstream writes until its
client goes away), or read the answer to its end."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from aiohttp import web
from openai import OpenAI
from proxy_support import TOOLS, Proxy, Upstream, chat_request, chunk, data, fold_sse, proxy, upstream

GAP = 0.02
#: what the upstream sends after [DONE]: (comments, seconds before each and before the end of the answer)
TAILS = [(0, 0.0), (0, 0.001), (0, 0.002), (0, 0.003), (0, 0.005), (0, 0.01), (0, GAP), (1, 0.003), (2, GAP)]
ROUNDS = 30  # each round: two streams read to [DONE], one closed in the middle, one read to its end
WORKERS = 6
QUESTION = [{"role": "user", "content": "Weather in Paris?"}]


async def answer(request: web.Request, body: bytes) -> web.StreamResponse:
    """A stream with gaps, then the tail ``"user": "tail-N"`` names; ``"user": "endless"``: ticks until the client
    goes away (at most 30 s)."""
    user = json.loads(body).get("user", "")
    endless = user == "endless"
    comments, pause = TAILS[int(user.removeprefix("tail-"))] if user.startswith("tail-") else (0, 0.0)
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    await response.prepare(request)
    await response.write(data(chunk("", role="assistant")))
    for _ in range(int(30 / GAP) if endless else 2):
        await asyncio.sleep(GAP)
        await response.write(data(chunk("tick ")))
    await asyncio.sleep(GAP)
    await response.write(data(chunk(finish="stop")))
    await response.write(b"data: [DONE]\n\n")
    for _ in range(comments):
        await asyncio.sleep(pause)
        await response.write(b": still here\n\n")
    if pause:
        await asyncio.sleep(pause)
    await response.write_eof()
    return response


@pytest.fixture(scope="module")
def up() -> Iterator[Upstream]:
    with upstream(answer) as running:
        yield running


@pytest.fixture(scope="module")
def px(up: Upstream) -> Iterator[Proxy]:
    with proxy(up.url + "/v1") as running:
        yield running


def to_done(client: OpenAI, round_: int) -> None:
    """The sync client reads to ``[DONE]`` and closes the response there."""
    tail = f"tail-{round_ % len(TAILS)}"
    pieces = list(client.chat.completions.create(model="m", messages=QUESTION, tools=TOOLS, stream=True, user=tail))
    assert pieces[-1].choices[0].finish_reason == "stop"


def to_done_too(client: OpenAI, round_: int) -> None:
    to_done(client, round_ + len(TAILS) // 2)


def mid_stream(client: OpenAI, round_: int) -> None:
    stream = client.chat.completions.create(model="m", messages=QUESTION, tools=TOOLS, stream=True, user="endless")
    next(iter(stream))
    stream.close()


def to_the_end(client: OpenAI, round_: int) -> None:
    answer = httpx.post(f"{client.base_url}chat/completions", json=chat_request(True), timeout=60)
    assert answer.status_code == 200 and fold_sse(answer.content).done


def wait_for_lines(px: Proxy, count: int) -> list[str]:
    """The access lines, once there are ``count`` of them (a bound against a hang, not a speed requirement)."""
    deadline = time.monotonic() + 60
    while len(px.access_lines()) < count and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.5)  # a line too many would show up by now
    return px.access_lines()


def test_every_request_has_one_access_line_and_a_close_is_no_error(px: Proxy) -> None:
    client = OpenAI(base_url=px.url, api_key="sk-test", max_retries=0, timeout=60)
    kinds: list[Callable[[OpenAI, int], None]] = [to_done, to_done_too, mid_stream, to_the_end]
    before = len(px.access_lines())
    with ThreadPoolExecutor(WORKERS) as pool:
        for done in [pool.submit(kind, client, round_) for round_ in range(ROUNDS) for kind in kinds]:
            done.result()
    lines = wait_for_lines(px, before + len(kinds) * ROUNDS)[before:]
    assert len(lines) == len(kinds) * ROUNDS
    assert all("POST /v1/chat/completions 200 " in line for line in lines), lines
    closed = [line for line in lines if line.endswith(" client closed")]
    assert ROUNDS <= len(closed) <= 3 * ROUNDS  # every stream closed in the middle; some of those read to [DONE]
    log = px.log_text()
    assert " ERROR " not in log and "Traceback" not in log, log[-4000:]
