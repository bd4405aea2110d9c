"""The replay server over HTTP with the official openai client: tool calls streamed and not, truncation,
errors.

One server (one subprocess) for the module, started with ``vllm serve``'s request-logging flags after ``--``,
replaying a single recorded LongCat turn for every request:
reasoning, a sentence, then two parallel ``<longcat_tool_call>`` blocks (the second with ``arguments`` before
``name`` and a non-ASCII value). What the client receives is compared with the core's one-shot parse of the
recorded text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from replay_support import (
    MODEL,
    PARALLEL_CALLS,
    PARALLEL_CALLS_OUTPUT,
    QUESTION,
    TOOLS,
    Server,
    check_cuts,
    check_exactly_enough_tokens,
    check_n_refused,
    check_parallel_calls,
    check_stop_string,
    check_streamed_in_fragments,
    create,
    fold_chunks,
    fold_response,
    json_arguments,
    one_pass,
    openai_client,
    replay_server,
    write_recording,
)

from tests.support.server import stop_server

pytestmark = pytest.mark.vllm

OUTPUT = PARALLEL_CALLS_OUTPUT
LOG_FLAGS = ("--enable-log-requests", "--enable-log-outputs", "--max-log-len", "400")
EXPECTED_CALLS = PARALLEL_CALLS


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    recording = write_recording(tmp_path_factory.mktemp("replay") / "turn.jsonl", [{"output": OUTPUT}])
    with replay_server(recording, "--", *LOG_FLAGS) as running:
        yield running


@pytest.fixture(scope="module")
def client(server: Server) -> Any:
    return openai_client(server)


def test_models_endpoint(client: Any) -> None:
    assert [m.id for m in client.models.list().data] == [MODEL]


def test_non_streaming_tool_calls(client: Any) -> None:
    response = create(client)
    got = fold_response(response)
    check_parallel_calls(got)
    assert got.reasoning == "Two cities, so two calls in parallel."
    assert len(set(got.ids)) == 2 and all(got.ids)
    assert response.choices[0].message.role == "assistant"
    assert response.usage.completion_tokens > 0


def test_streaming_chunk_deltas(client: Any) -> None:
    chunks = list(create(client, stream=True))
    got = fold_chunks(chunks)
    check_parallel_calls(got)
    assert len(set(got.ids)) == 2
    check_streamed_in_fragments(chunks)


def test_openai_stream_helper(client: Any) -> None:
    """The client's own accumulation: ``client.chat.completions.stream(...)`` and its final completion."""
    with client.chat.completions.stream(model=MODEL, messages=QUESTION, tools=TOOLS) as stream:
        events = [event.type for event in stream]
        final = stream.get_final_completion()
    got = fold_response(final)
    assert got.finish_reason == "tool_calls"
    assert json_arguments(got) == EXPECTED_CALLS
    assert got.content == one_pass().content
    assert "tool_calls.function.arguments.done" in events


def test_streaming_usage(client: Any) -> None:
    chunks = list(create(client, stream=True, stream_options={"include_usage": True}))
    usage = [c.usage for c in chunks if c.usage is not None]
    assert len(usage) == 1 and usage[0].completion_tokens == create(client).usage.completion_tokens


