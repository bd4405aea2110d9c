"""longcat_plugins.client.responses: calls written in the text of a Responses API answer's items become
``function_call`` items, whole and streamed.

The upstream answers here are hand-built in the shapes vLLM's ``/v1/responses`` serves without a tool parser (one
message item, its text in one ``output_text`` part, streamed as ``response.output_text.delta`` events). The core is
the oracle: the items a repaired answer holds, in order, are the core's reading of the text (text runs, calls,
reasoning), and every split of the stream gives the items of the whole answer. :func:`checked` checks what a client
relies on in every repaired stream: sequence numbers with no gap, each item's events under its ``output_index`` and
id, ``.done`` events holding what the deltas built, the terminal event's ``output`` equal to the items streamed.
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
    RepairOptions,
    ResponseStreamRepair,
    arepair_response_stream,
    needs_response_repair,
    repair_response,
    repair_response_stream,
)
from longcat_plugins.core import (
    Content,
    ParserOptions,
    Reasoning,
    StreamParser,
    ToolCallArgs,
    ToolCallEnd,
    ToolCallStart,
)
from tests.served.texts import TOOLS, Text, all_texts

EXAMPLES = int(os.environ.get("LONGCAT_HYPOTHESIS_EXAMPLES", "150"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TEXTS = [text for text in all_texts() if text.tools]
CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}\n</tool_call>'
TOKYO = CALL.replace("Paris", "Tokyo")
UNKNOWN = '<tool_call>\n{"name": "send_mail", "arguments": {"to": "a@b.c"}}\n</tool_call>'
REASONING_ON = RepairOptions(reasoning=True)


def flat(tools: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Chat Completions tools as the Responses API declares them."""
    return [{"type": "function", **tool["function"], "strict": None} for tool in tools]


REQUEST: dict[str, Any] = {"model": "m", "input": "hi", "tools": flat(TOOLS)}


def request_for(text: Text) -> dict[str, Any]:
    return {**REQUEST, "tools": flat(text.tools or [])}


# -- upstream answers, in vLLM's shapes ------------------------------------------------------------------------


def message_item(text: str | None, item_id: str = "msg_up", status: str = "completed") -> dict[str, Any]:
    content = [] if text is None else [{"annotations": [], "text": text, "type": "output_text", "logprobs": None}]
    return {"id": item_id, "content": content, "role": "assistant", "status": status, "type": "message", "phase": None}


def reasoning_item(text: str, item_id: str = "rs_up") -> dict[str, Any]:
    content = [{"text": text, "type": "reasoning_text"}]
    return {"id": item_id, "summary": [], "type": "reasoning", "content": content, "encrypted_content": None}


def upstream_call(name: str, arguments: str, item_id: str = "fc_up") -> dict[str, Any]:
    return {
        "arguments": arguments,
        "call_id": "call_upstream",
        "name": name,
        "type": "function_call",
        "id": item_id,
        "status": "completed",
    }


def response(output: list[dict[str, Any]], status: str = "completed") -> dict[str, Any]:
    return {
        "id": "resp_1",
        "created_at": 1,
        "model": "m",
        "object": "response",
        "output": output,
        "parallel_tool_calls": True,
        "status": status,
        "tool_choice": "auto",
        "tools": REQUEST["tools"],
        "usage": {"input_tokens": 3, "output_tokens": 5, "total_tokens": 8},
    }


def pieces(text: str, cuts: Iterable[int]) -> list[str]:
    points = sorted({0, len(text), *(c for c in cuts if 0 < c < len(text))})
    return [text[a:b] for a, b in itertools.pairwise(points)]


