"""The least a parser can cost inside SGLang: a no-op detector registered under its own name in
``FunctionCallParser.ToolCallParserEnum`` and driven through ``FunctionCallParser.parse_stream_chunk`` like every
other detector, and, for the workloads with reasoning, a minimal reasoning detector in ``ReasoningParser.DetectorMap``.

- ``NoopDetector``: returns each chunk as normal text in a ``StreamingParseResult`` (the one object the engine takes
  from a detector per chunk).
- ``NoopReasoningDetector``: the least a reasoning detector must do: look for the end tag in the chunk (the
  benchmark's tokenizer keeps it in one chunk, as a special token) and split the chunk there.

Importing this module needs SGLang; :func:`register` is idempotent.
"""

from __future__ import annotations

from typing import Any

from sglang.srt.function_call.base_format_detector import BaseFormatDetector
from sglang.srt.function_call.core_types import StreamingParseResult
from sglang.srt.function_call.function_call_parser import FunctionCallParser
from sglang.srt.parser.reasoning_parser import BaseReasoningFormatDetector, ReasoningParser
from sglang.srt.parser.reasoning_parser import StreamingParseResult as ReasoningResult

FLOOR = "bench_noop"
END_TAG = "</think>"


class NoopDetector(BaseFormatDetector):
    def has_tool_call(self, text: str) -> bool:
        return False

    def detect_and_parse(self, text: str, tools: list[Any]) -> StreamingParseResult:
        return StreamingParseResult(normal_text=text)

    def parse_streaming_increment(self, new_text: str, tools: list[Any]) -> StreamingParseResult:
        return StreamingParseResult(normal_text=new_text)

    def structure_info(self) -> Any:
        raise NotImplementedError("the benchmark floor does not constrain generation")


class NoopReasoningDetector(BaseReasoningFormatDetector):
    def __init__(self, stream_reasoning: bool = True, force_reasoning: bool = False) -> None:
        super().__init__("<think>", END_TAG, force_reasoning=force_reasoning, stream_reasoning=stream_reasoning)
        self._ended = False

    def detect_and_parse(self, text: str) -> ReasoningResult:
        reasoning, found, content = text.partition(END_TAG)
        return ReasoningResult(normal_text=content, reasoning_text=reasoning) if found else ReasoningResult(text)

    def parse_streaming_increment(self, new_text: str) -> ReasoningResult:
        if self._ended:
            return ReasoningResult(normal_text=new_text)
        if END_TAG in new_text:
            self._ended = True
            reasoning, _, content = new_text.partition(END_TAG)
            return ReasoningResult(normal_text=content, reasoning_text=reasoning)
        return ReasoningResult(reasoning_text=new_text)

    def finish(self) -> ReasoningResult:
        return ReasoningResult()


def register() -> None:
    FunctionCallParser.ToolCallParserEnum[FLOOR] = NoopDetector
    ReasoningParser.DetectorMap[FLOOR] = NoopReasoningDetector
