"""Running the replay server in a subprocess for a test, and folding what the openai client receives."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.reply import Reply
from tests.support.server import running
from tests.support.tools import get_weather

REPO = Path(__file__).resolve().parents[2]
SHIPPED_RECORDING = REPO / "longcat_plugins" / "examples" / "weather_agent.jsonl"
AGENT_LOOP = REPO / "examples" / "agent_loop.py"
MODEL = "LongCat-Flash-Chat"

WEATHER_TOOL = get_weather("Current weather and forecast for a city.")
TOOLS = [WEATHER_TOOL]
QUESTION = [{"role": "user", "content": "Weather in Paris and Tokyo?"}]

# -- what examples/agent_loop.py prints for the shipped weather recordings ------------------------------------------

AGENT_QUESTION = "user: What's the weather in Paris and in Tokyo right now? Do I need an umbrella in either city?"
AGENT_CALLS = [
    'assistant -> get_weather({"city": "Paris", "unit": "celsius"})',
    'tool get_weather -> {"city": "Paris", "unit": "celsius", "temperature": 14, "condition": "light rain", '
    '"chance_of_rain": 0.8}',
    'assistant -> get_weather({"city": "Tokyo", "unit": "celsius"})',
    'tool get_weather -> {"city": "Tokyo", "unit": "celsius", "temperature": 22, "condition": "sunny", '
    '"chance_of_rain": 0.05}',
]
AGENT_ANSWER = (
    "Paris: 14 °C with light rain (80% chance of rain), so yes, take an umbrella there. "
    "Tokyo: 22 °C and sunny (5% chance of rain), no umbrella needed."
)
#: the whole transcript of the LongCat recording (longcat_plugins/examples/weather_agent.jsonl)
AGENT_TRANSCRIPT = [
    AGENT_QUESTION,
    "assistant: I'll check both cities at once.",
    *AGENT_CALLS,
    f"assistant: {AGENT_ANSWER}",
    "[finish_reason: stop]",
]


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    url: str
    log: Path

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


@contextmanager
def replay_server(recording: Path, *extra: str) -> Iterator[Server]:
    """``longcat-plugins serve --replay RECORDING --port 0`` in its own process group, stopped afterwards."""
    command = [sys.executable, "-m", "longcat_plugins", "serve", "--replay", str(recording), "--port", "0", *extra]
    with running(command, "replay server", REPO) as started:
        yield Server(started.process, started.url, started.log)


def write_recording(path: Path, turns: Sequence[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in turns), encoding="utf-8")
    return path


def openai_client(server: Server) -> Any:
    from openai import OpenAI

    return OpenAI(base_url=server.url, api_key="EMPTY", max_retries=0, timeout=60)


def reasoning_of(obj: Any) -> str:
    """vLLM's ``reasoning`` field, which the openai types keep as an extra field."""
    extra = getattr(obj, "model_extra", None) or {}
    return extra.get("reasoning") or extra.get("reasoning_content") or ""


@dataclass
class Folded(Reply):
    """A chat completion, from a response or accumulated from stream chunks."""

    finish_reason: str | None = None

    def same_message(self) -> tuple[str, str, list[tuple[str, str]]]:
        return self.content, self.reasoning, self.calls


def fold_response(response: Any) -> Folded:
    choice = response.choices[0]
    message = choice.message
    calls = message.tool_calls or []
    return Folded(
        content=message.content or "",
        reasoning=reasoning_of(message),
        calls=[(c.function.name, c.function.arguments) for c in calls],
        ids=[c.id for c in calls],
        finish_reason=choice.finish_reason,
    )


def fold_chunks(chunks: Any) -> Folded:
    """Accumulate chunk deltas as an agent does, checking the shape of the tool-call stream on the way."""
    folded = Folded()
    names: dict[int, str] = {}
    args: dict[int, list[str]] = {}
    for chunk in chunks:
        if not chunk.choices:
            continue
        choice = chunk.choices[0]
        delta = choice.delta
        folded.content += delta.content or ""
        folded.reasoning += reasoning_of(delta)
        for call in delta.tool_calls or []:
            if call.index not in names:
                assert call.index == len(names), "calls are numbered 0, 1, 2 ... in order"
                assert call.id and call.function is not None and call.function.name, "first fragment: id and name"
                names[call.index] = call.function.name
                folded.ids.append(call.id)
                args[call.index] = []
            else:
                assert not call.id, "only the first fragment of a call carries its id"
                assert call.function is None or not call.function.name, "only the first fragment has the name"
            if call.function is not None and call.function.arguments:
                args[call.index].append(call.function.arguments)
        if choice.finish_reason is not None:
            assert folded.finish_reason is None, "one finish_reason per choice"
            folded.finish_reason = choice.finish_reason
    folded.calls = [(names[i], "".join(args[i])) for i in range(len(names))]
    return folded