def text_events(item_id: str, index: int, parts: list[str], kind: str = "message") -> list[dict[str, Any]]:
    """The events of one message (or reasoning) item streamed in ``parts``, as vLLM writes them (no numbers yet)."""
    part_type, prefix = ("output_text", "output_text") if kind == "message" else ("reasoning_text", "reasoning_text")
    text = "".join(parts)
    item = message_item(None, item_id, "in_progress") if kind == "message" else reasoning_item("", item_id)
    if kind == "reasoning":
        item.update(content=None, status="in_progress")
    done_item = (
        message_item(text, item_id) if kind == "message" else {**reasoning_item(text, item_id), "status": "completed"}
    )
    where = {"item_id": item_id, "output_index": index}
    return [
        {"type": "response.output_item.added", "item": item, "output_index": index},
        {"type": "response.content_part.added", "content_index": 0, **where, "part": {"text": "", "type": part_type}},
        *({"type": f"response.{prefix}.delta", "content_index": 0, "delta": p, **where} for p in parts),
        {"type": f"response.{prefix}.done", "content_index": 0, "text": text, **where},
        {"type": "response.content_part.done", "content_index": 0, **where, "part": {"text": text, "type": part_type}},
        {"type": "response.output_item.done", "item": done_item, "output_index": index},
    ]


def numbered(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**event, "sequence_number": n} for n, event in enumerate(events)]


def stream_of(
    parts: list[str], terminal: str | None = "response.completed", status: str = "completed"
) -> list[dict[str, Any]]:
    """An answer of one message item streamed in ``parts``, opened and closed as vLLM does (``terminal`` None: the
    stream breaks off before its terminal event)."""
    text = "".join(parts)
    events = [
        {"type": "response.created", "response": response([], "in_progress")},
        {"type": "response.in_progress", "response": response([], "in_progress")},
        *text_events("msg_up", 0, parts),
    ]
    if terminal is not None:
        events.append({"type": terminal, "response": response([message_item(text)], status)})
    return numbered(events)


# -- what a client makes of a repaired answer ------------------------------------------------------------------


def summary(items: Iterable[dict[str, Any]]) -> list[tuple[str, ...]]:
    """Items as (type, text) or ("function_call", name, arguments)."""
    out: list[tuple[str, ...]] = []
    for item in items:
        if item["type"] == "function_call":
            out.append(("function_call", item["name"], item["arguments"]))
        else:
            out.append((item["type"], "".join(part["text"] for part in item["content"] or ())))
    return out


