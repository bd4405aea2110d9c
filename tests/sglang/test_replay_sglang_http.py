"""The SGLang replay over HTTP (``longcat-plugins serve --replay FILE --engine sglang``): SGLang's own HTTP server,
tokenizer manager and detokenizer, with the stand-in scheduler answering from a recording.

One server (one process tree) for the module, replaying a single recorded LongCat turn for every request:
reasoning, a sentence, then two parallel ``<longcat_tool_call>`` blocks (the second with ``arguments`` before
``name`` and a non-ASCII value). What the official openai client receives is compared with the core's one-shot
parse of the recorded text. A small token delay keeps streams open long enough to disconnect from them.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))
import replay_support as replay
from sglang_support import STANDINS

from tests.support.server import stop_server

pytestmark = pytest.mark.sglang

OUTPUT = replay.PARALLEL_CALLS_OUTPUT
TOKEN_DELAY = "0.01"


def sglang_server_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server process imports what the tests import (SGLang's HTTP server needs the torchvision stand-in here)."""
    import os

    if str(STANDINS) in sys.path:
        monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (str(STANDINS), os.environ.get("PYTHONPATH")) if p))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[replay.Server]:
    recording = replay.write_recording(tmp_path_factory.mktemp("replay") / "turn.jsonl", [{"output": OUTPUT}])
    with pytest.MonkeyPatch.context() as monkeypatch:
        sglang_server_env(monkeypatch)
        with replay.replay_server(recording, "--engine", "sglang", "--token-delay", TOKEN_DELAY) as running:
            yield running


@pytest.fixture(scope="module")
def client(server: replay.Server) -> Any:
    return replay.openai_client(server)


def test_ready_line_and_models(server: replay.Server, client: Any) -> None:
    assert server.url.startswith("http://127.0.0.1:") and server.url.endswith("/v1")
    assert [m.id for m in client.models.list().data] == [replay.MODEL]


def test_non_streaming_tool_calls_and_reasoning(client: Any) -> None:
    response = replay.create(client)
    got = replay.fold_response(response)
    replay.check_parallel_calls(got)
    assert got.reasoning == "Two cities, so two calls in parallel."
    assert len(set(got.ids)) == 2 and all(got.ids)
    assert response.usage.completion_tokens > 0


def test_streaming_tool_calls_and_reasoning(client: Any) -> None:
    chunks = list(replay.create(client, stream=True))
    replay.check_parallel_calls(replay.fold_chunks(chunks))
    replay.check_streamed_in_fragments(chunks)


def test_max_tokens_cut_inside_a_call(client: Any) -> None:
    total = replay.create(client).usage.completion_tokens  # the recorded tokens and the end-of-sequence token
    cuts = sorted({5, total // 2, (2 * total) // 3, total - 8, total - 3})
    replay.check_cuts(client, cuts)


def test_max_tokens_exactly_enough_is_a_normal_finish(client: Any) -> None:
    replay.check_exactly_enough_tokens(client)


@pytest.mark.parametrize("stream", [False, True])
def test_stop_string_ends_the_turn(client: Any, stream: bool) -> None:
    response = replay.create(client, stop=["both"], stream=stream)
    replay.check_stop_string(replay.fold_chunks(response) if stream else replay.fold_response(response))


def test_concurrent_streams_are_whole(client: Any) -> None:
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda _: replay.fold_chunks(replay.create(client, stream=True)), range(8)))
    for got in results:
        assert got.finish_reason == "tool_calls"
        assert got.same_message() == replay.one_pass().same_message()


def test_client_disconnecting_mid_stream(server: replay.Server, client: Any) -> None:
    import httpx

    body = {"model": replay.MODEL, "messages": replay.QUESTION, "tools": replay.TOOLS, "stream": True}
    for _ in range(3):
        with httpx.stream("POST", server.url + "/chat/completions", json=body, timeout=60) as response:
            assert response.status_code == 200
            lines = response.iter_lines()
            received = [next(lines) for _ in range(6)]
        assert any(line.startswith("data: ") for line in received)
    # the server keeps serving, and SGLang's abort reached the scheduler
    got = replay.fold_chunks(replay.create(client, stream=True))
    assert got.same_message() == replay.one_pass().same_message()
    assert replay.fold_response(replay.create(client)).finish_reason == "tool_calls"
    assert "aborted after" in server.log_text()


def test_logprobs_are_refused(client: Any) -> None:
    import openai

    with pytest.raises(openai.BadRequestError) as info:
        replay.create(client, logprobs=True)
    assert info.value.status_code == 400 and "no logprobs" in str(info.value)
    with pytest.raises(openai.APIError) as streamed:
        list(replay.create(client, logprobs=True, stream=True))
    assert "no logprobs" in str(streamed.value)


def test_n_above_one_is_refused(client: Any) -> None:
    replay.check_n_refused(client)
    assert replay.fold_response(replay.create(client)).finish_reason == "tool_calls"


def test_health_generate(server: replay.Server, client: Any) -> None:
    import httpx

    assert httpx.get(server.url.removesuffix("/v1") + "/health_generate", timeout=60).status_code == 200
    assert replay.fold_response(replay.create(client)).same_message() == replay.one_pass().same_message()


def test_server_stops_cleanly_on_sigterm(server: replay.Server) -> None:
    assert stop_server(server.process) == 0
    assert "longcat-plugins serve: stopped" in server.log_text()
