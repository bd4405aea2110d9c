"""Conversations and tools shared by the template tests (OpenAI chat format, as a client sends them)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.tools import function_tool

TEMPLATE_NAMES = ("longcat-flash-chat", "qwen3-tools-first", "xml-function-thinking")

SEEDS_DIR = Path(__file__).resolve().parents[3] / "shared" / "seeds"  # shared/ sits beside the repository


def seed_file(name: str) -> Path:
    """A seed document (the specification); skips the test when shared/ is not beside the repository."""
    path = SEEDS_DIR / name
    if not path.is_file():
        pytest.skip(f"seed {name} not found in {SEEDS_DIR}")
    return path


SYSTEM_PROMPT = "You are a helpful assistant."

WEATHER: dict[str, Any] = function_tool(
    "get_weather", {"city": {"type": "string", "description": "City name"}}, ["city"], "Get the current weather"
)

SEARCH: dict[str, Any] = function_tool(
    "search", {"query": {"type": "string"}, "limit": {"type": "integer"}}, ["query"], "Search the web"
)


def call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A tool call as an OpenAI client sends it back in history: arguments as JSON text."""
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)},
    }


def user(content: str) -> dict[str, Any]:
    return {"role": "user", "content": content}


def assistant(content: str | None, tool_calls: list[dict[str, Any]] | None = None, **extra: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content, **extra}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return message


