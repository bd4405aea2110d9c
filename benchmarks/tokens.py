"""One token stream for every parser: a small byte-level BPE trained on the workloads, saved once and loaded in
every environment, and the deltas a detokenizer would hand out for it.

Tags that are special tokens in LongCat and Qwen3 tokenizers are single special tokens here too.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from .paths import OUT
from .workloads import DIALECTS, agent_turn, huge_call, many_params_call

SPECIAL_TAGS = [
    "<|im_start|>",
    "<|im_end|>",
    "</longcat_s>",
    "<longcat_tool_call>",
    "</longcat_tool_call>",
    "<tool_call>",
    "</tool_call>",
    "<think>",
    "</think>",
    "<longcat_arg_key>",
    "</longcat_arg_key>",
    "<longcat_arg_value>",
    "</longcat_arg_value>",
]
PROMPT = "<|im_start|>user\nFix the failing test.<|im_end|>\n<|im_start|>assistant\n"
VOCAB_SIZE = 2000
DEFAULT_DIR = OUT / "tokenizer"

Delta = tuple[str, list[int]]


def _corpus() -> list[str]:
    out: list[str] = []
    for dialect in DIALECTS:
        out += [huge_call(dialect, 8192), many_params_call(dialect, 200), agent_turn(dialect)]
    return out


def tokenizer_dir() -> Path:
    return Path(os.environ.get("LONGCAT_BENCH_TOKENIZER", DEFAULT_DIR))


def load_tokenizer(path: Path | None = None) -> Any:
    """The benchmark tokenizer (a ``PreTrainedTokenizerFast``), trained and saved on first use."""
    from transformers import PreTrainedTokenizerFast

    path = path or tokenizer_dir()
    if not (path / "tokenizer.json").exists():
        _train(path)
    return PreTrainedTokenizerFast.from_pretrained(str(path))


def _train(path: Path) -> None:
    from longcat_plugins.replay.tokenizer import train_bpe_tokenizer

    tokenizer = train_bpe_tokenizer(
        _corpus(),
        ["<s>", "</s>", *SPECIAL_TAGS],
        vocab_size=VOCAB_SIZE,
        eos_token="</s>",
        additional_special_tokens=SPECIAL_TAGS,
    )
    path.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    tokenizer.save_pretrained(str(tmp))
    for f in tmp.iterdir():
        f.replace(path / f.name)
    tmp.rmdir()


def token_deltas(tokenizer: Any, text: str, *, group: int | None = None, min_chars: int = 4) -> list[Delta]:
    """The deltas a detokenizer hands out for ``text``: ``group`` tokens at a time, or (``group=None``) as few
    tokens as make at least ``min_chars`` characters. A token that ends inside a character (byte-level BPE)
    waits for the next one, as in vLLM's detokenizer. Joining the delta texts gives ``text`` back."""
    enc = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    ids: list[int] = enc["input_ids"]
    offsets: list[tuple[int, int]] = enc["offset_mapping"]
    out: list[Delta] = []
    start = 0
    pending: list[int] = []
    for i, token in enumerate(ids):
        pending.append(token)
        end = offsets[i][1]
        if i + 1 < len(ids) and offsets[i + 1][0] < end:
            continue  # the next token completes a character this one started
        full = len(pending) >= group if group else end - start >= min_chars
        if full or i + 1 == len(ids):
            out.append((text[start:end], pending))
            start, pending = end, []
    if start < len(text):  # text the tokenizer offsets do not cover (never expected)
        out.append((text[start:], pending))
    assert "".join(d for d, _ in out) == text, "the deltas do not join to the text"
    return out


def stream_digest(deltas: list[Delta]) -> str:
    h = hashlib.sha256()
    for text, ids in deltas:
        h.update(text.encode())
        h.update(b"\0" + ",".join(map(str, ids)).encode() + b"\1")
    return h.hexdigest()[:12]
