"""A weight-less LongCat-Flash model directory for the replay server: config.json and a real HF tokenizer.

The tokenizer is a byte-level BPE trained at start-up (about a second) on the recording and the chat template,
with LongCat's markup tags as special tokens, and LongCat-Flash-Chat's chat template (``longcat-flash-chat``)
both as its ``chat_template`` and as the server's ``--chat-template``. ``</longcat_s>`` is the end-of-sequence
token.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from longcat_plugins.templates import template_path

from .tokenizer import train_bpe_tokenizer

TEMPLATE_NAME = "longcat-flash-chat"
BOS = "<longcat_s>"
EOS = "</longcat_s>"
#: Single (special) tokens in the replay tokenizer, as in LongCat's own vocabulary. Other tags (``<think>``,
#: ``<tool_call>``, ``<function=``...) are split into several tokens, so both paths of the parser are used.
SPECIAL_TAGS = (
    "<longcat_tool_call>",
    "</longcat_tool_call>",
    "<longcat_tool_response>",
    "</longcat_tool_response>",
    "<longcat_think>",
    "</longcat_think>",
)
VOCAB_SIZE = 1200


def build_model_dir(root: Path, corpus: Iterable[str]) -> Path:
    """Write a model directory (no weights) under ``root`` and return it."""
    template = template_path(TEMPLATE_NAME).read_text(encoding="utf-8")
    tokenizer = train_bpe_tokenizer(
        [*corpus, template],
        [BOS, EOS, *SPECIAL_TAGS],
        vocab_size=VOCAB_SIZE,
        bos_token=BOS,
        eos_token=EOS,
        additional_special_tokens=SPECIAL_TAGS,
        chat_template=template,
    )
    root.mkdir(parents=True, exist_ok=True)
    tokenizer.save_pretrained(root)
    config = {
        "model_type": "longcat_flash",
        "architectures": ["LongcatFlashForCausalLM"],
        "vocab_size": len(tokenizer),
        "hidden_size": 64,
        "num_layers": 1,
        "num_attention_heads": 2,
        "max_position_embeddings": 65536,
        "bos_token_id": tokenizer.bos_token_id,
        "eos_token_id": tokenizer.eos_token_id,
    }
    (root / "config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    return root
