"""The reasoning switch of longcat_plugins.client (``RepairOptions(reasoning=True)``): think blocks left in
``content`` by a server without a reasoning parser move to the reasoning field.

The core is the oracle: the content of a response reads as ``parse(content, tools, options)`` with the options of
:func:`longcat_plugins.client.request.answer_parser_options` (the first think tag decides whether the text starts
inside reasoning, unless the request switched thinking off or the upstream split its reasoning off itself), whole or
streamed in any split. Off (the default), content stays as sent.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import AsyncIterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from longcat_plugins.client import ChatStreamRepair, arepair_chat_stream, repair_chat_completion, repair_chat_stream
from longcat_plugins.client.options import RepairOptions
from longcat_plugins.client.request import answer_parser_options, needs_repair
from longcat_plugins.core import ParserOptions, parse
from tests.client.test_repair import CALL, REQUEST, SETTINGS, TEXTS, chunk, fold, pieces, response, stream_of

ON = RepairOptions(reasoning=True)
NO_THINKING = {"chat_template_kwargs": {"enable_thinking": False}}
UNKNOWN_START = ParserOptions(reasoning=True, reasoning_start_unknown=True)
OUTSIDE = ParserOptions(reasoning=True)
#: how reasoning is written around an answer: a block, a closer only (the template opened it), LongCat's tags, none,
#: a block after the answer
FORMS = [
    "<think>{r}</think>{a}",
    "{r}</think>\n\n{a}",
    "<longcat_think>{r}</longcat_think>{a}",
    "{a}",
    "{a}<think>{r}</think>after",
]
THOUGHTS = ["Two cities, so two calls.", "", "a < b, so <thin is no tag", CALL]


def oracle(text: str, tools: Any, options: ParserOptions) -> dict[str, Any]:
    message = parse(text, tools, options)
    calls = [(call.name, call.arguments) for call in message.tool_calls]
    return {"content": message.content, "reasoning": message.reasoning, "calls": calls}


def whole(message: dict[str, Any]) -> dict[str, Any]:
    reasoning = message.get("reasoning_content") or message.get("reasoning") or ""
    calls = [(c["function"]["name"], c["function"]["arguments"]) for c in message.get("tool_calls", [])]
    return {"content": message.get("content") or "", "reasoning": reasoning, "calls": calls}


def repaired_whole(text: str, request: dict[str, Any], reasoning: str | None = None) -> dict[str, Any]:
    return repair_chat_completion(response(text, reasoning), request, options=ON)["choices"][0]["message"]  # type: ignore[no-any-return]


def streamed(parts: list[tuple[str, str]], request: dict[str, Any]) -> dict[str, Any]:
    got = fold(repair_chat_stream(stream_of(parts), request, options=ON))
    return {key: got[key] for key in ("content", "reasoning", "calls")}


def in_threes(text: str) -> list[tuple[str, str]]:
    return [("content", text[i : i + 3]) for i in range(0, len(text), 3)]


# -- off by default ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options", [None, RepairOptions(), RepairOptions(reasoning=False)], ids=["none", "default", "off"]
)
def test_off_the_content_stays_as_sent(options: RepairOptions | None) -> None:
    text = "<think>plan</think>Sure." + CALL
    message = repair_chat_completion(response(text), REQUEST, options=options)["choices"][0]["message"]
    assert message["content"] == "<think>plan</think>Sure."
    assert "reasoning" not in message and "reasoning_content" not in message
    got = fold(repair_chat_stream(stream_of(in_threes(text)), REQUEST, options=options))
    assert (got["content"], got["reasoning"]) == ("<think>plan</think>Sure.", "")
    no_tools = {"messages": []}
    assert not needs_repair(no_tools, options)
    given_response = response(text)
    assert repair_chat_completion(given_response, no_tools, options=options) is given_response
    chunks = stream_of(in_threes(text))
    assert all(a is b for a, b in zip(repair_chat_stream(chunks, no_tools, options=options), chunks, strict=True))


# -- on ------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "content", "reasoning"),
    [
        ("<think>plan</think>Sure." + CALL, "Sure.", "plan"),
        ("plan</think>\n\nSure." + CALL, "\n\nSure.", "plan"),  # (the template opened the block: a closer, no opener)
        ("<longcat_think>plan</longcat_think>Sure." + CALL, "Sure.", "plan"),
        ("Sure." + CALL, "Sure.", ""),
    ],
    ids=["block", "closer only", "longcat", "none"],
)
def test_think_blocks_move_to_the_reasoning_field(text: str, content: str, reasoning: str) -> None:
    expected = {"content": content, "reasoning": reasoning, "calls": [("get_weather", '{"city": "Paris", "days": 2}')]}
    assert oracle(text, REQUEST["tools"], UNKNOWN_START) == expected
    message = repaired_whole(text, REQUEST)
    assert whole(message) == expected
    assert streamed(in_threes(text), REQUEST) == expected
    assert streamed([("content", text)], REQUEST) == expected


def test_the_field_is_the_upstreams_else_the_one_vllm_serves() -> None:
    text = "<think>plan</think>Sure."
    message = repaired_whole(text, REQUEST)
    assert message["reasoning"] == "plan" and "reasoning_content" not in message
    chunks = list(repair_chat_stream(stream_of(in_threes(text)), REQUEST, options=ON))
    deltas = [c["choices"][0]["delta"] for c in chunks]
    assert "".join(d.get("reasoning", "") for d in deltas) == "plan"
    assert not any("reasoning_content" in d for d in deltas)
    for name in ("reasoning_content", "reasoning"):
        given_response = response(text)
        given_response["choices"][0]["message"][name] = "first. "
        message = repair_chat_completion(given_response, REQUEST, options=ON)["choices"][0]["message"]
        assert message[name] == "first. plan" and message["content"] == "Sure."
        assert {"reasoning_content", "reasoning"} - {name} - set(message) == {"reasoning_content", "reasoning"} - {name}


def test_a_request_that_switches_thinking_off_starts_outside_reasoning() -> None:
    request = {**REQUEST, **NO_THINKING}
    text = "plan</think>Sure.<think>later</think>" + CALL
    expected = oracle(text, REQUEST["tools"], OUTSIDE)
    assert expected["content"] == "planSure." and expected["reasoning"] == "later"
    assert whole(repaired_whole(text, request)) == expected
    assert streamed(in_threes(text), request) == expected
    assert needs_repair({"messages": [], **NO_THINKING}, ON)


def test_reasoning_the_upstream_split_stays_and_its_content_starts_outside() -> None:
    """An upstream with a reasoning parser sent the reasoning in its field: its content starts outside reasoning, and
    a think block in it is reasoning, appended to the upstream's."""
    content = "plan</think>Sure.<think>more</think>" + CALL
    split = oracle(content, REQUEST["tools"], OUTSIDE)
    assert split["content"] == "planSure." and split["reasoning"] == "more"
    expected = {**split, "reasoning": "Thought.more"}
    message = repaired_whole(content, REQUEST, reasoning="Thought.")
    assert whole(message) == expected and message["reasoning_content"] == "Thought.more"
    parts = [("reasoning_content", "Thou"), ("reasoning_content", "ght."), *in_threes(content)]
    assert streamed(parts, REQUEST) == expected


