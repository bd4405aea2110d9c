"""Model directories with no weights: a tokenizer and a config.json, enough for an engine's config and renderer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def save_model_dir(root: Path, tokenizer: Any, model_type: str, architecture: str, **config: Any) -> Path:
    """Save ``tokenizer`` in ``root`` beside a config.json of ``model_type`` with the fields ``config``."""
    tokenizer.save_pretrained(root)
    fields = {"model_type": model_type, "architectures": [architecture], **config}
    (root / "config.json").write_text(json.dumps(fields), encoding="utf-8")
    return root


def save_qwen3_dir(root: Path, tokenizer: Any, model_type: str = "qwen3", **config: Any) -> Path:
    """A one-layer Qwen3 with ``tokenizer``'s vocabulary (``config`` overrides or adds fields)."""
    fields = {
        "vocab_size": len(tokenizer),
        "hidden_size": 64,
        "intermediate_size": 128,
        "num_hidden_layers": 1,
        "num_attention_heads": 2,
        "num_key_value_heads": 1,
        "head_dim": 32,
        "max_position_embeddings": 4096,
        **config,
    }
    return save_model_dir(root, tokenizer, model_type, "Qwen3ForCausalLM", **fields)