def checked(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The items a repaired stream holds (their ``output_item.done`` state), after checking its numbering and that
    every event agrees with the items (see the module docstring)."""
    assert [e["sequence_number"] for e in events] == list(range(events[0]["sequence_number"], len(events)))
    added: list[dict[str, Any]] = []
    built: dict[int, list[str]] = {}
    done: dict[int, dict[str, Any]] = {}
    terminal = None
    for event in events:
        kind = event["type"]
        if kind == "response.output_item.added":
            assert event["output_index"] == len(added)
            assert len(done) == len(added)  # (the items come one after another)
            added.append(event["item"])
            built[event["output_index"]] = []
            continue
        if kind in ("response.completed", "response.incomplete", "response.failed"):
            terminal = event["response"]
            continue
        if "output_index" not in event:
            continue
        index = event["output_index"]
        item = added[index]
        assert index not in done
        if "item_id" in event:
            assert event["item_id"] == item["id"]
        if kind.endswith(".delta"):
            built[index].append(event["delta"])
        elif kind in ("response.output_text.done", "response.reasoning_text.done"):
            assert event["text"] == "".join(built[index])
        elif kind == "response.function_call_arguments.done":
            assert event["arguments"] == "".join(built[index]) and event["name"] == item["name"]
        elif kind == "response.content_part.done":
            assert event["part"]["text"] == "".join(built[index])
        elif kind == "response.output_item.done":
            final = event["item"]
            assert final["id"] == item["id"] and final["type"] == item["type"]
            if final["type"] == "function_call":
                assert final["arguments"] == "".join(built[index]) and final["call_id"] == item["call_id"]
                json.loads(final["arguments"])
            else:
                assert "".join(p["text"] for p in final["content"]) == "".join(built[index])
            done[index] = final
    assert len(done) == len(added)
    items = [done[i] for i in range(len(added))]
    ids = [item["id"] for item in items]
    assert len(set(ids)) == len(ids)
    for item in items:
        assert item["id"].startswith({"message": "msg_", "reasoning": "rs_", "function_call": "fc_"}[item["type"]])
    if terminal is not None:
        assert terminal["output"] == items
    return items


def repaired(events: list[dict[str, Any]], request: dict[str, Any] = REQUEST, **kw: Any) -> list[dict[str, Any]]:
    return list(repair_response_stream(copy.deepcopy(events), request, **kw))


def expected(
    text: str, tools: Any, options: ParserOptions | None = None, kind: str = "message"
) -> list[tuple[str, ...]]:
    """The core's reading of an item's text as items: text runs, calls, reasoning runs; what the core reads while a
    call is open (text a call left open let through) comes after that call."""
    parser = StreamParser(tools, options or ParserOptions(reasoning=False))
    events = parser.feed(text) + parser.finish()
    ordered: list[Any] = []
    deferred: list[Any] = []
    open_call = None
    for event in events:
        if open_call is not None and getattr(event, "index", None) != open_call:
            deferred.append(event)
            continue
        ordered.append(event)
        if isinstance(event, ToolCallStart):
            open_call = event.index
        elif isinstance(event, ToolCallEnd):
            open_call = None
            ordered += deferred  # (the core's calls here never nest further)
            deferred = []
    out: list[list[str]] = []
    for event in ordered:
        if isinstance(event, (Content, Reasoning)):
            item_type = "reasoning" if isinstance(event, Reasoning) else kind
            if not out or out[-1][0] != item_type:
                out.append([item_type, ""])
            out[-1][1] += event.text
        elif isinstance(event, ToolCallStart):
            out.append(["function_call", event.name, ""])
        elif isinstance(event, ToolCallArgs):
            out[-1][2] += event.text
        else:
            out.append(["end"])
    return [tuple(item) for item in out if item[0] != "end"]


# -- the core is the oracle ------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", TEXTS, ids=str)
def test_whole_and_one_delta_equal_the_core(text: Text) -> None:
    want = expected(text.text, text.tools)
    given_response = response([message_item(text.text)])
    before = copy.deepcopy(given_response)
    whole = repair_response(given_response, request_for(text))
    assert given_response == before
    assert summary(whole["output"]) == want
    assert {k: v for k, v in whole.items() if k != "output"} == {k: v for k, v in before.items() if k != "output"}
    assert summary(checked(repaired(stream_of([text.text]), request_for(text)))) == want


@SETTINGS
@given(st.sampled_from(TEXTS), st.lists(st.integers(min_value=1, max_value=4000), max_size=40))
def test_random_splits_equal_the_core(text: Text, cuts: list[int]) -> None:
    events = stream_of(pieces(text.text, cuts))
    assert summary(checked(repaired(events, request_for(text)))) == expected(text.text, text.tools)


def test_every_split_of_a_stream_gives_the_whole_answer() -> None:
    text = "Let me see.\n" + CALL + "\nand\n" + TOKYO + UNKNOWN + "\nDone."
    whole = summary(repair_response(response([message_item(text)]), REQUEST)["output"])
    assert whole == [
        ("message", "Let me see.\n"),
        ("function_call", "get_weather", '{"city": "Paris", "days": 2}'),
        ("message", "\nand\n"),
        ("function_call", "get_weather", '{"city": "Tokyo", "days": 2}'),
        ("message", UNKNOWN + "\nDone."),
    ]
    splits = [[text[:i], text[i:]] for i in range(1, len(text))] + [list(text)]
    for parts in splits:
        assert summary(checked(repaired(stream_of(parts)))) == whole, parts


# -- items and their numbers -----------------------------------------------------------------------------------


def test_several_calls_in_one_delta_shift_every_later_index_and_number() -> None:
    events = repaired(stream_of(["Checking.", CALL + TOKYO + "Both asked."]))
    items = checked(events)
    assert summary(items) == [
        ("message", "Checking."),
        ("function_call", "get_weather", '{"city": "Paris", "days": 2}'),
        ("function_call", "get_weather", '{"city": "Tokyo", "days": 2}'),
        ("message", "Both asked."),
    ]
    assert items[0]["id"] == "msg_up" and items[3]["id"] != "msg_up"
    assert all(item["status"] == "completed" for item in items)
    assert [item["call_id"][:5] for item in items[1:3]] == ["call_", "call_"]
    names = [e["type"] for e in events]
    assert names[:2] == ["response.created", "response.in_progress"]
    assert names[-1] == "response.completed"
    assert [e["output_index"] for e in events if e["type"] == "response.output_item.added"] == [0, 1, 2, 3]
    last_text = [e for e in events if e["type"] == "response.output_text.delta"][-1]
    assert (last_text["output_index"], last_text["delta"], last_text["content_index"]) == (3, "Both asked.", 0)
    assert events[-1]["sequence_number"] == len(events) - 1
    assert events[-1]["response"]["usage"] == response([])["usage"]


def test_a_call_split_across_events_streams_its_arguments() -> None:
    events = repaired(stream_of(list("Hi " + CALL)))
    assert summary(checked(events)) == [
        ("message", "Hi "),
        ("function_call", "get_weather", '{"city": "Paris", "days": 2}'),
    ]
    deltas = [e["delta"] for e in events if e["type"] == "response.function_call_arguments.delta"]
    assert len(deltas) > 2  # (the arguments stream as they are read)
    added = [e["item"] for e in events if e["type"] == "response.output_item.added"]
    assert added[1]["status"] == "in_progress" and added[1]["arguments"] == ""


def test_a_message_that_is_only_calls_becomes_only_calls() -> None:
    output = repair_response(response([message_item(CALL + "\n" + TOKYO)]), REQUEST)["output"]
    assert [item["type"] for item in output] == ["function_call", "function_call"]
    assert [item["type"] for item in checked(repaired(stream_of([CALL, "\n", TOKYO])))] == [
        "function_call",
        "function_call",
    ]


def test_a_cut_call_is_closed_with_valid_json() -> None:
    cut = CALL[: CALL.index("Paris") + 3]
    events = repaired(stream_of(["Hi ", cut], terminal="response.incomplete", status="incomplete"))
    items = checked(events)
    assert summary(items) == [("message", "Hi "), ("function_call", "get_weather", '{"city": "Par"}')]
    whole = repair_response(response([message_item("Hi " + cut, status="incomplete")], "incomplete"), REQUEST)
    assert summary(whole["output"]) == summary(items)


def test_a_stop_that_may_cut_a_call_leaves_an_open_call_as_text() -> None:
    cut = CALL[: CALL.index("Paris") + 3]
    request = {**REQUEST, "stop": ["</tool_call>"]}
    assert summary(checked(repaired(stream_of(["Hi ", cut]), request))) == [("message", "Hi " + cut)]
    whole = repair_response(response([message_item("Hi " + cut)]), request)
    assert summary(whole["output"]) == [("message", "Hi " + cut)]


def test_unknown_tool_stays_text_verbatim() -> None:
    text = "Mail: " + UNKNOWN
    assert summary(checked(repaired(stream_of([text[:9], text[9:]])))) == [("message", text)]
    given_response = response([message_item(text)])
    assert repair_response(given_response, REQUEST) is given_response


# -- what is not repaired --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "request_body",
    [
        {**REQUEST, "tool_choice": "none"},
        {"model": "m", "input": "hi"},
        {**REQUEST, "tools": [{"type": "web_search"}]},
        {**REQUEST, "tools": TOOLS},  # (Chat Completions' nested tools are not the Responses API's)
    ],
    ids=["tool_choice_none", "no_tools", "no_function_tools", "chat_tools"],
)
def test_requests_without_function_tools_pass_untouched(request_body: dict[str, Any]) -> None:
    assert not needs_response_repair(request_body)
    given_response = response([message_item("Hi " + CALL)])
    assert repair_response(given_response, request_body) is given_response
    events = stream_of(["Hi ", CALL])
    out = list(repair_response_stream(events, request_body))
    assert all(a is b for a, b in zip(out, events, strict=True))
    repair = ResponseStreamRepair(request_body)
    assert all(repair.feed(e) == [e] for e in events) and repair.finish() == []


def test_upstream_calls_win() -> None:
    """A response with a call of the upstream's own is returned as given; in a stream, the upstream's call and every
    item after it pass through (renumbered after the items the repair made before)."""
    given_response = response([message_item("Hi " + CALL), upstream_call("get_weather", '{"city": "Oslo"}')])
    assert repair_response(given_response, REQUEST) is given_response
    call = upstream_call("get_weather", '{"city": "Oslo"}')
    where = {"item_id": "fc_up", "output_index": 1}
    call_events = [
        {
            "type": "response.output_item.added",
            "item": {**call, "arguments": "", "status": "in_progress"},
            "output_index": 1,
        },
        {"type": "response.function_call_arguments.delta", "delta": call["arguments"], **where},
        {
            "type": "response.function_call_arguments.done",
            "arguments": call["arguments"],
            **where,
            "name": "get_weather",
        },
        {"type": "response.output_item.done", "item": call, "output_index": 1},
    ]
    after = text_events("msg_up2", 2, ["After ", CALL])
    final = [message_item("Hi " + CALL), call, message_item("After " + CALL, "msg_up2")]
    events = numbered(
        [
            {"type": "response.created", "response": response([], "in_progress")},
            *text_events("msg_up", 0, ["Hi ", CALL]),
            *call_events,
            *after,
            {"type": "response.completed", "response": response(final)},
        ]
    )
    items = checked(repaired(events))
    assert summary(items) == [
        ("message", "Hi "),
        ("function_call", "get_weather", '{"city": "Paris", "days": 2}'),
        ("function_call", "get_weather", '{"city": "Oslo"}'),
        ("message", "After " + CALL),
    ]
    assert items[2] == call and items[3] == message_item("After " + CALL, "msg_up2")


def test_malformed_input_is_returned_untouched() -> None:
    for bad in ({"output": "text"}, {"output": [1]}, "not a response", None):
        assert repair_response(bad, REQUEST) is bad
    repair = ResponseStreamRepair(REQUEST)
    for bad_event in ({"no": "type"}, "text", None):
        assert repair.feed(bad_event) == [bad_event]


# -- reasoning -------------------------------------------------------------------------------------------------


def test_think_blocks_become_reasoning_items_with_the_option() -> None:
    text = "<think>Two cities.</think>\n\nChecking. " + CALL
    want = [
        ("reasoning", "Two cities."),
        ("message", "\n\nChecking. "),
        ("function_call", "get_weather", '{"city": "Paris", "days": 2}'),
    ]
    assert want == expected(text, TOOLS, ParserOptions(reasoning=True, reasoning_start_unknown=True))
    for parts in ([text], list(text), [text[:5], text[5:30], text[30:]]):
        events = repaired(stream_of(parts), options=REASONING_ON)
        items = checked(events)
        assert summary(items) == want
        assert items[0]["id"].startswith("rs_") and items[1]["id"] == "msg_up"
        names = [e["type"] for e in events]
        assert "response.reasoning_text.delta" in names and "response.reasoning_text.done" in names
    whole = repair_response(response([message_item(text)]), REQUEST, REASONING_ON)["output"]
    assert summary(whole) == want
    assert whole[0]["summary"] == [] and whole[0]["content"][0]["type"] == "reasoning_text"
    # off: the think block stays in the message's text
    off = [("message", "<think>Two cities.</think>\n\nChecking. "), want[2]]
    assert summary(repair_response(response([message_item(text)]), REQUEST)["output"]) == off
    assert summary(checked(repaired(stream_of([text])))) == off


def test_an_output_that_starts_inside_reasoning() -> None:
    """A template that pre-fills ``<think>``: the output's first think tag is a closer, so what came before it was
    reasoning; a request that switched thinking off says the output does not start inside it."""
    text = "Two cities.</think>Checking. " + CALL
    got = summary(checked(repaired(stream_of([text[:4], text[4:]]), options=REASONING_ON)))
    assert got[:2] == [("reasoning", "Two cities."), ("message", "Checking. ")]
    off = {**REQUEST, "reasoning": {"effort": "none"}}
    not_inside = summary(repair_response(response([message_item(text)]), off, REASONING_ON)["output"])
    assert ("reasoning", "Two cities.") not in not_inside
    assert not_inside == expected(text, TOOLS, ParserOptions(reasoning=True))


@pytest.mark.parametrize(
    ("switch", "off"),
    [
        ({"reasoning": {"effort": "none"}}, True),
        ({"chat_template_kwargs": {"enable_thinking": False}}, True),
        ({"chat_template_kwargs": {"thinking": False}}, True),
        # (the chat-template variables win, as in Chat Completions and Messages: the template reads them)
        ({"chat_template_kwargs": {"enable_thinking": True}, "reasoning": {"effort": "none"}}, False),
    ],
    ids=["effort_none", "enable_thinking", "thinking", "template_wins"],
)
def test_the_thinking_switch_is_read_as_in_every_api(switch: dict[str, Any], off: bool) -> None:
    text = "Two cities.</think>Checking."
    got = summary(repair_response(response([message_item(text)]), {**REQUEST, **switch}, REASONING_ON)["output"])
    inside = [("reasoning", "Two cities."), ("message", "Checking.")]
    assert (got != inside) is off


@pytest.mark.parametrize(
    "request_body",
    [{"model": "m", "input": "hi"}, {**REQUEST, "tool_choice": "none"}, {**REQUEST, "tools": [{"type": "web_search"}]}],
    ids=["no_tools", "tool_choice_none", "no_function_tools"],
)
def test_with_the_option_a_request_without_calls_has_its_reasoning_split(request_body: dict[str, Any]) -> None:
    """The reasoning option repairs every request's answer, as in Chat Completions and Messages: without function
    tools (or with ``tool_choice`` none) the think block becomes a reasoning item and the call markup stays text,
    verbatim."""
    text = "<think>Two cities.</think>\n\nChecking. " + CALL
    want = [("reasoning", "Two cities."), ("message", "\n\nChecking. " + CALL)]
    assert want == expected(text, [], ParserOptions(reasoning=True, tools=False, reasoning_start_unknown=True))
    assert needs_response_repair(request_body, REASONING_ON)
    whole = repair_response(response([message_item(text)]), request_body, REASONING_ON)["output"]
    assert summary(whole) == want
    for parts in ([text], [text[:9], text[9:40], text[40:]]):
        assert summary(checked(repaired(stream_of(parts), request_body, options=REASONING_ON))) == want


def test_calls_in_a_reasoning_item_are_read() -> None:
    """A server whose reasoning parser runs to the end of the output leaves a call in the reasoning: it is read as
    in Chat Completions' reasoning channel, the text stays reasoning."""
    text = "Let me call it." + CALL + "Then answer."
    want = [
        ("reasoning", "Let me call it."),
        ("function_call", "get_weather", '{"city": "Paris", "days": 2}'),
        ("reasoning", "Then answer."),
    ]
    whole = repair_response(response([reasoning_item(text), message_item("Done.")]), REQUEST)["output"]
    assert summary(whole) == [*want, ("message", "Done.")]
    events = numbered(
        [
            *text_events("rs_up", 0, [text[:20], text[20:]], kind="reasoning"),
            *text_events("msg_up", 1, ["Done."]),
            {"type": "response.completed", "response": response([reasoning_item(text), message_item("Done.")])},
        ]
    )
    items = checked(repaired(events, options=REASONING_ON))
    assert summary(items) == [*want, ("message", "Done.")]
    assert items[0]["id"] == "rs_up" and items[3]["id"] == "msg_up"


# -- the end of a stream ---------------------------------------------------------------------------------------


def test_finish_closes_the_items_of_a_stream_that_broke_off() -> None:
    events = stream_of(["Hi ", CALL[: CALL.index("Paris") + 3]], terminal=None)[
        :-3
    ]  # (no .done events, no terminal event)
    repair = ResponseStreamRepair(REQUEST)
    out = [e for event in events for e in repair.feed(event)]
    assert out[-1]["type"] == "response.function_call_arguments.delta"
    out += repair.finish()
    assert summary(checked(out)) == [
        ("message", "Hi "),
        ("function_call", "get_weather", '{"city": "Par"}'),
    ]
    assert repair.finish() == []


def test_an_error_event_closes_the_open_items_first() -> None:
    events = stream_of(["Hi <tool_", "call>"], terminal=None)[:-3]
    error = {"type": "error", "code": "x", "message": "engine died", "param": None, "sequence_number": 99}
    out = repaired([*events, error])
    assert out[-1] == {**error, "sequence_number": len(out) - 1}
    assert summary(checked(out[:-1])) == [("message", "Hi <tool_call>")]


def test_async_stream() -> None:
    async def source() -> AsyncIterator[dict[str, Any]]:
        for event in stream_of(["Hi ", CALL]):
            yield event

    async def collect() -> list[dict[str, Any]]:
        return [event async for event in arepair_response_stream(source(), REQUEST)]

    got = asyncio.run(collect())
    assert summary(checked(got)) == summary(checked(repaired(stream_of(["Hi ", CALL]))))
