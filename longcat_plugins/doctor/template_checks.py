"""Every shipped chat template renders a tool-calling conversation (engine-free)."""

from __future__ import annotations

from typing import Any, Final

from longcat_plugins import templates

from . import samples
from .model import Check, Status

_CONVERSATION: Final[list[dict[str, Any]]] = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "Weather in Paris?"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": "call_0",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_0", "content": '{"temperature": 21}'},
    {"role": "user", "content": "And tomorrow?"},
]


def template_checks() -> list[Check]:
    checks = []
    for name in templates.names():
        path = templates.template_path(name)
        try:
            prompt = templates.render(name, _CONVERSATION, samples.TOOLS, add_generation_prompt=True)
        except Exception as exc:
            checks.append(
                Check(
                    "templates",
                    name,
                    Status.FAIL,
                    f"{path} does not render: {type(exc).__name__}: {exc}",
                    "reinstall longcat-plugins (the .jinja files ship as package data)",
                )
            )
            continue
        missing = [s for s in ("get_weather", "Paris", "And tomorrow?") if s not in prompt]
        if missing:
            checks.append(
                Check(
                    "templates",
                    name,
                    Status.FAIL,
                    f"{path} renders, but the prompt lacks {missing}",
                    "reinstall longcat-plugins; if it persists, report a bug",
                )
            )
        else:
            checks.append(
                Check(
                    "templates", name, Status.OK, f"renders a tool-calling conversation ({len(prompt)} chars)"
                )
            )
    return checks
