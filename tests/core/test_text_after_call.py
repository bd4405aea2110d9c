"""Text after a call is kept exactly, the whitespace before it included, in every dialect the parser reads; for a
call written as a name, a separator and a JSON object between its tags (``readers/sep_call.py``) also where the
call's closing tag, or its block's, was left out. Whole and streamed a character at a time."""

from __future__ import annotations

import json

import pytest

from longcat_plugins.core import ParsedMessage, ParserOptions, parse
from longcat_plugins.core.dialects import READ_DIALECTS, Dialect
from tests.support.events import feed

TOOL = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
ARGUMENTS = {"city": "Paris"}
TAILS = [" and more text", "\n and more", "\t\tand more", "\n\nand more", "and more"]
#: the dialects whose calls are a name, a separator and a JSON object between the call's own tags (a call with no tags
#: of its own, Mistral's, has no closing tag to leave out: it ends with its arguments)
SEPARATED = [d for d in READ_DIALECTS.values() if d.separated is not None and d.separated.call_open]


def _read(text: str) -> list[ParsedMessage]:
    options = ParserOptions(reasoning=False)
    return [parse(text, [TOOL], options), feed(list(text), [TOOL], options).message]


def _assert_reads(text: str, content: str) -> None:
    for message in _read(text):
        assert message.content == content, text
        assert [(c.name, json.loads(c.arguments)) for c in message.tool_calls] == [("f", ARGUMENTS)], text


@pytest.mark.parametrize("tail", TAILS, ids=repr)
@pytest.mark.parametrize("dialect", list(READ_DIALECTS.values()), ids=list(READ_DIALECTS))
def test_text_after_a_call_is_kept_exactly(dialect: Dialect, tail: str) -> None:
    _assert_reads(f"Hi.{dialect.write('f', ARGUMENTS)}{tail}", f"Hi.{tail}")


def _unclosed(dialect: Dialect) -> str:
    """The call as ``dialect`` writes it, up to its arguments: its closing tag and its block's left out."""
    assert dialect.separated is not None
    written = dialect.write("f", ARGUMENTS)
    return written.removesuffix(dialect.separated.call_close + dialect.block.close)


@pytest.mark.parametrize("tail", TAILS, ids=repr)
@pytest.mark.parametrize("dialect", SEPARATED, ids=[d.name for d in SEPARATED])
def test_text_after_a_call_whose_closing_tag_was_left_out_is_kept_exactly(dialect: Dialect, tail: str) -> None:
    call = _unclosed(dialect)
    _assert_reads(f"Hi.{call}{tail}", f"Hi.{tail}")
    _assert_reads(f"Hi.{call}{tail}{dialect.block.close}", f"Hi.{tail}")
    bare = call.removeprefix(dialect.block.open)  # a call with no block
    _assert_reads(f"Hi.{bare}{tail}", f"Hi.{tail}")


@pytest.mark.parametrize("dialect", SEPARATED, ids=[d.name for d in SEPARATED])
def test_whitespace_between_a_call_and_a_tag_that_ends_it_is_markup(dialect: Dialect) -> None:
    call = _unclosed(dialect)
    assert dialect.separated is not None
    _assert_reads(f"Hi.{call} \n{dialect.block.close} and more", "Hi. and more")
    _assert_reads(f"Hi.{call}\n \n", "Hi.")
    second = _unclosed(dialect).removeprefix(dialect.block.open)
    for message in _read(f"Hi.{call}\n {second}{dialect.block.close}"):
        assert message.content == "Hi."
        assert len(message.tool_calls) == 2
