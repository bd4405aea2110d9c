"""What an Anthropic Messages request (``POST /v1/messages``) asks of the repair: its tools, whether its answers are
repaired, and the core's options for their text."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any, Final

from longcat_plugins.core import ParserOptions
from longcat_plugins.core.prompt import template_thinking_switch
from longcat_plugins.core.stops import stops_may_cut_calls

from .options import RepairOptions
from .request import answer_parser_options, repairs_answers

#: the prefix of the ids of the calls the repair reads (Anthropic's own are ``toolu_...``)
TOOL_USE_ID_PREFIX: Final = "toolu_"


def messages_tools(request: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The request's client tools (``{"name", "description", "input_schema"}``, ``type`` absent or ``"custom"``)
    in the core's shape (a function with ``parameters``). Anthropic's own tools (``bash_...``, ``web_search_...``:
    a ``type`` of their own, no schema) are run by Anthropic's servers, and are left out."""
    tools = request.get("tools")
    if not isinstance(tools, (list, tuple)):
        return []
    found: list[dict[str, Any]] = []
    for tool in tools:
        if not isinstance(tool, Mapping) or tool.get("type", "custom") != "custom":
            continue
        name, schema = tool.get("name"), tool.get("input_schema")
        if not isinstance(name, str) or not name or not isinstance(schema, Mapping):
            continue
        function: dict[str, Any] = {"name": name, "parameters": schema}
        if isinstance(tool.get("description"), str):
            function["description"] = tool["description"]
        found.append({"type": "function", "function": function})
    return found


def reads_calls(request: Mapping[str, Any]) -> bool:
    """Whether calls are read from the text of the answers to ``request``: it declares tools, and its
    ``tool_choice`` is not ``{"type": "none"}``."""
    if not isinstance(request, Mapping):
        return False
    choice = request.get("tool_choice")
    if isinstance(choice, Mapping) and choice.get("type") == "none":
        return False
    return bool(messages_tools(request))


def needs_messages_repair(request: Mapping[str, Any], options: RepairOptions | None = None) -> bool:
    """Whether the answers to ``request`` are repaired: calls are read from their text (:func:`reads_calls`), or
    reasoning is (``options.reasoning``: every request's answer, with tools or not)."""
    if not isinstance(request, Mapping):
        return False
    return repairs_answers(reads_calls(request), options)


def messages_thinking_switch(request: Mapping[str, Any]) -> bool | None:
    """Whether the request switched the model's thinking on or off: a boolean ``chat_template_kwargs.enable_thinking``
    (or ``thinking``) says it; else ``thinking: {"type": "disabled"}`` is off (vLLM renders it as a low or no
    reasoning effort); None when the request says nothing."""
    switch = template_thinking_switch(request.get("chat_template_kwargs"))
    if switch is not None:
        return switch
    thinking = request.get("thinking")
    if isinstance(thinking, Mapping) and thinking.get("type") == "disabled":
        return False
    return None


def tool_use_id(index: int) -> str:
    """A new call id (the core numbers calls per text; the ids are unique across the answer)."""
    return TOOL_USE_ID_PREFIX + secrets.token_hex(12)


def text_parser_options(
    request: Mapping[str, Any], options: RepairOptions, *, reasoning_split: bool = False
) -> ParserOptions:
    """:func:`~longcat_plugins.client.request.answer_parser_options` for a text block of an answer to ``request``:
    its stops are ``stop_sequences``, its thinking switch :func:`messages_thinking_switch`, its reasoning split off
    when the upstream sent a ``thinking`` block before the text (``reasoning_split``), its call ids ``toolu_...``."""
    return answer_parser_options(
        options,
        calls=reads_calls(request),
        cut_calls_as_text=stops_may_cut_calls((request.get("stop_sequences"),)),
        thinking=messages_thinking_switch(request),
        reasoning_split=reasoning_split,
        id_factory=tool_use_id,
    )
