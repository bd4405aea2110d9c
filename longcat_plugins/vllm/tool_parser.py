"""vLLM ``ToolParser`` for LongCat / Qwen3-style tool calls, driving the core's :class:`StreamParser`.

Streaming is engine-based (``engine_based_streaming = True``): vLLM hands over only each delta and calls
:meth:`LongcatToolParser.finish_streaming` at the end, whose output is merged into the last chunk.

With our reasoning parser (see :mod:`.pairing`), an output that starts inside reasoning is read by this parser's
stream from its first token: the reasoning parser reads the reasoning with it (``reasoning_stream``) and hands it
over where reasoning ends, with the events of that delta (``take_over``); this parser serves those first and then goes
on feeding the same stream, which it flushes at the end of the output.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vllm.entrypoints.generate.base.protocol import (
    DeltaMessage,
    ExtractedToolCallInformation,
    FunctionCall,
    ToolCall,
)
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
from vllm.entrypoints.openai.responses.protocol import ResponsesRequest
from vllm.renderers.chat_utils import make_tool_call_id
from vllm.tokenizers import TokenizerLike
from vllm.tool_parsers.abstract_tool_parser import Tool, ToolParser
from vllm.tool_parsers.tool_strict_level import ToolStrictLevel

from longcat_plugins.core import Event, ParsedMessage, ParsedToolCall, ParserOptions, StreamParser, parse
from longcat_plugins.core.blank_content import BlankContentHold
from longcat_plugins.core.dialects import require_extra_dialects
from longcat_plugins.core.item_order import CallItemOrder
from longcat_plugins.core.options import emit_unknown_calls_from_env, none_grammar_from_env
from longcat_plugins.core.stops import stops_may_cut_calls
from longcat_plugins.core.tool_choice import forces_a_call

from .deltas import events_to_delta
from .names import STRUCTURAL_TAG_MODELS
from .pairing import tool_parser_built
from .tokenizer_facts import tokenizer_facts


def _new_call_id(index: int) -> str:
    return make_tool_call_id()


# Non-streaming input is content with the reasoning already taken out. A stream also carries what follows the
# first piece of content, where a later <think> block may still appear: that is reasoning unless vLLM runs without
# a reasoning parser (then it sets ``skip_reasoning_parsing`` and reasoning markup is plain content).
def _options(reasoning: bool, calls: bool = True, cut: bool = False, reasoning_open: bool = False) -> ParserOptions:
    require_extra_dialects()
    return ParserOptions(
        reasoning=reasoning,
        tools=calls,
        reasoning_open=reasoning_open,
        id_factory=_new_call_id,
        emit_unknown_calls=emit_unknown_calls_from_env(),
        cut_calls_as_text=cut,
    )


def may_be_cut_by_a_stop(request: Any, tokenizer: Any) -> bool:
    """Whether a stop of the request may end its output inside a call (which must then not come back as a complete
    call; vLLM does not tell the parser why an output ended): a stop string (``stop``; the Messages API hands its
    ``stop_sequences`` on as ``stop``), or a stop token id that is not an end of sequence of ``tokenizer``
    (``stop_token_ids``). vLLM takes no stop pattern."""
    return stops_may_cut_calls(
        (getattr(request, "stop", None),),
        getattr(request, "stop_token_ids", None),
        tokenizer_facts(tokenizer).end_of_sequence_ids,
    )


def calls_allowed(request: Any, tools: list[dict[str, Any]] | None) -> bool:
    """Whether the request may get tool calls. vLLM runs this parser also for ``tool_choice="none"`` and for a
    request without tools (which it treats the same) and then drops the calls, keeping only the content: the
    model's text must then be the content, verbatim."""
    return bool(tools) and getattr(request, "tool_choice", None) != "none"


def tool_dicts(tools: Sequence[Any] | None) -> list[dict[str, Any]] | None:
    """Request tools (Chat Completions or Responses objects, or dicts) as OpenAI tool dicts for the core, which reads
    a function's name and parameters only (the schemas are shared, not copied: the core never changes them)."""
    if not tools:
        return None
    out: list[dict[str, Any]] = []
    for tool in tools:
        if isinstance(tool, dict):
            out.append(tool)
            continue
        function = getattr(tool, "function", None)
        if function is not None:  # ChatCompletionToolsParam
            spec = {"name": function.name, "parameters": getattr(function, "parameters", None) or {}}
            out.append({"type": "function", "function": spec})
        elif getattr(tool, "type", None) == "function":  # Responses FunctionTool
            spec = {"name": tool.name, "parameters": getattr(tool, "parameters", None) or {}}
            out.append({"type": "function", "function": spec})
    return out or None


