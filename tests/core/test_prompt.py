"""Does a rendered prompt leave the output inside reasoning (a pre-filled opening think tag)?"""

from __future__ import annotations

import pytest

from longcat_plugins.core.prompt import prompt_opens_reasoning


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
