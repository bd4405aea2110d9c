"""The reasoning-token count reads runs of tokens with no '<' as one text: it must count what reading each token
alone counts (the reference), for every output and every tokenization, counted at once or as the list grows."""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from longcat_plugins.core import parse
from longcat_plugins.core.options import ParserOptions
from longcat_plugins.core.reasoning_tokens import ReasoningTokenCounter

EXAMPLES = int(os.environ.get("LONGCAT_HYPOTHESIS_EXAMPLES", "300"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CORPUS = [json.loads(line) for line in Path(__file__).with_name("corpus.jsonl").read_text("utf-8").splitlines()]

PIECES = st.lists(
    st.one_of(
        st.sampled_from(["<think>", "</think>", "<longcat_think>", "</longcat_think>", "<", "</", "<th", "ink>"]),
        st.sampled_from(["<longcat_tool_call>", "</longcat_tool_call>", "<tool_call>", "</tool_call>", "</longcat_s>"]),
        st.sampled_from(["<function=get_weather>", "<parameter=city>", "</parameter>", "</function>"]),
        st.sampled_from(['{"name": "get_weather", "arguments": {"city": "Paris"}}', "get_weather", "\n", "\n\n", " "]),
        st.sampled_from(["<longcat_arg_key>", "city", "</longcat_arg_key>", "<longcat_arg_value>", "Paris"]),
        st.text(max_size=12),
    ),
    max_size=24,
).map("".join)


class PerToken(ReasoningTokenCounter):
    """The reference: every token read alone."""

    def count(self, token_ids: Sequence[int]) -> int:
        for token_id in token_ids:
            self._read_one(self._token_text(token_id))
        return self._count + self._open_window()


def _tokens(text: str, cuts: list[int]) -> list[str]:
    points = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    return [text[a:b] for a, b in itertools.pairwise(points)]


def _counts(tokens: list[str], reasoning_open: bool, tools: Any, growth: list[int]) -> tuple[int, int, int]:
    ids = list(range(len(tokens)))
    text = tokens.__getitem__
    reference = PerToken(text, reasoning_open=reasoning_open, tools=tools).count(ids)
    whole = ReasoningTokenCounter(text, reasoning_open=reasoning_open, tools=tools).count(ids)
    grown = ReasoningTokenCounter(text, reasoning_open=reasoning_open, tools=tools)
    for k in sorted({g % (len(ids) + 1) for g in growth}):
        grown.count(ids[:k])
    return reference, whole, grown.count(ids)


@SETTINGS
@given(text=PIECES, cuts=st.lists(st.integers(0, 400), max_size=40), growth=st.lists(st.integers(0, 60), max_size=5),
       reasoning_open=st.booleans())  # fmt: skip
def test_runs_count_as_single_tokens(text: str, cuts: list[int], growth: list[int], reasoning_open: bool) -> None:
    reference, whole, grown = _counts(_tokens(text, cuts), reasoning_open, None, growth)
    assert whole == reference and grown == reference


@pytest.mark.parametrize("case", CORPUS, ids=[c["id"] for c in CORPUS])
@pytest.mark.parametrize("reasoning_open", [False, True])
def test_the_corpus_counts_what_single_tokens_count(case: dict[str, Any], reasoning_open: bool) -> None:
    text = case["text"]
    for step in (1, 3, 7):
        tokens = [text[i : i + step] for i in range(0, len(text), step)]
        reference, whole, grown = _counts(tokens, reasoning_open, case.get("tools"), [len(tokens) // 2])
        assert whole == reference and grown == reference, step


def test_a_run_inside_reasoning_counts_each_token_with_text() -> None:
    """Tokens of text inside reasoning count one each; an empty one does not; the tags never."""
    tokens = ["<think>", "a", "b", "", "c", "</think>", "d", "e"]
    counter = ReasoningTokenCounter(tokens.__getitem__, reasoning_open=False)
    assert counter.count(range(len(tokens))) == 3


def _count(tokens: list[str], reasoning_open: bool = True) -> int:
    return ReasoningTokenCounter(tokens.__getitem__, reasoning_open=reasoning_open).count(range(len(tokens)))


def test_text_held_to_the_end_of_the_output_counts_as_it_is_shown() -> None:
    """A block opened inside reasoning that the output ends in is held to the end, then shown as reasoning: the
    list counted is the output so far, so its tokens count; a closing tag cut by the end is reasoning text too."""
    assert _count(["Plan", ".", "\n", "<tool_call>", "\n", '{"', "name", '": "', "x"]) == 9
    assert _count(["Plan", " ", "</th"]) == 3
    # the list may still grow: read on, the block is a call and its tokens are not reasoning
    tokens = ["Plan", ".", "\n", "<tool_call>", "\n", '{"', "name", '": "', "x", '", "arguments": {}}', "</tool_call>"]
    counter = ReasoningTokenCounter(tokens.__getitem__, reasoning_open=True)
    assert counter.count(range(9)) == 9
    assert counter.count(range(len(tokens))) == _count(tokens) == 3


def test_an_end_marker_that_releases_held_text_is_not_counted() -> None:
    """``<|im_end|>`` after a possible tag shows the tag's start as reasoning text; the marker itself is never shown,
    so never counted, and the text before it counts once, also when the tag that opened reasoning shares a token
    with it."""
    assert _count(["Plan", " <", "tool", "_", "<|im_end|>"]) == 4
    assert _count(["x", "<think", "><", "tool", "_", "</longcat_s>"], reasoning_open=False) == 2


@SETTINGS
@given(text=PIECES, cuts=st.lists(st.integers(0, 400), max_size=40), reasoning_open=st.booleans(),
       marker=st.sampled_from(["<|im_end|>", "</longcat_s>"]))  # fmt: skip
def test_an_end_marker_read_last_changes_no_count(
    text: str, cuts: list[int], reasoning_open: bool, marker: str
) -> None:
    """The engine counts the output's tokens with the end-of-sequence token among them: read last, a marker ends
    the output as the end of the list does, and is never reasoning."""
    tokens = _tokens(text, cuts)
    assert _count([*tokens, marker], reasoning_open) == _count(tokens, reasoning_open)


def test_a_long_held_text_counted_on_every_chunk_is_read_a_bounded_number_of_times(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A block opened inside reasoning and held to the end of a long output, counted every 16 tokens (usage sent
    with each chunk): the text read in all is a few times the output's, not its square; the last count is exact."""
    from longcat_plugins.core import reasoning_tokens

    read = [0]
    place = reasoning_tokens._reasoning_in

    def counting(tokens: Sequence[str], events: Sequence[Any], carry: str = "") -> tuple[int, str]:
        read[0] += len("".join(tokens))
        return place(tokens, events, carry)

    monkeypatch.setattr(reasoning_tokens, "_reasoning_in", counting)
    tokens = ["Plan", "<tool_call>", "\n", '{"', "name", '": "', *["ab"] * 4000, "<|im_end|>"]
    counter = ReasoningTokenCounter(tokens.__getitem__, reasoning_open=True)
    for k in range(1, len(tokens), 16):
        counter.count(range(k))
    assert counter.count(range(len(tokens))) == len(tokens) - 1
    assert read[0] < 6 * len("".join(tokens))


def test_tokens_still_held_after_part_of_the_held_text_is_shown_count_when_shown() -> None:
    """A held text that is shown up to a possible tag which started tokens earlier (a call tag inside reasoning,
    then ``</`` ``think`` read as a possible closing tag): the tokens of the part still held count when it is shown."""
    tools = [{"type": "function", "function": {"name": "x", "parameters": {"type": "object", "properties": {}}}}]
    for tokens in (["a", "<function_calls>", "x", "</", "think", "y"], ["a", "<tool_call>", "p", "</", "think", "y"],
                   ["a", "<tool_call>", "p", "<", "function", "_", "calls", ">"]):  # fmt: skip
        assert parse("".join(tokens), tools, ParserOptions(reasoning=True, reasoning_open=True)).reasoning == "".join(
            tokens
        )
        counter = ReasoningTokenCounter(tokens.__getitem__, reasoning_open=True, tools=tools)
        assert counter.count(range(len(tokens))) == len(tokens), tokens


@SETTINGS
@given(text=PIECES, cuts=st.lists(st.integers(0, 400), max_size=40), growth=st.lists(st.integers(0, 60), max_size=5))
def test_an_output_read_all_as_reasoning_counts_every_token_with_text(
    text: str, cuts: list[int], growth: list[int]
) -> None:
    """Where the one-pass reading shows the whole output as reasoning (no tag dropped, no content, no call), every
    token with text is reasoning: counted at once and as the list grows."""
    options = ParserOptions(reasoning=True, tools=False, reasoning_open=True)
    if not text or parse(text, None, options).reasoning != text:
        return
    tokens = _tokens(text, cuts)
    _, whole, grown = _counts(tokens, True, None, growth)
    want = sum(1 for token in tokens if token)
    assert whole == want and grown == want


def test_tokens_held_outside_reasoning_count_as_the_end_shows_them() -> None:
    """A call tag inside reasoning ends it (read on, the block is text, shown as content); a key tag after it is
    held outside reasoning, then ``<think>`` opens reasoning again inside the held text: the end shows ``b`` as
    reasoning, so its token counts, counted at once and as the list grows."""
    tokens = ["a", "<tool_call>", "v", "<longcat_arg_key>", "c", "<think>", "b"]
    assert parse("".join(tokens), None, ParserOptions(reasoning=True, reasoning_open=True)).reasoning == "ab"
    reference, whole, grown = _counts(tokens, True, None, [3, 5])
    assert whole == grown == reference == 2


def _reads_on_after_a_copy(text: str, cut: int, reasoning_open: bool, tools: Any) -> None:
    import copy

    from longcat_plugins.core.parser import StreamParser

    options = ParserOptions(reasoning=True, tools=False, reasoning_open=reasoning_open, log_problems=False)
    plain, copied = StreamParser(tools, options), StreamParser(tools, options)
    want = [*plain.feed(text[:cut]), *plain.feed(text[cut:]), *plain.finish()]
    got = copied.feed(text[:cut])
    copy.deepcopy(copied, {id(tools): tools}).finish()
    assert [*got, *copied.feed(text[cut:]), *copied.finish()] == want, cut


@pytest.mark.parametrize("case", CORPUS, ids=[c["id"] for c in CORPUS])
def test_a_copy_of_the_parser_read_to_its_end_leaves_the_parser_as_it_was(case: dict[str, Any]) -> None:
    """The count reads an undecided window to its end with a copy of the parser: the parser reads on exactly as if
    no copy had been made (cut anywhere in the corpus's outputs, a JSON call's name half read too)."""
    text = case["text"]
    for cut in range(0, len(text) + 1, max(1, len(text) // 12)):
        for reasoning_open in (False, True):
            _reads_on_after_a_copy(text, cut, reasoning_open, case.get("tools"))


@SETTINGS
@given(text=PIECES, cut=st.integers(0, 400), reasoning_open=st.booleans())
def test_a_copy_of_random_text_read_to_its_end_leaves_the_parser_as_it_was(
    text: str, cut: int, reasoning_open: bool
) -> None:
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
    _reads_on_after_a_copy(text, cut % (len(text) + 1), reasoning_open, tools)


def test_a_line_break_a_value_reader_holds_does_not_shift_the_tokens_after_it() -> None:
    """A call block read as text (no tools): the value's line break before ``</parameter>`` is held by the call's
    reader while the parser holds nothing; shown later, it must not be taken for the text of later tokens."""
    tokens = ["<tool_call>", "<function=", "f", ">", "<parameter=", "a", ">", "x", "\n", "</parameter>", "note",
              "</tool_call>", "<think>", "plan", " it", "</think>"]  # fmt: skip
    assert parse("".join(tokens), None, ParserOptions(reasoning=True)).reasoning == "plan it"
    reference, whole, grown = _counts(tokens, False, None, [9, 12])
    assert whole == grown == reference == 2
