"""The model outputs the doctor pushes through each engine's own parser API, and what must come out."""

from __future__ import annotations

import json
from typing import Any, Final

from longcat_plugins.core.dialects import DIALECTS

TOOLS: Final[list[dict[str, Any]]] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather for a city",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                "required": ["city"],
            },
        },
    }
]

#: Two calls in two dialects (LongCat JSON, then XML function, as their declarations write them), with text before
#: them.
TOOL_OUTPUT: Final = (
    "Checking both.\n"
    + DIALECTS["json"].write("get_weather", {"city": "Paris"})
    + "\n"
    + DIALECTS["xml"].write("get_weather", {"city": "Tokyo", "days": 2})
)
EXPECTED_CALLS: Final = [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Tokyo", "days": 2})]
EXPECTED_CONTENT: Final = "Checking both.\n"

REASONING_OUTPUT: Final = "<longcat_think>Plan the answer.</longcat_think>The answer."
EXPECTED_REASONING: Final = ("Plan the answer.", "The answer.")

#: deltas of this many characters for the streaming checks (tags arrive split)
CHUNK: Final = 5


def chunks(text: str, size: int = CHUNK) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def compare_calls(calls: list[tuple[str, str]], content: str) -> str | None:
    """``None`` when ``calls`` (name, JSON arguments) and ``content`` are the sample's, else why not."""
    got: list[tuple[str, Any]] = []
    for name, arguments in calls:
        try:
            got.append((name, json.loads(arguments)))
        except (TypeError, ValueError):
            return f"call {name!r} has arguments that are not valid JSON: {arguments!r}"
    if got != EXPECTED_CALLS:
        return f"expected calls {EXPECTED_CALLS}, got {got}"
    if content.strip() != EXPECTED_CONTENT.strip():
        return f"expected content {EXPECTED_CONTENT!r}, got {content!r}"
    return None


def compare_reasoning(reasoning: str | None, content: str | None) -> str | None:
    got = ((reasoning or "").strip(), (content or "").strip())
    if got != EXPECTED_REASONING:
        return f"expected (reasoning, content) {EXPECTED_REASONING}, got {got}"
    return None
