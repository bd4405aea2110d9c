"""The :class:`~longcat_plugins.core.machine.Machine` on its own, without text: its moves and the registers they set
(as h11's test_state.py tests its state tables); and the events each move emits, as the table says."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from longcat_plugins.core import ParserOptions, StreamParser
from longcat_plugins.core.machine import EMITS, TRANSITIONS, Action, IllegalMove, Machine, Mode, Trigger

CORPUS = Path(__file__).with_name("corpus.jsonl")


def test_a_new_machine_starts_where_it_is_told() -> None:
    assert Machine().mode is Mode.CONTENT
    machine = Machine(Mode.REASONING)
    assert machine.mode is Mode.REASONING
    assert machine.in_reasoning
    assert (machine.origin, machine.reasoning_from, machine.block_calls, machine.announced) == (
        Mode.CONTENT,
        Mode.CONTENT,
        0,
        False,
    )


@pytest.mark.parametrize(("mode", "trigger"), list(TRANSITIONS))
def test_every_move_of_the_table_to_a_mode_goes_there(mode: Mode, trigger: Trigger) -> None:
    target, action = TRANSITIONS[(mode, trigger)]
    machine = Machine(mode)
    assert machine.move(trigger) is action
    if isinstance(target, Mode):
        assert machine.mode is target


def test_a_move_the_table_lacks_changes_nothing() -> None:
    machine = Machine()
    with pytest.raises(IllegalMove):
        machine.move(Trigger.CALL_ENDS)
    assert machine.mode is Mode.CONTENT


def test_a_block_opened_in_reasoning_that_is_no_call_goes_back_to_reasoning() -> None:
    machine = Machine(Mode.REASONING)
    assert machine.move(Trigger.BLOCK_OPEN) is Action.OPEN_BLOCK
    assert (machine.mode, machine.origin, machine.block_calls) == (Mode.BLOCK, Mode.REASONING, 0)
    assert machine.in_reasoning  # (not known yet to be a call)
    assert machine.move(Trigger.NOT_A_CALL) is Action.RETURN_HELD_BLOCK
    assert machine.mode is Mode.REASONING


def test_an_announced_call_ends_reasoning() -> None:
    machine = Machine(Mode.REASONING)
    machine.move(Trigger.BLOCK_OPEN)
    machine.move(Trigger.CALL_BEGINS)
    machine.announce()
    assert (machine.origin, machine.block_calls, machine.announced) == (Mode.CONTENT, 1, True)
    assert not machine.in_reasoning
    machine.settle()
    assert not machine.announced
    # a later call of the block that is no call returns to the block; the block's origin is content now
    assert machine.move(Trigger.CALL_ENDS) is Action.NONE
    machine.move(Trigger.CALL_BEGINS)
    assert machine.move(Trigger.BAD_CALL) is Action.RETURN_HELD_BLOCK
    assert machine.mode is Mode.BLOCK
    assert machine.move(Trigger.BLOCK_CLOSE) is Action.CLOSE_BLOCK
    assert machine.mode is Mode.AFTER_BLOCK


def test_a_first_call_that_is_no_call_goes_back_to_the_origin() -> None:
    machine = Machine()
    machine.move(Trigger.BLOCK_OPEN)
    machine.move(Trigger.CALL_BEGINS)
    assert machine.move(Trigger.NOT_A_CALL) is Action.RETURN_HELD_BLOCK
    assert machine.mode is Mode.CONTENT


def test_reasoning_closes_to_where_it_was_opened() -> None:
    machine = Machine()
    machine.move(Trigger.CALL_WITHOUT_BLOCK)
    machine.announce()
    machine.settle()
    machine.move(Trigger.CALL_ENDS)
    assert machine.mode is Mode.AFTER_BLOCK
    assert machine.move(Trigger.THINK_OPEN) is Action.OPEN_REASONING
    assert machine.reasoning_from is Mode.AFTER_BLOCK
    machine.move(Trigger.THINK_CLOSE)
    assert machine.mode is Mode.AFTER_BLOCK  # reasoning between blocks is transparent to the whitespace rule
    machine = Machine()
    machine.move(Trigger.THINK_OPEN)
    machine.move(Trigger.THINK_CLOSE)
    assert machine.mode is Mode.CONTENT


def test_a_call_announced_from_reasoning_after_a_block_closes_it_to_content() -> None:
    machine = Machine(Mode.AFTER_BLOCK)
    machine.move(Trigger.THINK_OPEN)
    machine.move(Trigger.BLOCK_OPEN)
    machine.move(Trigger.CALL_BEGINS)
    machine.announce()
    machine.settle()
    assert machine.reasoning_from is Mode.CONTENT


def test_a_withdrawn_call_is_not_counted() -> None:
    machine = Machine()
    machine.move(Trigger.BLOCK_OPEN)
    machine.move(Trigger.CALL_BEGINS)
    machine.announce()
    assert machine.move(Trigger.CALL_CUT) is Action.RETURN_CUT_CALL
    assert (machine.mode, machine.block_calls) == (Mode.CONTENT, 0)


def test_opening_a_block_resets_its_calls() -> None:
    machine = Machine()
    machine.move(Trigger.BLOCK_OPEN)
    machine.move(Trigger.CALL_BEGINS)
    machine.announce()
    machine.move(Trigger.CALL_ENDS)
    assert machine.move(Trigger.BLOCK_REOPEN) is Action.CLOSE_BLOCK
    assert machine.mode is Mode.CONTENT
    machine.move(Trigger.BLOCK_OPEN)
    assert machine.block_calls == 0


@pytest.mark.parametrize(
    ("failed", "done", "announced", "block_calls", "expected"),
    [
        (False, False, False, 0, None),
        (False, True, True, 1, Trigger.CALL_ENDS),
        (True, False, True, 1, Trigger.CALL_BREAKS),
        (True, False, False, 0, Trigger.NOT_A_CALL),
        (True, False, False, 1, Trigger.BAD_CALL),
        # a reader that read a call naming no tool to its end, never announcing it: no call (verbatim text)
        (False, True, False, 0, Trigger.UNKNOWN_CALL_ENDS),
        (False, True, False, 1, Trigger.BAD_CALL),
    ],
)
def test_what_a_stopped_reader_means(
    failed: bool, done: bool, announced: bool, block_calls: int, expected: Trigger | None
) -> None:
    machine = Machine(Mode.CALL)
    machine.block_calls = block_calls
    assert machine.reader_stopped(failed, done, announced) is expected


@pytest.mark.parametrize(
    ("mode", "block_calls", "announced", "cut", "passthrough", "expected"),
    [
        (Mode.CONTENT, 0, False, False, False, Trigger.END_OF_INPUT),
        (Mode.REASONING, 0, False, False, False, Trigger.END_OF_INPUT),
        (Mode.BLOCK, 0, False, False, False, Trigger.NOT_A_CALL),
        (Mode.BLOCK, 1, False, False, False, Trigger.END_OF_INPUT),
        (Mode.CALL, 1, True, False, False, Trigger.CALL_BREAKS),
        (Mode.CALL, 1, True, True, False, Trigger.CALL_CUT),
        (Mode.CALL, 0, False, False, False, Trigger.NOT_A_CALL),
        (Mode.CALL, 1, False, False, False, Trigger.BAD_CALL),
        (Mode.BARE_CALL, 0, False, False, False, Trigger.NOT_A_CALL),
        (Mode.AFTER_BLOCK, 0, False, False, False, Trigger.END_OF_INPUT),
        (Mode.AFTER_BLOCK, 0, False, False, True, Trigger.TEXT_FOLLOWS),
    ],
)
def test_the_end_of_input_in_each_mode(
    mode: Mode, block_calls: int, announced: bool, cut: bool, passthrough: bool, expected: Trigger
) -> None:
    machine = Machine(mode)
    machine.block_calls = block_calls
    trigger = machine.end_of_input(announced, cut, passthrough)
    assert trigger is expected
    machine.move(trigger)  # always a legal move


# -- the events each move emits (EMITS), checked on the regression corpus --------------------------------------


def _events_per_action(text: str, tools: Any, options: ParserOptions, pieces: list[str]) -> dict[Action, set[type]]:
    parser = StreamParser(tools, options)
    seen: dict[Action, set[type]] = {}
    actions = parser._actions  # (the parser's own table of actions, wrapped to watch what each one emits)
    for action, act in list(actions.items()):

        def watched(met: Any, action: Action = action, act: Any = act) -> int:
            parser._out.flush()
            before = len(parser._out.events)
            consumed: int = act(met)
            parser._out.flush()
            seen.setdefault(action, set()).update(type(event) for event in parser._out.events[before:])
            return consumed

        actions[action] = watched
    for piece in pieces:
        parser.feed(piece)
    parser.finish()
    return seen


def test_every_action_emits_only_what_the_table_says() -> None:
    cases = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line]
    seen_anywhere: set[Action] = set()
    for case in cases:
        text = case["text"]
        for tools_on in (True, False):
            options = ParserOptions(**{**case.get("options", {}), **({} if tools_on else {"tools": False})})
            for pieces in ([text], list(text)):
                for action, kinds in _events_per_action(text, case.get("tools"), options, pieces).items():
                    seen_anywhere.add(action)
                    assert kinds <= EMITS[action], (case["id"], action, kinds)
    assert set(EMITS) == set(Action)
    assert len(seen_anywhere) > len(Action) // 2
