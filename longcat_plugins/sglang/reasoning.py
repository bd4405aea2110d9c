"""``--reasoning-parser longcat``: SGLang's reasoning detector over the core.

Reads ``<think>`` and ``<longcat_think>`` blocks, reasoning the prompt already opened (``force_reasoning``), and ends
reasoning at a tool-call tag. Alone (or before another tool-call parser), it reads with tools off: the tag and the
call stay in the normal text for the tool-call parser. Before ours, in a Chat Completions or Responses request, it
reads the output with the request's tools, in one pass shared with the tool-call parser (see :mod:`.one_pass`).

SGLang's Responses serving runs the tool stage only on text the reasoning stage leaves (a step, or a whole output,
whose normal text is empty goes no further). In one pass that text only sets the tool stage going -- the tool stage
answers from the reading -- so when the reading holds calls and no content, the reasoning stage leaves the text it
was handed.

SGLang passes ``force_reasoning`` with every request it serves (decided from the template and the request). Built
without it -- the ``/separate_reasoning`` endpoint, which hands over a text with no request or prompt -- the detector
does not know whether the text starts inside reasoning, and lets its first think tag decide
(:attr:`longcat_plugins.core.ParserOptions.reasoning_start_unknown`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sglang.srt.parser.reasoning_parser import BaseReasoningFormatDetector, StreamingParseResult

from longcat_plugins.core import Content, Event, ParserOptions, Reasoning, StreamParser, parse
from longcat_plugins.core import dialects as D
from longcat_plugins.core import tags as T
from longcat_plugins.core.prompt import output_may_start_reasoning, prompt_opens_reasoning

from .one_pass import OnePassReading
from .request_context import tool_parser_tools


class LongcatReasoningDetector(BaseReasoningFormatDetector):
    def __init__(
        self,
        stream_reasoning: bool = True,
        force_reasoning: bool | None = None,
        continue_final_message: bool = False,
        previous_content: str | Sequence[Any] | None = "",
        force_nonempty_content: bool = False,
        tool_call_parser_active: bool = False,
        tokenizer: Any = None,
    ) -> None:
        previous_content = _message_text(previous_content)
        continued = bool(continue_final_message and previous_content)
        start_unknown = force_reasoning is None and not continued  # (no request: see the module's docstring)
        force_reasoning = bool(force_reasoning)
        super().__init__(
            T.THINK_OPENS[0],
            T.THINK_CLOSES[0],
            # No excluded tokens for --enable-strict-thinking: a tool-call tag legitimately ends reasoning, and a
            # tag that is not one token in the model's vocabulary would ban its sub-tokens ('<', ...) everywhere.
            think_excluded_tokens=None,
            force_reasoning=force_reasoning,
            stream_reasoning=stream_reasoning,
            continue_final_message=continue_final_message,
            previous_content=previous_content,
            force_nonempty_content=force_nonempty_content,
            # SGLang asks this default when it finds no thinking switch in the served template: it decides whether a
            # request reasons (require_reasoning: the grammar then waits for the end of reasoning). Read from the
            # served template and the vocabulary (see thinking_default); never "always", or a model that does not
            # reason (LongCat-Flash-Chat) would have all its answer in reasoning_content.
            reasoning_default=thinking_default(tokenizer),
        )
        reasoning_open = force_reasoning
        if continued:
            # The assistant message being continued decides whether the output starts inside reasoning.
            probe = StreamParser(None, ParserOptions(tools=False, reasoning_open=force_reasoning))
            probe.feed(previous_content)
            reasoning_open = probe.in_reasoning
        self._reasoning_open = reasoning_open
        self._options = ParserOptions(tools=False, reasoning_open=reasoning_open, reasoning_start_unknown=start_unknown)
        self._parser = StreamParser(None, self._options)
        self._tool_call_parser_active = tool_call_parser_active
        self._reading: OnePassReading | None = None  # shared with the tool-call parser
        self._tools: Sequence[Any] | None = None  # the request's tools, when ours is the tool-call parser
        self._held: list[str] = []  # reasoning not yet released (stream_reasoning=False)
        self._streamed: list[str] = []  # reasoning released so far (force_nonempty_content)
        self._content_seen = False

    def get_think_end_token_ids(self, tokenizer: Any) -> list[int]:
        """The closing tag the tokenizer knows as one token (a declared dialect's, then ``</longcat_think>``), else
        ``</think>``."""
        for tag in reversed(D.THINK_CLOSES):
            ids = tokenizer.encode(tag, add_special_tokens=False)
            if len(ids) == 1 and tokenizer.decode(ids) == tag:  # (one token, and not the unknown token)
                return list(ids)
        return list(tokenizer.encode(self.think_end_token, add_special_tokens=False))

    def serve_request(self, request: Any) -> None:
        """The request this detector was built for (SGLang's ``ReasoningParser`` has it; the adapter hands it on).
        When our tool-call parser reads what this one leaves, both read the output in one pass with the tools that
        parser is handed (see :mod:`.one_pass`)."""
        tools = tool_parser_tools(request)
        if tools and self._tool_call_parser_active:
            self._reading = OnePassReading(tools, self._reasoning_open)
            self._parser = self._reading.parser
        elif tools:
            # calls are not read (tool_choice "none"), but a block that names none of the request's tools is text
            # (inside reasoning, reasoning), as our tool-call parser's reading has it
            self._tools = tools
            self._parser = StreamParser(tools, self._options)

    def detect_and_parse(self, text: str) -> StreamingParseResult:
        reading = self._reading
        message = parse(text, self._tools, self._options) if reading is None else reading.read_whole(text)
        if self._force_nonempty_content and not (message.content or message.tool_calls):
            message.content = message.reasoning
            result = StreamingParseResult(normal_text=message.reasoning)
        else:
            result = StreamingParseResult(normal_text=message.content, reasoning_text=message.reasoning)
        if reading is not None:
            if message.tool_calls and not result.normal_text:
                result.normal_text = text  # (only to run the tool stage, which answers from the reading)
            reading.hand_over(result.normal_text)
        return result

    def parse_streaming_increment(self, new_text: str) -> StreamingParseResult:
        result = self._result(self._parser.feed(new_text), final=False)
        if self._reading is not None and not result.normal_text and self._reading.holds_events():
            result.normal_text = new_text  # (only to run the tool stage, which answers from the reading)
        return result

    def finish(self) -> StreamingParseResult:
        result = self._result(self._parser.finish(), final=True)
        if self._force_nonempty_content and not self._content_seen:
            # Only reasoning came out: it is the answer (as SGLang's own detectors do).
            answer = "".join(self._streamed)
            if self._reading is not None:
                self._reading.pass_on([Content(answer)])
            return StreamingParseResult(normal_text=answer)
        return result

    def _result(self, events: list[Event], final: bool) -> StreamingParseResult:
        normal: list[str] = []
        reasoning: list[str] = []
        for event in events:
            if type(event) is Content:  # (the core's events are of these classes exactly)
                normal.append(event.text)
            elif type(event) is Reasoning:
                reasoning.append(event.text)
        reading = self._reading
        if reading is not None:  # content and calls are the tool stage's
            if len(reasoning) < len(events):
                reading.pass_on(events)
                self._content_seen = True
            if not reading.claimed:
                reading.hand_over()
        elif normal:
            self._content_seen = True
        if not self.stream_reasoning:
            self._held.extend(reasoning)
            reasoning = []
            if final or not self._parser.in_reasoning:
                reasoning, self._held = self._held, []
        released = "".join(reasoning)
        if self._force_nonempty_content and released:
            self._streamed.append(released)
        return StreamingParseResult(normal_text="".join(normal), reasoning_text=released)


_defaults: dict[tuple[int, str], tuple[Any, str | None]] = {}


def thinking_default(tokenizer: Any) -> str | None:
    """The ``reasoning_default`` SGLang applies to a request when the served template shows no thinking switch it
    knows: ``"enable_thinking"`` (the request reasons unless ``enable_thinking`` is false) when the model may open
    reasoning itself -- the template, rendered for one user message, ends at an assistant header after which the
    model may open a think tag (it pre-fills none), the vocabulary has ``<think>`` and the template has a thinking
    switch (:func:`longcat_plugins.core.prompt.output_may_start_reasoning`; SGLang asks only when it does not know
    the template's switch itself) --
    else None (reasoning only where the output opens it: LongCat-Flash-Chat). SGLang loads the served template into
    the tokenizer (``--chat-template``), so this reads the template in use. Computed once per tokenizer and template."""
    if tokenizer is None:
        return None
    template = getattr(tokenizer, "chat_template", None)
    if not isinstance(template, str) or not template:
        return None
    key = (id(tokenizer), template)
    hit = _defaults.get(key)
    if hit is not None and hit[0] is tokenizer:
        return hit[1]
    mode: str | None = None
    try:
        vocab = tokenizer.get_vocab()
        rendered = tokenizer.apply_chat_template(
            [{"role": "user", "content": "hi"}], add_generation_prompt=True, tokenize=False
        )
    except Exception:
        rendered, vocab = None, {}
    if (
        isinstance(rendered, str)
        and any(tag in vocab for tag in D.THINK_OPENS)
        and prompt_opens_reasoning(rendered) is None  # (a template that writes a think tag is SGLang's to read)
        and output_may_start_reasoning(rendered, None, template)
    ):
        mode = "enable_thinking"
    _defaults[key] = (tokenizer, mode)  # the tokenizer is kept alive, so its id is never reused
    return mode


def _message_text(content: str | Sequence[Any] | None) -> str:
    """The text of the assistant message being continued. SGLang hands over the message's content as the client
    sent it: a string, or content parts, whose text parts it joins with a space into the prompt (other parts put no
    text there)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    texts: list[str] = []
    for part in content:
        text = _field(part, "text")
        if _field(part, "type") in ("text", "input_text") and isinstance(text, str):
            texts.append(text)
    return " ".join(texts)


def _field(part: Any, name: str) -> Any:
    """A field of a content part: a dict, or one of SGLang's pydantic part models."""
    return part.get(name) if isinstance(part, dict) else getattr(part, name, None)
