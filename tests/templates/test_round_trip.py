"""Tool calls rendered into history by each template are parsed back by the core parser unchanged.

The assistant turn is cut out of the rendered history as the text after the generation prompt (the prompt
the model continues), then handed to ``parse`` as if the model had generated it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from template_cases import ROUND_TRIP_CALLS, ROUND_TRIP_TOOLS, assistant, call, user

from longcat_plugins.templates import render
from tests.support.events import feed, groups_of

core = pytest.importorskip("longcat_plugins.core")


def _calls() -> list[dict[str, Any]]:
    return [call(f"call_{i}", name, arguments) for i, (name, arguments) in enumerate(ROUND_TRIP_CALLS)]


def _generated(name: str, reply: dict[str, Any], **kwargs: Any) -> str:
    """The text of ``reply`` as the model would have generated it after the prompt."""
    question = [user("Write the file, book the trip and check the weather.")]
    prompt = render(name, question, ROUND_TRIP_TOOLS, add_generation_prompt=True, **kwargs)
    history = render(name, [*question, reply], ROUND_TRIP_TOOLS, add_generation_prompt=False, **kwargs)
    assert history.startswith(prompt), "the history must continue the generation prompt"
    return history[len(prompt) :]


def _assert_same_calls(message: Any) -> None:
    got = [(c.name, json.loads(c.arguments)) for c in message.tool_calls]
    assert got == ROUND_TRIP_CALLS
    assert [c.index for c in message.tool_calls] == list(range(len(ROUND_TRIP_CALLS)))


def _parse(text: str, **options: Any) -> Any:
    return core.parse(text, ROUND_TRIP_TOOLS, core.ParserOptions(**options))


def _stream(text: str, **options: Any) -> Any:
    return feed(groups_of(text, 7), ROUND_TRIP_TOOLS, core.ParserOptions(**options)).message


@pytest.mark.parametrize("parse", [_parse, _stream], ids=["parse", "stream"])
def test_longcat_flash_chat(parse: Any) -> None:
    text = _generated("longcat-flash-chat", assistant("On it.", _calls()))
    assert text.startswith("On it.<longcat_tool_call>\n") and text.endswith("</longcat_tool_call></longcat_s>")
    message = parse(text)
    _assert_same_calls(message)
    assert message.content.strip() == "On it."


@pytest.mark.parametrize("parse", [_parse, _stream], ids=["parse", "stream"])
def test_qwen3_tools_first(parse: Any) -> None:
    text = _generated("qwen3-tools-first", assistant(None, _calls()))
    assert text.startswith("<tool_call>\n{") and text.endswith("}\n</tool_call>")
    message = parse(text)
    _assert_same_calls(message)
    assert message.content.strip() == ""


@pytest.mark.parametrize("parse", [_parse, _stream], ids=["parse", "stream"])
def test_qwen3_tools_first_content_and_calls(parse: Any) -> None:
    """Unlike seed 003's Go template, a turn with content keeps its calls (content first)."""
    text = _generated("qwen3-tools-first", assistant("On it.", _calls()))
    assert text.startswith("On it.\n<tool_call>\n{") and text.endswith("}\n</tool_call>")
    message = parse(text)
    _assert_same_calls(message)
    assert message.content.strip() == "On it."


@pytest.mark.parametrize("parse", [_parse, _stream], ids=["parse", "stream"])
def test_xml_function_thinking_with_reasoning(parse: Any) -> None:
    reply = assistant("On it.", _calls(), reasoning_content="Three calls are needed.")
    text = _generated("xml-function-thinking", reply)
    assert text.startswith("Three calls are needed.\n</think>\nOn it.\n<tool_call>\n<function=write_file>\n")
    message = parse(text, reasoning_open=True)
    _assert_same_calls(message)
    assert message.reasoning.strip() == "Three calls are needed."
    assert message.content.strip() == "On it."


@pytest.mark.parametrize("parse", [_parse, _stream], ids=["parse", "stream"])
def test_xml_function_thinking_without_thinking(parse: Any) -> None:
    text = _generated("xml-function-thinking", assistant(None, _calls()), enable_thinking=False)
    assert text.startswith("\n<tool_call>\n<function=write_file>\n")
    message = parse(text)
    _assert_same_calls(message)
    assert message.reasoning == ""
    assert message.content.strip() == ""
