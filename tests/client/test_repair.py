"""longcat_plugins.client: calls written as text in a response's content or reasoning become tool_calls.

The core is the oracle: what the library returns for a channel's text, whole or streamed in any split, equals
``parse(text, tools, ParserOptions(reasoning=False))`` of that text. Everything else passes untouched.
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
    ChatStreamRepair,
    arepair_chat_stream,
    needs_repair,
    repair_chat_completion,
    repair_chat_stream,
)
from longcat_plugins.core import ParserOptions, parse
from tests.served.texts import TOOLS, Text, all_texts

EXAMPLES = int(os.environ.get("LONGCAT_HYPOTHESIS_EXAMPLES", "150"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
OPTIONS = ParserOptions(reasoning=False)
TEXTS = [text for text in all_texts() if text.tools]
REQUEST: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": TOOLS}
CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}\n</tool_call>'
UNKNOWN = '<tool_call>\n{"name": "send_mail", "arguments": {"to": "a@b.c"}}\n</tool_call>'


def request_for(text: Text) -> dict[str, Any]:
    return {**REQUEST, "tools": text.tools}


def expected(text: str, tools: Any) -> tuple[str, list[tuple[str, str]]]:
    message = parse(text, tools, OPTIONS)
    return message.content, [(call.name, call.arguments) for call in message.tool_calls]


def response(content: str | None, reasoning: str | None = None, finish: str = "stop", **extra: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if reasoning is not None:
        message["reasoning_content"] = reasoning
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "longcat",
        "system_fingerprint": "fp",
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3},
        **extra,
    }


def chunk(delta: dict[str, Any], finish: str | None = None, index: int = 0, **extra: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "longcat",
        "choices": [{"index": index, "delta": delta, "finish_reason": finish, **extra}],
    }


def pieces(text: str, cuts: Iterable[int]) -> list[str]:
    points = sorted({0, len(text), *(c for c in cuts if 0 < c < len(text))})
    return [text[a:b] for a, b in itertools.pairwise(points)]


def stream_of(parts: list[tuple[str, str]], finish: str | None = "stop") -> list[dict[str, Any]]:
    """Chunks of (field, text) deltas, opened by a role chunk, closed by a finish reason (None: dropped)."""
    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({field: text}) for field, text in parts]
    if finish is not None:
        chunks.append(chunk({}, finish))
    return chunks


def fold(chunks: Iterable[dict[str, Any]], index: int = 0) -> dict[str, Any]:
    """A streamed choice, joined: content, reasoning, calls (name, arguments) by index, and the finish reason."""
    content, reasoning, calls, finish = [], [], {}, None
    for c in chunks:
        for choice in c["choices"]:
            if choice["index"] != index:
                continue
            delta = choice["delta"]
            content.append(delta.get("content") or "")
            reasoning.append(delta.get("reasoning_content") or delta.get("reasoning") or "")
            for item in delta.get("tool_calls") or []:
                if "id" in item:
                    assert item["index"] not in calls and item["type"] == "function"
                    assert isinstance(item["id"], str) and item["id"]  # (call_..., or the id the model wrote)
                    calls[item["index"]] = [item["function"]["name"], item["function"].get("arguments", "")]
                else:
                    assert set(item) == {"index", "function"} and set(item["function"]) == {"arguments"}
                    calls[item["index"]][1] += item["function"]["arguments"]
            finish = choice["finish_reason"] or finish
    assert sorted(calls) == list(range(len(calls)))
    return {
        "content": "".join(content),
        "reasoning": "".join(reasoning),
        "calls": [tuple(calls[i]) for i in range(len(calls))],
        "finish": finish,
    }


# -- the core is the oracle ------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", TEXTS, ids=str)
def test_whole_response_equals_the_core(text: Text) -> None:
    content, calls = expected(text.text, text.tools)
    for field in ("content", "reasoning_content"):
        given_response = response(text.text if field == "content" else None, text.text if field != "content" else None)
        before = copy.deepcopy(given_response)
        out = repair_chat_completion(given_response, request_for(text))
        assert given_response == before  # (the input is not changed)
        message = out["choices"][0]["message"]
        assert message[field] == (content or None)
        got = [(c["function"]["name"], c["function"]["arguments"]) for c in message.get("tool_calls", [])]
        assert got == calls
        assert out["choices"][0]["finish_reason"] == ("tool_calls" if calls else "stop")
        assert {k: v for k, v in out.items() if k != "choices"} == {k: v for k, v in before.items() if k != "choices"}
        if not calls:
            assert "tool_calls" not in message


@pytest.mark.parametrize("text", TEXTS, ids=str)
def test_whole_text_in_one_chunk_equals_the_core(text: Text) -> None:
    content, calls = expected(text.text, text.tools)
    for field, folded in (("content", "content"), ("reasoning_content", "reasoning")):
        got = fold(repair_chat_stream(stream_of([(field, text.text)]), request_for(text)))
        assert got[folded] == content and got["calls"] == calls
        assert got["finish"] == ("tool_calls" if calls else "stop")


@SETTINGS
@given(st.sampled_from(TEXTS), st.lists(st.integers(min_value=1, max_value=4000), max_size=40), st.booleans())
def test_random_splits_equal_the_core(text: Text, cuts: list[int], in_reasoning: bool) -> None:
    field = "reasoning_content" if in_reasoning else "content"
    content, calls = expected(text.text, text.tools)
    chunks = stream_of([(field, part) for part in pieces(text.text, cuts)])
    got = fold(repair_chat_stream(chunks, request_for(text)))
    assert got["reasoning" if in_reasoning else "content"] == content
    assert got["content" if in_reasoning else "reasoning"] == ""
    assert got["calls"] == calls


@SETTINGS
@given(
    st.sampled_from(TEXTS),
    st.sampled_from(TEXTS),
    st.lists(st.integers(min_value=1, max_value=4000), max_size=20),
    st.lists(st.integers(min_value=1, max_value=4000), max_size=20),
)
def test_both_channels_in_one_stream(first: Text, second: Text, cuts_r: list[int], cuts_c: list[int]) -> None:
    tools = (first.tools or []) + [t for t in second.tools or [] if t not in (first.tools or [])]
    names = [t["function"]["name"] for t in tools]
    if len(names) != len(set(names)):
        tools = first.tools or []
    reasoning, reasoning_calls = expected(first.text, tools)
    content, content_calls = expected(second.text, tools)
    parts = [("reasoning_content", p) for p in pieces(first.text, cuts_r)]
    parts += [("content", p) for p in pieces(second.text, cuts_c)]
    got = fold(repair_chat_stream(stream_of(parts), {**REQUEST, "tools": tools}))
    assert (got["reasoning"], got["content"]) == (reasoning, content)
    assert got["calls"] == reasoning_calls + content_calls
    whole = repair_chat_completion(response(second.text, first.text), {**REQUEST, "tools": tools})
    message = whole["choices"][0]["message"]
    assert (message["reasoning_content"], message["content"]) == (reasoning or None, content or None)
    calls = [(c["function"]["name"], c["function"]["arguments"]) for c in message.get("tool_calls", [])]
    assert calls == reasoning_calls + content_calls


def test_a_call_the_end_of_the_reasoning_decides_comes_before_the_answers_calls() -> None:
    """A key left open in the reasoning holds the call after it until the reasoning ends: the answer's first text
    ends it, so that call is numbered before the answer's, as in the whole response."""
    reasoning = "<longcat_tool_call>get_weather\n<longcat_arg_key>days" + CALL
    answer = CALL.replace('"days": 2', '"days": 3')
    got = fold(repair_chat_stream(stream_of([("reasoning_content", reasoning), ("content", answer)]), REQUEST))
    whole = repair_chat_completion(response(answer, reasoning), REQUEST)["choices"][0]["message"]
    in_whole = [(c["function"]["name"], c["function"]["arguments"]) for c in whole["tool_calls"]]
    assert got["calls"] == in_whole == expected(reasoning, TOOLS)[1] + expected(answer, TOOLS)[1]
    assert len(in_whole) == 3


