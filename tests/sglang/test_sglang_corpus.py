"""The shared regression corpus (tests/core/corpus.jsonl) through SGLang's parsers, chained as ``serving_chat``
chains them: ``ReasoningParser("longcat")`` first, built with the Chat Completions request (whose tools the serving
hook noted), its normal text into ``FunctionCallParser(tools, "longcat")``.

Streamed in several splits and parsed in one shot, every case must give the corpus's expected content, reasoning
and tool calls: the same results the core gives and the vLLM adapter is held to.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sglang.srt.entrypoints.openai.protocol import ChatCompletionRequest
from sglang.srt.function_call.function_call_parser import FunctionCallParser
from sglang.srt.parser.reasoning_parser import ReasoningParser
from sglang_support import Folded, chunks

from longcat_plugins.core.options import EMIT_UNKNOWN_CALLS_ENV
from longcat_plugins.sglang.request_context import note_request

pytestmark = pytest.mark.sglang

CORPUS = Path(__file__).resolve().parent.parent / "core" / "corpus.jsonl"
CASES: list[dict[str, Any]] = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line]

try:  # the core suite keeps the list of cases the core does not pass yet
    from tests.core.test_corpus import KNOWN_CORE_BUGS, KNOWN_CORE_CRASHES
except ImportError:  # pragma: no cover - run from another directory
    KNOWN_CORE_BUGS, KNOWN_CORE_CRASHES = {}, {}

SPLITS = [1, 4, 13, None]

#: Where SGLang's chain (reasoning detector, then tool-call detector) cannot give the core's one-pass result.
SGLANG_CHAIN_GAPS: dict[str, str] = {}


def _params() -> list[Any]:
    params = []
    for case in CASES:
        reason = KNOWN_CORE_CRASHES.get(case["id"]) or KNOWN_CORE_BUGS.get(case["id"])
        marks = [pytest.mark.xfail(strict=False, reason=f"core: {reason}")] if reason else []
        if case["id"] in SGLANG_CHAIN_GAPS:
            marks = [pytest.mark.xfail(strict=True, reason=SGLANG_CHAIN_GAPS[case["id"]])]
        params.append(pytest.param(case, id=case["id"], marks=marks))
    return params


def _parsers(case: dict[str, Any]) -> tuple[ReasoningParser | None, FunctionCallParser | None]:
    options = case.get("options", {})
    with _emit_unknown_calls(options.get("emit_unknown_calls", False)):
        return _make_parsers(case, options)


@contextmanager
def _emit_unknown_calls(on: bool) -> Iterator[None]:
    """The server-wide setting a case's ``emit_unknown_calls`` option stands for (read when a detector is made)."""
    old = os.environ.pop(EMIT_UNKNOWN_CALLS_ENV, None)
    if on:
        os.environ[EMIT_UNKNOWN_CALLS_ENV] = "1"
    try:
        yield
    finally:
        os.environ.pop(EMIT_UNKNOWN_CALLS_ENV, None)
        if old is not None:
            os.environ[EMIT_UNKNOWN_CALLS_ENV] = old


def _make_parsers(
    case: dict[str, Any], options: dict[str, Any]
) -> tuple[ReasoningParser | None, FunctionCallParser | None]:
    calls = options.get("tools", True)
    request = ChatCompletionRequest(
        model="m", messages=[{"role": "user", "content": "?"}], tools=_request_tools(case) if calls else None
    )
    note_request(request, request.tools)  # (as SGLang's serving hook does)
    reasoning = (
        ReasoningParser(
            "longcat",
            force_reasoning=options.get("reasoning_open", False),
            request=request,
            tool_call_parser_active=calls,
        )
        if options.get("reasoning", True)
        else None
    )
    tools = FunctionCallParser(request.tools, "longcat") if calls else None
    return reasoning, tools


def _request_tools(case: dict[str, Any]) -> list[dict[str, Any]]:
    """The case's tools. A case without tools is the core's reading with no tool list (any identifier is a name,
    as the CLI reads it); SGLang returns a request without tools verbatim, so the request declares the tools the
    case calls instead (with no parameter schemas: values stay untyped, as without tools)."""
    if case["tools"]:
        return list(case["tools"])
    names = dict.fromkeys(call["name"] for call in case["expect"]["tool_calls"])
    return [{"type": "function", "function": {"name": name, "parameters": {}}} for name in names]


def _canonical(calls: list[tuple[str, Any]]) -> list[tuple[str, str]]:
    return [(name, json.dumps(arguments, sort_keys=True, ensure_ascii=False)) for name, arguments in calls]


def _expected(case: dict[str, Any]) -> tuple[str, str, list[tuple[str, str]]]:
    expect = case["expect"]
    calls = _canonical([(c["name"], c["arguments"]) for c in expect["tool_calls"]])
    return expect["content"], expect["reasoning"], calls


def _stream(case: dict[str, Any], size: int | None) -> tuple[str, str, list[tuple[str, str]]]:
    reasoning_parser, tool_parser = _parsers(case)
    thoughts: list[str] = []
    folded = Folded()
    pieces = list(chunks(case["text"], size))
    for n, piece in enumerate(pieces):
        text = piece
        if reasoning_parser is not None:
            thought, text = reasoning_parser.parse_stream_chunk(piece)
            thoughts.append(thought or "")
            if n == len(pieces) - 1:  # serving_chat flushes the reasoning parser with the last delta
                end_thought, end_text = reasoning_parser.parse_stream_end()
                thoughts.append(end_thought or "")
                text = (text or "") + (end_text or "")
        if tool_parser is None:
            folded.add(text or "", [])
        else:
            folded.add(*tool_parser.parse_stream_chunk(text or ""))
    if tool_parser is not None:
        folded.add(*tool_parser.parse_stream_end())
    calls = _canonical([(c.name, json.loads(c.arguments)) for c in folded.calls])
    return folded.content, "".join(thoughts), calls


def _one_shot(case: dict[str, Any]) -> tuple[str, str, list[tuple[str, str]]]:
    reasoning_parser, tool_parser = _parsers(case)
    reasoning, text = "", case["text"]
    if reasoning_parser is not None:
        thought, text = reasoning_parser.parse_non_stream(text)
        reasoning, text = thought or "", text or ""
    items: list[Any] = []
    if tool_parser is not None and tool_parser.has_tool_call(text):
        text, items = tool_parser.parse_non_stream(text)
    return text, reasoning, _canonical([(i.name, json.loads(i.parameters)) for i in items])


@pytest.mark.parametrize("case", _params())
def test_corpus_one_shot(case: dict[str, Any]) -> None:
    assert _one_shot(case) == _expected(case)


@pytest.mark.parametrize("size", SPLITS, ids=lambda s: f"chunk{s or '-whole'}")
@pytest.mark.parametrize("case", _params())
def test_corpus_streamed(case: dict[str, Any], size: int | None) -> None:
    assert _stream(case, size) == _expected(case)
