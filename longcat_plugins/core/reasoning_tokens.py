"""Counting the output tokens that are reasoning (the usage figure ``reasoning_tokens``), as the parser reads the text.

Engines ask for the count of a growing list of token ids, on every streamed chunk when usage is sent with each
chunk. :class:`ReasoningTokenCounter` keeps its place, so each call costs time proportional to the new tokens, and it
reads each token's text with the parser (reasoning on, calls passed through), so tags that are several tokens, or
text that only looks like a tag, count as the parser reads them.

A token is reasoning when the output is inside reasoning before it and after it and its text is shown as reasoning
(at once, or after being held back as the possible start of a tag that turned out to be text): an opening tag, a
closing tag, a call tag and an end marker are never reasoning, whether they are one token or several. (A token that
holds both the last reasoning text and the start of a closing tag is not counted.) The list counted is the output so
far, read as if it ended there: what its end would show as reasoning of the text still held back counts too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .dialects import END_OF_SEQUENCE
from .events import Event, Reasoning
from .options import ParserOptions
from .parser import StreamParser

#: undecided tokens read again to their end at every count up to this many (see ``_held_reasoning``)
EXACT_HELD = 256


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
        self._parser = StreamParser(self._tools, self._options(self._reasoning_open))
        self._seen = 0  # how many token ids were read
        self._last_id: int | None = None
        self._count = 0
        self._undecided: list[str] = []  # the tokens read inside reasoning while the parser held text back
        #: the last reading of the undecided tokens to their end: (the list, its length, the count, all reasoning)
        self._probed: tuple[list[str], int, int, bool] | None = None

    @staticmethod
    def _options(reasoning_open: bool) -> ParserOptions:
        # (the answer's own parser logs what the model wrote wrong; the count logs nothing)
        return ParserOptions(reasoning=True, tools=False, reasoning_open=reasoning_open, log_problems=False)

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
            if not self._undecided and not parser.holding:
                # A run of tokens with no '<' (every tag starts with one) can neither start nor end a tag: read as
                # one text, its tokens are reasoning exactly when the output is inside reasoning (each with text).
                texts = []
                while i < n and "<" not in (text := token_text(ids[i])):
                    texts.append(text)
                    i += 1
                if texts:
                    inside = parser.in_reasoning
                    parser.feed("".join(texts))
                    if inside:
                        self._count += len(texts) - texts.count("")
                    continue
            self._read_one(token_text(ids[i]))
            i += 1
        self._seen = end
        if end:
            self._last_id = token_ids[end - 1]
        return self._count + self._held_reasoning()

    def _held_reasoning(self) -> int:
        """The undecided tokens the end of the output would show as reasoning. They were read inside reasoning with
        nothing held before them: a parser that starts inside reasoning reads them to their end (the counting
        parser reads on, as the list may grow).

        Read again at every count, a long held text would cost time quadratic in its length when the count is
        asked on every chunk: past :data:`EXACT_HELD` tokens it is read again when their number has doubled since
        the last reading, or when the last token is an end-of-sequence marker (the output ended); in between, the
        tokens read since count as the last reading showed the ones before them (all reasoning, or no more)."""
        held = self._undecided
        if not held:
            return 0
        n, last = len(held), self._probed
        if last is not None and last[0] is held and EXACT_HELD < n < 2 * last[1] and held[-1] not in END_OF_SEQUENCE:
            _, probed, count, all_shown = last
            return count + (n - probed if all_shown else 0)
        probe = StreamParser(self._tools, self._options(reasoning_open=True))
        count = _shown_as_reasoning(held, [*probe.feed("".join(held)), *probe.finish()])
        self._probed = (held, n, count, count == sum(1 for token in held if _without_markers(token)))
        return count

    def _read_one(self, text: str) -> None:
        """One token's text, read alone: whether it is reasoning depends on what the parser shows of it."""
        parser = self._parser
        before = parser.in_reasoning
        events = parser.feed(text)
        released = any(type(event) is Reasoning for event in events)
        inside = before and parser.in_reasoning
        if released:  # what was held back turned out to be reasoning text, and this token's text maybe too
            still_held = inside and parser.holding
            read = self._undecided if still_held else [*self._undecided, text]
            shown, used = _shown_and_read(read, events)
            self._count += shown
            # the tokens the reasoning did not show are still held (the start of a possible tag), to be decided
            self._undecided = self._undecided[used:] if still_held else []
        if not inside:
            self._undecided = []
        elif parser.holding:
            self._undecided.append(text)


def _shown_as_reasoning(tokens: Sequence[str], events: Sequence[Event]) -> int:
    """See :func:`_shown_and_read`: the count alone."""
    return _shown_and_read(tokens, events)[0]


def _shown_and_read(tokens: Sequence[str], events: Sequence[Event]) -> tuple[int, int]:
    """How many of ``tokens`` (texts read in turn, all shown by ``events`` or held) the reasoning text that opens
    ``events`` shows: each whole, the first maybe only its end (its start was shown before) or after the end of
    the tag that opened reasoning (in the token before it, not counted); an end marker, which is never shown, is not
    counted, and counting stops at the first token the reasoning does not show. Also how many of ``tokens`` were
    read before it (the shown ones and the end markers among them)."""
    parts = []
    for event in events:
        if type(event) is not Reasoning:
            break
        parts.append(event.text)
    shown = "".join(parts)
    texts = [_without_markers(token) for token in tokens]
    read = "".join(texts)
    count = at = 0
    for used, token in enumerate(texts):
        if not token:
            continue
        if not count:  # the first: its start may have been shown before, or the text that opened reasoning may lead
            # (the held text starts at its last place where the text read from there on and the shown text agree
            # as far as both go)
            skip = next((k for k in reversed(range(len(token))) if read.startswith(shown[: len(read) - k], k)), None)
            at = len(token) - skip if skip is not None else shown.find(token) + len(token)
            if skip is None and at < len(token):
                return count, used
        elif shown.startswith(token, at):
            at += len(token)
        else:
            return count, used
        count += 1
    return count, len(tokens)


def _without_markers(token: str) -> str:
    for marker in END_OF_SEQUENCE:
        token = token.replace(marker, "")
    return token
