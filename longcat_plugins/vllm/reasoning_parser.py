"""vLLM ``ReasoningParser`` for ``<think>`` / ``<longcat_think>`` reasoning, driving the core (with tools off, unless it
reads with our tool parser's stream).

Reasoning ends at its closing tag or at a tool-call tag. Whether the output starts inside reasoning comes from the
prompt (a pre-filled opening tag in the current turn) or, when the prompt does not tell, from
``chat_template_kwargs["enable_thinking"]``, else from whether the model may open reasoning itself
(:meth:`LongcatReasoningParser.starts_in_reasoning`); otherwise it starts outside.

Streaming: vLLM hands the output over to the tool parser once this parser confirms the end of reasoning
(``has_engine_confirmed_reasoning_end``); it then flushes this parser (``finish_streaming``) and gives the tool parser
the *content* of that delta and of the flush (the flush's reasoning is dropped); the tool parser reads later think
blocks itself.

With our tool parser (built by the same ``Parser``), an output that starts inside reasoning is read in one pass by
the tool parser's stream (built for the request, with its tools and the tool parser's options): this parser feeds it
while reasoning lasts and serves its reasoning, so vLLM asks only this stage then; at the delta where the core
leaves reasoning (its closing tag, a call tag, content), it confirms the end and hands every event of that delta to
the tool parser (``take_over``), which serves them as its answer to that delta and feeds the same stream from the
next one (reasoning that opens again in content included), and flushes it at the end of the output (also when the
output ends inside reasoning: this parser's flush is then empty). Where this cannot be (vLLM does not name the
request, or parses a forced call itself), the serving layer is told that reasoning has ended (vLLM 0.32:
``_hands_all``) and the tool parser reads the whole output, from where the prompt left it.

Beside a tool parser that is not ours, the end is confirmed where the core stands in content. When reasoning
opened again inside the delta of the first content, that content is held until the block closes (or the output
ends), unless it holds a tool call: then it is handed over at once, followed by an opening think tag and what the
core held back, so that the tool parser goes on inside the block.

Without a tool parser, vLLM 0.34 keeps streaming the whole output through this parser when it says that reasoning
can open again inside content (``opens_reasoning_in_content``, True here as in the core): later think blocks are then
reasoning when streamed too, as they are in the non-streaming answer. This parser sees that it is fed past the end of
reasoning it confirmed (or asked for fallback content after it), and then no longer hands over inside a think block.

Structured output: the engine core starts the grammar where these token-level hooks say reasoning ends. A call tag
that ends reasoning is also the grammar's first token; vLLM's gate feeds such a token to the grammar (instead of
starting after it) when the parser gives ``reasoning_end_token_ids`` and ``find_reasoning_end``: vLLM 0.34 reads them
from any reasoning parser, 0.33 only from subclasses of ``ParserEngineReasoningAdapter``. So this parser derives from
the class the installed vLLM's gate reads them from; on 0.33 it overrides every method that adapter implements (it has
no parser engine: the adapter's ``__init__`` is skipped). Where a think tag is several tokens, its last token is where
reasoning ends for the gate (found from the text of the last tokens).

The prompt: vLLM 0.33 and later hand it to a request's parsers (``set_prompt_token_ids``, forwarded by
``DelegatingParser``) before the serving layer asks :meth:`is_reasoning_end`; this parser then answers the serving
layer's question. vLLM 0.32 does not forward it, so the same hooks answer from what they are given: a parser asked
``is_reasoning_end`` before it was handed the prompt answers the gate's question and keeps what the prompt says (the
API server's non-streaming answer for the first choice is read by that parser); a stream whose serving layer then
calls ``adjust_initial_state_from_prompt`` (the gate's "not ended": the output starts inside reasoning) is read as on
later releases: this parser reads the reasoning with our tool parser's stream and hands it over, or, where it cannot,
hands the whole output to the tool parser at the first delta (``_hands_all``), which reads it in one pass from where
the prompt left it. With our tool parser the gate's answer and the serving layer's are the same then. One code path:
which hook arrives first decides.

Without a tool parser (``--reasoning-parser`` alone), on every release, the request's output is read by this parser
from start to end, as the core reads it in one pass: the serving layer is told reasoning has not ended at the prompt,
and the parser never hands over (see :mod:`.pairing`). Beside an engine's own tool parser, the serving layer is told
the same, and this parser hands the content over where it starts (confirming the end of reasoning), as with ours:
vLLM's tool parser then reads it. Built by hand (not by vLLM's ``Parser``), it does the same whatever tool parser
follows, and ``extract_reasoning`` returns the output without its reasoning as content.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final

from vllm.entrypoints.generate.base.protocol import DeltaMessage
from vllm.parser.engine.parser_engine import ReasoningEnd
from vllm.reasoning.abs_reasoning_parsers import ReasoningParser

from longcat_plugins.core import Content, Event, ParserOptions, Reasoning, StreamParser, parse
from longcat_plugins.core import dialects as D
from longcat_plugins.core import tags as T
from longcat_plugins.core.prompt import (
    TURN_BOUNDARIES,
    model_may_open_reasoning,
    prompt_opens_reasoning,
    template_thinking_switch,
)
from longcat_plugins.core.reasoning_tokens import ReasoningTokenCounter

from .deltas import delta_message
from .pairing import ToolParserBeside, reasoning_parser_built, request_being_parsed
from .tokenizer_facts import tokenizer_facts

_PROMPT_TAIL_TOKENS: Final = 16
#: tokens before a delta decoded with it, to find a closing think tag that is several tokens
_TAG_TAIL_TOKENS: Final = 16

_GateBase: type[ReasoningParser]
if hasattr(ReasoningParser, "find_reasoning_end"):
    _GateBase = ReasoningParser
else:
    from vllm.parser.engine.adapters import ParserEngineReasoningAdapter as _GateBase


def _single_token_ids(tokenizer: Any, tags: Iterable[str]) -> frozenset[int]:
    """Ids of the ``tags`` that are one token in ``tokenizer``."""
    ids: set[int] = set()
    if tokenizer is None:
        return frozenset()
    for tag in tags:
        try:
            token_id = tokenizer.convert_tokens_to_ids(tag)
            if isinstance(token_id, int) and tokenizer.convert_ids_to_tokens(token_id) == tag:
                ids.add(token_id)
        except Exception:
            continue
    return frozenset(ids)


class LongcatReasoningParser(_GateBase):  # type: ignore[valid-type,misc]
    """``--reasoning-parser longcat``."""

    engine_based_streaming = True

    def __init__(self, tokenizer: Any, *args: Any, **kwargs: Any) -> None:
        ReasoningParser.__init__(self, tokenizer, *args, **kwargs)
        facts = tokenizer_facts(tokenizer)
        self._facts = facts
        self._think_marks = facts.think_start_ids | facts.think_end_ids
        self._call_open_ids = _single_token_ids(tokenizer, D.BLOCK_OPENS)
        self._end_ids = facts.think_end_ids | self._call_open_ids
        self._thinking = template_thinking_switch(kwargs.get("chat_template_kwargs"))
        self._prompt_state: bool | None = None  # whether the output starts inside reasoning (None: no prompt yet)
        self._gate_prompt_state: bool | None = None  # the same, read when the gate asked (the prompt not handed over)
        self._hands_all = False  # the serving layer took the gate's answer: hand the whole output to the tool parser
        self._stream: StreamParser | None = None
        self._held: list[str] = []  # content not handed over yet
        self._held_has_calls: bool | None = None  # (computed when needed)
        self._ended = False
        self._handed_inside_reasoning = False
        self._streams_all = False  # vLLM streams the whole output through this parser (no hand-over)
        self._finished = False
        self.tool_stage: Any = None  # the tool parser built with this one (see .pairing)
        self.adjusted_request: Any = None  # the request the serving layer adjusted with this parser (the client's)
        self._reads_for_tool_stage = False  # reads reasoning with the tool parser's stream, then hands it over
        self._parsing_stream = False  # the serving layer gave this instance its prompt: it parses an output
        self._counter: ReasoningTokenCounter | None = None
        self._token_texts: dict[int, str] = {}
        # closing think tags that are not one token: found in the text
        self._split_closes = tuple(tag for tag in D.THINK_CLOSES if not _single_token_ids(tokenizer, (tag,)))
        # a tool parser not built with this one (an engine's own, or one built by hand) reads the content: it is
        # handed over where it starts, confirming the end of reasoning
        beside = reasoning_parser_built(self)
        self._hands_content_over = beside in (ToolParserBeside.OTHER, ToolParserBeside.UNKNOWN)

    @property
    def reasoning_start_str(self) -> str:
        return self._facts.think_start

    @property
    def reasoning_end_str(self) -> str:
        return self._facts.think_end

    @property
    def opens_reasoning_in_content(self) -> bool:
        """A think tag in content opens reasoning again (the core reads every think block outside calls)."""
        return True

    @property
    def hands_over(self) -> bool:
        """Whether this parser read the start of the stream (vLLM asked it, instead of giving the whole stream to the
        tool parser): the tool parser then reads on from where this one handed over."""
        return self._stream is not None

    @property
    def reasoning_open(self) -> bool:
        """Whether the output starts inside reasoning."""
        state = self._known_start
        if state is not None:
            return state
        return self._thinking is True

    @property
    def _known_start(self) -> bool | None:
        """Whether the prompt leaves the output inside reasoning, as read when the serving layer handed it over (or,
        before that, when the gate asked); None when it was not read or does not say."""
        return self._prompt_state if self._parsing_stream else self._gate_prompt_state

    @property
    def reasons_before_a_call(self) -> bool:
        """Whether a forced call's grammar must cover reasoning first: the output starts inside it
        (:attr:`reasoning_open`, from the prompt once it is handed over). vLLM 0.32 builds a request's parsers
        without its prompt: then the request's ``enable_thinking`` decides, else whether the model may reason at all
        (a think tag in its vocabulary and a thinking switch in its template)."""
        state = self._known_start
        if state is not None:
            return state
        if self._thinking is not None:
            return self._thinking
        return bool(self._facts.think_start_ids and self._facts.template_may_think)

    # -- the prompt ----------------------------------------------------------------------------------------------

    def prompt_state(self, prompt_token_ids: Sequence[int]) -> bool | None:
        """True if the prompt's current turn leaves reasoning open, False if it closes it, None if it does not say."""
        bounds = self._facts.boundary_ids
        marks = self._think_marks
        start = max(len(prompt_token_ids) - _PROMPT_TAIL_TOKENS, 0)
        for i in range(len(prompt_token_ids) - 1, -1, -1):
            token_id = prompt_token_ids[i]
            if token_id in marks:
                start = i
                break
            if token_id in bounds:
                start = max(start, i + 1)
                break
        # a think token may still belong to the user's text: not every turn boundary is one token (ASSISTANT:)
        return self._turn_state(prompt_token_ids, start)

    def _prompt_tail(self, prompt_token_ids: Sequence[int]) -> str:
        """The text of the prompt's last tokens ('' when it cannot be decoded)."""
        if self.model_tokenizer is None:
            return ""
        try:
            return str(self.model_tokenizer.decode(list(prompt_token_ids[-_PROMPT_TAIL_TOKENS:])))
        except Exception:
            return ""

    def _turn_state(self, prompt_token_ids: Sequence[int], start: int) -> bool | None:
        """``prompt_opens_reasoning`` of the prompt's text from token ``start`` on. The text is decoded from the end
        in growing windows, as only what follows its last turn boundary counts."""
        if self.model_tokenizer is None or start >= len(prompt_token_ids):
            return None
        end = len(prompt_token_ids)
        size = _PROMPT_TAIL_TOKENS
        while True:
            low = max(start, end - size)
            try:
                text = self.model_tokenizer.decode(list(prompt_token_ids[low:]))
            except Exception:
                return None
            if low == start or any(boundary in text for boundary in TURN_BOUNDARIES):
                return prompt_opens_reasoning(text)
            size *= 4

    def starts_in_reasoning(self, prompt_token_ids: Sequence[int]) -> bool:
        """Whether the output of this prompt starts inside reasoning: what the prompt's current turn says (a think tag
        the template wrote), else the request's ``enable_thinking``, else whether the model may open reasoning
        itself after the prompt's assistant header (:func:`longcat_plugins.core.prompt.model_may_open_reasoning`,
        for a tokenizer that has a think tag as a token and whose own chat template has a thinking switch,
        :func:`~longcat_plugins.core.prompt.template_may_think`: Qwen3's hybrid models, not Qwen3-Coder or the
        Instruct-2507 models).
        A model that may open reasoning itself is read as reasoning from its first token, as vLLM's ``qwen3`` reads
        it: ``X</think>Y`` is reasoning ``X`` and content ``Y``; the structured-output gate waits for the same end."""
        state = self.prompt_state(prompt_token_ids)
        if state is not None:
            return state
        if self._thinking is not None:
            return self._thinking
        facts = self._facts
        return bool(
            facts.think_start_ids
            and facts.template_may_think
            and model_may_open_reasoning(self._prompt_tail(prompt_token_ids))
        )

    def set_prompt_token_ids(self, prompt_token_ids: Sequence[int]) -> None:
        self._prompt_state = self.starts_in_reasoning(prompt_token_ids)
        self._parsing_stream = True
        self._counter = None  # (it reads from where the prompt leaves the output)

    def adjust_initial_state_from_prompt(self, prompt_token_ids: Sequence[int]) -> None:
        gate_answered = not self._parsing_stream and self.tool_stage is not None
        self.set_prompt_token_ids(prompt_token_ids)
        if gate_answered and not (self.reasoning_open and self._read_for_tool_stage()):
            # The serving layer asked is_reasoning_end without handing over the prompt first, so it had the gate's
            # answer ("not ended") and streams through this parser, which cannot read the reasoning with the tool
            # parser's stream: the whole output is handed to the tool parser at the first delta, which reads it in
            # one pass, as when the serving layer is told that reasoning has ended.
            self._hands_all = True

    # -- token-level hooks (the structured-output gate, usage) ---------------------------------------------------

    def is_reasoning_end(self, input_ids: Sequence[int]) -> bool:
        """Whether a prompt leaves the output outside reasoning (the grammar then applies from the first token).

        Asked for the structured-output gate (by the API server, whose answer the engine core takes, or by the engine
        core): not :meth:`starts_in_reasoning`; when the output starts inside reasoning, the gate waits for its end
        or a call tag, and the grammar applies from there.

        Asked by the serving layer of a stream (this instance was given the prompt): with a tool parser, whether the
        output starts outside reasoning; if it starts inside, this parser reads the reasoning with the tool parser's
        stream and hands it over where reasoning ends (when it cannot, the answer is yes, and the tool parser reads
        the whole output in one pass, from where the prompt left it). Alone, no, and the whole output streams
        through this parser, which reads reasoning wherever it opens."""
        if self._parsing_stream:
            if self.tool_stage is None:
                return False
            return not (self.reasoning_open and self._read_for_tool_stage())
        state = self._gate_prompt_state = self.starts_in_reasoning(input_ids)
        return not state

    @property
    def reasoning_end_token_ids(self) -> frozenset[int]:
        return self._end_ids

    @property
    def implicit_reasoning_end_token_ids(self) -> frozenset[int]:
        """Call tags: they end reasoning and are the first token of the content."""
        return self._call_open_ids

    def find_reasoning_end(self, token_ids: Sequence[int]) -> ReasoningEnd | None:
        """Where reasoning ends in output tokens generated inside it, and whether that token is content. None when no
        single token ends it there (the gate then asks :meth:`is_reasoning_end_streaming`, which also finds a
        closing tag split across tokens)."""
        if not self._end_ids:
            return None
        for offset, token_id in enumerate(token_ids):
            if token_id in self._end_ids:
                return ReasoningEnd(offset, token_id in self._call_open_ids)
        if self._split_closes:
            return None
        return ReasoningEnd(len(token_ids), False)

    def is_reasoning_end_streaming(self, input_ids: Sequence[int], delta_ids: Iterable[int]) -> bool:
        """Whether the delta (the last tokens of ``input_ids``) ends reasoning: one of its tokens is a reasoning end,
        or it completes a closing think tag written in several tokens."""
        delta = list(delta_ids)
        ends = self._end_ids
        if any(token_id in ends for token_id in delta):
            return True
        if not self._split_closes or not delta or self.model_tokenizer is None:
            return False
        n = len(delta)
        tail = list(input_ids[max(len(input_ids) - n - _TAG_TAIL_TOKENS, 0) :])
        try:
            before = len(self.model_tokenizer.decode(tail[:-n], skip_special_tokens=False))
            text = self.model_tokenizer.decode(tail, skip_special_tokens=False)
        except Exception:
            return False
        for tag in self._split_closes:
            i = text.find(tag, max(before - len(tag) + 1, 0))
            if i >= 0:
                return True
        return False

    def extract_content_ids(self, input_ids: list[int]) -> list[int]:
        for i, token_id in enumerate(input_ids):
            if token_id in self._facts.think_end_ids:
                return input_ids[i + 1 :]
            if token_id in self._call_open_ids:
                return input_ids[i:]
        return input_ids

    def count_reasoning_tokens(self, token_ids: Sequence[int]) -> int:
        """Tokens inside reasoning, read as the core reads their text (see
        :mod:`longcat_plugins.core.reasoning_tokens`); a list that grows costs only its new tokens."""
        counter = self._counter
        if counter is None:
            tools = self.tool_stage.request_tools if self.tool_stage is not None else None
            counter = self._counter = ReasoningTokenCounter(
                self._token_text, reasoning_open=self.reasoning_open, tools=tools
            )
        return counter.count(token_ids)

    def _token_text(self, token_id: int) -> str:
        text = self._token_texts.get(token_id)
        if text is None:
            tokenizer = self.model_tokenizer
            text = "" if tokenizer is None else tokenizer.decode([token_id], skip_special_tokens=False)
            self._token_texts[token_id] = text
        return text

    def adjust_request(self, request: Any) -> Any:
        # the reasoning tags are often special tokens: they must reach the parser
        request.skip_special_tokens = False
        # the client's request: the tool parser built with this one is then asked for its grammar, maybe on vLLM's
        # copy of it (see LongcatToolParser.get_structural_tag)
        self.adjusted_request = request
        return request

    # -- parsing ---------------------------------------------------------------------------------------------

    def _options(self) -> ParserOptions:
        return ParserOptions(reasoning=True, tools=False, reasoning_open=self.reasoning_open)

    def extract_reasoning(self, model_output: str, request: Any) -> tuple[str | None, str | None]:
        """With the tool parser vLLM's ``Parser`` built beside this one, that tool parser reads the whole output in
        one pass (the reasoning is its reading's; it answers the tool stage with the same reading, whatever content
        it is handed); otherwise this parser reads it, and the content is the output without its reasoning."""
        if self.tool_stage is not None:
            message = self.tool_stage.read_whole(model_output, request, self.reasoning_open)
            return message.reasoning or None, model_output
        message = parse(model_output, None, self._options())
        return message.reasoning or None, message.content or None

    def _read_for_tool_stage(self) -> bool:
        """Read the reasoning with the tool parser's stream, built for the request being parsed (see
        :mod:`.pairing`); False when that cannot be (the request is not known, or vLLM parses its forced call)."""
        if self._reads_for_tool_stage:
            return True
        request = request_being_parsed()
        stream = self.tool_stage.reasoning_stream(request) if request is not None else None
        if stream is None:
            return False
        self._stream = stream
        self._reads_for_tool_stage = True
        return True

    def extract_reasoning_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
    ) -> DeltaMessage | None:
        if self._reads_for_tool_stage:
            return self._reasoning_delta(delta_text)
        if self._hands_all and self._stream is None and not self._finished:
            self._ended = self._finished = True
            return DeltaMessage(content=delta_text) if delta_text else None
        if self._finished or not delta_text:
            return None
        if self._ended:
            self._streaming_everything()
        if self._stream is None:
            self._stream = StreamParser(None, self._options())
        stream = self._stream
        events = stream.feed(delta_text)
        self._hold(events)
        content = ""
        if self.tool_stage is None and not self._hands_content_over:
            content = self._release()
        elif self._held and (not stream.in_reasoning or (not self._streams_all and self._calls_held())):
            self._ended = True
            self._handed_inside_reasoning = stream.in_reasoning and not self._streams_all
            content = self._release()
        return _delta(content, events)

    def _reasoning_delta(self, delta_text: str) -> DeltaMessage | None:
        """A delta read with the tool parser's stream: its reasoning, while reasoning lasts; where it ends, every
        event of the delta goes to the tool parser (vLLM then asks it for that delta) and this parser confirms the
        end."""
        stream = self._stream
        if self._ended or stream is None or not delta_text:
            return None
        events = stream.feed(delta_text)
        if stream.in_reasoning:
            parts: list[str] = []
            for event in events:
                if type(event) is not Reasoning:
                    break
                parts.append(event.text)
            else:
                text = "".join(parts)
                return delta_message(None, text, []) if text else None
        self._ended = True
        self.tool_stage.take_over(events)
        return None

    def has_engine_confirmed_reasoning_end(self) -> bool:
        return self._ended

    def finish_streaming(self) -> DeltaMessage | None:
        """Flush what the core holds back: at the hand-over, or at the end of the stream. A stream read with the tool
        parser's is the tool parser's to flush, at the end of the output (vLLM flushes it after this one)."""
        if self._stream is None or self._finished or self._reads_for_tool_stage:
            return None
        self._finished = True
        events = self._stream.finish()
        if self._handed_inside_reasoning:
            # the held-back text is undecided (a tag may still complete): the tool parser reads it inside the block;
            # content flushed here (whitespace after a call block, still undecided before the block) precedes it
            before = "".join(e.text for e in events if isinstance(e, Content))
            held_back = "".join(e.text for e in events if isinstance(e, Reasoning))
            return DeltaMessage(content=before + T.THINK_OPENS[0] + held_back)
        self._hold(events)
        return _delta(self._release(), events)

    def get_streaming_fallback_content(self, text: str, request: Any) -> str | None:
        if self._ended:  # asked at the end of a stream vLLM did not hand over
            self._streaming_everything()
        return None

    def _streaming_everything(self) -> None:
        """vLLM went on after the end this parser confirmed: nothing is handed over, every delta comes here."""
        self._streams_all = True
        self._handed_inside_reasoning = False

    def _hold(self, events: list[Event]) -> None:
        for event in events:
            if isinstance(event, Content):
                self._held.append(event.text)
                self._held_has_calls = None

    def _calls_held(self) -> bool:
        """Whether the held content holds a tool call (that only the tool parser turns into a call)."""
        if self._held_has_calls is None:
            text = "".join(self._held)
            self._held[:] = [text]
            message = parse(text, None, ParserOptions(reasoning=False, log_problems=False))  # (the tool parser logs)
            self._held_has_calls = bool(message.tool_calls) or message.content != text
        return self._held_has_calls

    def _release(self) -> str:
        content = "".join(self._held)
        self._held = []
        self._held_has_calls = None
        return content


def _delta(content: str, events: list[Event]) -> DeltaMessage | None:
    reasoning = "".join(e.text for e in events if isinstance(e, Reasoning))
    if not (content or reasoning):
        return None
    return DeltaMessage(content=content or None, reasoning=reasoning or None)
