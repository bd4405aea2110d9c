"""The shipped LongCat-Flash-Chat recording end to end: the example agent loop (official openai client) runs
the whole conversation against the replay server, whose recording checks every rendered prompt; and the
README's main-job script, ``scripts/demo.sh``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator

import pytest
from replay_support import (
    AGENT_LOOP,
    AGENT_TRANSCRIPT,
    MODEL,
    REPO,
    SHIPPED_RECORDING,
    Server,
    openai_client,
    replay_server,
)

from longcat_plugins.replay import load_recording

pytestmark = pytest.mark.vllm

TRANSCRIPT = AGENT_TRANSCRIPT


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with replay_server(SHIPPED_RECORDING) as running:
        yield running


def run_agent(server: Server, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(AGENT_LOOP), "--base-url", server.url, *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_shipped_recording_shape() -> None:
    turns = load_recording(SHIPPED_RECORDING)
    assert len(turns) == 2
    assert all(t.expect_prompt for t in turns)
    assert turns[0].output.count("<longcat_tool_call>") == 2
    assert "<longcat_tool_response>" in (turns[1].expect_prompt or "")


def test_a_different_prompt_is_refused_with_a_clear_error(server: Server) -> None:
    import openai

    client = openai_client(server)
    wrong = [{"role": "user", "content": "Something else entirely"}]
    for stream in (False, True):
        with pytest.raises(openai.BadRequestError) as info:
            client.chat.completions.create(model=MODEL, messages=wrong, stream=stream)
        message = str(info.value)
        assert "rendered prompt is not the one recorded for turn 1" in message
        assert "first difference at character 0" in message


@pytest.mark.parametrize("mode", [[], ["--no-stream"]], ids=["streaming", "non-streaming"])
def test_agent_loop_runs_the_recorded_conversation(server: Server, mode: list[str]) -> None:
    # the refused request above did not consume a turn; after the last turn the replay starts again
    result = run_agent(server, *mode)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == TRANSCRIPT


def test_server_shuts_down_cleanly(server: Server) -> None:
    server.process.send_signal(signal.SIGINT)  # Ctrl-C
    assert server.process.wait(timeout=60) == 0
    assert "longcat-plugins serve: stopped" in server.log_text()


def test_demo_script() -> None:
    """``bash scripts/demo.sh``: starts the server, runs the streaming agent loop, stops the server."""
    env = dict(os.environ, LONGCAT_DEMO_PYTHON=sys.executable)  # this environment: no venv build in a test
    process = subprocess.Popen(
        ["bash", str(REPO / "scripts" / "demo.sh")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=REPO,
        start_new_session=True,
    )
    try:
        stdout, stderr = process.communicate(timeout=400)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 0, stdout + stderr
    assert [line for line in stdout.splitlines() if line] == TRANSCRIPT
    assert "server ready at http://127.0.0.1:" in stderr
    with pytest.raises(ProcessLookupError):  # the server the script started is gone
        os.killpg(process.pid, 0)
