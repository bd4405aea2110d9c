"""Does a rendered prompt leave the output inside reasoning (a pre-filled opening think tag)?"""

from __future__ import annotations

import pytest

from longcat_plugins.core.prompt import prompt_opens_reasoning, template_thinking_switch


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n", True),
        ("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think></think>", False),
        ("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n", None),
        ("<|im_start|>user\nwhat is <think>?<|im_end|>\n<|im_start|>assistant\n", None),  # the user's text
        ("<|im_start|>assistant\n<think>a</think>b<|im_end|>\n<|im_start|>assistant\n", None),  # an earlier turn
        ("[Round 0] USER:hi ASSISTANT:<longcat_think>", True),
        ("[Round 0] USER:hi ASSISTANT:<longcat_think></longcat_think>", False),
        ("SYSTEM:s [Round 0] USER:what is <think>? ASSISTANT:", None),  # LongCat has no token before ASSISTANT:
        ("[Round 0] USER:explain <longcat_think> tags ASSISTANT:", None),
        ("", None),
    ],
)
def test_prompt_opens_reasoning(prompt: str, expected: bool | None) -> None:
    assert prompt_opens_reasoning(prompt) is expected


QWEN3_TURN = "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
LONGCAT_TURN = "[Round 0] USER:hi ASSISTANT:"
THINKING_TEMPLATE = "{%- if enable_thinking is false %}{{- '<think>\\n\\n</think>\\n\\n' }}{%- endif %}"
PLAIN_TEMPLATE = "{%- for m in messages %}{{- '<|im_start|>' ~ m['role'] }}{%- endfor %}"
#: a template of a model that never reasons, which strips reasoning from earlier turns (Qwen3's Instruct-2507 models)
STRIPPING_TEMPLATE = (
    "{%- for m in messages %}{%- set c = m['content'] %}{%- if '</think>' in c %}"
    "{%- set c = c.split('</think>')[-1] %}{%- endif %}{{- '<|im_start|>' ~ m['role'] ~ c }}{%- endfor %}"
)


@pytest.mark.parametrize(
    ("tail", "thinking", "template", "expected"),
    [
        (QWEN3_TURN, None, THINKING_TEMPLATE, True),  # Qwen3 opens <think> itself
        (QWEN3_TURN, True, THINKING_TEMPLATE, True),
        (QWEN3_TURN, False, THINKING_TEMPLATE, False),
        (QWEN3_TURN + "<think>\n\n</think>\n\n", None, THINKING_TEMPLATE, False),  # switched off in the prompt
        (QWEN3_TURN + "<think>\n\n</think>\n\n", True, THINKING_TEMPLATE, False),  # the prompt wins
        (QWEN3_TURN + "<think>\n", False, THINKING_TEMPLATE, True),
        (QWEN3_TURN, None, PLAIN_TEMPLATE, False),  # a ChatML model that never reasons (Qwen3-Coder, Qwen2.5)
        (QWEN3_TURN, None, STRIPPING_TEMPLATE, False),  # nor one whose template only strips reasoning
        (QWEN3_TURN, None, "", True),  # an unknown template says nothing against it
        (LONGCAT_TURN, None, THINKING_TEMPLATE, False),  # LongCat-Flash-Chat does not open reasoning
        (LONGCAT_TURN, True, "", True),
        ("", None, THINKING_TEMPLATE, None),
    ],
)
def test_output_may_start_reasoning(tail: str, thinking: bool | None, template: str, expected: bool | None) -> None:
    from longcat_plugins.core.prompt import output_may_start_reasoning

    assert output_may_start_reasoning(tail, thinking, template) is expected


def test_template_may_think() -> None:
    from longcat_plugins.core.prompt import template_may_think
    from longcat_plugins.templates import template_path

    def source(name: str) -> str:
        with open(template_path(name), encoding="utf-8") as f:
            return f.read()

    assert template_may_think(source("qwen3-tools-first"))
    assert template_may_think(source("xml-function-thinking"))
    assert not template_may_think(PLAIN_TEMPLATE)
    assert not template_may_think(STRIPPING_TEMPLATE)
    assert not template_may_think(source("longcat-flash-chat"))


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"enable_thinking": False}, False),
        ({"thinking": True}, True),
        ({"enable_thinking": True, "thinking": False}, True),  # (enable_thinking is read first)
        ({"enable_thinking": "no"}, None),  # (not a boolean: no switch)
        ({}, None),
        (None, None),
        ("enable_thinking", None),
    ],
)
def test_template_thinking_switch(kwargs: object, expected: bool | None) -> None:
    """The request's thinking switch in its chat-template variables, as the engine adapters and every API of the
    client repair read it."""
    assert template_thinking_switch(kwargs) is expected
