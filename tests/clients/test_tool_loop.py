"""The full tool loop through every client: the model reasons and calls the tool twice in parallel, the client
runs the local tool on both calls, sends the results back, and gets the final answer; streaming and not, in the
LongCat JSON and key/value dialects. The follow-up turn of each recording carries the prompt the template must
render, so a passing loop proves both calls and both results reached the next prompt."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import scenario
from clients import CELLS
from harness import Server
from matrix import cell_params, server_params

RECORDINGS = ("weather_json", "weather_key_value")


def realign(server: Server) -> None:
    """After a failed loop, finish the recording's conversation so the next test starts at its first turn.

    The canonical follow-up is refused (and consumes nothing) when the server already waits for a first turn.
    """
    messages = scenario.follow_up_messages()
    httpx.post(
        f"{server.url}/chat/completions",
        json={"model": scenario.MODEL, "messages": messages, "tools": scenario.TOOLS},
        timeout=60,
    )


def post_chat(server: Server, messages: list[dict[str, Any]]) -> httpx.Response:
    return httpx.post(
        f"{server.url}/chat/completions",
        json={"model": scenario.MODEL, "messages": messages, "tools": scenario.TOOLS},
        timeout=60,
    )


@pytest.mark.parametrize(
    ("server", "cell", "stream"), cell_params("loop", RECORDINGS), indirect=["server"], scope="module"
)
def test_tool_loop(server: Server, cell: str, stream: bool) -> None:
    try:
        loop = CELLS[cell].loop(server, stream)
    except BaseException:
        realign(server)
        raise
    assert loop.calls == [("get_weather", args) for args in scenario.CALL_ARGUMENTS]
    assert loop.answer == scenario.ANSWER
    if ("stream" if stream else "whole") in CELLS[cell].reasoning_in:
        assert loop.reasoning == scenario.REASONING
    assert len(set(loop.call_ids)) == len(loop.call_ids) and all(loop.call_ids)


@pytest.mark.parametrize("server", server_params(RECORDINGS), indirect=True, scope="module")
def test_wrong_follow_up_is_refused(server: Server) -> None:
    """The prompt check has teeth: a follow-up that lost a tool result gets a 400, the right one then passes."""
    first = post_chat(server, [{"role": "user", "content": scenario.QUESTION}])
    assert first.status_code == 200, first.text
    assert first.json()["choices"][0]["finish_reason"] == "tool_calls"
    right = scenario.follow_up_messages()
    for wrong in (
        right[:-1],
        [*right[:2], right[3], right[2]],
        [{**right[0], "content": "Weather in Paris?"}, *right[1:]],
    ):
        refused = post_chat(server, wrong)
        assert refused.status_code == 400, refused.text
        assert "rendered prompt is not the one recorded" in refused.text
    accepted = post_chat(server, right)
    assert accepted.status_code == 200, accepted.text
    assert accepted.json()["choices"][0]["message"]["content"] == scenario.ANSWER
