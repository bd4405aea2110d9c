"""Pieces of text: prose, reasoning, string values, names, and the markup vocabulary the mutations and soup use.

Prose and values carry *sentinel* words (``Zq0000x``): a sentinel in the input must come out somewhere (content,
reasoning, a call's name or arguments), which is what the word-accounting check looks for.
"""

from __future__ import annotations

import random
import re
from typing import Final

from longcat_plugins.core import dialects as D
from longcat_plugins.core.tag_starts import TAG_STARTS

SENTINEL: Final = re.compile(r"Zq[0-9]{4}x")


def _pairs(dialect: D.Dialect) -> D.Pairs:
    assert dialect.pairs is not None
    return dialect.pairs


def _declared_tags() -> tuple[str, ...]:
    """Every tag of every dialect the parser reads, as declared (blocks, markups, pairs, separated calls)."""
    groups = [
        *((b.open, b.close) for b in D.BLOCKS),
        *((m.call_open, m.call_close, m.param_open, m.param_close) for m in D.MARKUPS.values()),
        *((p.key_open, p.key_close, p.value_open, p.value_close) for p in map(_pairs, D.PAIR_DIALECTS.values())),
        *((c.call_open, c.separator, c.call_close) for c in D.SEPARATED.values()),
    ]
    return tuple(dict.fromkeys(tag for group in groups for tag in group if tag))


#: the end-of-sequence tokens every dialect reads, and those the dialects declare
END_OF_SEQUENCE: Final = D.END_OF_SEQUENCE
THINK_AND_EOS: Final = (*D.THINK_OPENS, *D.THINK_CLOSES, *END_OF_SEQUENCE)
#: every tag of every dialect, reasoning's and the ends of sequence
ALL_TAGS: Final = (*_declared_tags(), *THINK_AND_EOS)

WORDS: Final = (
    "the", "file", "weather", "Paris", "call", "tool", "value", "let", "me", "check", "ok", "json", "name",
    "arguments", "function", "parameter", "think", "null", "true", "path", "src/app.py", "print", "done", "note",
)  # fmt: skip
UNICODE: Final = (
    "é", "中文", "😀", "👩‍💻", "𝄞", "\u2028", "\u200b", "\u0301", "ﬁ", "\u202e", "Ω", "\ufeff", "🇫🇷", "\U0010fffd",
)  # fmt: skip
CONTROL: Final = ("\x00", "\x01", "\x1f", "\x7f", "\b", "\f", "\r", "\t", "\v")
#: '<' (or another character a tag starts with) that starts no tag of any dialect
HARMLESS_LT: Final = (
    "a < b", "<b>", "</b>", "<3", "<tool", "<longcat_", "<thinking>", "<<", "x<y", "</", "<br/>",
    # the other characters a declared tag starts with, where they start none
    *(text for c in sorted(TAG_STARTS - {"<"}) for text in (f"a {c} b", f"{c}{c}", f"x{c}1", f"{c}0]")),
)  # fmt: skip
#: markup fragments: whole tags, cut-off tags, JSON punctuation, escapes
FRAGMENTS: Final = (
    *ALL_TAGS,
    "<", ">", "</", "<longc", "<longcat_tool", "<tool_", "<function", "<parameter", "</longcat_arg_",
    "<|im_", "</think",
    *(f"{m.call_open}{name}{m.name_end}" for m in D.MARKUPS.values() for name in ("f", "get_weather")),
    *(f"{m.param_open}{name}{m.name_end}" for m in D.MARKUPS.values() for name in ("p", "city")),
    *(f"{s.call_open}{s.namespace}f{s.index_mark}0{s.separator}" for s in D.SEPARATED.values()),
    "{", "}", "[", "]", '"', "'", "\\", "\\u", "\\ud83d", "\\ude00", "\\ud83d\\ude00", "\\n", "\\\"", ":", ",",
    '{"name": "f", "arguments": ', '"name"', '"arguments"', '{"', '":', "null", "true", "1e999", "NaN", "-0",
    " ", "\n", "\t", "\r\n", "  ", "\n\n",
)  # fmt: skip


