"""Broken outputs: well-formed ones mutated (truncated, spans deleted, duplicated or swapped, tags corrupted, tags and
unicode injected, huge values), and pure markup soup."""

from __future__ import annotations

import random
from collections.abc import Callable

from longcat_plugins.core import dialects as D

from .cases import Case
from .outputs import option_features, request_options, well_formed
from .schemas import make_tool
from .texts import ALL_TAGS, CONTROL, FRAGMENTS, UNICODE, WORDS, Sentinels, identifier

Mutation = Callable[[random.Random, str], str]


def _point(rng: random.Random, text: str) -> int:
    """A position, biased towards the places where things happen: around '<', '>', quotes, backslashes, escapes."""
    if text and rng.random() < 0.5:
        anchors = [i for i, c in enumerate(text) if c in '<>"\\{}\n']
        if anchors:
            return min(len(text), max(0, rng.choice(anchors) + rng.randint(-2, 2)))
    return rng.randint(0, len(text))


def _span(rng: random.Random, text: str) -> tuple[int, int]:
    start = _point(rng, text)
    length = rng.choice((1, 1, 2, 3, rng.randint(1, 40), rng.randint(1, max(1, len(text) // 2))))
    return start, min(len(text), start + length)


def truncate(rng: random.Random, text: str) -> str:
    if "\\u" in text and rng.random() < 0.2:  # inside or between the escapes of a surrogate pair
        i = rng.choice([i for i in range(len(text)) if text.startswith("\\u", i)])
        return text[: i + rng.randint(0, 12)]
    return text[: _point(rng, text)]


def delete_span(rng: random.Random, text: str) -> str:
    a, b = _span(rng, text)
    return text[:a] + text[b:]


def duplicate_span(rng: random.Random, text: str) -> str:
    a, b = _span(rng, text)
    return text[:b] + text[a:b] + text[b:]


def swap_spans(rng: random.Random, text: str) -> str:
    a, b = _span(rng, text)
    c, d = _span(rng, text)
    (a, b), (c, d) = sorted(((a, b), (c, d)))
    if c < b:
        return text
    return text[:a] + text[c:d] + text[b:c] + text[a:b] + text[d:]


def corrupt_tag(rng: random.Random, text: str) -> str:
    found = [(i, tag) for tag in ALL_TAGS for i in _occurrences(text, tag)]
    if not found:
        return text
    i, tag = rng.choice(found)
    r = rng.randrange(7)
    if r == 0:
        new = tag[:-1]  # no '>'
    elif r == 1:
        j = rng.randrange(len(tag))
        new = tag[:j] + tag[j + 1 :]
    elif r == 2:
        new = tag.upper()
    elif r == 3:
        j = rng.randrange(1, len(tag))
        new = tag[:j] + rng.choice((" ", "\n", "x", "<", ">")) + tag[j:]
    elif r == 4:
        new = rng.choice(ALL_TAGS)
    elif r == 5:
        new = tag[: rng.randrange(1, len(tag))]
    else:
        new = tag.replace("/", "") if "/" in tag else "</" + tag[1:]
    return text[:i] + new + text[i + len(tag) :]


def _occurrences(text: str, tag: str) -> list[int]:
    out, i = [], text.find(tag)
    while i >= 0:
        out.append(i)
        i = text.find(tag, i + 1)
    return out


#: the tags a call (or its block) opens with, and those a key or a parameter's header opens with
_CALL_HEADS = (*D.BLOCK_OPENS, *D.CALL_OPENS)
_OPEN_HEADERS = (*D.PAIR_KEY_OPENS, *(m.param_open for m in D.MARKUPS.values()), *D.CALL_OPENS)


def cut_in_new_call(rng: random.Random, text: str) -> str:
    """The output stops at a point (often inside a call, a key or a header left open) with the head of one of its
    own calls: its opening tag, its name, maybe the start of its arguments; the output ends in that call."""
    heads = [i for tag in _CALL_HEADS for i in _occurrences(text, tag)]
    if not heads:
        return truncate(rng, text)
    j = rng.choice(heads)
    k = rng.choice((rng.randint(1, 12), rng.randint(1, 40), rng.randint(1, 120)))
    head = text[j : j + k + next(len(tag) for tag in _CALL_HEADS if text.startswith(tag, j))]
    keys = [i + len(tag) for tag in D.PAIR_KEY_OPENS for i in _occurrences(text, tag)]
    opened = [i + len(tag) for tag in _OPEN_HEADERS for i in _occurrences(text, tag)]
    if opened and rng.random() < 0.6:  # a key or a header left open, a few characters in (a key holds what follows)
        i = rng.choice(keys if keys and rng.random() < 0.6 else opened)
        return text[: i + rng.randint(0, 8)] + head
    return text[: _point(rng, text)] + head


def inject_tag(rng: random.Random, text: str) -> str:
    i = _point(rng, text)
    return text[:i] + rng.choice(FRAGMENTS) + text[i:]


def inject_unicode(rng: random.Random, text: str) -> str:
    i = _point(rng, text)
    piece = rng.choice((*UNICODE, *CONTROL, "\\ud83d\\ude00", "\\ud83d", "\\ude00", "\\u00e9", "\U0001f600" * 3))
    return text[:i] + piece + text[i:]


HUGE: tuple[Callable[[random.Random, int], str], ...] = (
    lambda rng, n: "a" * n,
    lambda rng, n: "9" * n,  # a number with more digits than any decoder takes
    lambda rng, n: "\\" * n,
    lambda rng, n: '"' * n,
    lambda rng, n: " " * n,
    lambda rng, n: "<" * n,
    lambda rng, n: "{" * n,
    lambda rng, n: "[" * n,
    lambda rng, n: "😀" * (n // 2),
    lambda rng, n: ("\\ud83d\\ude00" * n)[:n],
    lambda rng, n: rng.choice(WORDS) * (n // 4),
    lambda rng, n: rng.choice(("1e999", "-1e999", "1e400", "NaN", "Infinity", "-Infinity", "1" + "0" * 400)),
)


def huge_value(rng: random.Random, text: str) -> str:
    n = rng.choice((200, 500, 1000, 2000, 4000))
    i = _point(rng, text)
    return text[:i] + rng.choice(HUGE)(rng, n) + text[i:]


MUTATIONS: dict[str, Mutation] = {
    "truncate": truncate,
    "delete": delete_span,
    "duplicate": duplicate_span,
    "swap": swap_spans,
    "corrupt-tag": corrupt_tag,
    "inject-tag": inject_tag,
    "unicode": inject_unicode,
    "huge": huge_value,
    "new-call": cut_in_new_call,
}


def mutated(rng: random.Random) -> Case:
    case = well_formed(rng)
    text = case.text
    names = []
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        name = rng.choices(list(MUTATIONS), weights=(4, 2, 2, 1, 3, 3, 2, 1, 3))[0]
        text = MUTATIONS[name](rng, text)
        names.append(f"mut.{name}")
    if rng.random() < 0.3 and names[-1] not in ("mut.truncate", "mut.new-call"):
        text = truncate(rng, text)
        names.append("mut.truncate")
    generator = "+".join([case.generator.replace("wf+", "mutated+", 1), *dict.fromkeys(names)])
    return Case(text, case.tools, case.options, generator)


def soup(rng: random.Random) -> Case:
    """Random sequences of tag fragments, '<', braces, quotes, backslashes, whitespace, names and words."""
    sentinel = Sentinels(rng)
    parts = []
    for _ in range(rng.randrange(40)):
        r = rng.random()
        if r < 0.5:
            parts.append(rng.choice(FRAGMENTS))
        elif r < 0.6:
            parts.append(rng.choice(ALL_TAGS))
        elif r < 0.7:
            parts.append(identifier(rng, 6))
        elif r < 0.8:
            parts.append(sentinel())
        elif r < 0.85:
            parts.append(rng.choice(UNICODE))
        else:
            parts.append(rng.choice((*WORDS, "f", "p", "x", "get_weather", "city", "=", "functions.")))
    names = ["f", "get_weather", "x"]
    tools = None
    if rng.random() < 0.6:
        tools = [make_tool(rng, name, hostile=rng.random() < 0.1).definition for name in names]
    r = rng.random()
    options = {} if r < 0.7 else ({"reasoning_open": True} if r < 0.85 else {"tools": False})
    options |= request_options(rng)
    return Case("".join(parts), tools, options, "+".join(["soup", *option_features(options)]))


GENERATORS: dict[str, Callable[[random.Random], Case]] = {"wf": well_formed, "mutated": mutated, "soup": soup}
WEIGHTS = {"wf": 3, "mutated": 5, "soup": 2}


def generate(seed: int, index: int) -> Case:
    """Case ``index`` of the run with ``seed`` (the same case whatever else runs, in any process)."""
    rng = random.Random(f"{seed}:{index}")
    kind = rng.choices(list(WEIGHTS), weights=list(WEIGHTS.values()))[0]
    return GENERATORS[kind](rng)
