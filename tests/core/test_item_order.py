"""``CallItemOrder``: the text it holds back comes out whole and in order, never while a call is open, and in each
batch ahead of the calls; the calls' events pass unchanged."""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from longcat_plugins.core import (
    Content,
    Event,
    ParserOptions,
    Reasoning,
    StreamParser,
    ToolCallArgs,
    ToolCallEnd,
    ToolCallStart,
    parse,
)
from longcat_plugins.core.item_order import CallItemOrder
from tests.support.events import fold, groups_of
from tests.support.tools import function_tool

EXAMPLES = int(os.environ.get("LONGCAT_HYPOTHESIS_EXAMPLES", "300"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])

TEXT_PIECE = st.text("ab \n.<", min_size=1, max_size=4)
#: what comes between calls, and inside one: text, reasoning (several pieces in a row)
TEXTS = st.lists(st.tuples(st.sampled_from([Content, Reasoning]), TEXT_PIECE), max_size=3)


@st.composite
def event_streams(draw: st.DrawFn) -> list[Event]:
    """A stream as the parser reports it: text, calls (start, argument fragments with text among them, end)."""
    events: list[Event] = [kind(text) for kind, text in draw(TEXTS)]
    for index in range(draw(st.integers(0, 4))):
        events.append(ToolCallStart(index, f"call_{index}", f"f{index}"))
        for _ in range(draw(st.integers(0, 3))):
            events.append(ToolCallArgs(index, draw(st.text('{}:"x1', min_size=1, max_size=4))))
            events += [kind(text) for kind, text in draw(TEXTS)]
        events.append(ToolCallEnd(index))
        events += [kind(text) for kind, text in draw(TEXTS)]
    return events


@st.composite
def batched(draw: st.DrawFn) -> tuple[list[Event], list[list[Event]]]:
    """A stream and its events in batches (the last one is the parser's ``finish``), several calls to a batch."""
    events = draw(event_streams())
    cuts = sorted(set(draw(st.lists(st.integers(0, len(events)), max_size=len(events) + 1))))
    bounds = [0, *cuts, len(events)]
    batches = [events[a:b] for a, b in itertools.pairwise(bounds)]
    if draw(st.booleans()):
        batches.append([])  # a finish with nothing of its own
    return events, batches


def _ordered(batches: Sequence[Sequence[Event]], whole_calls: bool = False) -> list[list[Event]]:
    order = CallItemOrder(whole_calls=True) if whole_calls else CallItemOrder()
    out = [list(order.filter(batch)) for batch in batches[:-1]]
    out.append(order.finish(batches[-1]))
    return out


def _text(events: Sequence[Event]) -> list[tuple[type, str]]:
    """The text events, in order, each kind's runs joined (how a client shows them)."""
    runs: list[tuple[type, str]] = []
    for event in events:
        if isinstance(event, (Content, Reasoning)):
            if runs and runs[-1][0] is type(event):
                runs[-1] = (type(event), runs[-1][1] + event.text)
            else:
                runs.append((type(event), event.text))
    return runs


def _calls(events: Sequence[Event]) -> list[Event]:
    return [e for e in events if isinstance(e, (ToolCallStart, ToolCallArgs, ToolCallEnd))]


@pytest.mark.parametrize("whole_calls", [False, True])
@SETTINGS
@given(batched())
def test_nothing_changes_but_where_text_goes(whole_calls: bool, case: tuple[list[Event], list[list[Event]]]) -> None:
    events, batches = case
    out = _ordered(batches, whole_calls)
    flat = [e for batch in out for e in batch]
    assert _text(flat) == _text(events)  # the text, whole and in order (content and reasoning interleaved as met)
    assert _calls(flat) == _calls(events)  # every call event, unchanged and in order
    assert fold(out) == fold([events])  # content, reasoning, and each call's name and arguments
    if not whole_calls:  # no call event waits: each batch passes its own on
        assert [_calls(batch) for batch in out] == [_calls(batch) for batch in batches]


@pytest.mark.parametrize("whole_calls", [False, True])
@SETTINGS
@given(batched())
def test_no_text_while_a_call_is_open(whole_calls: bool, case: tuple[list[Event], list[list[Event]]]) -> None:
    _, batches = case
    out = _ordered(batches, whole_calls)
    open_ = False
    for number, batch in enumerate(out):
        seen_call = False
        for event in batch:
            if isinstance(event, (Content, Reasoning)):
                assert not open_, f"text inside a call, batch {number}: {batch}"
                # an engine takes a batch's text to come before its calls (the last batch has no later one); with
                # whole calls no call is open at the start of a batch, and the text can stand before the calls
                last = number == len(out) - 1
                assert not seen_call or last or whole_calls, f"text after a call event, batch {number}: {batch}"
            else:
                seen_call = True
                open_ = isinstance(event, (ToolCallStart, ToolCallArgs))
        assert not (whole_calls and open_), f"a call open between two batches: {batch}"


@pytest.mark.parametrize("whole_calls", [False, True])
@SETTINGS
@given(batched())
def test_text_with_no_call_in_sight_goes_at_once(
    whole_calls: bool, case: tuple[list[Event], list[list[Event]]]
) -> None:
    """Text is held only for a call: a batch that starts with no call open and nothing held keeps its text up to its
    first call event in front."""
    _, batches = case
    order = CallItemOrder(whole_calls=True) if whole_calls else CallItemOrder()
    open_, given_text, out_text = False, 0, 0
    for batch in batches[:-1]:
        out = list(order.filter(batch))
        if not open_ and given_text == out_text:
            lead = []
            for event in batch:
                if not isinstance(event, (Content, Reasoning)):
                    break
                lead.append(event)
            assert out[: len(lead)] == lead
        for event in batch:
            if isinstance(event, ToolCallStart):
                open_ = True
            elif isinstance(event, ToolCallEnd):
                open_ = False
        given_text += sum(len(text) for _, text in _text(batch))
        out_text += sum(len(text) for _, text in _text(out))


WEATHER = function_tool("get_weather", {"city": {"type": "string"}, "unit": {"type": "string"}})
#: text between two parameters of the first call, and a second call
TEXT_INSIDE_A_CALL = (
    "Let me check.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
    "I also want the unit.\n<parameter=unit>\ncelsius\n</parameter>\n</function>\n</tool_call>\n"
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nRome\n</parameter>\n</function>\n</tool_call>\nDone."
)


@pytest.mark.parametrize("whole_calls", [False, True])
def test_text_inside_a_call_survives_every_grouping(whole_calls: bool) -> None:
    """The parser's events for the text in groups of k characters, through the filter: the one-pass reading, also
    when one group ends the first call and holds the whole second one."""
    options = ParserOptions(reasoning=False)
    whole = parse(TEXT_INSIDE_A_CALL, [WEATHER], options)
    assert "I also want the unit." in whole.content and len(whole.tool_calls) == 2
    for k in range(1, len(TEXT_INSIDE_A_CALL) + 1):
        parser = StreamParser([WEATHER], options)
        batches = [parser.feed(piece) for piece in groups_of(TEXT_INSIDE_A_CALL, k)]
        batches.append(parser.finish())
        message = fold(_ordered(batches, whole_calls))
        assert (message.content, message.reasoning) == (whole.content, whole.reasoning), k
        assert [(c.name, c.arguments) for c in message.tool_calls] == [(c.name, c.arguments) for c in whole.tool_calls]
