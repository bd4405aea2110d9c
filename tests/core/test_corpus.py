"""The regression corpus (corpus.jsonl): adversarial model outputs with their expected results.

Every case is parsed in one shot and streamed in several splits; the stream must give exactly the one-shot result
(invariant 1), keep the event-order guarantees (invariants 2 and 6), and the one-shot result must be the expected one.
Arguments are compared as JSON values, type-strictly (``3`` is not ``3.0``, ``true`` is not ``1``).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from longcat_plugins.core import MessageBuilder, ParsedMessage, ParserOptions, StreamParser, parse
from longcat_plugins.core.events import Content, Event, Reasoning, ToolCallArgs, ToolCallEnd, ToolCallStart

CORPUS = Path(__file__).with_name("corpus.jsonl")
CASES: list[dict[str, Any]] = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line]

#: Cases whose expected result the core does not give yet, with what it does wrong; remove an entry once fixed.
KNOWN_CORE_BUGS: dict[str, str] = {
    "hermes_unescaped_quotes_dict_literal_in_code": "a quote followed by ':' or ', b' ends a value string",
    "hermes_unescaped_quotes_markup_in_code": "a quote followed by any '<' ends a value string",
    "hermes_unescaped_quotes_before_brace_in_code": "a quote followed by '}' ends a value string",
}

#: Cases on which the core raises (every test of the case fails); remove an entry once fixed.
KNOWN_CORE_CRASHES: dict[str, str] = {}

#: How often (in feeds) the snapshot of ``StreamParser.calls`` is checked against the events streamed so far.
_CHECKPOINTS = 300


def _options(case: dict[str, Any]) -> ParserOptions:
    return ParserOptions(**case.get("options", {}))


def _canonical(value: Any) -> str:
    """Type-strict, key-order-free comparison form of a JSON value."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _summary(message: ParsedMessage) -> tuple[str, str, list[tuple[str, str]]]:
    return message.content, message.reasoning, [(c.name, c.arguments) for c in message.tool_calls]


#: A rough tokenizer: a whole tag (as a special token would be), a word, a whitespace run, or one character.
_TOKEN = re.compile(r"<[^<>\s]{1,30}>|\w+|\s+|.", re.DOTALL)


def _splits(text: str, how: str) -> Iterator[str]:
    if how == "whole":
        yield text
    elif how.startswith("fixed"):
        size = int(how[len("fixed") :])
        for i in range(0, len(text), size):
            yield text[i : i + size]
    elif how.startswith("tokens"):  # k-token groups (--stream-interval k, speculative decoding)
        size = int(how[len("tokens") :])
        tokens = _TOKEN.findall(text)
        for i in range(0, len(tokens), size):
            yield "".join(tokens[i : i + size])
    else:
        rng = random.Random(f"{how}:{text}")
        i = 0
        while i < len(text):
            size = rng.randint(1, 12)
            yield text[i : i + size]
            i += size


SPLITS = ["fixed1", "whole", "fixed3", "tokens1", "tokens3", "random1", "random2", "random3"]


def _case_params(bugs: dict[str, str]) -> list[Any]:
    params = []
    for case in CASES:
        reason = KNOWN_CORE_CRASHES.get(case["id"]) or bugs.get(case["id"])
        marks = [pytest.mark.xfail(strict=True, reason=f"core bug: {reason}")] if reason else []
        params.append(pytest.param(case, id=case["id"], marks=marks))
    return params


def test_corpus_is_well_formed() -> None:
    ids = [case["id"] for case in CASES]
    assert len(CASES) >= 50
    assert len(ids) == len(set(ids)), "case ids must be unique"
    for case in CASES:
        assert set(case) <= {"id", "why", "tools", "options", "text", "expect"}, case["id"]
        assert case["why"] and isinstance(case["text"], str), case["id"]
        assert set(case["expect"]) == {"content", "reasoning", "tool_calls"}, case["id"]
        for call in case["expect"]["tool_calls"]:
            assert set(call) == {"name", "arguments"} and isinstance(call["arguments"], dict), case["id"]