def keep_calls_out(request: ChatCompletionRequest | ResponsesRequest) -> None:
    """``tool_choice="none"`` with tools declared: the output holds no call tag of any dialect the parser reads
    (:func:`longcat_plugins.structural.no_calls`), from the first token on. vLLM asks this parser to adjust such a
    request only when the server has a reasoning parser as well.

    From the first token, not from the end of reasoning: a call tag is a token that ends reasoning for vLLM's gate,
    which would then hand it to the grammar to refuse (ending the request), and a tag written in several tokens
    inside reasoning ends it for the parser without the gate seeing it. A grammar the request carries already
    (``response_format``, ``structured_outputs``) is the client's: it is kept, alone."""
    if request.extract_structured_outputs() is not None:
        return
    from vllm.sampling_params import StructuredOutputsParams
    from xgrammar import StructuralTag

    from longcat_plugins.structural import no_calls

    tag = StructuralTag(format=no_calls()).model_dump_json()
    request.structured_outputs = StructuredOutputsParams(structural_tag=tag)
    if isinstance(request, ResponsesRequest):
        request.text = None  # (a plain-text format, which vLLM refuses beside structured outputs; as vLLM's own tags)
    request._grammar_from_parser = True


class LongcatToolParser(ToolParser):
    """``--tool-call-parser longcat``: every LongCat and Qwen3 dialect, streamed incrementally."""

    engine_based_streaming = True
    skip_reasoning_parsing = False
    reads_in_one_pass = True  # with our reasoning parser (see .pairing)
    # A non-None class value also makes vLLM route required/named tool choice through this parser (the output is
    # in the model's dialect, constrained by our structural tag); the instance value is set per tokenizer.
    structural_tag_model: str | None = STRUCTURAL_TAG_MODELS["json"]

    def __init__(self, tokenizer: TokenizerLike | None, tools: list[Tool] | None = None) -> None:
        super().__init__(tokenizer, tools)  # type: ignore[arg-type]
        self.dialect = tokenizer_facts(tokenizer).dialect
        self.structural_tag_model = STRUCTURAL_TAG_MODELS[self.dialect]
        self._request_tools = tools
        self._stream: StreamParser | None = None
        self._blank = BlankContentHold()  # as vLLM drops blank content from a whole message with calls
        self._order = CallItemOrder()  # as the Responses and Messages streams take one item at a time (see _new_stream)
        self._finished = False
        self._verbatim_whole = _options(reasoning=False, calls=False)
        self._verbatim_stream = _options(reasoning=True, calls=False)
        self.reasoning_stage: Any = None  # the reasoning parser built with this one (see .pairing)
        self._whole_reading: ParsedMessage | None = None
        self._grammar_covers_reasoning = False
        self._handed: list[Event] | None = None  # the events of the delta where the reasoning parser handed over
        self._none_grammar = none_grammar_from_env()  # (read here: vLLM builds a parser at start-up)
        tool_parser_built(self)

    # vLLM's older serving layer read these at the end of a stream to send "arguments parsed but not streamed yet";
    # all three are views of what was actually streamed, so that difference is always empty.
    @property  # type: ignore[override]
    def prev_tool_call_arr(self) -> list[dict[str, Any]]:
        return [{"name": call.name, "arguments": call.arguments} for call in self._streamed_calls()]

    @prev_tool_call_arr.setter
    def prev_tool_call_arr(self, value: list[dict[str, Any]]) -> None:
        pass  # the base class initialises it; the value is derived

    @property  # type: ignore[override]
    def streamed_args_for_tool(self) -> list[str]:
        return [call.arguments for call in self._streamed_calls()]

    @streamed_args_for_tool.setter
    def streamed_args_for_tool(self, value: list[str]) -> None:
        pass

    @property  # type: ignore[override]
    def current_tool_id(self) -> int:
        return len(self._streamed_calls()) - 1

    @current_tool_id.setter
    def current_tool_id(self, value: int) -> None:
        pass

    def _streamed_calls(self) -> list[ParsedToolCall]:
        return self._stream.calls if self._stream is not None else []

    def adjust_request(
        self, request: ChatCompletionRequest | ResponsesRequest
    ) -> ChatCompletionRequest | ResponsesRequest:
        request = super().adjust_request(request)
        if request.tools:
            # tool-call tags are often special tokens: they must reach the parser
            request.skip_special_tokens = False
        if self._grammar_covers_reasoning:
            # the grammar applies from the first token (vLLM's gate no longer waits for the end of reasoning)
            request._grammar_from_parser = True
        if self._none_grammar and request.tools and request.tool_choice == "none":
            keep_calls_out(request)
        return request

    def get_structural_tag(
        self,
        request: ChatCompletionRequest | ResponsesRequest,
        *,
        reasoning: bool = False,
        strict_level: ToolStrictLevel = ToolStrictLevel.AUTO,
    ) -> Any:
        """The tag of the model's dialect (see :mod:`.structural_tag`). A forced call of a request that reasons
        first is held from the first token: the reasoning, then the call, so that the turn cannot end inside the
        reasoning (:func:`longcat_plugins.structural.reasoning_then`).

        Only a call the client's request forces is held so. For ``tool_choice="auto"`` with a response format,
        vLLM asks for the calls' tag on a copy of the request whose ``tool_choice`` is ``"required"``, and offers
        that tag or the response format where the reasoning ends: a tag that covered the reasoning would leave no
        room for the answer after it. The client's request is the one the reasoning parser built with this one was
        handed just before (contract :data:`longcat_plugins.contracts.VLLM_CLIENT_REQUEST`)."""
        from .structural_tag import covering_reasoning, register_structural_tags

        register_structural_tags()
        tag = super().get_structural_tag(request, reasoning=reasoning, strict_level=strict_level)
        self._grammar_covers_reasoning = False
        stage = self.reasoning_stage
        sent = getattr(stage, "adjusted_request", None)
        forced = forces_a_call(getattr(request if sent is None else sent, "tool_choice", None))
        if tag is not None and forced and stage is not None and stage.reasons_before_a_call:
            tag = covering_reasoning(tag)
            self._grammar_covers_reasoning = True
        return tag

    def read_whole(self, model_output: str, request: Any, reasoning_open: bool) -> ParsedMessage:
        """The whole output read in one pass, reasoning included (for the reasoning parser built with this one,
        whose tool stage then answers with the same reading)."""
        tools = self._tools(request)
        if calls_allowed(request, tools):
            cut = may_be_cut_by_a_stop(request, self.model_tokenizer)
            options = _options(True, cut=cut, reasoning_open=reasoning_open)
        else:
            options = _options(True, calls=False, reasoning_open=reasoning_open)
        self._whole_reading = parse(model_output, tools, options)
        return self._whole_reading

    def extract_tool_calls(self, model_output: str, request: ChatCompletionRequest) -> ExtractedToolCallInformation:
        message = self._whole_reading
        if message is None:
            tools = self._tools(request)
            cut = may_be_cut_by_a_stop(request, self.model_tokenizer)
            options = _options(reasoning=False, cut=cut) if calls_allowed(request, tools) else self._verbatim_whole
            message = parse(model_output, tools, options)
        self._whole_reading = None
        calls = [
            ToolCall(id=call.id, function=FunctionCall(id=call.id, name=call.name, arguments=call.arguments))
            for call in message.tool_calls
        ]
        return ExtractedToolCallInformation(tools_called=bool(calls), tool_calls=calls, content=message.content or None)

    def extract_tool_calls_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
        request: ChatCompletionRequest,
    ) -> DeltaMessage | None:
        handed = self._handed
        if handed is not None:
            # the reasoning parser's stream read this delta (vLLM hands no text of it on)
            self._handed = None
            if self._finished:
                return None
            return events_to_delta(self._blank.filter(self._order.filter(handed)))
        stream = self._stream
        if stream is None:
            stage = self.reasoning_stage  # it read the start of the stream, or this parser reads the whole stream
            reasoning_open = stage is not None and not stage.hands_over and stage.reasoning_open
            stream = self._stream = self._new_stream(request, reasoning_open)
        if self._finished or not delta_text:
            return None
        return events_to_delta(self._blank.filter(self._order.filter(stream.feed(delta_text))))

    def _new_stream(self, request: Any, reasoning_open: bool) -> StreamParser:
        # vLLM's Responses stream makes one message of the last delta and the stream's flush, text first: a call
        # open across deltas would have its item closed there by text after it (see core.item_order)
        self._order = CallItemOrder(whole_calls=isinstance(request, ResponsesRequest))
        tools = self._tools(request)
        reasoning = not self.skip_reasoning_parsing
        if calls_allowed(request, tools):
            cut = may_be_cut_by_a_stop(request, self.model_tokenizer)
            options = _options(reasoning, cut=cut, reasoning_open=reasoning and reasoning_open)
        else:
            options = _options(reasoning, calls=False, reasoning_open=reasoning and reasoning_open)
        return StreamParser(tools, options)

    def reasoning_stream(self, request: Any) -> StreamParser | None:
        """This parser's stream for ``request``, whose output starts inside reasoning, for the reasoning parser built
        with this one to read the reasoning with (it then hands the stream over, :meth:`take_over`). None when vLLM
        does not hand this request's output to this parser (a forced call it parses itself, without structural
        tags): the reasoning parser then leaves the whole output to this parser."""
        if self.supports_required_and_named and forces_a_call(getattr(request, "tool_choice", None)):
            return None
        self._stream = self._new_stream(request, True)
        return self._stream

    def take_over(self, events: list[Event]) -> None:
        """Reasoning ended in the delta the reasoning parser just read, with these events (all of that delta's):
        they are this parser's answer to that delta, and it reads on with the same stream."""
        self._handed = events

    def finish_streaming(self) -> DeltaMessage | None:
        """End of stream: flush held-back text and close an open call (its arguments become valid JSON)."""
        if self._stream is None or self._finished:
            return None
        self._finished = True
        return events_to_delta(self._blank.finish(self._order.finish(self._stream.finish())))

    @property
    def request_tools(self) -> list[dict[str, Any]] | None:
        """The tools of the request this parser was built for."""
        return tool_dicts(self._request_tools)

    def _tools(self, request: Any) -> list[dict[str, Any]] | None:
        return tool_dicts(getattr(request, "tools", None) or self._request_tools)