def tool_result(call_id: str, content: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def system(content: str = SYSTEM_PROMPT) -> dict[str, Any]:
    return {"role": "system", "content": content}


FIRST_TURN = [user("What is 2+2?")]
WITH_SYSTEM = [system(), user("Hi")]
MULTI_TURN = [
    system(),
    user("Hi"),
    assistant("Hello! How can I help?"),
    user("Tell me a joke."),
    assistant("Why did the chicken cross the road?"),
    user("Why?"),
]
TOOLS_FIRST_TURN = [system(), user("What's the weather in Paris and Tokyo?")]
TOOL_CALLS = [
    user("Weather in Paris and Tokyo?"),
    assistant(
        None,
        [call("call_1", "get_weather", {"city": "Paris"}), call("call_2", "get_weather", {"city": "Tokyo"})],
    ),
    tool_result("call_1", "18°C, sunny"),
    tool_result("call_2", "25°C, rain"),
]
TOOL_CALLS_DONE = [*TOOL_CALLS, assistant("Paris: sunny; Tokyo: rain."), user("Thanks!")]

# Golden prompts for WITH_SYSTEM and TOOL_CALLS (written out by hand from the seeds), for the engine tests.
GOLDEN_SYSTEM = {
    "longcat-flash-chat": "SYSTEM:You are a helpful assistant. [Round 0] USER:Hi ASSISTANT:",
    "qwen3-tools-first": (
        "<|im_start|>system\n# Context & Instructions\nYou are a helpful assistant.<|im_end|>\n"
        "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
    ),
    "xml-function-thinking": (
        "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n"
        "<|im_start|>assistant\n<think>\n"
    ),
}
GOLDEN_TOOL_CALLS = {
    "longcat-flash-chat": (
        "[Round 0] USER:Weather in Paris and Tokyo? ASSISTANT:<longcat_tool_call>\n"
        '{"name": "get_weather", "arguments": {"city": "Paris"}}\n'
        "</longcat_tool_call><longcat_tool_call>\n"
        '{"name": "get_weather", "arguments": {"city": "Tokyo"}}\n'
        "</longcat_tool_call></longcat_s> [Round 1] USER:"
        "<longcat_tool_response>\n18°C, sunny\n</longcat_tool_response>"
        "<longcat_tool_response>\n25°C, rain\n</longcat_tool_response> ASSISTANT:"
    ),
    "qwen3-tools-first": (
        "<|im_start|>user\nWeather in Paris and Tokyo?<|im_end|>\n<|im_start|>assistant\n<tool_call>\n"
        '{"name": "get_weather", "arguments": {"city": "Paris"}}\n'
        '{"name": "get_weather", "arguments": {"city": "Tokyo"}}\n'
        "</tool_call><|im_end|>\n"
        "<|im_start|>user\n<tool_response>\n18°C, sunny\n</tool_response><|im_end|>\n"
        "<|im_start|>user\n<tool_response>\n25°C, rain\n</tool_response><|im_end|>\n"
        "<|im_start|>assistant\n"
    ),
    "xml-function-thinking": (
        "<|im_start|>system\n<|im_end|>\n<|im_start|>user\nWeather in Paris and Tokyo?<|im_end|>\n"
        "<|im_start|>assistant\n<think></think>\n"
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>\n"
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nTokyo\n</parameter>\n</function>\n</tool_call>\n"
        "<|im_end|>\n"
        "<|im_start|>user\n<tool_response>\n18°C, sunny\n</tool_response>\n"
        "<tool_response>\n25°C, rain\n</tool_response>\n<|im_end|>\n"
        "<|im_start|>assistant\n<think>\n"
    ),
}

# (name, messages, tools) combinations rendered by every template in the parity tests
CONVERSATIONS: list[tuple[str, list[dict[str, Any]], list[dict[str, Any]] | None]] = [
    ("first-turn", FIRST_TURN, None),
    ("system", WITH_SYSTEM, None),
    ("multi-turn", MULTI_TURN, None),
    ("tools", TOOLS_FIRST_TURN, [WEATHER, SEARCH]),
    ("tool-calls", TOOL_CALLS, [WEATHER]),
    ("tool-calls-done", TOOL_CALLS_DONE, [WEATHER]),
]

# Arguments for the round-trip tests: nested objects and arrays, non-ASCII text, quotes and newlines.
ROUND_TRIP_TOOLS: list[dict[str, Any]] = [
    function_tool(
        "write_file",
        {
            "path": {"type": "string"},
            "content": {"type": "string"},
            "options": {"type": "object"},
            "overwrite": {"type": "boolean"},
        },
        ["path", "content"],
        "Write a file",
    ),
    function_tool(
        "book_trip",
        {
            "destination": {"type": "string"},
            "travellers": {"type": "array"},
            "nights": {"type": "integer"},
            "budget": {"type": "number"},
        },
        None,
        "Book a trip",
    ),
    WEATHER,
]

ROUND_TRIP_CALLS: list[tuple[str, dict[str, Any]]] = [
    (
        "write_file",
        {
            "path": "src/données/app.py",
            "content": 'print("héllo, 世界")\nif x < 3 and y > 2:\n    pass',
            "options": {"mode": "w", "encoding": "utf-8", "flags": {"create": True, "backup": None}},
            "overwrite": False,
        },
    ),
    (
        "book_trip",
        {
            "destination": "Zürich 🇨🇭",
            "travellers": [{"name": "Zoë", "age": 31}, {"name": "Dmitrí", "tags": ["vip", "日本語"]}],
            "nights": 3,
            "budget": 1250.5,
        },
    ),
    ("get_weather", {"city": "東京"}),
]


# Content given as parts, as the OpenAI SDKs send it: {"type": "text", "text": ...} lists in every role.
def text_parts(*texts: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": text} for text in texts]


def as_parts(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` with every string content turned into one text part."""
    return [{**m, "content": text_parts(m["content"])} if isinstance(m.get("content"), str) else m for m in messages]


#: (name, messages with content parts, tools): the engines must render each as ``render`` shows it
CONTENT_PART_CONVERSATIONS: list[tuple[str, list[dict[str, Any]], list[dict[str, Any]] | None]] = [
    ("one-part-each", as_parts(TOOL_CALLS_DONE), [WEATHER]),
    ("several-parts", [system(), {"role": "user", "content": text_parts("Look at this:", "what is it?")}], None),
    ("empty-parts", [{"role": "user", "content": []}], None),
]
