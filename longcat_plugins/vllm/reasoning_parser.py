"""vLLM ``ReasoningParser`` for ``<think>`` / ``<longcat_think>`` reasoning, driving the core with tools off.

Reasoning ends at its closing tag or at a tool-call tag. Once the core emits the first piece of content, vLLM is told
reasoning has ended (``has_engine_confirmed_reasoning_end``); it then flushes this parser (``finish_streaming``) and
hands that content to the tool parser. Whether the output starts inside reasoning comes from the prompt (a pre-filled
opening tag) or, when the prompt does not tell, from ``chat_template_kwargs["enable_thinking"]``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from vllm.entrypoints.generate.base.protocol import DeltaMessage
from vllm.reasoning.abs_reasoning_parsers import ReasoningParser

from longcat_plugins.core import Content, Event, ParserOptions, StreamParser, parse
from longcat_plugins.core.prompt import prompt_opens_reasoning

from .deltas import events_to_delta
from .tokenizer_facts import tokenizer_facts

_PROMPT_TAIL_TOKENS = 16


def thinking_hint(chat_template_kwargs: Any) -> bool | None:
    """``enable_thinking`` (or ``thinking``) from the request's chat-template kwargs, when it is a boolean."""
    if not isinstance(chat_template_kwargs, dict):
        return None
    for key in ("enable_thinking", "thinking"):
        value = chat_template_kwargs.get(key)
        if isinstance(value, bool):
            return value
    return None


class LongcatReasoningParser(ReasoningParser):
    """``--reasoning-parser longcat``."""

    engine_based_streaming = True

    def __init__(self, tokenizer: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(tokenizer, *args, **kwargs)
        self._facts = tokenizer_facts(tokenizer)
        self._thinking = thinking_hint(kwargs.get("chat_template_kwargs"))
        self._prompt_state: bool | None = None  # True: the prompt opened reasoning, False: closed it
        self._stream: StreamParser | None = None
        self._ended = False
        self._finished = False

    @property
    def reasoning_start_str(self) -> str:
        return self._facts.think_start

    @property
    def reasoning_end_str(self) -> str:
        return self._facts.think_end

    @property
    def reasoning_open(self) -> bool:
        """Whether the output starts inside reasoning."""
        if self._prompt_state is not None:
            return self._prompt_state
        return self._thinking is True

    # -- the prompt ----------------------------------------------------------------------------------------------

    def prompt_state(self, prompt_token_ids: Sequence[int]) -> bool | None:
        """True if the prompt's current turn leaves reasoning open, False if it closes it, None if it does not say."""
        facts = self._facts
        starts, ends, bounds = facts.think_start_ids, facts.think_end_ids, facts.boundary_ids
        for token_id in reversed(prompt_token_ids):
            if token_id in ends:
                return False
            if token_id in starts:
                return True
            if token_id in bounds:
                break
        return self._prompt_tail_state(prompt_token_ids)

    def _prompt_tail_state(self, prompt_token_ids: Sequence[int]) -> bool | None:
        # a marker that is not a single token in this vocabulary: look at the end of the prompt's text
        if self.model_tokenizer is None or not prompt_token_ids:
            return None
        try:
            tail = self.model_tokenizer.decode(list(prompt_token_ids[-_PROMPT_TAIL_TOKENS:]))
        except Exception:
            return None
        return prompt_opens_reasoning(tail)

    def set_prompt_token_ids(self, prompt_token_ids: Sequence[int]) -> None:
        self._prompt_state = self.prompt_state(prompt_token_ids)

    def adjust_initial_state_from_prompt(self, prompt_token_ids: Sequence[int]) -> None:
        self.set_prompt_token_ids(prompt_token_ids)

    def is_reasoning_end(self, input_ids: Sequence[int]) -> bool:
        state = self.prompt_state(input_ids)
        if state is None:
            return self._thinking is False
        return not state

    def is_reasoning_end_streaming(self, input_ids: Sequence[int], delta_ids: Iterable[int]) -> bool:
        ends = self._facts.think_end_ids
        return any(token_id in ends for token_id in delta_ids)

    def extract_content_ids(self, input_ids: list[int]) -> list[int]:
        ends = self._facts.think_end_ids
        for i in range(len(input_ids) - 1, -1, -1):
            if input_ids[i] in ends:
                return input_ids[i + 1 :]
        return input_ids

    def count_reasoning_tokens(self, token_ids: Sequence[int]) -> int:
        facts = self._facts
        depth = 1 if self.reasoning_open else 0
        count = 0
        for token_id in token_ids:
            if token_id in facts.think_start_ids:
                depth += 1
            elif token_id in facts.think_end_ids:
                depth = max(depth - 1, 0)
            elif depth:
                count += 1
        return count

    def adjust_request(self, request: Any) -> Any:
        # the reasoning tags are often special tokens: they must reach the parser
        request.skip_special_tokens = False
        return request

    # -- parsing ---------------------------------------------------------------------------------------------

    def _options(self) -> ParserOptions:
        return ParserOptions(reasoning=True, tools=False, reasoning_open=self.reasoning_open)

    def extract_reasoning(self, model_output: str, request: Any) -> tuple[str | None, str | None]:
        message = parse(model_output, None, self._options())
        return message.reasoning or None, message.content or None

    def extract_reasoning_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
    ) -> DeltaMessage | None:
        if self._finished or not delta_text:
            return None
        if self._stream is None:
            self._stream = StreamParser(None, self._options())
        return self._delta(self._stream.feed(delta_text))

    def has_engine_confirmed_reasoning_end(self) -> bool:
        return self._ended

    def finish_streaming(self) -> DeltaMessage | None:
        """Flush what the core holds back (at the reasoning/content hand-over, or at the end of the stream)."""
        if self._stream is None or self._finished:
            return None
        self._finished = True
        return self._delta(self._stream.finish())

    def _delta(self, events: list[Event]) -> DeltaMessage | None:
        if not self._ended and any(isinstance(e, Content) and e.text for e in events):
            self._ended = True
        return events_to_delta(events)
