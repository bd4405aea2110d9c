"""Tokens a random model under a grammar is steered off, found in a byte-level BPE vocabulary (token -> id).

A random model writes what a real one would not: wherever JSON allows whitespace it pads with runs of it up to
``max_tokens``; and a check that reads U+FFFD as the detokenizer's stand-in for broken bytes needs a model that never
writes the character itself. Asked with these tokens at -100 (``logit_bias``) or left out of ``allowed_token_ids``,
a random model's output is what the checks can judge exactly. The token loop's tests and the serving benchmark both
use them.
"""

from __future__ import annotations

from collections.abc import Mapping

#: the byte-level symbols of " \n\t\r\v\f"
_BLANK = frozenset("\u0120\u010a\u0109\u010d\u010b\u010c")


def whitespace_runs(vocab: Mapping[str, int]) -> list[int]:
    """Tokens of two whitespace characters or more (spaces, tabs, line breaks)."""
    return sorted(i for t, i in vocab.items() if len(t) >= 2 and set(t) <= _BLANK)


def surrogate_leads(vocab: Mapping[str, int]) -> list[int]:
    """Tokens that end in the byte ED, the lead byte of a surrogate's three-byte encoding (ED A0-BF ..)."""
    return sorted(i for t, i in vocab.items() if t.endswith("\u00ed"))


def replacement_characters(vocab: Mapping[str, int]) -> list[int]:
    """Tokens that write U+FFFD itself (its bytes EF BF BD, byte-level ``\u00ef\u00bf\u00bd``): Qwen's vocabulary has
    nine, such as ``.\ufffd`` (82266). The character is text a model may write, but a check that takes a U+FFFD in a
    string for bytes that are no UTF-8 is exact only for a model that never writes it (the scaled grammar walk met
    82266 four times in 7,500 LongCat JSON calls)."""
    return sorted(i for t, i in vocab.items() if "\u00ef\u00bf\u00bd" in t)


def steered_off(vocab: Mapping[str, int]) -> list[int]:
    """Whitespace runs, surrogate leads and U+FFFD: the tokens a random model of a real vocabulary does not write."""
    return sorted({*whitespace_runs(vocab), *surrogate_leads(vocab), *replacement_characters(vocab)})
