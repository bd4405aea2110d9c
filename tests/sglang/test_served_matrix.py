"""The served-path matrix's smoke on SGLang: what SGLang's own Chat Completions serving serves, streamed or not, for
every parser configuration, tool choice, finish and tokenization, equals the core's one-pass reading of the same text
(``tests/served``; the whole matrix: ``python -m tests.served sglang``)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from served_sglang import SglangDriver

from tests.served.cells import Cell
from tests.served.run import run_cell
from tests.served.texts import Text
from tests.support.twins.served_matrix import *  # noqa: F403 (the smoke's tests, run on SglangDriver)

pytestmark = pytest.mark.sglang

DRIVER = SglangDriver


def test_a_skipped_special_token_after_a_four_byte_character_adds_no_text(driver: Any) -> None:
    """The stand-in detokenizer decodes each step with the tokens from where the step before began: a character of
    four bytes, each its own token, then a special token the request skips, decodes to that character once (decoded
    from a few tokens back, the window began inside the character and showed its bytes again as U+FFFD)."""
    text = Text(
        "four_byte_character_then_a_skipped_tag", "\U0001d11e\u00e9\U0001f1eb\U0001f1f7<think> a</longcat_s>x\U0001f600"
    )
    outcomes = []
    for api, stream, group in itertools.product(driver.apis, (False, True), (1, 3)):
        cell = Cell(api=api, stream=stream, parsers="tool", tool_choice="no_tools", group=group)
        outcomes.append(run_cell(driver, cell, text))
    failed = [str(o) for o in outcomes if not o.ok]
    assert not failed, "\n".join(failed)


WEATHER = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {}}}}
]


def _served(driver: Any, cells: list[Cell], text: Text) -> list[str]:
    outcomes = [run_cell(driver, cell, text) for cell in cells]
    assert all(not o.skipped for o in outcomes), [o.skipped for o in outcomes]
    return [str(o) for o in outcomes if not o.ok]


@pytest.mark.parametrize("tokens", ["special", "split"])
def test_a_whole_answer_with_a_key_tag_goes_to_the_tool_parser(driver: Any, tokens: str) -> None:
    """A key tag alone makes our ``has_tool_call`` say the answer may hold a call: SGLang then hands it to the tool
    parser, which drops the end-of-sequence marker the model wrote as text (kept only where no parser runs)."""
    text = Text(
        "end_marker_then_a_key_tag", "<|im_end|>中文file><longcat_arg_key><function=''<longcat_arg_value>path", WEATHER
    )
    cells = [
        Cell(api=api, stream=stream, parsers="tool", finish="stop", tokens=tokens, group=14)
        for api in driver.apis
        for stream in (False, True)
    ]
    failed = _served(driver, cells, text)
    assert not failed, "\n".join(failed)


@pytest.mark.parametrize("group", [1, 60])
def test_whitespace_left_in_a_cut_call_is_served_as_each_api_serves_it(driver: Any, group: int) -> None:
    """``max_tokens`` cuts a call's arguments after whitespace: the reading's content ends with that whitespace (the
    unread rest of a cut call is content), which SGLang's Responses stream drops while a call is open."""
    text = Text(
        "call_cut_after_whitespace",
        'Sure. <tool_call>\n{"name": "get_weather", "arguments": {"city": {\n        "x": 1}}}\n</tool_call>',
        WEATHER,
        cut_after='"city": {\n     ',
    )
    cells = [
        Cell(api=api, stream=stream, parsers="tool", finish="length", tokens=tokens, group=group)
        for api in driver.apis
        for stream in (False, True)
        for tokens in ("special", "split")
    ]
    failed = _served(driver, cells, text)
    assert not failed, "\n".join(failed)
