"""Counting the output tokens that are reasoning (the usage figure ``reasoning_tokens``), as the parser reads the text.

Engines ask for the count of a growing list of token ids, on every streamed chunk when usage is sent with each
chunk. :class:`ReasoningTokenCounter` keeps its place, so each call costs time proportional to the new tokens, and it
reads each token's text with the parser (reasoning on, calls passed through as text), so tags that are several
tokens, or text that only looks like a tag, count as the parser reads them.

A token is reasoning when all of its text is shown as reasoning: an opening tag, a closing tag, a call tag and an end
marker are never reasoning, whether they are one token or several, and a token that holds reasoning text and part of
a tag is not counted. Tokens are decided in *windows*: the tokens read since the parser last held nothing back. When
the parser holds nothing again, the window's text is all shown (as content or reasoning) or dropped as markup, and
each of its tokens is placed on what the window's reading showed (:func:`_reasoning_in`). The list counted is the
output so far, read as if it ended there: the open window is read to its end by a copy of the parser.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from . import dialects as D
from .dialects import END_OF_SEQUENCE
from .events import Event, Reasoning
from .options import ParserOptions
from .parser import StreamParser
from .tag_starts import ONLY_LT, find_tag_start

#: an open window is read to its end at every count up to this many tokens (see ``_open_window``)
EXACT_HELD = 256
#: the longest undecided text kept from one window to the next (a bound: more is not read again)
MAX_CARRY = 4096
#: the markup a reading drops: reasoning tags (a stray or repeated one too) and end-of-sequence markers
_DROPPED = tuple(dict.fromkeys([*D.THINK_OPENS, *D.THINK_CLOSES, *END_OF_SEQUENCE]))


class ReasoningTokenCounter:
    """Reasoning tokens of one output, counted incrementally; ``token_text`` gives one token's text."""

    def __init__(
        self, token_text: Callable[[int], str], *, reasoning_open: bool, tools: Iterable[Any] | None = None
    ) -> None:
        self._token_text = token_text
        self._reasoning_open = reasoning_open
        # the request's tools: a block naming none of them is text (inside reasoning, reasoning), as the answer reads it
        self._tools = list(tools) if tools is not None else None
        self._restart()

    def _restart(self) -> None:
        # (the answer's own parser logs what the model wrote wrong; the count logs nothing)
        options = ParserOptions(reasoning=True, tools=False, reasoning_open=self._reasoning_open, log_problems=False)
        self._parser = StreamParser(self._tools, options)
        self._seen = 0  # how many token ids were read
        self._last_id: int | None = None
        self._count = 0  # the reasoning tokens before the open window
        self._window: list[str] = []  # the tokens read since the parser last held nothing back
        self._window_events: list[Event] = []  # what reading them showed so far
        #: text of earlier windows neither shown nor dropped yet (a reader may hold a line break while the parser
        #: says it holds nothing): read again at the start of the next window, where it is shown
        self._carry = ""
        #: the last reading of the open window to its end: (the window, its length, the count, all counted)
        self._probed: tuple[list[str], int, int, bool] | None = None

    def count(self, token_ids: Sequence[int]) -> int:
        """The reasoning tokens among ``token_ids``: the list read last time, grown (as engines pass it), costs
        only its new tokens; any other list is read from its start."""
        seen = self._seen
        if len(token_ids) < seen or (seen and token_ids[seen - 1] != self._last_id):
            self._restart()
            seen = 0
        end = len(token_ids)
        if end > seen and self._token_text(token_ids[end - 1]) in END_OF_SEQUENCE:
            end -= 1  # the end-of-sequence token that ends the output is no text of the answer: read when followed
        ids = token_ids[seen:end]
        token_text, parser, n, i = self._token_text, self._parser, len(ids), 0
        while i < n:
            if not self._window and not self._carry:
                # A run of tokens with no character that starts a tag can neither start nor end one: read as one
                # text, its tokens are reasoning exactly when the output is inside reasoning (each with text).
                texts = []
                if ONLY_LT:
                    while i < n and "<" not in (text := token_text(ids[i])):
                        texts.append(text)
                        i += 1
                else:
                    while i < n and find_tag_start(text := token_text(ids[i]), 0) < 0:
                        texts.append(text)
                        i += 1
                if texts:
                    inside, read = parser.in_reasoning, "".join(texts)
                    shown = sum(len(getattr(event, "text", "")) for event in parser.feed(read))
                    if inside:
                        self._count += len(texts) - texts.count("")
                    self._carry = read[shown:][-MAX_CARRY:]  # (a reader may hold its end: a line break)
                    continue
            self._read_one(token_text(ids[i]))
            i += 1
        self._seen = end
        if end:
            self._last_id = token_ids[end - 1]
        return self._count + self._open_window()

    def _read_one(self, text: str) -> None:
        """One token's text: into the window, which closes when the parser holds nothing back."""
        self._window.append(text)
        self._window_events += self._parser.feed(text)
        if not self._parser.holding:
            count, self._carry = _reasoning_in(self._window, self._window_events, self._carry)
            self._count += count
            self._window, self._window_events, self._probed = [], [], None

    def _open_window(self) -> int:
        """The tokens of the open window that its end would show as reasoning.

        Read again at every count, a long held text would cost time quadratic in its length when the count is
        asked on every chunk: past :data:`EXACT_HELD` tokens it is read again when their number has doubled since
        the last reading, or when the last token is an end-of-sequence marker (the output ended); in between, the
        tokens read since count as the last reading showed the ones before them (all reasoning, or no more)."""
        window = self._window
        if not window:
            return 0
        n, last = len(window), self._probed
        if last is not None and EXACT_HELD < n < 2 * last[1] and window[-1] not in END_OF_SEQUENCE:
            _, probed, count, all_counted = last
            return count + (n - probed if all_counted else 0)
        ended = [*self._window_events, *_read_to_end(self._parser, self._tools)]
        count = _reasoning_in(window, ended, self._carry)[0]
        self._probed = (window, n, count, count == sum(1 for token in window if _without_markers(token)))
        return count


