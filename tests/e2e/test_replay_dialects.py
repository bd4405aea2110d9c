"""The shipped recordings in other dialects and templates, through the replay server: a Qwen3-Coder XML
conversation with the ``xml-function-thinking`` template (the prompt opens ``<think>``) and a LongCat key/value
conversation with the ``longcat-flash-chat`` template. The example agent loop runs each whole conversation,
streaming and not; every turn's rendered prompt is checked by the recording (``expect_prompt``), so the
follow-up prompt must hold the tool calls and their results. One server per recording; the template comes from
the recording's header line.
"""

from __future__ import annotations

import io
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from replay_support import (
    AGENT_ANSWER,
    AGENT_CALLS,
    AGENT_LOOP,
    AGENT_QUESTION,
    REPO,
    Server,
    openai_client,
    replay_server,
    write_recording,
)

from longcat_plugins.replay import RecordingError, parse_recording_text, read_recording

pytestmark = pytest.mark.vllm

EXAMPLES = REPO / "longcat_plugins" / "examples"
FINAL = AGENT_ANSWER
CALLS = AGENT_CALLS
QUESTION = AGENT_QUESTION


@dataclass(frozen=True)
class Case:
    recording: Path
    template: str
    model: str
    eos: str
    call_tag: str  # a single token in the replay's vocabulary
    transcript: list[str]


CASES = [
    Case(
        EXAMPLES / "weather_agent_qwen3_coder.jsonl",
        "xml-function-thinking",
        "Qwen3-Coder",
        "<|im_end|>",
        "<tool_call>",
        [
            QUESTION,
            "assistant: ",
            "",
            "I'll check both cities at once.",
            "  (reasoning: Two cities, so two get_weather calls in parallel, both in celsius.)",
            *CALLS,
            "assistant: ",
            "",
            FINAL,
            "  (reasoning: Paris has light rain and an 80% chance of rain; Tokyo is sunny.)",
            "[finish_reason: stop]",
        ],
    ),
    Case(
        EXAMPLES / "weather_agent_longcat_kv.jsonl",
        "longcat-flash-chat",
        "LongCat-Flash-Chat",
        "</longcat_s>",
        "<longcat_tool_call>",
        [
            QUESTION,
            "assistant: I'll check both cities at once.",
            "  (reasoning: Two cities, so two get_weather calls in parallel, both in celsius.)",
            *CALLS,
            f"assistant: {FINAL}",
            "  (reasoning: Paris has light rain and an 80% chance of rain; Tokyo is sunny.)",
            "[finish_reason: stop]",
        ],
    ),
]


@pytest.fixture(scope="module", params=CASES, ids=[c.template for c in CASES])
def served(request: pytest.FixtureRequest) -> Iterator[tuple[Case, Server]]:
    case: Case = request.param
    with replay_server(case.recording) as running:
        yield case, running


def agent_loop() -> Any:
    sys.path.insert(0, str(AGENT_LOOP.parent))
    try:
        import agent_loop as module
    finally:
        sys.path.remove(str(AGENT_LOOP.parent))
    return module


def test_shipped_recordings_name_their_template() -> None:
    for case in CASES:
        recording = read_recording(case.recording)
        assert recording.template == case.template
        assert len(recording.turns) == 2 and all(t.expect_prompt for t in recording.turns)
        follow_up = recording.turns[1].expect_prompt or ""
        assert '"temperature": 14' in follow_up and '"temperature": 22' in follow_up  # the tool results
        assert follow_up.count("get_weather") >= 3  # the tools block and the two calls


@pytest.mark.parametrize("stream", [True, False], ids=["streaming", "non-streaming"])
def test_agent_loop_runs_the_recorded_conversation(served: tuple[Case, Server], stream: bool) -> None:
    case, server = served
    client = openai_client(server)
    assert [m.id for m in client.models.list().data] == [case.model]
    out = io.StringIO()
    messages = agent_loop().run_conversation(client, case.model, stream=stream, out=out)
    assert out.getvalue().splitlines() == case.transcript
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "tool", "assistant"]


def test_the_replay_speaks_the_templates_tokens(served: tuple[Case, Server]) -> None:
    """The model's own markup: the call tag is one token, the turn ends with the family's end-of-sequence token
    (shown by logprobs). The follow-up request completes the recorded conversation."""
    case, server = served
    module = agent_loop()
    client = openai_client(server)
    messages: list[dict[str, Any]] = [{"role": "user", "content": module.QUESTION}]
    first = client.chat.completions.create(model=case.model, messages=messages, tools=module.TOOLS, logprobs=True)
    tokens = [entry.token for entry in first.choices[0].logprobs.content]
    assert tokens[-1] == case.eos
    assert tokens.count(case.call_tag) == 2
    message = first.choices[0].message
    messages.append(
        {
            "role": "assistant",
            "content": message.content,
            "tool_calls": [c.model_dump(include={"id", "type", "function"}) for c in message.tool_calls],
        }
    )
    for call in message.tool_calls:
        result = module.run_tool(call.function.name, call.function.arguments)
        messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    second = client.chat.completions.create(model=case.model, messages=messages, tools=module.TOOLS)
    assert second.choices[0].finish_reason == "stop"
    assert (second.choices[0].message.content or "").strip() == FINAL


def test_agent_loop_script_against_the_server(served: tuple[Case, Server]) -> None:
    case, server = served
    result = subprocess.run(
        [sys.executable, str(AGENT_LOOP), "--base-url", server.url, "--no-stream"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == case.transcript


def test_header_line() -> None:
    recording = parse_recording_text('{"template": "qwen3-tools-first", "note": "n"}\n{"output": "hi"}\n')
    assert recording.template == "qwen3-tools-first" and [t.output for t in recording.turns] == ["hi"]
    assert parse_recording_text('{"output": "hi"}\n').template is None
    for text, message in (
        ('{"output": "a"}\n{"template": "qwen3-tools-first"}\n', ":2: the header line"),
        ('{"template": "x", "tempo": 1}\n{"output": "a"}\n', "unknown header key(s) 'tempo'"),
        ('{"template": 3}\n{"output": "a"}\n', "'template' must be a chat template name"),
        ('{"template": "qwen3-tools-first"}\n', "no turns"),
    ):
        with pytest.raises(RecordingError, match=message.replace("(", r"\(").replace(")", r"\)")):
            parse_recording_text(text)


def test_unknown_template_is_a_usage_error(tmp_path: Path) -> None:
    plain = write_recording(tmp_path / "plain.jsonl", [{"output": "hi"}])
    headed = tmp_path / "headed.jsonl"
    headed.write_text('{"template": "no-such-template"}\n{"output": "hi"}\n', encoding="utf-8")
    for args in ([str(plain), "--template", "nope"], [str(headed)]):
        result = subprocess.run(
            [sys.executable, "-m", "longcat_plugins", "serve", "--replay", *args],
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 2, result.stderr
        assert "unknown template" in result.stderr and "xml-function-thinking" in result.stderr