@pytest.mark.parametrize("case", _case_params(KNOWN_CORE_BUGS))
def test_corpus_expected_result(case: dict[str, Any]) -> None:
    message = parse(case["text"], case["tools"], _options(case))
    expect = case["expect"]
    assert message.content == expect["content"]
    assert message.reasoning == expect["reasoning"]
    got = [(c.name, _canonical(json.loads(c.arguments))) for c in message.tool_calls]
    assert got == [(c["name"], _canonical(c["arguments"])) for c in expect["tool_calls"]]
    assert [c.index for c in message.tool_calls] == list(range(len(message.tool_calls)))


def _stream(case: dict[str, Any], how: str) -> tuple[list[Event], ParsedMessage]:
    """Stream the case in the given split, checking the parser's call snapshots against the events as it goes."""
    parser = StreamParser(case["tools"], _options(case))
    builder = MessageBuilder()
    events: list[Event] = []
    fragments: dict[int, list[str]] = {}
    deltas = list(_splits(case["text"], how))
    assert "".join(deltas) == case["text"]
    every = max(1, len(deltas) // _CHECKPOINTS)
    snapshots: list[tuple[int, str]] = []
    for n, delta in enumerate(deltas):
        new = parser.feed(delta)
        events += new
        builder.add(new)
        for event in new:
            if isinstance(event, ToolCallStart):
                fragments[event.index] = []
            elif isinstance(event, ToolCallArgs):
                fragments[event.index].append(event.text)
        if n % every == 0:
            snapshot = parser.calls
            assert [c.index for c in snapshot] == sorted(fragments)
            for call in snapshot:
                assert call.arguments == "".join(fragments[call.index])
                snapshots.append((call.index, call.arguments))
    final = parser.finish()
    events += final
    builder.add(final)
    message = builder.message
    for index, arguments in snapshots:
        assert message.tool_calls[index].arguments.startswith(arguments), "intermediate arguments are a prefix"
    return events, message


def _check_event_order(events: list[Event], message: ParsedMessage) -> None:
    """Invariants 2 and 6 on a complete event stream."""
    started: list[int] = []
    ended: set[int] = set()
    ids: set[str] = set()
    for event in events:
        if isinstance(event, ToolCallStart):
            assert event.index == len(started), "calls are numbered 0, 1, 2... in order"
            assert isinstance(event.id, str) and event.id, "the first event of a call carries its id"
            assert isinstance(event.name, str) and event.name, "the first event of a call carries its name"
            assert event.id not in ids, "call ids are unique"
            ids.add(event.id)
            started.append(event.index)
        elif isinstance(event, ToolCallArgs):
            assert event.index in started, "arguments come after their call's ToolCallStart"
            assert event.index not in ended, "no arguments after ToolCallEnd"
            assert event.text, "argument fragments are not empty"
        elif isinstance(event, ToolCallEnd):
            assert event.index in started and event.index not in ended, "one ToolCallEnd per started call"
            ended.add(event.index)
        else:
            assert isinstance(event, (Content, Reasoning))
    assert ended == set(started), "finish() ends every call"
    for call in message.tool_calls:
        arguments = json.loads(call.arguments)
        assert isinstance(arguments, dict), "the arguments of a call are a JSON object"


@pytest.mark.parametrize("how", SPLITS)
@pytest.mark.parametrize("case", _case_params({}))
def test_corpus_streaming_equals_one_shot(case: dict[str, Any], how: str) -> None:
    one_shot = parse(case["text"], case["tools"], _options(case))
    events, streamed = _stream(case, how)
    assert _summary(streamed) == _summary(one_shot)
    _check_event_order(events, streamed)


def test_one_shot_event_order() -> None:
    """The same guarantees hold for the events of a single feed of the whole text (several calls in one delta)."""
    for case in CASES:
        if case["id"] in KNOWN_CORE_CRASHES:
            continue
        parser = StreamParser(case["tools"], _options(case))
        events = parser.feed(case["text"]) + parser.finish()
        builder = MessageBuilder()
        builder.add(events)
        _check_event_order(events, builder.message)
