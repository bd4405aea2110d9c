"""The ``--tools`` file of ``parse`` and ``render``: the request's ``tools``, checked as the engines check a request.

vLLM and SGLang refuse a request whose tools are not OpenAI function tools (HTTP 400 from their request models); a
file that would be refused is refused here too, naming the entry, instead of being half used.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .errors import UsageError, read_json

SHAPE = '{"type": "function", "function": {"name": ..., "parameters": {...}}}'


def load_tools(path: str) -> list[dict[str, Any]]:
    """The tools of a JSON file holding a list of tools or an object with a ``tools`` list."""
    data = read_json(path, "the tools file")
    if isinstance(data, Mapping) and "tools" in data:
        data = data["tools"]
    if not isinstance(data, list):
        raise UsageError(f"{path}: expected a JSON list of tools (or an object with a 'tools' list)")
    return check_tools(data, path)


def check_tools(tools: list[Any], source: str) -> list[dict[str, Any]]:
    """``tools`` when every entry is an OpenAI function tool; else a :class:`UsageError` naming the first bad one."""
    for index, tool in enumerate(tools):
        problem = _problem(tool)
        if problem is not None:
            raise UsageError(f"{source}: tools[{index}] {problem}; each tool is {SHAPE}")
    return tools


def _problem(tool: Any) -> str | None:
    if not isinstance(tool, Mapping):
        return f"is {_shown(tool)}, not a tool object"
    if tool.get("type", "function") != "function":
        return f"has type {_shown(tool.get('type'))}, expected 'function'"
    function = tool.get("function")
    if not isinstance(function, Mapping):
        return "has no 'function' object" if function is None else f"has 'function' {_shown(function)}, not an object"
    name = function.get("name")
    if not isinstance(name, str) or not name:
        return "has no function name" if name is None else f"has function name {_shown(name)}, not a non-empty string"
    parameters = function.get("parameters")
    if parameters is not None and not isinstance(parameters, Mapping):
        return f"({name}) has 'parameters' {_shown(parameters)}, not a JSON schema object"
    return None


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."