@pytest.mark.parametrize(
    "request_body", [{"messages": []}, {**REQUEST, "tool_choice": "none"}], ids=["no tools", "none"]
)
def test_without_calls_the_reasoning_moves_and_call_markup_stays_text(request_body: dict[str, Any]) -> None:
    text = "<think>plan</think>Sure." + CALL
    expected = {"content": "Sure." + CALL, "reasoning": "plan", "calls": []}
    assert needs_repair(request_body, ON)
    assert whole(repaired_whole(text, request_body)) == expected
    assert streamed(in_threes(text), request_body) == expected
    upstream_reasoning = repaired_whole("Sure.", request_body, reasoning="plan " + CALL)
    assert whole(upstream_reasoning) == {"content": "Sure.", "reasoning": "plan " + CALL, "calls": []}


def test_held_text_is_released_verbatim_before_upstream_calls() -> None:
    """The start is held until a think tag says where the reasoning ends; when the upstream then sends calls of its
    own, what was held comes out as the content it was sent as."""
    repair = ChatStreamRepair(REQUEST, options=ON)
    out: list[dict[str, Any]] = []
    for c in stream_of([("content", "Let me "), ("content", "check.")], finish=None):
        out += repair.feed(c)
    upstream_call = {
        "index": 0,
        "id": "call_up",
        "type": "function",
        "function": {"name": "get_weather", "arguments": "{}"},
    }
    out += repair.feed(chunk({"tool_calls": [upstream_call]}))
    out += repair.feed(chunk({}, "tool_calls"))
    got = fold(out)
    assert (got["content"], got["reasoning"], got["calls"]) == ("Let me check.", "", [("get_weather", "{}")])