def test_reasoning_field_of_newer_vllm() -> None:
    delta_text = "Let me look." + CALL
    got = list(repair_chat_stream(stream_of([("reasoning", delta_text[:15]), ("reasoning", delta_text[15:])]), REQUEST))
    texts = "".join(c["choices"][0]["delta"].get("reasoning", "") for c in got if c["choices"])
    assert texts == "Let me look."
    assert fold(got)["calls"] == [("get_weather", '{"city": "Paris", "days": 2}')]
    both = response(None)
    both["choices"][0]["message"].update(reasoning_content=delta_text, reasoning=delta_text)
    message = repair_chat_completion(both, REQUEST)["choices"][0]["message"]
    assert message["reasoning_content"] == message["reasoning"] == "Let me look."
    assert len(message["tool_calls"]) == 1


def test_think_tags_in_content_stay_as_sent() -> None:
    text = "<think>plan</think>Sure." + CALL
    message = repair_chat_completion(response(text), REQUEST)["choices"][0]["message"]
    assert message["content"] == "<think>plan</think>Sure." and "reasoning_content" not in message
    got = fold(repair_chat_stream(stream_of([("content", text[i : i + 3]) for i in range(0, len(text), 3)]), REQUEST))
    assert got["content"] == "<think>plan</think>Sure." and got["reasoning"] == ""


