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