def test_async_stream_with_the_switch() -> None:
    text = "plan</think>Sure." + CALL

    async def source() -> AsyncIterator[dict[str, Any]]:
        for c in stream_of(in_threes(text)):
            yield c

    async def collect() -> list[dict[str, Any]]:
        return [c async for c in arepair_chat_stream(source(), REQUEST, options=ON)]

    got = fold(asyncio.run(collect()))
    assert (got["content"], got["reasoning"], len(got["calls"])) == ("Sure.", "plan", 1)


def test_the_shared_options_function() -> None:
    """What the other APIs reuse: the switch off reads no reasoning; on, the start is unknown unless the request
    switched thinking off or the upstream split the reasoning."""
    kwargs: dict[str, Any] = {"calls": True, "cut_calls_as_text": False}
    off = answer_parser_options(RepairOptions(), thinking=None, reasoning_split=False, **kwargs)
    assert not off.reasoning and off.tools
    unknown = answer_parser_options(ON, thinking=None, reasoning_split=False, **kwargs)
    assert unknown.reasoning and unknown.reasoning_start_unknown
    assert answer_parser_options(ON, thinking=True, reasoning_split=False, **kwargs).reasoning_start_unknown
    for thinking, split in ((False, False), (None, True)):
        known = answer_parser_options(ON, thinking=thinking, reasoning_split=split, **kwargs)
        assert known.reasoning and not known.reasoning_start_unknown and not known.reasoning_open
    assert not answer_parser_options(
        ON, calls=False, cut_calls_as_text=True, thinking=None, reasoning_split=False
    ).tools


# -- streamed equals whole, at any split ------------------------------------------------------------------------


@SETTINGS
@given(
    st.sampled_from(TEXTS),
    st.sampled_from(FORMS),
    st.sampled_from(THOUGHTS),
    st.lists(st.integers(min_value=1, max_value=4000), max_size=40),
    st.sampled_from([None, True, False]),
    st.sampled_from(["", "Upstream thought."]),
    st.booleans(),
)
def test_streamed_equals_whole_at_any_split(
    text: Any, form: str, thought: str, cuts: list[int], thinking: bool | None, upstream: str, tools: bool
) -> None:
    content = form.format(r=thought, a=text.text)
    request: dict[str, Any] = {**REQUEST, "tools": text.tools} if tools else {"messages": []}
    if thinking is not None:
        request["chat_template_kwargs"] = {"enable_thinking": thinking}
    options = answer_parser_options(
        ON, calls=tools, cut_calls_as_text=False, thinking=thinking, reasoning_split=bool(upstream)
    )
    expected = oracle(content, request.get("tools"), options)
    if upstream:
        expected["reasoning"] = upstream + expected["reasoning"]
    given_response = response(content, upstream or None)
    before = copy.deepcopy(given_response)
    message = repair_chat_completion(given_response, request, options=ON)["choices"][0]["message"]
    assert given_response == before
    assert whole(message) == expected
    parts = [("reasoning_content", upstream)] if upstream else []
    parts += [("content", part) for part in pieces(content, cuts)]
    assert streamed(parts, request) == expected
