"""What a request asks of the repair: its function tools, whether it is repaired at all, the core's options."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from longcat_plugins.core import ParserOptions
from longcat_plugins.core.stops import stops_may_cut_calls


def function_tools(request: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    tools = request.get("tools")
    if not isinstance(tools, (list, tuple)):
        return []
    return [
        tool
        for tool in tools
        if isinstance(tool, Mapping)
        and tool.get("type", "function") == "function"
        and isinstance(tool.get("function"), Mapping)
    ]


def needs_repair(request: Mapping[str, Any]) -> bool:
    """Whether calls are to be read from the text of the answers to ``request``: it declares function tools and its
    ``tool_choice`` is not ``"none"``."""
    if not isinstance(request, Mapping):
        return False
    return bool(function_tools(request)) and request.get("tool_choice") != "none"


def parser_options(request: Mapping[str, Any]) -> ParserOptions:
    stop_ids = request.get("stop_token_ids")
    ids = [i for i in stop_ids if isinstance(i, int)] if isinstance(stop_ids, (list, tuple)) else None
    return ParserOptions(reasoning=False, cut_calls_as_text=stops_may_cut_calls((request.get("stop"),), ids))
