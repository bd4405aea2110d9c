"""``longcat-plugins proxy --reasoning`` in front of the replay server without our parsers (``serve --no-parsers``):
the recording's template pre-fills ``<think>``, so the model's output starts inside reasoning and the upstream
leaves ``...</think>`` in the content. What the official ``openai`` client gets through the proxy, streamed and not,
must equal what the replay server WITH our parsers (``--reasoning-parser longcat``, which reads the prompt) serves:
reasoning, content, calls, finish reason. The proxy sees no prompt: the closer with no opener says the text before
it was reasoning; a request that switches thinking off starts outside reasoning. Without ``--reasoning`` the content
stays as sent (the existing repair of calls only)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from proxy_support import Proxy, proxy
from test_replay import openai_turn, replay

RECORDING = Path(__file__).resolve().parent / "recordings" / "weather_xml_thinking.jsonl"
MODEL = "Qwen3-Coder"
THOUGHT = "Two cities, so two get_weather calls in parallel, both in celsius."
NO_THINKING = {"chat_template_kwargs": {"enable_thinking": False}}


@pytest.fixture(scope="module")
def oracle() -> Iterator[str]:
    with replay(recording=RECORDING) as started:
        yield started.url


@pytest.fixture(scope="module")
def bare() -> Iterator[str]:
    with replay("--no-parsers", recording=RECORDING) as started:
        yield started.url


@pytest.fixture(scope="module")
def px_reasoning(bare: str) -> Iterator[Proxy]:
    with proxy(bare, "--reasoning") as running_proxy:
        yield running_proxy


@pytest.fixture(scope="module")
def px_plain(bare: str) -> Iterator[Proxy]:
    with proxy(bare) as running_proxy:
        yield running_proxy


def turn(url: str, stream: bool, extra_body: Any = None, tools: bool = True) -> dict[str, Any]:
    return openai_turn(url, stream, model=MODEL, extra_body=extra_body or {}, tools=tools)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_the_proxy_with_reasoning_serves_what_the_parsers_serve(oracle: str, px_reasoning: Proxy, stream: bool) -> None:
    expected = turn(oracle, stream)
    assert expected["reasoning"].strip() == THOUGHT and "</think>" not in expected["content"]
    assert len(expected["calls"]) == 2 and expected["finish_reason"] == "tool_calls"
    assert turn(px_reasoning.url, stream) == expected


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_thinking_switched_off_and_no_tools(oracle: str, px_reasoning: Proxy, stream: bool) -> None:
    """A request that switches thinking off: the template closes the block in the prompt, the output is content
    (its stray closer dropped); a request without tools: reasoning, and the call markup as text."""
    off = turn(oracle, stream, NO_THINKING)
    assert off["reasoning"] == "" and off["content"].startswith(THOUGHT) and len(off["calls"]) == 2
    assert turn(px_reasoning.url, stream, NO_THINKING) == off
    no_tools = turn(oracle, stream, tools=False)
    assert no_tools["reasoning"].strip() == THOUGHT and "<tool_call>" in no_tools["content"]
    assert turn(px_reasoning.url, stream, tools=False) == no_tools


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_without_the_switch_the_content_stays_as_sent(bare: str, px_plain: Proxy, stream: bool) -> None:
    sent = turn(bare, stream)
    assert sent["content"].startswith(THOUGHT + "\n</think>") and sent["calls"] == []
    got = turn(px_plain.url, stream)
    assert got["reasoning"] == "" and len(got["calls"]) == 2
    assert got["content"] == sent["content"][: sent["content"].index("<tool_call>")]
    assert turn(px_plain.url, stream, tools=False) == sent | {"content": turn(bare, stream, tools=False)["content"]}
