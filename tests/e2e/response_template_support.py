"""One turn written in a response template's dialect, served by an engine's own template parsers through the replay
server (``serve --response-template NAME``), and the core's one-pass reading of the same turn to compare with: the
response-template suites of both engines."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

from replay_support import Folded, Server, fold_chunks, fold_response, read_stream, replay_server, write_recording

from longcat_plugins import response_templates
from longcat_plugins.core.dialects import DIALECTS
from tests.support.tools import get_weather

TOOLS: Final = [get_weather()]
QUESTION: Final = [{"role": "user", "content": "Weather in Paris and Tokyo?"}]
REASONING: Final = "Two cities, so two calls."
SENTENCE: Final = "I'll check both cities at once."
CALLS: Final = [
    ("get_weather", {"city": "Paris", "unit": "celsius"}),
    ("get_weather", {"city": "東京", "days": 2}),
]
#: what the turn writes between its sentence and the first call, and between two calls
BREAK: Final = "\n"


def turn_output(name: str, reasoning_in_prompt: bool) -> str:
    """Reasoning, a sentence and :data:`CALLS`, as the dialect of the response template ``name`` writes them; with
    ``reasoning_in_prompt`` (the chat template pre-opens reasoning) the output starts inside the reasoning."""
    spec = response_templates.spec(name)
    dialect = DIALECTS[spec.dialect]
    calls = BREAK.join(dialect.write(call, arguments) for call, arguments in CALLS)
    text = f"{REASONING}\n{spec.think[1]}\n\n{SENTENCE}{BREAK}{calls}"
    return text if reasoning_in_prompt else spec.think[0] + text


def core_reading(output: str, reasoning_in_prompt: bool) -> Folded:
    """The core's one-pass reading of ``output``, as our parsers serve it."""
    from longcat_plugins.core import ParserOptions, parse

    message = parse(output, TOOLS, ParserOptions(reasoning_open=reasoning_in_prompt))
    return Folded(
        content=message.content,
        reasoning=message.reasoning,
        calls=[(c.name, c.arguments) for c in message.tool_calls],
        finish_reason="tool_calls",
    )


@contextmanager
def template_server(directory: Path, name: str, output: str, *extra: str) -> Iterator[Server]:
    """The replay of the one turn ``output`` with the response template ``name`` in its model's tokenizer_config.json;
    ``extra``: more ``serve`` flags (the engine and, after ``--``, its parser flags)."""
    recording = write_recording(directory / f"{name}.jsonl", [{"output": output}])
    with replay_server(recording, "--response-template", name, *extra) as running:
        yield running


def ask(client: Any, stream: bool, **kwargs: Any) -> tuple[Folded, list[Any]]:
    """The question with the tools (``kwargs`` override), folded, and the chunks when streamed."""
    request = {"model": client.models.list().data[0].id, "messages": QUESTION, "tools": TOOLS, **kwargs}
    if not stream:
        return fold_response(client.chat.completions.create(**request)), []
    chunks = read_stream(client.chat.completions.create(stream=True, **request))
    return fold_chunks(chunks), chunks


def tool_deltas(chunks: list[Any]) -> list[tuple[int, bool, str | None, str | None]]:
    """Each tool-call fragment streamed: its index, whether it has an id, its name and its arguments."""
    return [
        (call.index, bool(call.id), call.function.name, call.function.arguments)
        for chunk in chunks
        for choice in chunk.choices
        for call in choice.delta.tool_calls or []
        if call.function is not None
    ]


def json_calls(got: Folded) -> list[tuple[str, Any]]:
    return [(call, json.loads(arguments)) for call, arguments in got.calls]
