"""Load and faults over HTTP against the replay server (vLLM's own front end with our parsers), loopback only.

One server for the module, replaying a recording of 64 turns written here by a deterministic generator: each turn
is reasoning, a sentence and two calls (a ``write_file`` with a long code-like ``content``, a ``run_command`` with
typed values) in one of the dialects LongCat JSON, key/value and XML function, or a long plain answer. Every
reply is folded as an agent folds it and compared whole (content, reasoning, each call's name and arguments as
JSON, finish_reason) with the message its turn must give; each turn names itself in its reasoning, so replies can
be matched to turns whatever order the server accepted the requests in.

- 64 streams at once, every reply exact, each turn once;
- requests declaring 200 tools, streamed and not, at once with ordinary ones;
- clients that hang up (before the response, mid-body, after k events, with FIN or RST) interleaved with
  ordinary requests, round after round: the ordinary replies stay exact, the server is done with every request
  afterwards (its /metrics request count), and its resident memory and file descriptors do not grow from round
  to round. The hanging-up clients send a long conversation, so a request the server fails to release is large;
- a stream whose client hangs up after a few events costs the server much less CPU than one read to the end.

scripts/load.py runs the same phases at full size and prints the figures.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Iterator
from typing import Any

import pytest
from load_support import (
    BASE_TOOLS,
    Expected,
    Phase,
    canonical,
    chat_body,
    long_text,
    make_recording,
    make_turn,
    many_tools,
    process_usage,
    random_hangups,
    run_phase,
    wait_fds,
)
from replay_support import MODEL, Server, replay_server

pytestmark = pytest.mark.vllm

TURNS = 64
ARGUMENT_CHARS = 6_000
MANY_TOOLS = 200
HANGUP_PROMPT_CHARS = 60_000
HANGUPS_PER_ROUND = 48
REQUESTS_PER_ROUND = 8
ROUNDS = 3  # after a warm-up round
MAX_EVENTS_BEFORE_HANGUP = 300
# Resident memory may move by some megabytes between rounds (allocator, caches); a server that keeps what the
# hung-up requests held grows by tens of megabytes every round with these prompts.
RSS_SLACK_MB = 40.0
FD_SLACK = 2


@pytest.fixture(scope="module")
def load(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, list[Expected]]]:
    recording, expected = make_recording(tmp_path_factory.mktemp("load"), TURNS, ARGUMENT_CHARS)
    with replay_server(recording) as server:
        yield server, expected


def phase(server: Server, expected: list[Expected], name: str, bodies: list[dict[str, Any]], **kw: Any) -> Phase:
    return asyncio.run(run_phase(name, server.url, server.process.pid, expected, bodies, **kw))


def test_recording_turns_parse_to_their_expected_messages() -> None:
    """The generator and the core parser agree on every turn, so a failure below is the server's."""
    from longcat_plugins.core import ParserOptions, parse

    tools = many_tools(MANY_TOOLS)
    for number in range(TURNS):
        output, want = make_turn(number, 500)
        message = parse(output, tools, ParserOptions())
        calls = tuple((c.name, canonical(json.loads(c.arguments))) for c in message.tool_calls)
        assert (message.content, message.reasoning, calls) == (want.content, want.reasoning, want.calls), number


def test_many_tools_are_distinct_and_valid() -> None:
    tools = many_tools(MANY_TOOLS)
    names = [t["function"]["name"] for t in tools]
    assert len(set(names)) == MANY_TOOLS
    assert tools[: len(BASE_TOOLS)] == BASE_TOOLS
    assert all(t["function"]["parameters"]["required"][0] in t["function"]["parameters"]["properties"] for t in tools)


def test_64_concurrent_streams_all_exact(load: tuple[Server, list[Expected]]) -> None:
    server, expected = load
    bodies = [chat_body(BASE_TOOLS, True, MODEL) for _ in range(TURNS)]
    result = phase(server, expected, "streams", bodies, concurrency=TURNS)
    assert not result.failures, "\n".join(result.failures[:5])
    assert sorted(result.turns) == list(range(TURNS)), "each of the 64 consecutive requests gets the next turn"
    assert result.settled
    assert result.completion_tokens > TURNS * ARGUMENT_CHARS // 8  # the whole turns were streamed


def test_200_tools_streamed_and_not_with_ordinary_requests(load: tuple[Server, list[Expected]]) -> None:
    server, expected = load
    tools = many_tools(MANY_TOOLS)
    bodies = [chat_body(tools, i % 2 == 0, MODEL) for i in range(8)]
    bodies += [chat_body(BASE_TOOLS, i % 2 == 0, MODEL) for i in range(8)]
    result = phase(server, expected, "200 tools", bodies, concurrency=16)
    assert not result.failures, "\n".join(result.failures[:5])
    assert result.exact == len(bodies)
    assert result.settled


def hangup_round(server: Server, expected: list[Expected], number: int) -> Phase:
    rng = random.Random(number)
    conversation = long_text(HANGUP_PROMPT_CHARS, random.Random(1000 + number))
    plans = random_hangups(HANGUPS_PER_ROUND, rng, MAX_EVENTS_BEFORE_HANGUP)
    hangups = [(chat_body(BASE_TOOLS, plan.stream, MODEL, conversation), plan) for plan in plans]
    bodies = [chat_body(BASE_TOOLS, i % 2 == 0, MODEL) for i in range(REQUESTS_PER_ROUND)]
    return phase(server, expected, f"hang-ups {number}", bodies, hangups=hangups, seed=number)


def test_clients_that_hang_up_leave_nothing_behind(load: tuple[Server, list[Expected]]) -> None:
    server, expected = load
    pid = server.process.pid
    rounds = [hangup_round(server, expected, number) for number in range(ROUNDS + 1)]
    for result in rounds:
        assert not result.failures, f"{result.name}:\n" + "\n".join(result.failures[:5])
        assert result.exact == REQUESTS_PER_ROUND
        assert result.settled, f"{result.name}: the server is still busy with requests whose clients left"
        assert result.running == 0, f"{result.name}: the engine still runs {result.running} request(s)"
    warm = rounds[0].after
    growth = [round(r.after.rss_mb - warm.rss_mb, 1) for r in rounds[1:]]
    assert growth[-1] < RSS_SLACK_MB, f"resident memory after each round, above the warm-up round: {growth} MB"
    fds = asyncio.run(wait_fds(pid, warm.fds + FD_SLACK))
    assert fds <= warm.fds + FD_SLACK, f"open file descriptors: {fds}, after the warm-up round: {warm.fds}"
    cpu = process_usage(pid).cpu_s
    time.sleep(2.0)
    idle = process_usage(pid).cpu_s - cpu
    assert idle < 1.0, f"the server used {idle:.2f} s of CPU in 2 s with no request (abandoned work?)"
    log = server.log_text()
    assert "Traceback" not in log and "ERROR" not in log, log[-3000:]
