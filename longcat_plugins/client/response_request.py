"""What a Responses API request (``POST /v1/responses``) asks of the repair: its function tools, whether it is
repaired at all, the core's options for each kind of output item."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from longcat_plugins.core import ParserOptions
from longcat_plugins.core.stops import stops_may_cut_calls

from .options import RepairOptions


def response_function_tools(request: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The request's function tools: flat, ``{"type": "function", "name", "parameters", "strict"}`` (tools of other
    types, built-in or custom, are not called in the model's text)."""
    tools = request.get("tools")
    if not isinstance(tools, (list, tuple)):
        return []
    return [
        tool
        for tool in tools
        if isinstance(tool, Mapping) and tool.get("type") == "function" and isinstance(tool.get("name"), str)
    ]


def needs_response_repair(request: Mapping[str, Any]) -> bool:
    """Whether calls are to be read from the text of the answers to a Responses request: it declares function tools
    and its ``tool_choice`` is not ``"none"``."""
    if not isinstance(request, Mapping):
        return False
    return bool(response_function_tools(request)) and request.get("tool_choice") != "none"


def thinking_off(request: Mapping[str, Any]) -> bool:
    """The request switches thinking off: ``reasoning.effort`` ``"none"``, or vLLM's
    ``chat_template_kwargs.enable_thinking: false``; the output then does not start inside reasoning."""
    kwargs = request.get("chat_template_kwargs")
    if isinstance(kwargs, Mapping) and kwargs.get("enable_thinking") is False:
        return True
    reasoning = request.get("reasoning")
    return isinstance(reasoning, Mapping) and reasoning.get("effort") == "none"


def item_parser_options(
    request: Mapping[str, Any], options: RepairOptions, *, message: bool, reasoning_seen: bool
) -> ParserOptions:
    """The core's options for the text of one output item: a ``message`` (with :attr:`RepairOptions.reasoning`, its
    think blocks are split off; whether it starts inside reasoning is unknown unless the request switched thinking
    off or the upstream already gave a reasoning item, ``reasoning_seen``), or a ``reasoning`` item (its text is
    reasoning as sent: only calls are read)."""
    stop_ids = request.get("stop_token_ids")
    ids = [i for i in stop_ids if isinstance(i, int)] if isinstance(stop_ids, (list, tuple)) else None
    cut = stops_may_cut_calls((request.get("stop"),), ids)
    split = message and options.reasoning
    unknown = split and not reasoning_seen and not thinking_off(request)
    return ParserOptions(reasoning=split, reasoning_start_unknown=unknown, cut_calls_as_text=cut)
