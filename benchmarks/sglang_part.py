"""The SGLang part: ours against SGLang's built-in ``qwen25``, ``hermes`` (JSON) and ``qwen3_coder`` (XML) detectors,
driven through ``FunctionCallParser.parse_stream_chunk`` / ``parse_stream_end``, with the reasoning split first by
``ReasoningParser.parse_stream_chunk`` where the workload has reasoning, in the order SGLang's ``serving_chat`` uses
(and its end-of-stream "unstreamed arguments" step).

    .venvs/sglang/bin/python -m benchmarks.sglang_part [--out build/bench/sglang.json]

The agent turn runs with a reasoning parser: ours (``longcat``) for ours, ``qwen3`` beside the built-ins.

The floor (``benchmarks/sglang_floors.py``): a no-op detector driven the same way, with a minimal reasoning detector
where the workload has reasoning.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import sys
from collections.abc import Callable
from typing import Any

from .cases import Case
from .measure import Folded, Runner, blocks, unchecked
from .parsers import Contender, Entry, ParserSpec, checks_message
from .part import arguments, run_part
from .paths import REPO
from .targets import probes
from .tokens import Delta
from .workloads import DIALECTS

FLOOR_NAME = "floor: no-op detector"
#: SGLang's import chain wants torchvision, which cannot load beside CPU torch 2.13: the test suite's stand-in
STANDINS = REPO / "tests" / "sglang" / "_standins"


def _tools(tools: list[dict[str, Any]]) -> list[Any]:
    """The request's tools as ``serving_chat`` hands them to the parser."""
    from sglang.srt.entrypoints.openai.protocol import Tool

    return [Tool(**tool) for tool in tools]


def runner_factory(p: Entry) -> Callable[[Case], Runner]:
    """Runners of ``p`` through ``parse_stream_chunk``; a no-op's output is folded but not checked."""
    from sglang.srt.entrypoints.openai.protocol import ChatCompletionRequest
    from sglang.srt.function_call.function_call_parser import FunctionCallParser
    from sglang.srt.parser.reasoning_parser import ReasoningParser

    from longcat_plugins.sglang.request_context import note_request

    def make(case: Case) -> Runner:
        tools = _tools(case.tools)
        with_reasoning = case.reasoning_parser

        def run(deltas: list[Delta], deadline: float, keep: bool) -> Folded | None:
            # as serving_chat builds them: the request noted for our parsers (longcat_plugins.sglang's serving
            # hook, which then read the output in one pass), the reasoning parser handed the request
            request = ChatCompletionRequest(model="bench", messages=[{"role": "user", "content": "Fix it."}])
            note_request(request, tools)
            parser = FunctionCallParser(tools=tools, tool_call_parser=p.tool)
            reasoning = (
                ReasoningParser(
                    p.reasoning,
                    stream_reasoning=True,
                    force_reasoning=False,
                    request=request,
                    tool_call_parser_active=True,
                )
                if with_reasoning
                else None
            )
            folded = Folded()
            last = len(deltas) - 1
            i = 0
            for block in blocks(deltas, deadline):
                for text, _ in block:
                    thought = None
                    if reasoning is not None:
                        thought, text = reasoning.parse_stream_chunk(text)
                        if i == last:
                            end_thought, end_text = reasoning.parse_stream_end()
                            thought = (thought or "") + (end_thought or "")
                            text = (text or "") + (end_text or "")
                    normal, calls = parser.parse_stream_chunk(text or "")
                    if i == last:
                        end_normal, end_calls = parser.parse_stream_end()
                        normal = (normal or "") + end_normal
                        calls = [*calls, *end_calls, *_unstreamed(parser)]
                    i += 1
                    if keep:
                        fold_chunk(folded, thought, normal, calls)
            return folded if keep else None

        return run if checks_message(p.role) else unchecked(run)

    return make


def _unstreamed(parser: Any) -> list[Any]:
    """``serving_chat._check_for_unstreamed_tool_args``: the end of the last call's arguments not yet sent."""
    from sglang.srt.function_call.core_types import ToolCallItem

    detector = parser.detector
    prev = getattr(detector, "prev_tool_call_arr", None)
    streamed = getattr(detector, "streamed_args_for_tool", None)
    if not prev or not streamed:
        return []
    index = len(prev) - 1
    if index < 0 or index >= len(streamed):
        return []
    expected = prev[index].get("arguments", {})
    expected = expected if isinstance(expected, str) else json.dumps(expected, ensure_ascii=False)
    actual = streamed[index]
    remaining = expected[len(actual) :] if expected.startswith(actual) else ""
    return [ToolCallItem(tool_index=index, name=None, parameters=remaining)] if remaining else []


def fold_chunk(folded: Folded, thought: str | None, normal: str | None, calls: list[Any]) -> None:
    if thought:
        folded.reasoning.append(thought)
    if normal:
        folded.content.append(normal)
    for item in calls:
        folded.call(item.tool_index, item.name, item.parameters)


def parsers() -> list[Entry]:
    """The parsers measured, with the reasoning parser beside each on the agent turn."""
    from .sglang_floors import FLOOR

    return [
        Entry("ours", "ours", DIALECTS, "longcat", "longcat"),
        Entry(FLOOR_NAME, "floor", DIALECTS, FLOOR, FLOOR),
        Entry("qwen25 (built-in)", "builtin", ("hermes_json",), "qwen25", "qwen3"),
        Entry("hermes (built-in)", "builtin", ("hermes_json",), "hermes", "qwen3"),
        Entry("qwen3_coder (built-in)", "builtin", ("xml",), "qwen3_coder", "qwen3"),
    ]


def specs() -> list[ParserSpec]:
    return [
        ParserSpec(p.name, p.dialects, runner_factory(p), role=p.role, probes=probes("sglang", p.name))
        for p in parsers()
    ]


def setup() -> dict[str, Any]:
    """Plugins (ours) and the floor registered. Returns the part's meta."""
    if importlib.util.find_spec("torchvision") is None:
        sys.path.insert(0, str(STANDINS))
    from sglang.srt.function_call.function_call_parser import FunctionCallParser
    from sglang.srt.plugins import load_plugins

    from longcat_plugins.sglang.detector import LongcatDetector

    from .sglang_floors import FLOOR, NoopDetector, register

    load_plugins()
    register()
    assert FunctionCallParser.ToolCallParserEnum["longcat"] is LongcatDetector
    assert FunctionCallParser.ToolCallParserEnum[FLOOR] is NoopDetector
    return {"sglang": importlib.metadata.version("sglang")}


def request_contenders(tokenizer: Any) -> list[Contender]:
    """The per-request benchmark's parsers (benchmarks/per_request.py): ``FunctionCallParser`` per request, as
    ``serving_chat`` builds it (with the tokenizer), tool parsers alone."""
    from sglang.srt.function_call.function_call_parser import FunctionCallParser

    def construct(detector: str) -> Any:
        return lambda tools: FunctionCallParser(tools=tools, tool_call_parser=detector, tokenizer=tokenizer)

    def feed(parser: Any, _: Any, delta: Delta, last: bool, folded: Folded) -> None:
        normal, calls = parser.parse_stream_chunk(delta[0])
        if last:
            end_normal, end_calls = parser.parse_stream_end()
            normal = (normal or "") + end_normal
            calls = [*calls, *end_calls, *_unstreamed(parser)]
        fold_chunk(folded, None, normal, calls)

    return [Contender(p.name, p.role, p.dialects[0], _tools, construct(p.tool), feed) for p in parsers()]


def main() -> None:
    args = arguments("sglang")
    run_part("sglang", specs(), args, setup())


if __name__ == "__main__":
    main()
