"""Invariant 4 (linear time), checked so that a busy machine can neither fail it nor pass it by chance
(``tests/support/work.py`` says how):

- counted: the core's Python-level calls on every shape of ``tests/fuzz/scaling.py: SHAPES`` (the repeated
  prefixes of every tag of every dialect read, many calls, many parameters, long values, reasoning, untagged names,
  JSON nesting), whole and in 4-character deltas, grow with the text (per character, 4x the text makes at most
  ``MAX_CALL_GROWTH`` times the calls): exact, so no retry and no margin for noise;
- timed, in CPU time, against a reference measured alternately in the same run: 4x the text costs what the text
  costs four times; so does a shape between two long plain texts, all at 4x (a builtin that copies or scans the rest
  of the buffer, or the text so far, at each tag costs the tags' number times the texts' length: 16x at 4x). The
  plain texts make such a copy show at the sizes CI affords; ``python scripts/linear_mib.py`` times every shape at
  megabyte sizes.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import pytest

from benchmarks.workloads import (
    WRITE_FILE_TOOL,
    chunks,
    json_call,
    json_many_params,
    many_params_tool,
    xml_call,
    xml_many_params,
)
from longcat_plugins.core import StreamParser
from tests.fuzz.runner import quiet
from tests.fuzz.scaling import SHAPES
from tests.support.work import paired_ratio, python_calls, repeated

#: per character, the calls at 4x the text over the calls at 1x (linear: 1; a square law: 4)
MAX_CALL_GROWTH = 1.15
#: CPU time over the reference's (linear: 1; a square law or a rescan per tag: 4 and more)
MAX_TIME_RATIO = 2.2


def parse_run(text: str, tools: Any, delta: int | None, pad: str = "") -> Callable[[], None]:
    """Parse ``pad + text + pad``: whole (one feed), or the pads whole and ``text`` in ``delta``-character deltas."""
    deltas = [pad + text + pad] if delta is None else [pad, *chunks(text, delta), pad]

    def run() -> None:
        parser = StreamParser(tools)
        for d in deltas:
            parser.feed(d)
        parser.finish()

    return run


def call_growth(build: Callable[[int], tuple[str, Any]], size: int, delta: int | None) -> float:
    """Per character, the Python calls of parsing the shape at 4x ``size`` over those at ``size``."""
    small, large = build(size), build(4 * size)
    python_calls(parse_run(*small, delta))  # (what is prepared once per process is not counted)
    per_char = [python_calls(parse_run(*shape, delta)) / len(shape[0]) for shape in (small, large)]
    return per_char[1] / per_char[0]


def _kinds() -> dict[str, list[str]]:
    kinds: dict[str, list[str]] = {}
    for name in SHAPES:
        kinds.setdefault(name.split(" ")[0].removesuffix("+tools"), []).append(name)
    return kinds


SHAPE_KINDS = _kinds()
COUNT_MODES = {"whole": None, "stream": 4}


@pytest.mark.parametrize("mode", sorted(COUNT_MODES))
@pytest.mark.parametrize("kind", sorted(SHAPE_KINDS))
def test_calls_grow_linearly_on_every_shape(kind: str, mode: str) -> None:
    quiet()
    growth = {name: call_growth(SHAPES[name], 1024, COUNT_MODES[mode]) for name in SHAPE_KINDS[kind]}
    worse = {name: round(g, 2) for name, g in growth.items() if g > MAX_CALL_GROWTH}
    assert not worse, f"4x the text makes more than 4x the calls (per character; linear: 1): {worse}"


#: shapes of the families (each one whose headers or name lines once copied the rest of the buffer among them),
#: between two plain texts: a builtin that slices the rest of the buffer or re-reads the text so far at each tag
#: costs (tags x text) there, 16x at 4x, where a linear parser reads the texts once
PADDED_SHAPES = [
    "tag <function=",
    "tag-name <function=x+tools",
    "tag-name <longcat_tool_call>x+tools",
    "tag-name <tool_call>x",
    'tag <invoke name="',
    "tag-name <function_calls>x",
    "calls kv+tools",
    "unclosed-calls glm47_test+tools",
    "repeated-key xml+tools",
    "repeated-key minimax_m2_test",
    "calls deepseek_v31_test+tools",
    "untagged-pairs kv+tools",
    "tool-tags-objects+tools",
    "functions-names+tools",
    "bare-json-list+tools",
    "reasoning-lt",
]
PAD = "a" * (1 << 20)


@pytest.mark.parametrize("mode", ["whole", "stream"])
@pytest.mark.parametrize("shape", PADDED_SHAPES)
def test_text_around_a_shape_is_read_once(shape: str, mode: str) -> None:
    quiet()
    delta = None if mode == "whole" else 64
    small = parse_run(*SHAPES[shape](4096), delta, pad=PAD[: len(PAD) // 4])
    large = parse_run(*SHAPES[shape](4 * 4096), delta, pad=PAD)
    four_times(small, large, f"{shape} ({mode}) between two plain texts")


def four_times(run_small: Callable[[], None], run_large: Callable[[], None], what: str) -> None:
    """4x the input costs what the input costs four times (CPU time, measured alternately in the same run)."""
    ratios = []
    for _ in range(3):  # a burst of load can still slow one side of one round; a square law fails every attempt
        ratio = paired_ratio(run_large, repeated(run_small, 4))
        if ratio < MAX_TIME_RATIO:
            return
        ratios.append(round(ratio, 2))
    pytest.fail(f"{what}: 4x the input cost {ratios} x four times the input's cost (linear: 1)")


WORKLOADS: dict[str, tuple[Callable[[int], str], Callable[[int], list[object]], int]] = {
    "json-huge-string": (json_call, lambda n: [WRITE_FILE_TOOL], 32_768),
    "hermes-huge-string": (lambda n: json_call(n, "tool_call"), lambda n: [WRITE_FILE_TOOL], 32_768),
    "xml-huge-string": (xml_call, lambda n: [WRITE_FILE_TOOL], 32_768),
    "xml-many-params": (xml_many_params, lambda n: [many_params_tool(n)], 1000),
    "json-many-params": (json_many_params, lambda n: [many_params_tool(n)], 1000),
}


@pytest.mark.parametrize("workload", sorted(WORKLOADS))
def test_cost_grows_linearly(workload: str) -> None:
    make, tools, size = WORKLOADS[workload]
    small, large = (make(size), tools(size)), (make(4 * size), tools(4 * size))
    growth = call_growth(lambda n: small if n == size else large, size, 4)
    assert growth < MAX_CALL_GROWTH, f"{workload}: 4x the text makes {growth:.2f}x the calls per character"
    four_times(parse_run(*small, 4), parse_run(*large, 4), workload)


#: One large delta (a whole output parsed at once) full of '<' that start no tag, or only a tag's prefix: the tag
#: matcher looks at no more than the longest tag's length of text after each '<'.
ANGLE_PATTERNS = ["<", "a<", "<longc", "<tool_call>x", "<function=", "<think", "</tool_call>"]


@pytest.mark.parametrize("pattern", ANGLE_PATTERNS)
def test_one_large_delta_of_angle_brackets_costs_linear_time(pattern: str) -> None:
    def build(n: int) -> tuple[str, Any]:
        return pattern * (n // len(pattern)), None

    growth = call_growth(build, 8192, None)
    assert growth < MAX_CALL_GROWTH, f"{pattern!r}: 4x the text makes {growth:.2f}x the calls per character"
    four_times(parse_run(*build(16_384), None), parse_run(*build(4 * 16_384), None), repr(pattern))


def _count_per_chunk(tokens: int) -> Callable[[], None]:
    """Usage streamed with every chunk: the reasoning tokens of all ids so far, asked after every new id."""
    from longcat_plugins.core.reasoning_tokens import ReasoningTokenCounter

    texts = {0: "<think>", 1: "</think>", 2: "plan ", 3: "<", 4: "b"}
    ids = [0] + [2, 3, 4] * (tokens // 3) + [1, 2]
    prefixes = [ids[:k] if k < 64 else _Prefix(ids, k) for k in range(1, len(ids) + 1)]

    def run() -> None:
        counter = ReasoningTokenCounter(texts.__getitem__, reasoning_open=False)
        for prefix in prefixes:
            counter.count(prefix)

    return run


class _Prefix:
    """``ids[:k]`` without the copy (vLLM hands over its growing list; copying it would be the test's own cost)."""

    def __init__(self, ids: list[int], k: int) -> None:
        self._ids, self._k = ids, k

    def __len__(self) -> int:
        return self._k

    def __getitem__(self, item: int | slice) -> object:
        if isinstance(item, slice):
            return self._ids[item.start : self._k]
        return self._ids[item if item >= 0 else self._k + item]


def test_reasoning_token_count_per_chunk_grows_linearly() -> None:
    """vLLM asks ``count_reasoning_tokens(all ids so far)`` on every chunk when usage is streamed with each one:
    the count must cost the new ids only."""
    small, large = _count_per_chunk(6000), _count_per_chunk(4 * 6000)
    python_calls(small)
    calls = python_calls(large) / python_calls(small)
    assert calls < 4 * MAX_CALL_GROWTH, f"reasoning tokens counted per chunk: 4x the tokens make {calls:.2f}x the calls"
    four_times(small, large, "counting reasoning tokens per chunk")


# -- the checks themselves ---------------------------------------------------------------------------------------


class _RereadsInPython(StreamParser):
    """A parser that walks the text so far, in Python, at every delta (a square law in calls)."""

    def feed(self, delta: str) -> list[Any]:
        self.__dict__.setdefault("seen", []).append(delta)
        for part in self.__dict__["seen"]:
            len(part)
        return super().feed(delta)


class _CopiesTheRest(StreamParser):
    """A parser that copies the rest of its text at every '<' (a square law no call count sees)."""

    def feed(self, delta: str) -> list[Any]:
        at = delta.find("<")
        while at >= 0:
            _ = delta[at:]
            at = delta.find("<", at + 1)
        return super().feed(delta)


def test_the_checks_catch_a_square_law(monkeypatch: pytest.MonkeyPatch) -> None:
    shape = SHAPES["calls kv+tools"]
    monkeypatch.setattr(sys.modules[__name__], "StreamParser", _RereadsInPython)
    assert call_growth(shape, 1024, 4) > 2 * MAX_CALL_GROWTH
    monkeypatch.setattr(sys.modules[__name__], "StreamParser", _CopiesTheRest)
    assert call_growth(shape, 1024, None) < MAX_CALL_GROWTH
    with pytest.raises(pytest.fail.Exception):
        test_text_around_a_shape_is_read_once("calls kv+tools", "whole")


def test_a_long_string_delta_is_checked_at_the_speed_of_one_character_class() -> None:
    """The fast path of a long JSON string passes a delta on after one regex match over it: that match must cost
    about what finding a character of a class in the same text costs (an alternation repeated per character keeps
    backtracking state for each one, tens of times slower, and grows worse than linearly with the delta)."""
    from longcat_plugins.core.readers.json_value import _STRING_CONTINUATION, _STRING_SPECIAL

    text = ("plain text, then an escape \\n and \\u00e9 " * 100_000)[: 4 << 20]
    assert _STRING_CONTINUATION.fullmatch(text) is not None
    plain = "a" * len(text)
    ratio = paired_ratio(lambda: _STRING_CONTINUATION.fullmatch(text), lambda: _STRING_SPECIAL.search(plain))
    assert ratio < 12, f"the string's fast path costs {ratio:.1f}x a scan for one character class"
