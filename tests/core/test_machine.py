"""The parser's transition table (core/machine.py), and the moves it makes that earlier code got wrong: a call block
mentioned inside reasoning that is not a call goes back to reasoning, and reasoning goes on."""

from __future__ import annotations

import json
from typing import Any

import pytest

from longcat_plugins.core import ParserOptions, StreamParser, parse
from longcat_plugins.core.machine import ORIGIN, TRANSITIONS, Action, IllegalMove, Mode, Trigger, next_move
from tests.support.events import groups_of, split_at, stream, summary
from tests.support.tools import function_tool

TOOLS = [function_tool("get_weather", {"city": {"type": "string"}})]


def test_every_mode_is_reachable_and_can_end() -> None:
    reached = {Mode.CONTENT, Mode.REASONING} | {t for t, _ in TRANSITIONS.values() if isinstance(t, Mode)}
    assert reached == set(Mode)
    # the end of input is a legal move from every mode (for call modes through the trigger finish() picks)
    for mode in Mode:
        ends = {Trigger.END_OF_INPUT, Trigger.NOT_A_CALL, Trigger.CALL_BREAKS}
        assert any((mode, trigger) in TRANSITIONS for trigger in ends), mode


def test_only_block_modes_go_back_to_their_origin() -> None:
    for (mode, _), (target, action) in TRANSITIONS.items():
        if target is ORIGIN:
            assert mode in (Mode.BLOCK, Mode.CALL, Mode.BARE_CALL)
            assert action in (Action.RETURN_HELD_BLOCK, Action.REREAD_HELD_BLOCK)


def test_a_move_the_table_lacks_is_an_error() -> None:
    with pytest.raises(IllegalMove, match="content"):
        next_move(Mode.CONTENT, Trigger.CALL_ENDS)


# -- a call format mentioned inside reasoning --------------------------------------------------------------------

MENTIONS = [
    "I should answer with a <tool_call> block here.",
    "I should answer with a <longcat_tool_call> block here.",
    "Format: <longcat_tool_call>NAME then keys.",
    "Maybe <tool_call>{not json} works?",
    'Maybe <tool_call>{"name": 3} works?',
    "Try <longcat_tool_call>",
    "Write <tool_call>\n<function=get_weather",
    "A bare <function=get_weather> is only an example.",
    "Nested <longcat_tool_call><tool_call> tags.",
    "A </tool_call> closing tag alone.",
]


def _splits(text: str) -> list[list[str]]:
    whole_and_groups = [[text], list(text), groups_of(text, 3), groups_of(text, 7)]
    return whole_and_groups + [split_at(text, [k]) for k in range(len(text))]


@pytest.mark.parametrize("mention", MENTIONS)
@pytest.mark.parametrize("opened", ["<think>", "<longcat_think>", ""])
def test_a_call_format_mentioned_in_reasoning_stays_reasoning(mention: str, opened: str) -> None:
    close = "</longcat_think>" if opened == "<longcat_think>" else "</think>"
    text = f"{opened}{mention}{close}Answer."
    options = ParserOptions(reasoning_open=not opened)
    expected = ("Answer.", mention, [])
    assert summary(parse(text, TOOLS, options)) == expected
    for pieces in _splits(text):
        message, _ = stream(pieces, TOOLS, options)
        assert summary(message) == expected, pieces


@pytest.mark.parametrize("mention", MENTIONS)
def test_without_tool_parsing_a_mention_in_reasoning_stays_reasoning(mention: str) -> None:
    """The reasoning stage an engine runs before its tool stage splits the text the same way."""
    text = f"<think>{mention}</think>Answer."
    for pieces in _splits(text):
        message, _ = stream(pieces, TOOLS, ParserOptions(tools=False))
        assert (message.content, message.reasoning) == ("Answer.", mention), pieces


CALLS = [
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    '<longcat_tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</longcat_tool_call>',
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
    "<longcat_tool_call>get_weather\n<longcat_arg_key>city</longcat_arg_key>\n"
    "<longcat_arg_value>Paris</longcat_arg_value>\n</longcat_tool_call>",
]


@pytest.mark.parametrize("call", CALLS)
def test_a_call_inside_reasoning_ends_it_after_a_mention(call: str) -> None:
    text = f"<think>Use <tool_call> blocks. So:{call}Done."
    expected = ("Done.", "Use <tool_call> blocks. So:", [("get_weather", json.dumps({"city": "Paris"}))])
    assert _canonical(summary(parse(text, TOOLS))) == _canonical(expected)
    for pieces in _splits(text):
        message, _ = stream(pieces, TOOLS)
        assert _canonical(summary(message)) == _canonical(expected), pieces


@pytest.mark.parametrize("call", CALLS)
def test_reasoning_stage_hands_a_call_in_reasoning_to_the_tool_stage(call: str) -> None:
    text = f"<think>Use <tool_call> blocks. So:{call}Done."
    for pieces in _splits(text)[:6]:
        first, _ = stream(pieces, TOOLS, ParserOptions(tools=False))
        assert first.reasoning == "Use <tool_call> blocks. So:"
        assert first.content == call + "Done."


def test_in_reasoning_holds_while_a_block_in_reasoning_is_undecided() -> None:
    parser = StreamParser(TOOLS, ParserOptions(reasoning_open=True))
    parser.feed("Let me <tool_call>")
    assert parser.in_reasoning
    parser.feed('{"name": "get_weather", "arguments": {')
    assert not parser.in_reasoning


def test_end_marker_inside_a_block_is_markup_without_tool_parsing_too() -> None:
    text = '<tool_call>{"name": "get_weather", "arguments": {}}</longcat_s></tool_call>'
    assert parse(text, TOOLS, ParserOptions(tools=False)).content == text.replace("</longcat_s>", "")


def _canonical(result: tuple[str, str, list[tuple[str, str]]]) -> Any:
    content, reasoning, calls = result
    return content, reasoning, [(name, json.loads(args)) for name, args in calls]