def test_truncation_gives_length_and_valid_json(client: Any) -> None:
    total = create(client).usage.completion_tokens  # the recorded tokens and the end-of-sequence token
    cuts = sorted({1, 5, 12, 20, total // 3, total // 2, (2 * total) // 3, total - 8, total - 3, total - 1})
    check_cuts(client, cuts)


def test_max_tokens_exactly_enough_is_a_normal_stop(client: Any) -> None:
    check_exactly_enough_tokens(client)


def test_stop_string_ends_the_turn(client: Any) -> None:
    check_stop_string(fold_response(create(client, stop=["both"])))


def test_unknown_model_is_the_engines_404(client: Any) -> None:
    import openai

    with pytest.raises(openai.NotFoundError) as info:
        client.chat.completions.create(model="no-such-model", messages=QUESTION)
    assert info.value.status_code == 404
    assert "does not exist" in str(info.value)


@pytest.mark.parametrize("stream", [False, True])
def test_invalid_max_tokens_is_the_engines_400(client: Any, stream: bool) -> None:
    import openai

    with pytest.raises(openai.BadRequestError) as info:
        create(client, max_tokens=-3, stream=stream)
    assert info.value.status_code == 400
    assert "max_tokens" in str(info.value)


def test_invalid_tool_choice_is_a_400(client: Any) -> None:
    import openai

    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(
            model=MODEL,
            messages=QUESTION,
            tools=TOOLS,
            tool_choice={"type": "function", "function": {"name": "nope"}},
        )


def test_n_above_one_is_refused(client: Any) -> None:
    check_n_refused(client)


def test_still_serving_after_errors(client: Any) -> None:
    assert fold_response(create(client)).finish_reason == "tool_calls"


def check_logprobs(entries: list[Any], top: int) -> list[str]:
    """A replay is certain of every token: logprob 0.0, itself the most likely of the top ``top``, every other
    token at vLLM's floor of -9999.0. Returns the tokens."""
    for entry in entries:
        assert entry.logprob == 0.0
        assert len(entry.top_logprobs) == top
        assert (entry.top_logprobs[0].token, entry.top_logprobs[0].logprob) == (entry.token, 0.0)
        assert [alt.logprob for alt in entry.top_logprobs[1:]] == [-9999.0] * (top - 1)
        assert len({alt.token for alt in entry.top_logprobs}) == top
        assert entry.bytes == list(entry.token.encode("utf-8"))
    return [entry.token for entry in entries]


def test_logprobs_non_streaming(client: Any) -> None:
    response = create(client, logprobs=True, top_logprobs=2)
    tokens = check_logprobs(response.choices[0].logprobs.content, 2)
    assert "".join(tokens) == OUTPUT + "</longcat_s>"  # every generated token, end-of-sequence included
    assert len(tokens) == response.usage.completion_tokens
    assert fold_response(response).same_message() == one_pass().same_message()


def test_logprobs_streaming(client: Any) -> None:
    chunks = list(create(client, logprobs=True, top_logprobs=2, stream=True))
    entries = [e for c in chunks for choice in c.choices if choice.logprobs for e in choice.logprobs.content or []]
    tokens = check_logprobs(entries, 2)
    whole = create(client, logprobs=True, top_logprobs=2)
    assert tokens == [entry.token for entry in whole.choices[0].logprobs.content]
    assert fold_chunks(chunks).same_message() == one_pass().same_message()


def test_logprobs_without_top_logprobs(client: Any) -> None:
    entries = create(client, logprobs=True).choices[0].logprobs.content
    assert entries and all(e.logprob == 0.0 and e.top_logprobs == [] for e in entries)


def test_prompt_logprobs_are_a_clear_400(client: Any) -> None:
    import openai

    with pytest.raises(openai.BadRequestError) as info:  # (with stream=True vLLM itself refuses them)
        create(client, extra_body={"prompt_logprobs": 1})
    assert "no prompt logprobs" in str(info.value)


def test_vllm_logging_as_vllm_serve_sets_it_up(client: Any, server: Server) -> None:
    assert fold_response(create(client)).finish_reason == "tool_calls"
    log = server.log_text()
    # vLLM's own INFO lines, in vLLM's format, from the API server process
    assert re.search(r"^\(APIServer pid=\d+\) INFO .*Starting vLLM server on http://", log, re.MULTILINE), log[-3000:]
    assert "Route: /v1/chat/completions, Methods: POST" in log
    # --enable-log-requests: the serving layer's request logger and the engine's lines
    assert re.search(r"INFO .*Received request chatcmpl-\S+: params: SamplingParams\(", log), log[-3000:]
    assert re.search(r"INFO .*Added request chatcmpl-", log)
    # --enable-log-outputs: the response's content and finish reason
    generated = r"INFO .*Generated response chatcmpl-\S+: output: .*check both cities.*finish_reason: tool_calls"
    assert re.search(generated, log)
    # uvicorn's access log, on as in vllm serve
    assert '"POST /v1/chat/completions HTTP/1.1" 200' in log


def test_engine_metrics_as_vllm_serve_exports_them(client: Any, server: Server) -> None:
    import httpx

    def counter(name: str) -> float:
        text = httpx.get(server.url.removesuffix("/v1") + "/metrics", timeout=30).text
        values = [float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(name + "{")]
        assert values, f"{name} is not exported"
        return sum(values)

    before = counter("vllm:generation_tokens_total"), counter("vllm:prompt_tokens_total")
    usage = create(client).usage
    after = counter("vllm:generation_tokens_total"), counter("vllm:prompt_tokens_total")
    assert (after[0] - before[0], after[1] - before[1]) == (usage.completion_tokens, usage.prompt_tokens)
    assert counter("vllm:num_requests_running") == 0


def test_server_stops_cleanly_on_sigterm(server: Server) -> None:
    assert stop_server(server.process) == 0
    log = server.log_text()
    assert "Application shutdown complete" in log
    assert "longcat-plugins serve: stopped" in log
    assert "Traceback" not in log


def test_recording_errors_are_usage_errors(tmp_path: Path) -> None:
    import subprocess
    import sys

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"output": "ok"}\n{"outptu": "typo"}\n', encoding="utf-8")
    for path, message in ((tmp_path / "missing.jsonl", "no such file"), (bad, "bad.jsonl:2: unknown key")):
        result = subprocess.run(
            [sys.executable, "-m", "longcat_plugins", "serve", "--replay", str(path)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 2, result.stderr
        assert message in result.stderr
        assert "Traceback" not in result.stderr
