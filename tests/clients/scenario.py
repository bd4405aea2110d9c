"""The conversation every client runs: a question, the model's tool calls, the local tool, the final answer.

The model turns are scripted (written for these tests, not outputs of a real model); ``make_recordings.py`` turns
them into the recordings under ``recordings/``, with the prompt the follow-up request must render.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.tools import function_tool

MODEL = "LongCat-Flash-Chat"
TEMPLATE = "longcat-flash-chat"
QUESTION = "Weather in Paris and Tokyo?"
CITIES = ("Paris", "Tokyo")

WEATHER_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "City name"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
    },
    "required": ["city"],
}
WEATHER_DESCRIPTION = "Current weather for a city."
TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {"name": "get_weather", "description": WEATHER_DESCRIPTION, "parameters": WEATHER_PARAMETERS},
    }
]

_FORECAST = {"Paris": (14, "light rain"), "Tokyo": (22, "sunny")}


def get_weather(city: str, unit: str = "celsius") -> str:
    """The local tool: a fixed forecast, as the JSON text the tool message carries."""
    temperature, condition = _FORECAST[city]
    return json.dumps({"city": city, "temperature": temperature, "unit": unit, "condition": condition})


REASONING = "Two cities, so two calls at once."
PREAMBLE = "I'll check both cities."
CALL_ARGUMENTS = [{"city": "Paris", "unit": "celsius"}, {"city": "Tokyo", "unit": "celsius"}]
ANSWER = "Paris: 14 °C with light rain, take an umbrella. Tokyo: 22 °C and sunny."


def json_calls_turn() -> str:
    """Reasoning, a sentence, two parallel calls in the LongCat JSON dialect."""
    blocks = "".join(
        '<longcat_tool_call>\n{"name": "get_weather", "arguments": ' + json.dumps(a) + "}\n</longcat_tool_call>"
        for a in CALL_ARGUMENTS
    )
    return f"<longcat_think>{REASONING}</longcat_think>{PREAMBLE}\n{blocks}"


def key_value_calls_turn() -> str:
    """The same turn in the LongCat key/value dialect, the parallel calls separated by a newline."""
    blocks = "\n".join(
        "<longcat_tool_call>get_weather\n"
        + "".join(
            f"<longcat_arg_key>{k}</longcat_arg_key>\n<longcat_arg_value>{v}</longcat_arg_value>\n"
            for k, v in a.items()
        )
        + "</longcat_tool_call>"
        for a in CALL_ARGUMENTS
    )
    return f"<longcat_think>{REASONING}</longcat_think>{PREAMBLE}\n{blocks}"


# One call with a long string argument, for max_tokens cuts that fall inside the call.
NOTE_TOOL: dict[str, Any] = function_tool(
    "save_note", {"title": {"type": "string"}, "body": {"type": "string"}}, ["title", "body"], "Save a note."
)
NOTE_BODY = " ".join(f"line {i}: pack the umbrella for Paris, sunglasses for Tokyo." for i in range(12))


def cut_turn() -> str:
    return (
        f"<longcat_think>{REASONING}</longcat_think>Saving it.\n<longcat_tool_call>save_note\n"
        "<longcat_arg_key>title</longcat_arg_key>\n<longcat_arg_value>Trip</longcat_arg_value>\n"
        f"<longcat_arg_key>body</longcat_arg_key>\n<longcat_arg_value>{NOTE_BODY}</longcat_arg_value>\n"
        "</longcat_tool_call>"
    )


CONTENT = PREAMBLE + "\n"  # the text before the calls, as the parser returns it


def follow_up_messages(content: str | None = CONTENT) -> list[dict[str, Any]]:
    """The conversation as a Chat Completions client sends it back after running the tool."""
    calls = [
        {"id": f"call_{i}", "type": "function", "function": {"name": "get_weather", "arguments": json.dumps(a)}}
        for i, a in enumerate(CALL_ARGUMENTS)
    ]
    results = [
        {"role": "tool", "tool_call_id": f"call_{i}", "content": get_weather(**a)} for i, a in enumerate(CALL_ARGUMENTS)
    ]
    return [
        {"role": "user", "content": QUESTION},
        {"role": "assistant", "content": content, "tool_calls": calls},
        *results,
    ]
