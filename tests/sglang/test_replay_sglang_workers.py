"""The SGLang replay with several HTTP workers (``--tokenizer-worker-num 2``): SGLang's multi-tokenizer path,
whose workers import the app from ``SGLANG_HTTP_SERVER_APP_PATH`` (``longcat_plugins.sglang.http_app:app``, which
registers our parsers first) and share one scheduler through SGLang's tokenizer router.

One server for the module, replaying the shipped LongCat-Flash-Chat recording, whose turns check every rendered
prompt: the example agent loop runs the whole conversation (a second request continues the recording), streamed
and not. Which worker accepts a connection on SGLang's shared socket is the kernel's choice (on a busy machine one
worker can take every connection), so the check that both workers answer with our parsers runs on a second server
with SGLang's ``--enable-http-worker-reuseport``, where each worker has its own listener and connections are spread
by their addresses.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))
from replay_support import (
    AGENT_LOOP,
    AGENT_TRANSCRIPT,
    MODEL,
    SHIPPED_RECORDING,
    Server,
    openai_client,
    read_stream,
    replay_server,
)
from test_replay_sglang_http import sglang_server_env

from tests.support.server import stop_server

pytestmark = pytest.mark.sglang

TRANSCRIPT = AGENT_TRANSCRIPT
MISMATCH = "rendered prompt is not the one recorded for turn 1"
_TURN_LINE = re.compile(r"request \S+ \(HTTP worker (\S+)\) gets turn (\d+)")
MAX_AGENT_RUNS = 24


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with pytest.MonkeyPatch.context() as monkeypatch:
        sglang_server_env(monkeypatch)
        with replay_server(SHIPPED_RECORDING, "--engine", "sglang", "--tokenizer-worker-num", "2") as running:
            yield running


@pytest.fixture(scope="module")
def reuseport_server() -> Iterator[Server]:
    with pytest.MonkeyPatch.context() as monkeypatch:
        sglang_server_env(monkeypatch)
        extra = ("--tokenizer-worker-num", "2", "--", "--enable-http-worker-reuseport")
        with replay_server(SHIPPED_RECORDING, "--engine", "sglang", *extra) as running:
            yield running


def run_agent(server: Server, *args: str) -> list[str]:
    result = subprocess.run(
        [sys.executable, str(AGENT_LOOP), "--base-url", server.url, *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.splitlines()


def workers_with_turns(server: Server) -> dict[str, set[int]]:
    seen: dict[str, set[int]] = {}
    for worker, turn in _TURN_LINE.findall(server.log_text()):
        seen.setdefault(worker, set()).add(int(turn))
    return seen


@pytest.mark.parametrize("mode", [[], ["--no-stream"]], ids=["streaming", "non-streaming"])
def test_agent_loop_runs_the_recorded_conversation(server: Server, mode: list[str]) -> None:
    assert run_agent(server, *mode) == TRANSCRIPT


def test_a_different_prompt_is_refused_and_does_not_take_the_turn(server: Server) -> None:
    import httpx
    import openai

    client = openai_client(server)
    wrong = [{"role": "user", "content": "Something else entirely"}]
    with pytest.raises(openai.BadRequestError) as info:  # the scheduler's refusal: SGLang's HTTP 400
        client.chat.completions.create(model=MODEL, messages=wrong)
    assert info.value.status_code == 400
    assert MISMATCH in str(info.value) and "first difference at character 0" in str(info.value)
    # streaming: SGLang has sent its 200 by then and reports the refusal as an error event in the stream
    with pytest.raises(openai.APIError) as streamed:
        read_stream(client.chat.completions.create(model=MODEL, messages=wrong, stream=True))
    assert MISMATCH in str(streamed.value)
    # SGLang's generation health check is answered without taking a turn either
    assert httpx.get(server.url.removesuffix("/v1") + "/health_generate", timeout=60).status_code == 200
    assert run_agent(server) == TRANSCRIPT


def test_both_workers_answer_with_our_parsers(reuseport_server: Server) -> None:
    """Each agent run is a new client on new connections (from new source ports, which the kernel spreads over the
    workers' listeners); runs go on until both workers have served requests, and every run gets the exact transcript
    (tool calls and text parsed by ``longcat`` in whichever worker)."""
    assert "SO_REUSEPORT workers" in reuseport_server.log_text()
    for _ in range(MAX_AGENT_RUNS):
        if len(workers_with_turns(reuseport_server)) >= 2:
            break
        assert run_agent(reuseport_server, "--no-stream") == TRANSCRIPT
    seen = workers_with_turns(reuseport_server)
    assert len(seen) == 2, f"requests reached only {sorted(seen)} in {MAX_AGENT_RUNS} agent runs"
    assert set().union(*seen.values()) == {1, 2}
    assert stop_server(reuseport_server.process) == 0


def test_server_stops_cleanly(server: Server) -> None:
    assert stop_server(server.process) == 0
    assert "longcat-plugins serve: stopped" in server.log_text()
