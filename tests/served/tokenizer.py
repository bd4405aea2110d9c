"""The tokenizer both engines serve the matrix with: trained on every text, with the tags as special tokens, as
ordinary tokens (``plain``), or not at all (each tag then several tokens)."""

from __future__ import annotations

from typing import Any

from longcat_plugins.replay.tokenizer import train_bpe_tokenizer
from longcat_plugins.templates import template_path
from tests.served.texts import all_texts

TEMPLATE = "xml-function-thinking"
CHAT_MARKERS = ["<|im_start|>", "<|im_end|>"]
#: the end-of-sequence token (a special token in every tokenization)
EOS = "<|im_end|>"
TAGS = [
    "<think>",
    "</think>",
    "<tool_call>",
    "</tool_call>",
    "<longcat_tool_call>",
    "</longcat_tool_call>",
    "<longcat_think>",
    "</longcat_think>",
    "<longcat_arg_key>",
    "</longcat_arg_key>",
    "<longcat_arg_value>",
    "</longcat_arg_value>",
    "</longcat_s>",
]


def served_tokenizer(tokens: str) -> Any:
    """``tokens``: how the tags are tokenized (``special``, ``plain`` or ``split``)."""
    template = template_path(TEMPLATE).read_text(encoding="utf-8")
    special = CHAT_MARKERS + (TAGS if tokens == "special" else [])
    return train_bpe_tokenizer(
        [t.text for t in all_texts()] * 2 + [template],
        special,
        vocab_size=900,
        eos_token=EOS,
        additional_special_tokens=special,
        plain_tokens=TAGS if tokens == "plain" else (),
        chat_template=template,
    )
