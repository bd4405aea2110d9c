"""What an Anthropic Messages request (``POST /v1/messages``) asks of the repair: its tools, whether its answers are
repaired, and the core's options for their text."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any, Final

from longcat_plugins.core import ParserOptions
from longcat_plugins.core.stops import stops_may_cut_calls

from .options import RepairOptions

#: the prefix of the ids of the calls the repair reads (Anthropic's own are ``toolu_...``)
TOOL_USE_ID_PREFIX: Final = "toolu_"
#: the chat-template variables that switch a model's thinking on or off, in the order read
THINKING_SWITCHES: Final = ("enable_thinking", "thinking")


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
    return reads_calls(request) or (options is not None and options.reasoning)


def thinking_switch(request: Mapping[str, Any]) -> bool | None:
    """Whether the request switched the model's thinking on or off: ``thinking: {"type": "disabled"}`` is off
    (vLLM renders it as a low or no reasoning effort), a boolean ``chat_template_kwargs.enable_thinking`` (or
    ``thinking``) says it; None when the request says nothing."""
    kwargs = request.get("chat_template_kwargs")
    if isinstance(kwargs, Mapping):
        for key in THINKING_SWITCHES:
            if isinstance(kwargs.get(key), bool):
                return bool(kwargs[key])
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
    """The core's options for a text block of an answer to ``request``.

    Without ``options.reasoning`` the text is plain text and calls: a ``<think>`` in it stays as sent. With it,
    ``<think>``/``<longcat_think>`` blocks are reasoning; whether the text starts inside reasoning (a template that
    pre-fills the opening tag) is not known without the prompt: the first think tag decides (the text is held until
    that tag, or the end), unless the request switched thinking off or the upstream sent a ``thinking`` block
    before the text (``reasoning_split``): the text then starts outside reasoning. A stop sequence may cut the
    output inside a call: a call left open at the end is then text."""
    cut = stops_may_cut_calls((request.get("stop_sequences"),))
    calls = reads_calls(request)
    if not options.reasoning:
        return ParserOptions(reasoning=False, tools=calls, cut_calls_as_text=cut, id_factory=tool_use_id)
    start_known = thinking_switch(request) is False or reasoning_split
    return ParserOptions(
        reasoning=True,
        tools=calls,
        reasoning_start_unknown=not start_known,
        cut_calls_as_text=cut,
        id_factory=tool_use_id,
    )
