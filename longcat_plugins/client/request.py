"""What a request asks of the repair: its function tools, whether it is repaired at all, the core's options.

The rules every API's repair (Chat Completions, Responses, Messages) shares are here: whether an answer is repaired
(:func:`repairs_answers`), the core's options for the text of an answer (:func:`answer_parser_options`) and for the
reasoning an upstream split off (:func:`reasoning_parser_options`), the stops of an OpenAI-style request
(:func:`openai_stops_may_cut_calls`); the thinking switch of the chat-template variables is the core's
(:func:`~longcat_plugins.core.prompt.template_thinking_switch`, which the engine adapters read too). Each API's request
module only reads its own spelling of those facts; the functions named ``chat_...`` read them from a Chat Completions
request.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from longcat_plugins.core import ParserOptions
from longcat_plugins.core.prompt import template_thinking_switch
from longcat_plugins.core.stops import stops_may_cut_calls

from .options import RepairOptions


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


def reads_calls(request: Mapping[str, Any]) -> bool:
    """Whether calls are to be read from the text of the answers to ``request``: it declares function tools and its
    ``tool_choice`` is not ``"none"``."""
    if not isinstance(request, Mapping):
        return False
    return bool(function_tools(request)) and request.get("tool_choice") != "none"


def repairs_answers(calls_read: bool, options: RepairOptions | None) -> bool:
    """Whether the answers to a request are repaired, in every API: calls are read from their text (``calls_read``:
    the request declares tools and does not forbid calling them), or reasoning is (``options.reasoning``: every
    request's answer, with or without tools; without, call markup stays text)."""
    return calls_read or (options is not None and options.reasoning)


def needs_repair(request: Mapping[str, Any], options: RepairOptions | None = None) -> bool:
    """Whether the answers to a Chat Completions ``request`` are repaired (:func:`repairs_answers`)."""
    if not isinstance(request, Mapping):
        return False
    return repairs_answers(reads_calls(request), options)


def answer_parser_options(
    options: RepairOptions,
    *,
    calls: bool,
    cut_calls_as_text: bool,
    thinking: bool | None,
    reasoning_split: bool,
    id_factory: Callable[[int], str] | None = None,
) -> ParserOptions:
    """The core's options for the text of an answer (Chat Completions' ``content``; the text an API answers with),
    for every API the repair serves.

    ``calls``: calls are read (:func:`reads_calls`); without, call markup is text, verbatim. ``cut_calls_as_text``: a
    stop of the request may cut the output inside a call (:func:`longcat_plugins.core.stops.stops_may_cut_calls`).
    ``thinking``: the request's thinking switch (None: it sets none). ``reasoning_split``: the upstream already
    separated this answer's reasoning (it sent reasoning text in its own field before this text). ``id_factory``: the
    API's call ids (None: the core's ``call_...``).

    Without ``options.reasoning`` the text is plain text and calls: a ``<think>`` in it stays as sent. With it,
    ``<think>``/``<longcat_think>`` blocks are reasoning. Whether the text starts inside reasoning (a template that
    pre-fills the opening tag) is not known without the prompt: the first think tag decides (a closer with no opener
    before it makes the text before it reasoning; the text is held until that tag, or the end), unless the request
    switched thinking off or the upstream split the reasoning off already: the text then starts outside reasoning."""
    if not options.reasoning:
        return reasoning_parser_options(calls=calls, cut_calls_as_text=cut_calls_as_text, id_factory=id_factory)
    start_known = thinking is False or reasoning_split
    return ParserOptions(
        reasoning=True,
        tools=calls,
        reasoning_start_unknown=not start_known,
        cut_calls_as_text=cut_calls_as_text,
        id_factory=id_factory,
    )


def reasoning_parser_options(
    *, calls: bool, cut_calls_as_text: bool, id_factory: Callable[[int], str] | None = None
) -> ParserOptions:
    """The core's options for the reasoning an upstream split off itself (and for an answer's text without the
    reasoning option): plain text and calls, as sent."""
    return ParserOptions(reasoning=False, tools=calls, cut_calls_as_text=cut_calls_as_text, id_factory=id_factory)


def openai_stops_may_cut_calls(request: Mapping[str, Any]) -> bool:
    """Whether a stop of an OpenAI-style request (``stop``, vLLM's ``stop_token_ids``: Chat Completions, Responses)
    may cut the output inside a call."""
    stop_ids = request.get("stop_token_ids")
    ids = [i for i in stop_ids if isinstance(i, int)] if isinstance(stop_ids, (list, tuple)) else None
    return stops_may_cut_calls((request.get("stop"),), ids)


def chat_parser_options(
    request: Mapping[str, Any], options: RepairOptions, *, reasoning_split: bool = False
) -> ParserOptions:
    """:func:`answer_parser_options` for the ``content`` of an answer to a Chat Completions request (its thinking
    switch: ``chat_template_kwargs``)."""
    return answer_parser_options(
        options,
        calls=reads_calls(request),
        cut_calls_as_text=openai_stops_may_cut_calls(request),
        thinking=template_thinking_switch(request.get("chat_template_kwargs")),
        reasoning_split=reasoning_split,
    )