def _read_to_end(parser: StreamParser, tools: list[Any] | None) -> list[Event]:
    """What ``parser`` would show if the output ended now (read by a copy; the tools are shared, not copied)."""
    memo: dict[int, Any] = {id(tools): tools} if tools is not None else {}
    return copy.deepcopy(parser, memo).finish()


def _reasoning_in(tokens: Sequence[str], events: Sequence[Event], carry: str = "") -> tuple[int, str]:
    """How many of ``tokens`` are all shown as reasoning by ``events``, the reading of ``carry`` (text of earlier
    tokens not decided yet) and their text: each character shown in order, or dropped as markup. Also the text at
    the end that is neither, still undecided (the next window's ``carry``).

    The shown text is matched against the text, character by character; where the text starts a dropped markup that
    the shown text does not continue with, the markup is passed over (a markup cut across tokens too). A token
    counts when it has text and each of its characters was shown as reasoning."""
    shown = "".join(getattr(event, "text", "") for event in events)
    kinds = [type(event) is Reasoning for event in events for _ in getattr(event, "text", "")]
    text = carry + "".join(tokens)
    reasoning = [False] * len(text)  # per character of the text: shown as reasoning
    at = i = decided = 0  # decided: the text up to there was shown or dropped
    while i < len(text):
        markup = next((m for m in _DROPPED if text.startswith(m, i) and not shown.startswith(m, at)), None)
        if markup is None and at < len(shown) and shown[at] == text[i]:
            reasoning[i] = kinds[at]
            at, i = at + 1, i + 1
            decided = i
        elif markup is not None:
            i = decided = i + len(markup)
        else:  # neither shown (yet) nor known markup
            i += 1
    count, start = 0, len(carry)
    for token in tokens:
        count += bool(token) and all(reasoning[start : start + len(token)])
        start += len(token)
    return count, text[decided:][-MAX_CARRY:]


def _without_markers(token: str) -> str:
    for marker in END_OF_SEQUENCE:
        token = token.replace(marker, "")
    return token
