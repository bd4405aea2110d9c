"""What the end of a rendered prompt says about the output: does the model start inside reasoning, and may it open
reasoning itself?

Templates pre-fill ``<think>`` (or ``<think></think>`` to switch thinking off) after the assistant header; the output
then starts inside (or after) a reasoning block the parser never sees open. Where the current turn holds no think tag,
the turn's format tells whether the model may open one itself: Qwen3's ChatML turn (``<|im_start|>assistant``) is
written by thinking models, which open ``<think>`` themselves when thinking is on (the template's default); LongCat's
``ASSISTANT:`` turn is not (a LongCat model that reasons is served with a template that pre-fills its think tag).

Whether such a model reasons is also a property of the model: a ChatML model whose template has no thinking switch
(Qwen2.5, Qwen3-Coder, Qwen3's Instruct-2507 models, whose templates mention ``<think>`` only to strip it from earlier
turns) does not open ``<think>``; :func:`template_may_think` reads that from a chat template's source (the model's
own, or the one served).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from . import dialects as D

#: Markers that start or end a turn: a think tag before the last of them belongs to an earlier turn (or to the
#: user's message). LongCat's turns have no special token between the user's text and ``ASSISTANT:``.
TURN_BOUNDARIES: Final = ("<|im_start|>", "<|im_end|>", "</longcat_s>", "ASSISTANT:")


def prompt_opens_reasoning(prompt_tail: str) -> bool | None:
    """True if the prompt's current turn opened a reasoning block it did not close, False if it closed one, None if
    the current turn has no think tag. ``prompt_tail`` is the end of the rendered prompt (any length)."""
    cut = max((i + len(tag) for tag in TURN_BOUNDARIES if (i := prompt_tail.rfind(tag)) >= 0), default=0)
    turn = prompt_tail[cut:]
    opened = max(turn.rfind(tag) for tag in D.THINK_OPENS)
    closed = max(turn.rfind(tag) for tag in D.THINK_CLOSES)
    if opened == closed:  # both absent
        return None
    return opened > closed


#: assistant headers after which the model itself may open reasoning (the prompt holding no think tag)
SELF_OPENING_TURNS: Final = ("<|im_start|>assistant",)


def model_may_open_reasoning(prompt_tail: str) -> bool:
    """Whether the prompt ends in an assistant header after which the model itself may open reasoning (see the
    module's docstring). ``prompt_tail`` is the end of the rendered prompt (any length)."""
    tail = prompt_tail.rstrip()
    return any(tail.endswith(header) for header in SELF_OPENING_TURNS)


#: the chat-template variables a request switches a model's thinking on or off with (``chat_template_kwargs``), in
#: the order read
THINKING_SWITCHES: Final = ("enable_thinking", "thinking")


def template_thinking_switch(chat_template_kwargs: Any) -> bool | None:
    """The request's thinking switch in its chat-template variables (``enable_thinking``, or ``thinking``) when it is
    a boolean; None when the request sets none."""
    if not isinstance(chat_template_kwargs, Mapping):
        return None
    for key in THINKING_SWITCHES:
        value = chat_template_kwargs.get(key)
        if isinstance(value, bool):
            return value
    return None


#: words in a chat template's source that say the model it serves may open reasoning itself: a thinking switch. (A
#: think tag in the source says nothing: templates of models that never reason strip reasoning from earlier turns
#: too; a template that opens reasoning for the model says so in the prompt it renders.)
THINKING_TEMPLATE_MARKS: Final = ("enable_thinking",)


def template_may_think(template_source: str) -> bool:
    """Whether a chat template's source says its model may open reasoning itself: it has a thinking switch. An
    unknown template ('') says nothing against it."""
    if not template_source:
        return True
    return any(mark in template_source for mark in THINKING_TEMPLATE_MARKS)


def output_may_start_reasoning(prompt_tail: str, thinking: bool | None, template_source: str) -> bool | None:
    """Whether the output of a prompt ending in ``prompt_tail`` may start inside reasoning: True if the prompt opened
    it or the model may open it itself, False if it cannot.

    In order: the prompt's current turn (a think tag the template wrote: open, or closed as Qwen3's template closes
    an empty block when thinking is off); then the request's thinking switch (``enable_thinking``), ``thinking``;
    then whether the prompt ends at an assistant header after which the model may open reasoning itself
    (:func:`model_may_open_reasoning`) and its template says it may reason (:func:`template_may_think`). None only
    when nothing is known (an empty tail and no switch)."""
    state = prompt_opens_reasoning(prompt_tail)
    if state is not None:
        return state
    if thinking is not None:
        return thinking
    if not prompt_tail:
        return None
    return model_may_open_reasoning(prompt_tail) and template_may_think(template_source)
