"""A dialect's own reasoning tags (``reasoning: [open, close]`` in its declaration, Magistral's ``[THINK]`` ...
``[/THINK]``) are read as ``<think>`` ... ``</think>`` are: by the parser, whatever the output starts in, and by the
reasoning-token counter."""

from __future__ import annotations

from typing import Any

import pytest

from longcat_plugins.core import dialects as D
from tests.core.declared_reading import read

THINKING: dict[str, Any] = {
    "name": "thinking_test",
    "title": "T",
    "models": "none",
    "block": ["[CALLS]", "[/CALLS]"],
    "reasoning": ["[THINK]", "[/THINK]"],
}
CALL = '[CALLS]{"name": "get_weather", "arguments": {"city": "Paris"}}[/CALLS]'


def test_a_declared_reasoning_pair_is_the_dialects() -> None:
    assert D.declared(THINKING).reasoning == ("[THINK]", "[/THINK]")
    assert D.declared({k: v for k, v in THINKING.items() if k != "reasoning"}).reasoning is None


@pytest.mark.parametrize("reasoning", [["[THINK]"], "[THINK]", ["[THINK]", ""], ["[THINK]", "[/THINK]", "x"]])
def test_a_reasoning_key_that_is_no_pair_of_tags_is_refused(reasoning: Any) -> None:
    with pytest.raises(ValueError, match="reasoning"):
        D.declared({**THINKING, "reasoning": reasoning})


def test_the_parser_reads_the_declared_reasoning_tags() -> None:
    texts = [
        f"[THINK]Let me see [a].[/THINK]Here.{CALL}",
        "[THINK]cut off [",
        "Plain [THINK] late? no: content first.",
        f"<think>a</think>b[THINK]c[/THINK]d{CALL}",
    ]
    got = read([THINKING], {"texts": texts})
    whole = [{k: v for k, v in r["whole"].items() if k != "ids"} for r in got["results"]]
    assert all(r["whole"]["calls"] == r["streamed"]["calls"] for r in got["results"])
    call = [["get_weather", {"city": "Paris"}]]
    assert whole[0] == {"content": "Here.", "reasoning": "Let me see [a].", "calls": call}
    assert whole[1] == {"content": "", "reasoning": "cut off [", "calls": []}
    assert whole[2]["reasoning"] == " late? no: content first." and whole[2]["content"] == "Plain "
    assert whole[3] == {"content": "bd", "reasoning": "ac", "calls": call}


def test_an_output_that_starts_inside_declared_reasoning() -> None:
    texts = ["thinking [x][/THINK]The answer.", "a[/THINK]b"]
    got = read([THINKING], {"texts": texts, "options": {"reasoning_open": True}})
    assert [r["whole"] for r in got["results"]] == [
        {"content": "The answer.", "reasoning": "thinking [x]", "calls": [], "ids": []},
        {"content": "b", "reasoning": "a", "calls": [], "ids": []},
    ]
    unknown = read([THINKING], {"texts": texts, "options": {"reasoning_start_unknown": True}})
    assert [r["whole"] for r in unknown["results"]] == [r["whole"] for r in got["results"]]


def test_the_reasoning_token_counter_reads_the_declared_tags() -> None:
    tokens = ["[THINK]", "Let", " me", " [", "see", "[/", "THINK]", "The", " answer"]
    got = read([THINKING], {"texts": [], "tokens": tokens})
    assert got["reasoning_tokens"] == 4  # (Let, me, [, see)
