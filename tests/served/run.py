"""Running cells: serve a text through an engine's path and compare the answer with the oracle."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from .cells import Cell
from .fold import FOLDS
from .oracle import Served, call_with_text_ends_in_last_step, engine_fault, expected, refusal
from .requests import request_body, stop_string
from .texts import Text, broken_variant
from .tokenizer import EOS


class Driver(Protocol):
    engine: str

    def serve(self, cell: Cell, output: str, body: dict[str, Any]) -> tuple[int, Any]: ...

    def token_ids(self, cell: Cell, output: str) -> list[int]: ...

    def decode(self, cell: Cell, token_ids: Sequence[int]) -> str: ...

    def grammar_refusals(self, cell: Cell, output: str) -> list[int] | None: ...

    # optional: ``schema_refused(cell, output) -> bool | None``, whether the engine's grammar refuses a token of
    # ``output`` (None: it applies to none); without it, calls that break the schema are not checked here

    # optional: ``max_tokens_to_ask(cell, tokens) -> int``, the limit to send for the engine to generate ``tokens``;
    # ``engine_warnings() -> list[str]``, what the engine logged while serving the last request (an answer that
    # differs is an engine fault when those name one, see ENGINE_FAULTS)


@dataclass
class Outcome:
    cell: Cell
    text: Text
    skipped: str = ""  # why the cell does not apply to the text
    problems: list[str] = field(default_factory=list)
    engine_fault: str = ""  # the engine's own serving code failed the cell (see ENGINE_FAULTS)
    want: Served | None = None  # what the cell had to serve (the one-pass reading, as its API shows it)
    output: int | None = None  # its index in a scaled run (``--show-output``)

    @property
    def ok(self) -> bool:
        return not self.problems

    def __str__(self) -> str:
        head = f"{self.cell} x {self.text.id}"
        if self.output is not None:
            head = f"output {self.output}: {head}"
        if self.skipped:
            return f"{head}: skipped ({self.skipped})"
        if self.engine_fault:
            return f"{head}: engine fault ({self.engine_fault})"
        return f"{head}: " + ("ok" if self.ok else " | ".join(self.problems))


def cut_point(text: str, cut_after: str = "") -> int:
    """Where a ``max_tokens`` cut falls: inside the first call (at the stop string's place), else mid-text; with
    ``cut_after``, right after its first occurrence."""
    if cut_after and cut_after in text:
        return text.find(cut_after) + len(cut_after)
    stop = stop_string(text)
    return text.find(stop) if stop else len(text) // 2


def run_cell(driver: Driver, cell: Cell, text: Text) -> Outcome:
    outcome = Outcome(cell, text)
    if not text.tools:  # the request has no tools, whatever the cell's tool choice
        cell = replace(cell, tool_choice="no_tools", strict=False, parallel=True)
    output = text.text
    ids = driver.token_ids(cell, output)
    # an output that ends with the end-of-sequence token ends there: the token's text is no text of the answer
    # (engines never pass it to the parsers, nor search it for stop strings)
    generated = driver.decode(cell, ids[:-1] if output.endswith(EOS) else ids)
    max_tokens, stop, cut = None, None, False
    if cell.finish == "length":
        at = cut_point(output, text.cut_after)
        if text.cut_after:  # the tokens up to the cut
            max_tokens = len(driver.token_ids(cell, output[:at]))
        else:
            max_tokens = max(1, len(ids) * at // max(len(output), 1))
        if max_tokens >= len(ids):
            outcome.skipped = "too short to cut"
            return outcome
        generated, cut = driver.decode(cell, ids[:max_tokens]), True
    elif cell.finish == "stop":
        stop = stop_string(generated, text.cut_after)
        if stop is None:
            outcome.skipped = "no stop string inside"
            return outcome
        generated, cut = generated[: generated.find(stop)], True
    asked = max_tokens or len(ids) + 16
    to_ask = getattr(driver, "max_tokens_to_ask", None)
    if to_ask is not None:
        asked = to_ask(cell, asked)
    body = request_body(cell, text.tools, text.reasoning_open, max_tokens=asked, stop=stop, cut=cut)
    status, payload = driver.serve(cell, output, body)
    refused = refusal(driver.engine, cell)
    if refused is not None:
        if status != 400:
            outcome.problems.append(f"expected the engine to refuse the request ({refused.name}), got HTTP {status}")
        return outcome
    served_ids = ids[:max_tokens] if max_tokens else driver.token_ids(cell, generated) if cut else ids

    def ends_last() -> bool:
        """Whether a call the model wrote text inside ends in the engine's last step (see ENGINE_FAULTS)."""
        start = (max(len(served_ids) - 1, 0) // cell.group) * cell.group
        before = driver.decode(cell, served_ids[:start])
        return call_with_text_ends_in_last_step(before, generated[len(before) :], text.tools, cell, text.reasoning_open)

    if status != 200:
        problem = f"HTTP {status}: {str(payload)[:300]}"
        fault = engine_fault(driver.engine, cell, problem, ends_last())
        if fault is not None:
            outcome.engine_fault = fault.name
        else:
            outcome.problems.append(problem)
        return outcome
    served = FOLDS[(cell.api, cell.stream)](payload)
    steps = (lambda: step_texts(driver, cell, served_ids, generated)) if cell.stream else None
    want = outcome.want = expected(driver.engine, cell, generated, text.tools, text.reasoning_open, cut, steps)
    outcome.problems.extend(served.faults)
    outcome.problems.extend(compare(served, want))
    outcome.problems.extend(check_reasoning_tokens(driver, cell, served, want, output))
    warnings = getattr(driver, "engine_warnings", None)
    if outcome.problems and warnings is not None:
        fault = engine_fault(driver.engine, cell, "\n".join(warnings()), ends_last())
        if fault is not None:
            outcome.engine_fault, outcome.problems = fault.name, []
            return outcome
    if cell.constrained and cell.finish == "end":
        refused = driver.grammar_refusals(cell, output)
        if refused is None:
            outcome.problems.append("the request was not constrained")
        elif refused:
            outcome.problems.append(f"the grammar refuses tokens of the intended output: {refused[:8]}")
        schema_refused = getattr(driver, "schema_refused", None)
        broken = broken_variant(text, output) if refused == [] and schema_refused is not None else None
        if broken is not None and schema_refused(cell, broken) is False:
            outcome.problems.append("the grammar accepts a call that lacks a required key")
    return outcome


def step_texts(driver: Driver, cell: Cell, ids: Sequence[int], generated: str) -> list[str]:
    """``generated`` as the engine's steps deliver it: ``cell.group`` tokens a step, a step whose text ends inside
    a character (or past a stop string) joined to the next."""
    steps, done = [], ""
    for end in range(cell.group, len(ids) + cell.group, cell.group):
        text = driver.decode(cell, ids[:end]) if end < len(ids) else generated
        if end < len(ids) and (not generated.startswith(text) or "\ufffd" in text[len(done) :]):
            continue
        steps.append(text[len(done) :])
        done = text
    return [*steps[:-1], steps[-1] + generated[len(done) :]] if steps else [generated]


#: a piece of reasoning this long between split tags holds at least one token of its own
SPLIT_TAG_ROOM = 12


def check_reasoning_tokens(driver: Driver, cell: Cell, served: Served, want: Served, output: str) -> list[str]:
    """Usage's ``reasoning_tokens``, where the API reports it: the tokens of the reasoning text when each tag is one
    token; when tags are split, none without reasoning and some when a piece of the reasoning is long enough to hold
    a token of its own (a token holding reasoning text and part of a tag is not counted, so a short piece between
    split tags may count none)."""
    count = served.reasoning_tokens
    if count is None or cell.finish != "end":
        return []
    if not cell.reasoning_parser:
        return [] if count == 0 else [f"reasoning_tokens {count} without a reasoning parser"]
    if cell.tokens != "split":
        exact = _reasoning_tokens_in_context(driver, cell, want.reasoning, output)
        return [] if count == exact else [f"reasoning_tokens {count}, the reasoning text is {exact} tokens"]
    too_many = count > len(driver.token_ids(cell, output)) or (count > 0 and not want.reasoning)
    long_piece = max(map(len, reasoning_pieces(want.reasoning, output)), default=0) >= SPLIT_TAG_ROOM
    if too_many or (long_piece and not count):
        return [f"reasoning_tokens {count} for reasoning {want.reasoning[:40]!r}"]
    return []


def _reasoning_tokens_in_context(driver: Driver, cell: Cell, reasoning: str, output: str) -> int:
    """The tokens of the reasoning text, each of its pieces tokenized apart: where the output interrupts it (a tag
    or an end-of-sequence marker the reading drops, content between two reasoning parts), the texts on either side
    never share a token, while tokenized as one text they may (``p`` ``<|im_end|>`` ``r`` is ``pr`` alone)."""
    return sum(len(driver.token_ids(cell, piece)) for piece in reasoning_pieces(reasoning, output))


def reasoning_pieces(reasoning: str, output: str) -> list[str]:
    """``reasoning`` cut into the pieces the output writes it in, in order: from the start of the output, each next
    piece is the longest start of the rest of the reasoning that the output holds from there on (at its first place)
    and that ends where the output ends or a tag follows (reasoning is interrupted by markup only)."""
    from longcat_plugins.core import tags

    dropped = (*tags.THINK_OPENS, *tags.THINK_CLOSES, *tags.END_OF_SEQUENCE, "<")
    pieces, at, rest = [], 0, reasoning
    while rest:
        low, high = 0, len(rest)  # the longest start of rest found in output[at:] (a longer one holds a shorter)
        while low < high:
            mid = (low + high + 1) // 2
            if output.find(rest[:mid], at) >= 0:
                low = mid
            else:
                high = mid - 1
        found = output.find(rest[:low], at)
        while low and low < len(rest) and not output.startswith(dropped, found + low):
            low -= 1
            found = output.find(rest[:low], at)
        if not low:
            pieces.append(rest)  # (not in the output as written: the reading changed it; counted as one text)
            break
        pieces.append(rest[:low])
        at, rest = found + low, rest[low:]
    return pieces


def compare(served: Served, want: Served) -> list[str]:
    problems = []
    for name in ("content", "reasoning", "calls", "finish"):
        got, exp = getattr(served, name), getattr(want, name)
        if got != exp:
            problems.append(f"{name}: served {_around(got, exp)}, one pass {_around(exp, got)}")
    return problems


def _around(value: Any, other: Any, width: int = 60) -> str:
    """``repr(value)``, shortened to the part where it first differs from ``other``."""
    text, other_text = repr(value), repr(other)
    if len(text) <= 2 * width:
        return text
    i = next(
        (k for k, (a, b) in enumerate(zip(text, other_text, strict=False)) if a != b), min(len(text), len(other_text))
    )
    start = max(i - width, 0)
    return f"[{len(text)} chars, from {start}] ...{text[start : i + width]}..."
