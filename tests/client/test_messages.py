"""longcat_plugins.client for the Anthropic Messages API: calls written in a text block become ``tool_use`` blocks.

The core is the oracle: the text blocks of a repaired message, joined, are ``parse(text, tools,
ParserOptions(reasoning=False))``'s content, and its ``tool_use`` blocks its calls. A stream, split anywhere, folds
(as a client accumulates it) into the blocks of the whole message; its events are well formed (indexes in order,
every block started once and stopped once, deltas only to the block open).
"""

from __future__ import annotations

import asyncio
import copy
import itertools
import json
import os
from collections.abc import AsyncIterator, Iterable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from longcat_plugins.client import (
    MessageStreamRepair,
    arepair_message_stream,
    fold_message_events,
    needs_messages_repair,
    repair_message,
    repair_message_stream,
)
from longcat_plugins.client.options import RepairOptions
from longcat_plugins.core import ParserOptions, parse
from tests.served.texts import TOOLS, Text, all_texts

EXAMPLES = int(os.environ.get("LONGCAT_HYPOTHESIS_EXAMPLES", "150"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
OPTIONS = ParserOptions(reasoning=False)
TEXTS = [text for text in all_texts() if text.tools]
REASONING = RepairOptions(reasoning=True)
CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}\n</tool_call>'
CALL_TOKYO = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Tokyo"}}\n</tool_call>'
UNKNOWN = '<tool_call>\n{"name": "send_mail", "arguments": {"to": "a@b.c"}}\n</tool_call>'
PARIS = ("get_weather", {"city": "Paris", "days": 2})
TOKYO = ("get_weather", {"city": "Tokyo"})


def anthropic_tools(tools: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Chat Completions function tools as the Messages API declares them."""
    out = []
    for tool in tools:
        function = tool["function"]
        out.append(
            {
                "name": function["name"],
                "description": function.get("description", ""),
                "input_schema": function["parameters"],
            }
        )
    return out


REQUEST: dict[str, Any] = {
    "model": "m",
    "max_tokens": 100,
    "messages": [{"role": "user", "content": "hi"}],
    "tools": anthropic_tools(TOOLS),
}


def request_for(text: Text) -> dict[str, Any]:
    return {**REQUEST, "tools": anthropic_tools(text.tools or [])}


def message(*blocks: dict[str, Any], stop: str | None = "end_turn", **extra: Any) -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": list(blocks),
        "model": "longcat",
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 2},
        **extra,
    }


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def pieces(text: str, cuts: Iterable[int]) -> list[str]:
    points = sorted({0, len(text), *(c for c in cuts if 0 < c < len(text))})
    return [text[a:b] for a, b in itertools.pairwise(points)]


def stream_of(*blocks: tuple[str, list[str]] | dict[str, Any], stop: str | None = "end_turn") -> list[dict[str, Any]]:
    """A Messages stream as vLLM sends one: message_start, a ping, each block (``("text", pieces)``,
    ``("thinking", pieces)``, or a whole block dict sent in its start), message_delta with ``stop`` (None: the stream
    ends there, dropped), message_stop."""
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {**message(stop=None), "content": []}},
        {"type": "ping"},
    ]
    for index, block in enumerate(blocks):
        if isinstance(block, dict):
            events.append({"type": "content_block_start", "index": index, "content_block": block})
        else:
            kind, parts = block
            delta_kind = "text_delta" if kind == "text" else "thinking_delta"
            start = {"type": kind, kind: ""} if kind == "text" else {"type": kind, kind: "", "signature": ""}
            events.append({"type": "content_block_start", "index": index, "content_block": start})
            events += [
                {"type": "content_block_delta", "index": index, "delta": {"type": delta_kind, kind: p}} for p in parts
            ]
        events.append({"type": "content_block_stop", "index": index})
    if stop is None:
        return events
    events.append(
        {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 2}}
    )
    events.append({"type": "message_stop"})
    return events


def check_events(events: list[dict[str, Any]]) -> None:
    """A well-formed stream: blocks numbered 0, 1, 2... as they start, one open at a time, deltas to the open one,
    every block stopped before the next starts and before message_delta."""
    expected_index, open_index = 0, None
    for event in events:
        kind = event["type"]
        if kind == "content_block_start":
            assert open_index is None and event["index"] == expected_index, events
            open_index, expected_index = expected_index, expected_index + 1
            if event["content_block"]["type"] == "tool_use":
                block = event["content_block"]
                assert block["input"] == {} and block["id"].startswith("toolu_") and block["name"]
        elif kind == "content_block_delta":
            assert event["index"] == open_index, events
        elif kind == "content_block_stop":
            assert event["index"] == open_index, events
            open_index = None
        elif kind in ("message_delta", "message_stop"):
            assert open_index is None, events


def shape(blocks: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """Blocks without what is random (ids, signatures)."""
    out: list[tuple[Any, ...]] = []
    for block in blocks:
        if block["type"] == "tool_use":
            out.append(("tool_use", block["name"], block["input"]))
        elif block["type"] == "thinking":
            out.append(("thinking", block["thinking"]))
        else:
            out.append((block["type"], block.get("text")))
    return out


def stop_of(events: list[dict[str, Any]]) -> str | None:
    deltas = [e["delta"]["stop_reason"] for e in events if e["type"] == "message_delta"]
    return deltas[-1] if deltas else None


def expected(text: str, tools: Any) -> tuple[str, list[tuple[str, Any]]]:
    parsed = parse(text, tools, OPTIONS)
    return parsed.content, [(call.name, json.loads(call.arguments)) for call in parsed.tool_calls]


def reading(blocks: list[dict[str, Any]]) -> tuple[str, list[tuple[str, Any]]]:
    text = "".join(b["text"] for b in blocks if b["type"] == "text")
    return text, [(b["name"], b["input"]) for b in blocks if b["type"] == "tool_use"]


# -- the core is the oracle ------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", TEXTS, ids=str)
def test_whole_message_equals_the_core(text: Text) -> None:
    original = message(text_block(text.text))
    frozen = copy.deepcopy(original)
    repaired = repair_message(original, request_for(text))
    assert original == frozen
    content, calls = expected(text.text, text.tools)
    assert reading(repaired["content"]) == (content, calls)
    assert repaired["stop_reason"] == ("tool_use" if calls else "end_turn")
    assert all(block["text"] for block in repaired["content"] if block["type"] == "text") or repaired["content"] == [
        text_block("")
    ]
    if not calls and content == text.text:
        assert repaired is original


@SETTINGS
@given(st.sampled_from(TEXTS), st.lists(st.integers(min_value=1, max_value=4000), max_size=40), st.booleans())
def test_every_split_of_the_stream_folds_into_the_whole_message(text: Text, cuts: list[int], reasoning: bool) -> None:
    options = RepairOptions(reasoning=reasoning)
    whole = repair_message(message(text_block(text.text)), request_for(text), options)
    events = list(repair_message_stream(stream_of(("text", pieces(text.text, cuts))), request_for(text), options))
    check_events(events)
    assert shape(fold_message_events(events) or [text_block("")]) == shape(whole["content"])
    assert stop_of(events) == whole["stop_reason"]


# -- the shape of the repaired stream -----------------------------------------------------------------------


def test_text_before_between_and_after_calls_makes_blocks_in_order() -> None:
    text = "Let me look.\n" + CALL + "\nThen Tokyo:\n" + CALL_TOKYO + "\nDone."
    events = list(repair_message_stream(stream_of(("text", list(text))), REQUEST))
    check_events(events)
    blocks = fold_message_events(events)
    assert shape(blocks) == [
        ("text", "Let me look.\n"),
        ("tool_use", *PARIS),
        ("text", "\nThen Tokyo:\n"),
        ("tool_use", *TOKYO),
        ("text", "\nDone."),
    ]
    assert stop_of(events) == "tool_use"
    assert [e["type"] for e in events[:2]] == ["message_start", "ping"]  # (the ping is kept)
    assert len({b["id"] for b in blocks if b["type"] == "tool_use"}) == 2
    assert shape(repair_message(message(text_block(text)), REQUEST)["content"]) == shape(blocks)


def test_several_calls_in_one_delta() -> None:
    events = list(repair_message_stream(stream_of(("text", ["Hi. " + CALL + CALL_TOKYO])), REQUEST))
    check_events(events)
    assert shape(fold_message_events(events)) == [("text", "Hi. "), ("tool_use", *PARIS), ("tool_use", *TOKYO)]


def test_a_call_split_across_events_streams_its_input_as_json_fragments() -> None:
    events = list(repair_message_stream(stream_of(("text", pieces(CALL, range(0, len(CALL), 3)))), REQUEST))
    check_events(events)
    fragments = [e["delta"]["partial_json"] for e in events if e["type"] == "content_block_delta"]
    assert len(fragments) > 1 and json.loads("".join(fragments)) == PARIS[1]
    assert [e["content_block"]["type"] for e in events if e["type"] == "content_block_start"] == ["tool_use"]


def test_later_blocks_indexes_shift() -> None:
    """A thinking block, a text block with a call inside, then an upstream block after it: every block after the
    call is one index further on."""
    after = {"type": "text", "text": "kept", "citations": [{"type": "x"}]}  # (a text block not read: citations)
    events = list(
        repair_message_stream(stream_of(("thinking", ["Hmm."]), ("text", ["A ", CALL, " B"]), after), REQUEST)
    )
    check_events(events)
    starts = [(e["index"], e["content_block"]["type"]) for e in events if e["type"] == "content_block_start"]
    assert starts == [(0, "thinking"), (1, "text"), (2, "tool_use"), (3, "text"), (4, "text")]
    assert shape(fold_message_events(events))[-1] == ("text", "kept")


def test_a_cut_call_is_closed_with_valid_json_and_the_stop_reason_stays() -> None:
    cut = CALL[: CALL.index("Paris") + 3]
    events = list(repair_message_stream(stream_of(("text", ["Hi ", cut]), stop="max_tokens"), REQUEST))
    check_events(events)
    assert shape(fold_message_events(events)) == [("text", "Hi "), ("tool_use", "get_weather", {"city": "Par"})]
    assert stop_of(events) == "max_tokens"


def test_a_stop_sequence_that_may_cut_a_call_leaves_an_open_call_as_text() -> None:
    request = {**REQUEST, "stop_sequences": ["</tool_call>"]}
    cut = CALL[: CALL.index("Paris")]
    events = list(repair_message_stream(stream_of(("text", ["Hi ", cut]), stop="stop_sequence"), request))
    assert shape(fold_message_events(events)) == [("text", "Hi " + cut)]
    assert stop_of(events) == "stop_sequence"
    whole = repair_message(message(text_block(CALL + cut), stop="stop_sequence"), request)
    assert shape(whole["content"]) == [("tool_use", *PARIS), ("text", cut)]
    assert (whole["stop_reason"], whole["stop_sequence"]) == ("tool_use", None)  # (the call read is complete)


def test_a_dropped_stream_is_closed_by_finish() -> None:
    repair = MessageStreamRepair(REQUEST)
    cut = CALL[: CALL.index("Paris")]
    events = [e for event in stream_of(("text", ["Hi ", cut]), stop=None)[:-1] for e in repair.feed(event)]
    events += repair.finish()
    check_events(events)
    blocks = fold_message_events(events)
    assert shape(blocks)[0] == ("text", "Hi ") and blocks[1]["type"] == "tool_use"
    assert events[-1] == {"type": "content_block_stop", "index": 1}


def test_unknown_tool_names_stay_text_verbatim() -> None:
    text = "A " + UNKNOWN + " B"
    events = list(repair_message_stream(stream_of(("text", list(text))), REQUEST))
    assert shape(fold_message_events(events)) == [("text", text)]
    assert stop_of(events) == "end_turn"
    original = message(text_block(text))
    assert repair_message(original, REQUEST) is original


def test_a_text_of_only_calls_has_no_text_block() -> None:
    events = list(repair_message_stream(stream_of(("text", [CALL])), REQUEST))
    assert shape(fold_message_events(events)) == [("tool_use", *PARIS)]
    assert shape(repair_message(message(text_block(CALL)), REQUEST)["content"]) == [("tool_use", *PARIS)]


# -- the upstream's own calls win -----------------------------------------------------------------------------


def test_a_message_with_upstream_tool_use_is_returned_as_given() -> None:
    upstream = {"type": "tool_use", "id": "toolu_up", "name": "get_weather", "input": {"city": "Rome"}}
    original = message(text_block("A " + CALL), upstream, stop="tool_use")
    assert repair_message(original, REQUEST) is original


def test_in_a_stream_the_upstream_tool_use_passes_with_its_index_shifted() -> None:
    upstream = {"type": "tool_use", "id": "toolu_up", "name": "get_weather", "input": {}}
    events = stream_of(("text", ["A ", CALL, " B"]), upstream, ("text", ["after " + CALL_TOKYO]), stop="tool_use")
    start = next(i for i, e in enumerate(events) if e.get("content_block") is upstream)
    events.insert(
        start + 1,
        {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{}"}},
    )
    out = list(repair_message_stream(events, REQUEST))
    check_events(out)
    blocks = fold_message_events(out)
    # the call read before the upstream's stays; after it nothing is read (its markup is text)
    assert shape(blocks) == [
        ("text", "A "),
        ("tool_use", *PARIS),
        ("text", " B"),
        ("tool_use", "get_weather", {}),
        ("text", "after " + CALL_TOKYO),
    ]
    assert blocks[3]["id"] == "toolu_up"


def test_held_text_is_released_verbatim_before_an_upstream_tool_use_in_an_open_text_block() -> None:
    upstream = {"type": "tool_use", "id": "toolu_up", "name": "get_weather", "input": {}}
    events = [
        {"type": "message_start", "message": {}},
        {"type": "content_block_start", "index": 0, "content_block": text_block("")},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi <tool"}},
        {"type": "content_block_start", "index": 1, "content_block": upstream},
        {"type": "content_block_stop", "index": 1},
    ]
    out = list(repair_message_stream(events, REQUEST))
    check_events(out)
    assert shape(fold_message_events(out)) == [("text", "Hi <tool"), ("tool_use", "get_weather", {})]


# -- which requests, and what passes as given -------------------------------------------------------------------


@pytest.mark.parametrize(
    "request_body",
    [
        {"model": "m", "messages": []},
        {**REQUEST, "tool_choice": {"type": "none"}},
        {**REQUEST, "tools": [{"type": "web_search_20250305", "name": "web_search"}]},
        {**REQUEST, "tools": []},
    ],
)
def test_requests_without_calls_to_read_pass_as_given(request_body: dict[str, Any]) -> None:
    assert not needs_messages_repair(request_body)
    original = message(text_block("A " + CALL))
    assert repair_message(original, request_body) is original
    events = stream_of(("text", ["A ", CALL]))
    out = list(repair_message_stream(events, request_body))
    assert all(a is b for a, b in zip(out, events, strict=True))


@pytest.mark.parametrize("choice", [None, {"type": "auto"}, {"type": "any"}, {"type": "tool", "name": "get_weather"}])
def test_requests_with_tools_are_repaired(choice: Any) -> None:
    request = REQUEST if choice is None else {**REQUEST, "tool_choice": choice}
    assert needs_messages_repair(request)
    assert shape(repair_message(message(text_block(CALL)), request)["content"]) == [("tool_use", *PARIS)]


def test_events_with_nothing_to_repair_are_the_same_objects() -> None:
    events = stream_of(("thinking", ["Hmm"]), ("text", ["plain text"]))
    out = list(repair_message_stream(events, REQUEST))
    passed = [e for e in events if e["type"] in ("message_start", "ping", "message_delta", "message_stop")]
    passed += [e for e in events if e.get("index") == 0]  # (the thinking block)
    assert all(any(o is e for o in out) for e in passed)
    assert shape(fold_message_events(out)) == [("thinking", "Hmm"), ("text", "plain text")]


def test_malformed_input_is_returned_as_given() -> None:
    for bad in (None, "text", {"content": "not a list"}, {"content": [1, 2]}):
        assert repair_message(bad, REQUEST) is bad
    repair = MessageStreamRepair(REQUEST)
    for bad_event in ({"no": "type"}, "text", {"type": "content_block_delta", "index": 0, "delta": None}):
        assert repair.feed(bad_event) == [bad_event]


def test_other_stop_reasons_stay_with_calls() -> None:
    for stop in ("max_tokens", "refusal", "pause_turn"):
        assert repair_message(message(text_block(CALL), stop=stop), REQUEST)["stop_reason"] == stop


def test_async_stream() -> None:
    async def source() -> AsyncIterator[dict[str, Any]]:
        for event in stream_of(("text", ["Hi ", CALL])):
            yield event

    async def collect() -> list[dict[str, Any]]:
        return [e async for e in arepair_message_stream(source(), REQUEST)]

    assert shape(fold_message_events(asyncio.run(collect()))) == [("text", "Hi "), ("tool_use", *PARIS)]


# -- reasoning ----------------------------------------------------------------------------------------------


def test_think_tags_stay_text_without_the_reasoning_option() -> None:
    text = "<think>Plan.</think>Hi " + CALL
    events = list(repair_message_stream(stream_of(("text", list(text))), REQUEST))
    assert shape(fold_message_events(events)) == [("text", "<think>Plan.</think>Hi "), ("tool_use", *PARIS)]


@pytest.mark.parametrize("text", ["<think>Plan.</think>Hi " + CALL, "Plan.</think>Hi " + CALL])
def test_with_the_reasoning_option_think_becomes_a_thinking_block(text: str) -> None:
    events = list(repair_message_stream(stream_of(("text", list(text))), REQUEST, REASONING))
    check_events(events)
    blocks = fold_message_events(events)
    assert shape(blocks) == [("thinking", "Plan."), ("text", "Hi "), ("tool_use", *PARIS)]
    assert blocks[0]["signature"]  # (closed with a signature_delta, as vLLM closes thinking)
    kinds = [e["delta"]["type"] for e in events if e["type"] == "content_block_delta" and e["index"] == 0]
    assert set(kinds) == {"thinking_delta", "signature_delta"} and kinds[-1] == "signature_delta"
    assert shape(repair_message(message(text_block(text)), REQUEST, REASONING)["content"]) == shape(blocks)


def test_reasoning_without_tools_is_repaired_with_the_option() -> None:
    request = {"model": "m", "max_tokens": 10, "messages": []}
    assert not needs_messages_repair(request) and needs_messages_repair(request, REASONING)
    repaired = repair_message(message(text_block("<think>a</think>b " + CALL)), request, REASONING)
    assert shape(repaired["content"]) == [("thinking", "a"), ("text", "b " + CALL)]


@pytest.mark.parametrize(
    "switch", [{"thinking": {"type": "disabled"}}, {"chat_template_kwargs": {"enable_thinking": False}}]
)
def test_a_request_that_switched_thinking_off_starts_outside_reasoning(switch: dict[str, Any]) -> None:
    text = "a</think>b"  # (a closer with no opener: reasoning before it only when the start is unknown)
    assert shape(repair_message(message(text_block(text)), REQUEST, REASONING)["content"]) == [
        ("thinking", "a"),
        ("text", "b"),
    ]
    outside = parse(text, None, ParserOptions(reasoning=True)).content  # (the core drops the stray closer)
    assert shape(repair_message(message(text_block(text)), {**REQUEST, **switch}, REASONING)["content"]) == [
        ("text", outside)
    ]


def test_upstream_thinking_is_not_read_and_the_text_after_it_starts_outside_reasoning() -> None:
    events = stream_of(("thinking", ["x" + CALL]), ("text", ["a</think>b"]))
    out = list(repair_message_stream(events, REQUEST, REASONING))
    outside = parse("a</think>b", None, ParserOptions(reasoning=True)).content
    assert shape(fold_message_events(out)) == [("thinking", "x" + CALL), ("text", outside)]
