"""A small byte-level BPE tokenizer trained on the spot (no model files to download), as a transformers tokenizer."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerFast


def train_bpe_tokenizer(
    corpus: Iterable[str],
    special_tokens: Sequence[str],
    *,
    vocab_size: int,
    bos_token: str | None = None,
    eos_token: str | None = None,
    additional_special_tokens: Sequence[str] = (),
    plain_tokens: Sequence[str] = (),
    chat_template: str | None = None,
    alphabet: str | None = None,
) -> PreTrainedTokenizerFast:
    """Train a byte-level BPE of ``vocab_size`` tokens on ``corpus`` and wrap it in ``PreTrainedTokenizerFast``.

    ``special_tokens`` become single tokens, with the first ids, in this order; the text around them is split as
    BPE learnt it. ``bos_token``/``eos_token`` are set only when given (they should be among ``special_tokens``),
    and ``additional_special_tokens`` are registered as such with transformers. ``plain_tokens`` become single
    tokens too, added after training, but not special ones (``skip_special_tokens`` keeps them).

    ``alphabet`` (ASCII characters) limits what the vocabulary can write: no token holds another byte, so every token
    sequence decodes to whole text (a model with random weights then cannot write a byte that is no UTF-8). The
    corpus loses every other character, and encoding drops them. ``None``: all 256 bytes, as real byte-level BPEs.
    """
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(special_tokens),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet() if alphabet is None else _byte_level(alphabet),
        show_progress=False,
    )
    if alphabet is not None:
        corpus = ("".join(c for c in text if c in alphabet) for text in corpus)
    bpe.train_from_iterator(corpus, trainer)
    markers = {"bos_token": bos_token, "eos_token": eos_token}
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe, **{name: token for name, token in markers.items() if token is not None}
    )
    if additional_special_tokens:
        tokenizer.add_special_tokens({"additional_special_tokens": list(additional_special_tokens)})
    if plain_tokens:
        tokenizer.add_tokens([AddedToken(token, special=False, normalized=False) for token in plain_tokens])
    if chat_template is not None:
        tokenizer.chat_template = chat_template
    return tokenizer


def _byte_level(alphabet: str) -> list[str]:
    """The byte-level BPE symbols of the characters of ``alphabet`` (ASCII: one byte each), by GPT-2's map:
    printable Latin-1 bytes stand for themselves, the others are numbered on from 256."""
    printable = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAC + 1), *range(0xAE, 0x100)]
    shifted = {b: chr(256 + n) for n, b in enumerate(b for b in range(256) if b not in printable)}
    return [c if ord(c) in printable else shifted[ord(c)] for c in alphabet.encode("ascii").decode("ascii")]
