"""The least a parser can cost inside vLLM: no-op parsers registered under their own names and composed by
``ParserManager.get_parser`` like every other parser, so that ``Parser.parse_delta`` runs the same code around them.

- ``bench_noop`` (tool parser, engine-based): returns ``DeltaMessage(content=delta_text)`` for every delta and
  nothing at the end. One pydantic object per delta is the least the engine accepts from a tool parser.
- ``bench_noop_legacy``: the same without ``engine_based_streaming``: vLLM's ``StreamState`` then hands it the whole
  text and token ids so far on every delta (``previous_text + delta_text``), which is quadratic whatever the parser
  does with them: the wall every built-in on that path stands behind.
- ``bench_noop`` (reasoning parser, engine-based), for the workloads with reasoning: the least a reasoning parser
  must do, find the end-of-reasoning token among the delta's ids (a special token, as in LongCat's and Qwen3's
  vocabularies) and split the delta's text there. vLLM's built-in reasoning parsers are all on the legacy path, which
  would turn the whole composition legacy (the accumulation above), so none of them is the floor of an engine-based
  pair; ``bench_noop_legacy`` is the same parser on the legacy path.

Importing this module needs vLLM; :func:`register` is idempotent.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vllm.entrypoints.generate.base.protocol import DeltaMessage, ExtractedToolCallInformation
from vllm.reasoning import ReasoningParserManager
from vllm.reasoning.abs_reasoning_parsers import ReasoningParser
from vllm.tool_parsers import ToolParserManager
from vllm.tool_parsers.abstract_tool_parser import ToolParser

FLOOR = "bench_noop"
LEGACY = "bench_noop_legacy"
END_TAG = "</think>"


class NoopToolParser(ToolParser):
    engine_based_streaming = True

    def extract_tool_calls(self, model_output: str, request: Any) -> ExtractedToolCallInformation:
        return ExtractedToolCallInformation(tools_called=False, tool_calls=[], content=model_output)

    def extract_tool_calls_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
        request: Any,
    ) -> DeltaMessage | None:
        return DeltaMessage(content=delta_text)

    def finish_streaming(self) -> DeltaMessage | None:
        return None


class LegacyNoopToolParser(NoopToolParser):
    engine_based_streaming = False


class NoopReasoningParser(ReasoningParser):
    engine_based_streaming = True

    def __init__(self, tokenizer: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(tokenizer, *args, **kwargs)
        self._end_id = tokenizer.convert_tokens_to_ids(END_TAG)
        self._ended = False

    def is_reasoning_end(self, input_ids: Sequence[int]) -> bool:
        return self._end_id in input_ids

    def is_reasoning_end_streaming(self, input_ids: Sequence[int], delta_ids: Any) -> bool:
        return self._end_id in delta_ids

    def extract_content_ids(self, input_ids: list[int]) -> list[int]:
        if self._end_id not in input_ids:
            return []
        return input_ids[input_ids.index(self._end_id) + 1 :]

    def extract_reasoning(self, model_output: str, request: Any) -> tuple[str | None, str | None]:
        reasoning, found, content = model_output.partition(END_TAG)
        return (reasoning, content or None) if found else (None, model_output)

    def extract_reasoning_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
    ) -> DeltaMessage | None:
        if self._end_id in delta_token_ids:
            self._ended = True
            reasoning, _, content = delta_text.partition(END_TAG)
            return DeltaMessage(reasoning=reasoning or None, content=content or None)
        return DeltaMessage(reasoning=delta_text)

    def has_engine_confirmed_reasoning_end(self) -> bool:
        return self._ended

    def finish_streaming(self) -> DeltaMessage | None:
        return None


class LegacyNoopReasoningParser(NoopReasoningParser):
    engine_based_streaming = False


def register() -> None:
    ToolParserManager.register_module(name=FLOOR, module=NoopToolParser)
    ToolParserManager.register_module(name=LEGACY, module=LegacyNoopToolParser)
    ReasoningParserManager.register_module(name=FLOOR, module=NoopReasoningParser)
    ReasoningParserManager.register_module(name=LEGACY, module=LegacyNoopReasoningParser)
