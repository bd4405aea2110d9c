"""Histories as the engines' API layers write them render as the conversation they are.

A Responses follow-up reaches the template as a message item and function_call items, which SGLang turns into
consecutive assistant messages; a Messages follow-up sends the thinking block back, which SGLang writes into the
assistant content as ``<think>...</think>``. Each shipped template renders them as the one assistant turn an OpenAI
Chat Completions client sends: the text and every call in order, the reasoning as the template renders past
reasoning (LongCat and the Ollama port drop it; the XML-thinking template keeps it as reasoning)."""

from __future__ import annotations

from typing import Any

import pytest
from template_cases import WEATHER, assistant, call, tool_result, user

from longcat_plugins.templates import TEMPLATES, render

PARIS = call("call_1", "get_weather", {"city": "Paris"})
LYON = call("call_2", "get_weather", {"city": "Lyon"})
RESULTS = [tool_result("call_1", "18°C"), tool_result("call_2", "25°C")]
ONE_TURN = [user("Weather in Paris and Lyon?"), assistant("Checking both.", [PARIS, LYON]), *RESULTS]


def _render(name: str, messages: list[dict[str, Any]]) -> str:
    return render(name, messages, tools=[WEATHER], bos_token="")


@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_consecutive_assistant_messages_are_one_turn(name: str) -> None:
    split = [
        user("Weather in Paris and Lyon?"),
        assistant("Checking both."),
        assistant(None, [PARIS]),
        assistant(None, [LYON]),
        *RESULTS,
    ]
    assert _render(name, split) == _render(name, ONE_TURN)


@pytest.mark.parametrize("name", ["longcat-flash-chat", "qwen3-tools-first"])
def test_a_leading_think_block_is_past_reasoning_not_text(name: str) -> None:
    turn = assistant("<think>Two cities.</think>Checking both.", [PARIS, LYON])
    thinking = [user("Weather in Paris and Lyon?"), turn, *RESULTS]
    rendered = _render(name, thinking)
    assert "Two cities." not in rendered
    assert rendered == _render(name, ONE_TURN)


def test_the_xml_thinking_template_keeps_a_leading_think_block_as_reasoning() -> None:
    thinking = [user("Weather?"), assistant("<think>Two cities.</think>Checking both.", [PARIS])]
    rendered = render("xml-function-thinking", thinking, tools=[WEATHER], bos_token="", add_generation_prompt=False)
    assert "<think>Two cities.</think>" in rendered


@pytest.mark.parametrize("name", ["longcat-flash-chat", "qwen3-tools-first"])
def test_the_space_a_messages_layer_puts_after_the_think_block_goes_with_it(name: str) -> None:
    turn = assistant("<think>Two cities.</think> Checking both.", [PARIS, LYON])
    assert _render(name, [user("Weather in Paris and Lyon?"), turn, *RESULTS]) == _render(name, ONE_TURN)


def test_a_longcat_think_block_is_dropped_too() -> None:
    turn = assistant("<longcat_think>Two cities.</longcat_think>Checking both.", [PARIS, LYON])
    thinking = [user("Weather in Paris and Lyon?"), turn, *RESULTS]
    assert _render("longcat-flash-chat", thinking) == _render("longcat-flash-chat", ONE_TURN)