class Sentinels:
    """Hands out distinct sentinel words for one case."""

    def __init__(self, rng: random.Random) -> None:
        self._next = rng.randrange(10_000)

    def __call__(self) -> str:
        self._next = (self._next + 1) % 10_000
        return f"Zq{self._next:04d}x"


def identifier(rng: random.Random, max_len: int = 16) -> str:
    first = rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
    rest = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789_") for _ in range(rng.randrange(max_len)))
    return first + rest


def tool_name(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.1:
        return identifier(rng, 6) + rng.choice("-.") + identifier(rng, 8)
    return identifier(rng)


def prose(rng: random.Random, sentinel: Sentinels, lt: bool = True, max_words: int = 12) -> str:
    """Text between calls: words, punctuation, unicode, whitespace, and (when ``lt``) '<' that starts no tag."""
    parts: list[str] = []
    for _ in range(rng.randrange(max_words + 1)):
        r = rng.random()
        if r < 0.45:
            parts.append(rng.choice(WORDS))
        elif r < 0.6:
            parts.append(sentinel())
        elif r < 0.7:
            parts.append(rng.choice(UNICODE))
        elif r < 0.8:
            parts.append(rng.choice(".,:;!?'\"{}[]()/\\-*#`=") * rng.randint(1, 2))
        elif r < 0.88 and lt:
            parts.append(rng.choice(HARMLESS_LT))
        else:
            parts.append(rng.choice(("\n", "\n\n", "  ", "\t")))
        parts.append(rng.choice((" ", " ", "", "\n")))
    return "".join(parts)


class ValueEnds:
    """What ends a plain-text value, as a reader has it: ``tags`` wherever they stand; ``close`` (the value's own
    closing tag) only where a line break, a tag or the value's end follows it on its line. A generated value holds
    the closing tag only with other text after it on its line (where it is value text)."""

    def __init__(self, tags: tuple[str, ...] = (), close: str = "") -> None:
        self.tags: Final = tuple(t for t in tags if t != close)
        self.close: Final = close
        self._close_ends = re.compile(re.escape(close) + r"[ \t\r]*(?:\n|<|\Z)") if close else None

    def __call__(self, text: str) -> bool:
        """Whether ``text`` would end a value before its end."""
        if any(t in text for t in self.tags):
            return True
        return self._close_ends is not None and self._close_ends.search(text) is not None


NO_ENDS: Final = ValueEnds()


def string_value(rng: random.Random, sentinel: Sentinels, ends: ValueEnds = NO_ENDS) -> str:
    """A string value with the characters that matter to the scanners; holds nothing that ``ends`` it (a value's
    closing tag with text after it on its line may stand in it)."""
    while True:
        parts: list[str] = []
        for _ in range(rng.randrange(10)):
            r = rng.random()
            if r < 0.3:
                parts.append(rng.choice(WORDS))
            elif r < 0.45:
                parts.append(sentinel())
            elif r < 0.6:
                parts.append(rng.choice("\"\\\n\t<>{}[],: /=_'`"))
            elif r < 0.7:
                parts.append(rng.choice(UNICODE))
            elif r < 0.75:
                parts.append(rng.choice(CONTROL))
            elif r < 0.85:
                parts.append(rng.choice(ALL_TAGS))  # markup inside a value is data
                if ends.close and rng.random() < 0.3:
                    parts.append(ends.close + rng.choice(("", " ")) + rng.choice(WORDS))  # value text, on its line
            else:
                parts.append(rng.choice((" ", "\n", "  ")))
        text = "".join(parts)
        if not ends(text):
            return text


def opaque_value(rng: random.Random, sentinel: Sentinels) -> str:
    """A value no schema can type (not a number, literal, JSON or Python literal): it stays the raw string."""
    return f"{rng.choice(WORDS)} {sentinel()}{rng.choice(('', ' ok', '!', ' 12'))}"
