"""The served-path matrix's smoke on vLLM: what vLLM's own server serves, for every API, streamed or not, every
parser configuration, tool choice, finish and tokenization, equals the core's one-pass reading of the same text
(``tests/served``; the whole matrix: ``python -m tests.served vllm``)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from served_vllm import VllmDriver

from tests.served.cells import Cell
from tests.served.run import run_cell
from tests.served.texts import TOOLS, Text
from tests.support.twins.served_matrix import *  # noqa: F403 (the smoke's tests, run on VllmDriver)

pytestmark = pytest.mark.vllm

DRIVER = VllmDriver


#: outputs whose reasoning ends in text the parser holds back: a block opened inside reasoning that the output ends
#: in (shown as reasoning at the end), and the start of a tag the end-of-sequence token follows
HELD_AT_THE_END = (
    Text("reasoning_ends_in_an_open_block", 'Plan it.\n<tool_call>\n{"name": "x', reasoning_open=True),
    Text("reasoning_ends_in_a_tag_start", "Plan it. <tool_", reasoning_open=True),
)


@pytest.mark.parametrize("text", HELD_AT_THE_END, ids=str)
@pytest.mark.parametrize("tokens", ["special", "plain", "split"])
def test_reasoning_tokens_count_what_the_end_shows_as_reasoning(driver: Any, text: Text, tokens: str) -> None:
    """Usage's ``reasoning_tokens``, counted over the output's tokens with the end-of-sequence token among them: the
    tokens of the reasoning the answer shows (the end token never one of them)."""
    outcomes = []
    for parsers, stream in itertools.product(("both", "reasoning"), (False, True)):
        cell = Cell(api="chat", stream=stream, parsers=parsers, tool_choice="no_tools", tokens=tokens, group=3)
        outcomes.append(run_cell(driver, cell, text))
    failed = [str(o) for o in outcomes if not o.ok]
    assert not failed, "\n".join(failed)


def test_a_stop_string_is_looked_for_before_the_end_of_sequence_token(driver: Any) -> None:
    """An output that ends with the end-of-sequence token ends there: its text is never part of the answer, so the
    stop string a cell cuts the output with is drawn from the text before it (one drawn from the middle of the whole
    text fell inside ``<|im_end|>``, which never stops the output)."""
    text = Text("ends_with_the_end_of_sequence_token", "Fine here.<|im_end|>", TOOLS)
    outcomes = []
    for api, stream, parsers in itertools.product(driver.apis, (False, True), ("both", "tool", "reasoning")):
        outcomes.append(run_cell(driver, Cell(api=api, stream=stream, parsers=parsers, finish="stop"), text))
    assert not [o for o in outcomes if o.skipped]
    failed = [str(o) for o in outcomes if not o.ok]
    assert not failed, "\n".join(failed)


def test_the_end_of_sequence_token_that_ends_an_output_is_not_read(driver: Any) -> None:
    """The end-of-sequence token an output ends with never reaches the parsers (vLLM keeps it out of the text): the
    answer is the one-pass reading of the text before it, whose last whitespace, after untagged calls and a
    sentence, a trailing marker would have dropped."""
    output = '[{"name": "get_weather", "arguments": {"city": "Paris"}}]\n\nDone.\n<|im_end|>'
    text = Text("untagged_calls_then_a_sentence", output, TOOLS)
    outcomes = []
    for api, stream in itertools.product(driver.apis, (False, True)):
        outcomes.append(run_cell(driver, Cell(api=api, stream=stream, group=64), text))
    failed = [str(o) for o in outcomes if not o.ok]
    assert not failed, "\n".join(failed)


def test_reasoning_tokens_count_the_tokens_an_end_marker_inside_the_reasoning_keeps_apart(driver: Any) -> None:
    """An end-of-sequence marker inside reasoning is a token the reading drops: the texts on either side of it are
    tokens apart (``p`` and ``r``), where the reasoning text tokenized alone has them in one (``pr``)."""
    text = Text("an_end_marker_inside_reasoning", 'Plan "-0p<|im_end|>riqhr:think then.', reasoning_open=True)
    outcomes = []
    for stream in (False, True):
        cell = Cell(api="chat", stream=stream, parsers="reasoning", tool_choice="no_tools", tokens="plain", group=3)
        outcomes.append(run_cell(driver, cell, text))
    failed = [str(o) for o in outcomes if not o.ok]
    assert not failed, "\n".join(failed)