def json_arguments(folded: Folded) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for name, arguments in folded.calls:
        value = json.loads(arguments)
        assert isinstance(value, dict), (name, arguments)
        out.append((name, value))
    return out


# -- one recorded turn, served over HTTP by either engine ----------------------------------------------------------

#: reasoning, a sentence, then two parallel calls (the second with ``arguments`` before ``name`` and a non-ASCII value)
PARALLEL_CALLS_OUTPUT = (
    "<longcat_think>Two cities, so two calls in parallel.</longcat_think>I'll check both cities at once.\n"
    '<longcat_tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}\n'
    "</longcat_tool_call><longcat_tool_call>\n"
    '{"arguments": {"city": "東京", "days": 2}, "name": "get_weather"}\n'
    "</longcat_tool_call>"
)
PARALLEL_CALLS = [
    ("get_weather", {"city": "Paris", "unit": "celsius"}),
    ("get_weather", {"city": "東京", "days": 2}),
]


def one_pass(output: str = PARALLEL_CALLS_OUTPUT) -> Folded:
    """The core's one-shot reading of ``output``: what every served answer must equal."""
    from longcat_plugins.core import ParserOptions, parse

    message = parse(output, TOOLS, ParserOptions())
    return Folded(
        content=message.content,
        reasoning=message.reasoning,
        calls=[(c.name, c.arguments) for c in message.tool_calls],
    )


def create(client: Any, **kwargs: Any) -> Any:
    """The question, asked with the tools; streamed, the chunks as a list, read in full."""
    answer = client.chat.completions.create(model=MODEL, messages=QUESTION, tools=TOOLS, **kwargs)
    return read_stream(answer) if kwargs.get("stream") else answer


def read_stream(stream: Any) -> list[Any]:
    """Every chunk of ``stream``, its connection closed before an error it raises goes on: a stream left open would
    be closed by the garbage collector at any later point, also while the client's connection pool holds its lock
    (which it cannot take again: the test hangs)."""
    with stream:
        return list(stream)


def check_parallel_calls(got: Folded) -> None:
    assert got.finish_reason == "tool_calls"
    assert json_arguments(got) == PARALLEL_CALLS
    assert got.same_message() == one_pass().same_message()


def check_streamed_in_fragments(chunks: list[Any]) -> None:
    """Streamed token by token: the arguments arrive in several fragments, not in one piece at the end."""
    fragments = [
        call
        for chunk in chunks
        for choice in chunk.choices
        for call in choice.delta.tool_calls or []
        if call.function is not None and call.function.arguments
    ]
    assert len(fragments) > 2 * len(PARALLEL_CALLS)


def check_cuts(client: Any, cuts: list[int]) -> None:
    """Each ``max_tokens`` cut ends with ``length`` and valid JSON arguments, the same streamed or not; some cut falls
    inside a call's arguments."""
    saw_partial_call = False
    for max_tokens in cuts:
        whole = fold_response(create(client, max_tokens=max_tokens))
        streamed = fold_chunks(create(client, max_tokens=max_tokens, stream=True))
        for got in (whole, streamed):
            assert got.finish_reason == "length", max_tokens
            calls = json_arguments(got)  # every call's arguments are one valid JSON object
            assert all(name == "get_weather" for name, _ in calls)
        assert streamed.same_message() == whole.same_message(), max_tokens
        if whole.calls and json.loads(whole.calls[-1][1]) not in [args for _, args in PARALLEL_CALLS]:
            saw_partial_call = True
    assert saw_partial_call, "some cut should fall inside a call's arguments"


def check_exactly_enough_tokens(client: Any) -> None:
    total = create(client).usage.completion_tokens
    assert fold_response(create(client, max_tokens=total)).finish_reason == "tool_calls"
    assert fold_chunks(create(client, max_tokens=total, stream=True)).finish_reason == "tool_calls"


def check_stop_string(got: Folded) -> None:
    assert got.finish_reason == "stop"
    assert got.calls == []
    assert got.content == "I'll check "


def check_n_refused(client: Any) -> None:
    import openai
    import pytest

    with pytest.raises(openai.BadRequestError) as info:
        create(client, n=2)
    assert "n=1" in str(info.value)
