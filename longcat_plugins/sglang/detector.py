"""``--tool-call-parser longcat``: SGLang's ``BaseFormatDetector`` over the core's incremental parser.

One detector serves one request (SGLang builds a ``FunctionCallParser`` per choice). Reasoning is split before this
detector sees the text, so the core runs with ``reasoning=False`` here; after our reasoning parser (``--reasoning-parser
longcat``, Chat Completions), this detector answers instead from the one-pass reading that parser made with the
request's tools (see :mod:`.one_pass`), and the text it is handed is not read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from sglang.srt.function_call.base_format_detector import BaseFormatDetector
from sglang.srt.function_call.core_types import StreamingParseResult, StructureInfo, ToolCallItem, _GetInfoFunc

from longcat_plugins.core import (
    CallLog,
    Content,
    Event,
    ParserOptions,
    StreamParser,
    ToolCallArgs,
    ToolCallEnd,
    ToolCallStart,
    parse,
)
from longcat_plugins.core import dialects as D
from longcat_plugins.core.bare_calls import may_hold_call
from longcat_plugins.core.dialects import require_extra_dialects
from longcat_plugins.core.item_order import CallItemOrder
from longcat_plugins.core.options import emit_unknown_calls_from_env

from .dialect import Dialect, dialect_from_env
from .one_pass import OnePassReading, call_options, claim, handed_over_here
from .request_context import takes_whole_calls
from .results import call_item, parse_result
from .structural import build_structural_tag


class LongcatDetector(BaseFormatDetector):
    """Every LongCat / Qwen3 tool-call dialect, streamed in time proportional to the new text."""

    def __init__(self) -> None:
        super().__init__()
        require_extra_dialects()
        self.dialect: Dialect = dialect_from_env()
        self.bot_token = self.dialect.trigger
        self.eot_token = next((tag for tag in D.BLOCK_CLOSES if self.dialect.end.endswith(tag)), "")
        self._parser: StreamParser | None = None
        self._log = CallLog()
        self._options = ParserOptions(reasoning=False, emit_unknown_calls=emit_unknown_calls_from_env())
        self._reading: OnePassReading | None = None
        self._paired = False  # whether the first parse looked for a reading to claim
        self._order: CallItemOrder | None = None  # (on the first chunk, see _order_for)

    def _options_for(self, tools: Sequence[Any]) -> ParserOptions:
        return call_options(tools, self._options)

    def _order_for(self, tools: Sequence[Any]) -> CallItemOrder:
        """The order of this stream's events, made on its first chunk: SGLang's Responses and Messages streams take
        one item at a time; the Messages stream, made of the Chat Completions stream (a step's text before the step's
        call fragments), takes each call whole, since text in the last step would otherwise close the item of a call
        still open before its last arguments (see :mod:`longcat_plugins.core.item_order`)."""
        if self._order is None:
            self._order = CallItemOrder(whole_calls=takes_whole_calls(tools))
        return self._order

    def _reading_for(self, tools: Sequence[Any]) -> OnePassReading | None:
        """The one-pass reading this detector answers from, claimed on its first parse (see :mod:`.one_pass`)."""
        if not self._paired:
            self._paired = True
            self._reading = claim(tools)
        return self._reading

    @classmethod
    def parses_without_tools(cls) -> bool:
        """A request without tools may get no calls (as with ``tool_choice="none"``): the model's text is its
        content, verbatim, as on vLLM."""
        return False

    # -- one shot --------------------------------------------------------------------------------------------

    def has_tool_call(self, text: str) -> bool:
        reading = self._reading or (None if self._paired else handed_over_here(text))
        if reading is not None and reading.message is not None:
            return bool(reading.message.tool_calls)
        return may_hold_call(text)

    def detect_and_parse(self, text: str, tools: Sequence[Any]) -> StreamingParseResult:
        reading = self._reading_for(tools)
        if reading is not None and reading.message is not None:
            message = reading.message
        else:
            message = parse(text, tools, self._options_for(tools))
        calls = [ToolCallItem(tool_index=c.index, name=c.name, parameters=c.arguments) for c in message.tool_calls]
        return StreamingParseResult(normal_text=message.content, calls=calls)

    # -- streaming -------------------------------------------------------------------------------------------

    def parse_streaming_increment(self, new_text: str, tools: Sequence[Any]) -> StreamingParseResult:
        order = self._order_for(tools)
        reading = self._reading if self._paired else self._reading_for(tools)
        if reading is not None:
            return self._result(order.filter(reading.take()))
        if self._parser is None:
            self._parser = StreamParser(tools, self._options_for(tools))
        return self._result(order.filter(self._parser.feed(new_text)))

    def finish(self, tools: Sequence[Any]) -> StreamingParseResult:
        """End of stream: release held-back text, close open calls, and record every call as fully streamed."""
        if self._reading is not None:
            result = self._result(self._order_for(tools).finish(self._reading.take()))
        elif self._parser is None:
            return StreamingParseResult()
        else:
            result = self._result(self._order_for(tools).finish(self._parser.finish()))
        for index in range(len(self._log)):
            if index >= len(self.prev_tool_call_arr) or not self.prev_tool_call_arr[index]:
                self._record(index)
        return result

    def _result(self, events: Sequence[Event]) -> StreamingParseResult:
        if not events:  # (a chunk held back, or read by the reasoning stage)
            return parse_result(normal_text="", calls=[])
        if len(events) == 1:  # most chunks: a piece of text, or of one call's arguments
            event = events[0]
            if type(event) is ToolCallArgs:
                self._log.add(event.index, event.text)
                return parse_result(calls=[call_item(event.index, event.text)])
            if type(event) is Content:
                return parse_result(normal_text=event.text)
        return self._fold(events)

    def _fold(self, events: Sequence[Event]) -> StreamingParseResult:
        """The general case of :meth:`_result`."""
        text: list[str] = []
        items: list[tuple[int, str | None, list[str]]] = []  # consecutive fragments of one call become one item
        for event in events:
            if isinstance(event, Content):
                text.append(event.text)
            elif isinstance(event, ToolCallArgs):
                self._log.add(event.index, event.text)
                if items and items[-1][0] == event.index:
                    items[-1][2].append(event.text)
                else:
                    items.append((event.index, None, [event.text]))
            elif isinstance(event, ToolCallStart):
                self._log.start(event.id, event.name)
                self.current_tool_id = event.index
                self.current_tool_name_sent = True
                items.append((event.index, event.name, []))
            elif isinstance(event, ToolCallEnd):
                self._record(event.index)
        calls = [call_item(i, "".join(parts), name) for i, name, parts in items]
        return parse_result(normal_text="".join(text), calls=calls)

    def _record(self, index: int) -> None:
        """Publish a finished call where SGLang's end-of-stream check looks: what was streamed is all there is.

        Calls are recorded in order when they end (never while their arguments grow, which would cost a join per
        chunk); the arrays therefore stay consistent with the deltas already sent, and SGLang resends nothing.
        """
        while len(self.prev_tool_call_arr) <= index:
            self.prev_tool_call_arr.append({})
            self.streamed_args_for_tool.append("")
        arguments = self._log.arguments(index)
        self.prev_tool_call_arr[index] = {"name": self._log.names[index], "arguments": arguments}
        self.streamed_args_for_tool[index] = arguments

    # -- constrained decoding --------------------------------------------------------------------------------

    def supports_structural_tag(self) -> bool:
        return True

    def structure_info(self) -> _GetInfoFunc:
        dialect = self.dialect
        return lambda name: StructureInfo(begin=dialect.begin(name), end=dialect.end, trigger=dialect.trigger)

    def get_auto_tool_call_structural_tag(
        self,
        tools: Sequence[Any] | None = None,
        thinking_mode: bool = False,
        parallel_tool_calls: bool = True,
        **_: Any,
    ) -> Any:
        """``tool_choice="auto"`` with ``parallel_tool_calls: false`` (and no strict tool, which SGLang serves through
        :meth:`get_structural_tag`): free text with at most one call, its arguments held only where a tool says
        ``strict`` (as vLLM holds the call envelope for such a request); None otherwise (nothing constrained)."""
        if parallel_tool_calls or not tools:
            return None
        envelopes = [_envelope_only(tool) for tool in tools]
        return build_structural_tag(self.dialect, envelopes, "auto", thinking_mode, parallel_tool_calls=False)

    def get_structural_tag(
        self,
        tools: Sequence[Any] | None = None,
        tool_choice: Any | Literal["auto", "required"] = "auto",
        thinking_mode: bool = False,
        parallel_tool_calls: bool = True,
        **_: Any,
    ) -> Any:
        return build_structural_tag(self.dialect, tools, tool_choice, thinking_mode, parallel_tool_calls)


def _envelope_only(tool: Any) -> dict[str, Any]:
    """A tool as a dict whose arguments the grammar holds only when it says ``strict: true``."""
    dumped = tool.model_dump() if hasattr(tool, "model_dump") else dict(tool)
    function = dict(dumped.get("function") or {})
    function["strict"] = function.get("strict") is True
    return {**dumped, "function": function}
