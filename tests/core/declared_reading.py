"""Reading outputs with dialects declared for one process only: the parser derives its tables from the declarations
when it is imported, so a declaration a test makes up is read in a child process that has it in
``LONGCAT_EXTRA_DIALECTS`` (and no other extra dialect).

``python -m tests.core.declared_reading`` reads a JSON request on stdin: ``{"texts": [...], "tools": [...],
"options": {...}, "tokens": [...]}``, and prints, for each text, what the parser reads whole and fed one character at
a time, the characters a tag may start with, and how many of ``tokens`` (an output's tokens' texts, reasoning open
when ``options`` says so) the reasoning-token counter counts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"],
        },
    },
}


def read(declarations: list[dict[str, Any]], request: dict[str, Any]) -> Any:
    """What a child process with only ``declarations`` read besides the registry's answers to ``request``."""
    env = {**os.environ, "LONGCAT_EXTRA_DIALECTS": json.dumps(declarations)}
    done = subprocess.run(
        [sys.executable, "-m", "tests.core.declared_reading"],
        input=json.dumps(request),
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _message(parsed: Any) -> dict[str, Any]:
    return {
        "content": parsed.content,
        "reasoning": parsed.reasoning,
        "calls": [[c.name, json.loads(c.arguments) if c.arguments else None] for c in parsed.tool_calls],
        "ids": [c.id for c in parsed.tool_calls],
    }


def _main() -> None:
    from longcat_plugins.core import MessageBuilder, ParserOptions, StreamParser, parse
    from longcat_plugins.core.reasoning_tokens import ReasoningTokenCounter
    try:
        from longcat_plugins.core.tag_starts import TAG_STARTS
    except ImportError:  # (a version that took every tag to start with '<')
        TAG_STARTS = frozenset("<")

    request = json.load(sys.stdin)
    tools = request.get("tools", [TOOL])
    options = ParserOptions(**request.get("options", {}))
    out = []
    for text in request["texts"]:
        whole = _message(parse(text, tools, options))
        parser, builder = StreamParser(tools, options), MessageBuilder()
        for c in text:
            builder.add(parser.feed(c))
        builder.add(parser.finish())
        out.append({"whole": whole, "streamed": _message(builder.message)})
    tokens = request.get("tokens", [])
    counter = ReasoningTokenCounter(tokens.__getitem__, reasoning_open=options.reasoning_open)
    counted = counter.count(list(range(len(tokens))))
    print(json.dumps({"results": out, "tag_starts": sorted(TAG_STARTS), "reasoning_tokens": counted}))


if __name__ == "__main__":
    _main()
