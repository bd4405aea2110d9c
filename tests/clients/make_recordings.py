"""Writes the recordings under ``recordings/`` from ``scenario.py``: python tests/clients/make_recordings.py.

Each follow-up turn carries ``expect_prompt``, rendered by the package's template code (what ``longcat-plugins
render`` prints), so the replay server refuses a follow-up whose prompt lacks the tool calls or their results.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import scenario

from longcat_plugins import templates

DIR = Path(__file__).resolve().parent / "recordings"


def render(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> str:
    return templates.render(scenario.TEMPLATE, messages, tools, add_generation_prompt=True)


def recordings() -> dict[str, list[dict[str, Any]]]:
    first = [{"role": "user", "content": scenario.QUESTION}]
    follow_up = render(scenario.follow_up_messages(), scenario.TOOLS)
    loop = [
        {"expect_prompt": render(first, scenario.TOOLS)},
        {"output": scenario.ANSWER, "expect_prompt": follow_up, "note": "final answer after both tool results"},
    ]
    return {
        "weather_json.jsonl": [
            {"output": scenario.json_calls_turn(), "note": "scripted: reasoning, text, two calls, LongCat JSON"}
            | loop[0],
            loop[1],
        ],
        "weather_key_value.jsonl": [
            {"output": scenario.key_value_calls_turn(), "note": "scripted: reasoning, text, two calls, key/value"}
            | loop[0],
            loop[1],
        ],
        "note_cut.jsonl": [
            {
                "output": scenario.cut_turn(),
                "expect_prompt": render(first, [scenario.NOTE_TOOL]),
                "note": "scripted: one key/value call with a long body, for max_tokens cuts",
            }
        ],
    }


def lines(turns: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in turns)


def main() -> None:
    DIR.mkdir(exist_ok=True)
    for name, turns in recordings().items():
        (DIR / name).write_text(lines(turns), encoding="utf-8")
        print(f"wrote {DIR / name} ({len(turns)} turns)")


if __name__ == "__main__":
    main()
