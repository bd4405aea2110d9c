"""What a Responses API request (``POST /v1/responses``) asks of the repair: its function tools, whether it is
repaired at all, the core's options for each kind of output item."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from longcat_plugins.core import ParserOptions
from longcat_plugins.core.prompt import template_thinking_switch

from .options import RepairOptions
from .request import (
    answer_parser_options,
    openai_stops_may_cut_calls,
    reasoning_parser_options,
    repairs_answers,
)


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


def reads_calls(request: Mapping[str, Any]) -> bool:
    """Whether calls are read from the text of the answers to a Responses request: it declares function tools and
    its ``tool_choice`` is not ``"none"``."""
    if not isinstance(request, Mapping):
        return False
    return bool(response_function_tools(request)) and request.get("tool_choice") != "none"


def needs_response_repair(request: Mapping[str, Any], options: RepairOptions | None = None) -> bool:
    """Whether the answers to a Responses request are repaired: calls are read from their text (:func:`reads_calls`),
    or reasoning is (``options.reasoning``: every request's answer, with tools or not)."""
    if not isinstance(request, Mapping):
        return False
    return repairs_answers(reads_calls(request), options)


def response_thinking_switch(request: Mapping[str, Any]) -> bool | None:
    """Whether the request switched the model's thinking on or off: a boolean ``chat_template_kwargs.enable_thinking``
    (or ``thinking``, vLLM's) says it; else ``reasoning.effort: "none"`` is off; None when the request says nothing.
    Off, the output does not start inside reasoning."""
    switch = template_thinking_switch(request.get("chat_template_kwargs"))
    if switch is not None:
        return switch
    reasoning = request.get("reasoning")
    if isinstance(reasoning, Mapping) and reasoning.get("effort") == "none":
        return False
    return None


def item_parser_options(
    request: Mapping[str, Any], options: RepairOptions, *, message: bool, reasoning_seen: bool
) -> ParserOptions:
    """The core's options for the text of one output item: a ``message``
    (:func:`~longcat_plugins.client.request.answer_parser_options`: its reasoning split off already when the upstream
    gave a reasoning item before it, ``reasoning_seen``), or a ``reasoning`` item (its text is reasoning as sent:
    only calls are read)."""
    calls, cut = reads_calls(request), openai_stops_may_cut_calls(request)
    if not message:
        return reasoning_parser_options(calls=calls, cut_calls_as_text=cut)
    return answer_parser_options(
        options,
        calls=calls,
        cut_calls_as_text=cut,
        thinking=response_thinking_switch(request),
        reasoning_split=reasoning_seen,
    )