# -- untouched ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "request_body",
    [
        {"messages": []},
        {"messages": [], "tools": []},
        {**REQUEST, "tool_choice": "none"},
        {"messages": [], "tools": [{"type": "web_search"}]},
    ],
    ids=["no tools", "empty tools", "tool_choice none", "no function tool"],
)
def test_requests_without_calls_pass_untouched(request_body: dict[str, Any]) -> None:
    assert not needs_repair(request_body)
    given_response = response(CALL)
    assert repair_chat_completion(given_response, request_body) is given_response
    chunks = stream_of([("content", CALL[:9]), ("content", CALL[9:])])
    assert all(a is b for a, b in zip(repair_chat_stream(chunks, request_body), chunks, strict=True))
    repair = ChatStreamRepair(request_body)
    assert all(repair.feed(c) == [c] and repair.feed(c)[0] is c for c in chunks) and repair.finish() == []


@pytest.mark.parametrize("choice", ["auto", "required", {"type": "function", "function": {"name": "get_weather"}}])
def test_requests_with_tools_are_repaired(choice: Any) -> None:
    assert needs_repair({**REQUEST, "tool_choice": choice})


def test_upstream_tool_calls_are_never_altered() -> None:
    upstream = response(CALL)
    upstream["choices"][0]["message"]["tool_calls"] = [
        {"id": "call_up", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
    ]
    assert repair_chat_completion(upstream, REQUEST) is upstream
    tool_chunk = chunk(
        {"tool_calls": [{"index": 0, "id": "call_up", "type": "function", "function": {"name": "get_weather"}}]}
    )
    later = [chunk({"content": "<tool_call>"}), chunk({"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]})]
    chunks = [chunk({"role": "assistant", "content": ""}), chunk({"content": "Hi <tool"}), tool_chunk, *later]
    chunks.append(chunk({}, "stop"))
    originals = copy.deepcopy(chunks)
    out = list(repair_chat_stream(chunks, REQUEST))
    assert chunks == originals
    assert out[0] is chunks[0] and out[1]["choices"][0]["delta"] == {"content": "Hi "}
    # what was held back ("<tool") comes out verbatim, then every chunk from the upstream's calls on, as given
    assert out[2]["choices"][0]["delta"] == {"content": "<tool"} and out[2]["id"] == "chatcmpl-1"
    assert len(out) == 7 and all(a is b for a, b in zip(out[3:], chunks[2:], strict=True))


def test_a_call_emitted_before_upstream_calls_is_kept_and_closed() -> None:
    partial = CALL[:62]
    tool_chunk = chunk({"tool_calls": [{"index": 0, "id": "call_up", "type": "function", "function": {"name": "x"}}]})
    out = list(repair_chat_stream([*stream_of([("content", partial)], finish=None), tool_chunk], REQUEST))
    assert out[-1] is tool_chunk
    ours = fold(out[:-1])
    assert ours["calls"][0][0] == "get_weather" and json.loads(ours["calls"][0][1]) == {"city": "Par"}


def test_usage_chunks_and_chunks_with_nothing_to_repair_pass_untouched() -> None:
    usage = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [], "usage": {"total_tokens": 3}}
    role = chunk({"role": "assistant", "content": ""})
    repair = ChatStreamRepair(REQUEST)
    for c in (role, usage, chunk({}, "length")):
        out = repair.feed(c)
        assert len(out) == 1 and out[0] is c


def test_malformed_input_is_returned_untouched() -> None:
    repair = ChatStreamRepair(REQUEST)
    for bad in (None, "data: x", {"choices": None}, {"choices": [{"delta": "x"}]}, {"choices": [None]}, [1]):
        assert repair.feed(bad)[0] is bad
        assert repair_chat_completion(bad, REQUEST) is bad
    assert repair_chat_completion({"choices": [{"message": None}]}, REQUEST) == {"choices": [{"message": None}]}
    assert repair.finish() == []


def test_unknown_tool_stays_content_verbatim() -> None:
    text = "Sending." + UNKNOWN
    whole = response(text)
    assert repair_chat_completion(whole, REQUEST)["choices"][0]["message"] == whole["choices"][0]["message"]
    got = fold(repair_chat_stream(stream_of([("content", text[i : i + 4]) for i in range(0, len(text), 4)]), REQUEST))
    assert got == {"content": text, "reasoning": "", "calls": [], "finish": "stop"}


def test_two_choices_interleaved_are_repaired_apart() -> None:
    texts = ["A." + CALL, "B, no call."]
    chunks = [chunk({"role": "assistant", "content": ""}, index=i) for i in (0, 1)]
    for i in range(0, max(map(len, texts)), 7):
        chunks += [chunk({"content": t[i : i + 7]}, index=n) for n, t in enumerate(texts) if t[i : i + 7]]
    chunks += [chunk({}, "stop", index=1), chunk({}, "stop", index=0)]
    out = list(repair_chat_stream(chunks, REQUEST))
    assert fold(out, 0) == {
        "content": "A.",
        "reasoning": "",
        "calls": [("get_weather", '{"city": "Paris", "days": 2}')],
        "finish": "tool_calls",
    }
    assert fold(out, 1) == {"content": "B, no call.", "reasoning": "", "calls": [], "finish": "stop"}
    n = {
        "choices": [
            {"index": i, "message": {"role": "assistant", "content": t}, "finish_reason": "stop"}
            for i, t in enumerate(texts)
        ]
    }
    repaired = repair_chat_completion(n, REQUEST)
    assert repaired["choices"][1] is n["choices"][1]
    assert repaired["choices"][0]["finish_reason"] == "tool_calls"


def test_upstream_calls_in_one_choice_leave_the_other_repaired() -> None:
    upstream_call = {"index": 0, "id": "call_up", "type": "function", "function": {"name": "get_weather"}}
    texts = ["Up <tool", "B." + CALL]
    chunks = [chunk({"role": "assistant", "content": ""}, index=i) for i in (0, 1)]
    for i in range(0, max(map(len, texts)), 5):
        chunks += [chunk({"content": t[i : i + 5]}, index=n) for n, t in enumerate(texts) if t[i : i + 5]]
        if i == 5:  # choice 0's own call, while choice 1 is still being written
            chunks.append(chunk({"tool_calls": [upstream_call]}, index=0))
    later = [chunk({"content": "<tool_call>"}, index=0), chunk({}, "tool_calls", index=0), chunk({}, "stop", index=1)]
    chunks += later
    out = list(repair_chat_stream(chunks, REQUEST))
    # choice 0: what it held ("<tool") comes out verbatim before its own call, then every chunk of it as given
    mine = [c for c in out if c["choices"] and c["choices"][0]["index"] == 0]
    assert "".join(c["choices"][0]["delta"].get("content") or "" for c in mine).startswith("Up <tool")
    upstream = next(c for c in chunks if c["choices"][0]["delta"].get("tool_calls"))
    assert any(c is upstream for c in out) and all(any(c is o for o in out) for c in later[:2])
    assert fold(out, 1) == {
        "content": "B.",
        "reasoning": "",
        "calls": [("get_weather", '{"city": "Paris", "days": 2}')],
        "finish": "tool_calls",
    }
    whole = {
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": CALL, "tool_calls": [upstream_call]}},
            {"index": 1, "message": {"role": "assistant", "content": "B." + CALL}, "finish_reason": "stop"},
        ]
    }
    repaired = repair_chat_completion(whole, REQUEST)
    assert repaired["choices"][0] is whole["choices"][0]
    assert repaired["choices"][1]["message"]["tool_calls"][0]["function"]["name"] == "get_weather"
    assert repaired["choices"][1]["message"]["content"] == "B."
    assert repaired["choices"][1]["finish_reason"] == "tool_calls"


def test_logprobs_and_extra_fields_are_kept() -> None:
    logprobs = {"content": [{"token": "<tool_call>", "logprob": -0.1, "bytes": None, "top_logprobs": []}]}
    c = chunk({"content": "<tool_call>"}, logprobs=logprobs)
    c["server_extra"] = {"x": 1}
    out = ChatStreamRepair(REQUEST).feed(c)
    # the text is held back (a call may begin), the chunk stays for its logprobs
    assert len(out) == 1 and out[0]["choices"][0]["logprobs"] == logprobs and out[0]["server_extra"] == {"x": 1}
    assert "content" not in out[0]["choices"][0]["delta"]
    # without logprobs, the same chunk is dropped
    assert ChatStreamRepair(REQUEST).feed(chunk({"content": "<tool_call>"})) == []
    whole = repair_chat_completion(response(CALL, server_extra=1), REQUEST)
    assert whole["server_extra"] == 1 and whole["usage"]["total_tokens"] == 3 and whole["system_fingerprint"] == "fp"


# -- finish reasons, cut and dropped streams ---------------------------------------------------------------------


@pytest.mark.parametrize(("upstream", "repaired"), [("stop", "tool_calls"), ("length", "length"), ("other", "other")])
def test_finish_reason(upstream: str, repaired: str) -> None:
    assert repair_chat_completion(response(CALL, finish=upstream), REQUEST)["choices"][0]["finish_reason"] == repaired
    assert fold(repair_chat_stream(stream_of([("content", CALL)], upstream), REQUEST))["finish"] == repaired
    plain = response("no call", finish=upstream)
    assert repair_chat_completion(plain, REQUEST) is plain


@pytest.mark.parametrize("cut", [20, 40, 55, 70, len(CALL) - 5])
def test_a_cut_call_has_valid_json_arguments(cut: int) -> None:
    text = "Wait." + CALL[:cut]
    message = repair_chat_completion(response(text, finish="length"), REQUEST)["choices"][0]["message"]
    _, calls = expected(text, TOOLS)
    got = [(c["function"]["name"], c["function"]["arguments"]) for c in message.get("tool_calls", [])]
    assert got == calls
    for _, arguments in got:
        assert isinstance(json.loads(arguments), dict)
    streamed = fold(
        repair_chat_stream(stream_of([("content", text[i : i + 6]) for i in range(0, len(text), 6)], "length"), REQUEST)
    )
    assert streamed["calls"] == calls and streamed["content"] == (message["content"] or "")


def test_finish_flushes_a_dropped_stream() -> None:
    text = "Checking <tool_call>\n" + '{"name": "get_weather", "arguments": {"city": "Pa'
    repair = ChatStreamRepair(REQUEST)
    out = [o for c in stream_of([("content", text[:9]), ("content", text[9:])], finish=None) for o in repair.feed(c)]
    last = repair.finish()
    assert len(last) == 1 and last[0]["id"] == "chatcmpl-1" and last[0]["choices"][0]["finish_reason"] is None
    assert repair.finish() == []
    got = fold(out + last)
    assert got["content"] == "Checking " and got["calls"] == [("get_weather", '{"city": "Pa"}')]
    held = ChatStreamRepair(REQUEST)
    assert held.feed(chunk({"content": "Hi <tool_ca"}))[0]["choices"][0]["delta"] == {"content": "Hi "}
    assert held.finish()[0]["choices"][0]["delta"] == {"content": "<tool_ca"}


def test_a_stop_that_may_cut_a_call_leaves_an_open_call_as_text() -> None:
    text = "Wait." + CALL[:60]
    request = {**REQUEST, "stop": ["</tool_call>"]}
    assert repair_chat_completion(response(text), request)["choices"][0]["message"]["content"] == text
    assert fold(repair_chat_stream(stream_of([("content", text)]), request))["content"] == text


# -- async -------------------------------------------------------------------------------------------------------


def test_async_stream() -> None:
    chunks = stream_of([("content", CALL[i : i + 5]) for i in range(0, len(CALL), 5)])

    async def source() -> AsyncIterator[dict[str, Any]]:
        for c in chunks:
            yield c

    async def run() -> list[dict[str, Any]]:
        return [c async for c in arepair_chat_stream(source(), REQUEST)]

    got = asyncio.run(run())
    assert fold(got) == fold(repair_chat_stream(chunks, REQUEST))
    assert fold(got)["calls"] == [("get_weather", '{"city": "Paris", "days": 2}')]


def test_chunks_whose_text_is_shown_as_sent_are_the_same_objects() -> None:
    chunks = stream_of([("content", "Plain text, "), ("reasoning_content", "no call."), ("content", " Done.")])
    out = list(repair_chat_stream(chunks, REQUEST))
    assert len(out) == len(chunks) and all(a is b for a, b in zip(out, chunks, strict=True))
