"""What a cell must serve for a text: the core's one-pass reading, seen through the API, with the differences an
engine's API makes by design written down once, as data (:data:`DIFFERENCES`), each with its reason."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from longcat_plugins.core import ParserOptions, StreamParser, parse
from longcat_plugins.core.bare_calls import may_hold_call
from longcat_plugins.core.events import Content, Reasoning, ToolCallEnd, ToolCallStart
from longcat_plugins.core.item_order import CallItemOrder

from .cells import Cell


@dataclass(frozen=True)
class Served:
    """An answer as a user reads it, the same for every API: text, reasoning, calls (name, decoded arguments), and
    the API's own stop reason."""

    content: str = ""
    reasoning: str = ""
    calls: tuple[tuple[str, Any], ...] = ()
    finish: str | None = None
    #: problems seen while folding the answer (a stream's shape, arguments that are not JSON...)
    faults: tuple[str, ...] = field(default=(), compare=False)
    #: usage's ``reasoning_tokens``, where the API reports it
    reasoning_tokens: int | None = field(default=None, compare=False)
    #: (a reading whose steps are known) its content without the text of a step that is only whitespace while a
    #: call is open, computed when asked (see the ``blank-text-after-a-call`` difference)
    content_without_blank_after_calls: Callable[[], str] | None = field(default=None, compare=False)

    def describe(self) -> str:
        return (
            f"content={self.content!r} reasoning={self.reasoning!r} calls={list(self.calls)!r} finish={self.finish!r}"
        )


def core_options(cell: Cell, reasoning_open: bool) -> ParserOptions:
    """The options the cell's parsers read with: a request with a stop string (the ``stop`` finish) may be cut
    inside a call, which is then text."""
    return ParserOptions(
        reasoning=cell.reasoning_parser,
        tools=cell.calls_parsed,
        reasoning_open=reasoning_open and cell.reasoning_parser,
        cut_calls_as_text=cell.finish == "stop",
    )


def one_pass(
    text: str, tools: Any, cell: Cell, reasoning_open: bool, steps: Callable[[], Sequence[str]] | None = None
) -> Served:
    """The core's reading of the generated text with the options the cell's parsers run with. A tool parser knows the
    request's tools even when it reads no calls (``tool_choice="none"``): a block naming none of them is text; the
    reasoning parser alone knows none."""
    message = parse(text, tools if cell.tool_parser and cell.has_tools else None, core_options(cell, reasoning_open))
    calls = tuple((c.name, json.loads(c.arguments)) for c in message.tool_calls)
    without_blank = None
    if steps is not None and message.tool_calls:
        without_blank = lambda: _without_blank_steps(steps(), tools, cell, reasoning_open)  # noqa: E731
    return Served(message.content, message.reasoning, calls, content_without_blank_after_calls=without_blank)


def _without_blank_steps(steps: Sequence[str], tools: Any, cell: Cell, reasoning_open: bool) -> str:
    """The reading's content, read as the engine's steps deliver the text and ordered per step as our adapter orders
    it (:class:`CallItemOrder`: text met inside or after a call goes out at the start of a later step), without the
    text of a step that is only whitespace while a call that began in an earlier step is open (open: no step since had
    text that is not)."""
    parser = StreamParser(tools if cell.tool_parser and cell.has_tools else None, core_options(cell, reasoning_open))
    order = CallItemOrder()
    open_call, kept = False, []
    for n, step in enumerate(steps):
        read = parser.feed(step)
        events = order.filter(read) if n < len(steps) - 1 else order.finish([*read, *parser.finish()])
        text = "".join(e.text for e in events if isinstance(e, Content))
        if text.strip() or not open_call:
            kept.append(text)
        if text.strip():
            open_call = False
        if any(isinstance(e, ToolCallStart) for e in events):
            open_call = True
    return "".join(kept)


@dataclass(frozen=True)
class Difference:
    """A way an engine's API shows the core's reading differently by design."""

    name: str
    engines: frozenset[str]
    applies: Callable[[Cell, Served, str], bool]  # (the cell, the reading, the generated text)
    apply: Callable[[Served, str], Served]  # (the reading, the generated text)
    reason: str


def _blank_content(served: Served, text: str) -> Served:
    return replace(served, content="")


def _first_call(served: Served, text: str) -> Served:
    return replace(served, calls=served.calls[:1])


def _as_generated(served: Served, text: str) -> Served:
    return Served(content=text)


def _without_blank_after_calls(served: Served, text: str) -> Served:
    assert served.content_without_blank_after_calls is not None
    return replace(served, content=served.content_without_blank_after_calls())


def _with_end_markers(served: Served, text: str) -> Served:
    """The reading's content with the end-of-sequence markers of the text put back (the text had no call)."""
    return replace(served, content=text if not served.reasoning else served.content)


DIFFERENCES: tuple[Difference, ...] = (
    Difference(
        "blank-content-beside-calls",
        frozenset({"vllm"}),
        lambda cell, s, text: bool(s.calls) and not s.content.strip(),
        _blank_content,
        "vLLM drops content that is only whitespace from a message with calls (DelegatingParser._extract_tool_calls); "
        "the stream holds it back to match",
    ),
    Difference(
        "single-call",
        frozenset({"vllm"}),
        lambda cell, s, text: not cell.parallel and len(s.calls) > 1,
        _first_call,
        "parallel_tool_calls=false: vLLM serves the first call only (SGLang serves every call the model wrote; it "
        "limits calls only through the grammar of a constrained request)",
    ),
    Difference(
        "no-parser-reads-it",
        frozenset({"sglang"}),
        lambda cell, s, text: not cell.reasoning_parser and not cell.calls_parsed,
        _as_generated,
        "SGLang runs no parser on a request without tools (or with tool_choice none) when the server has no "
        "reasoning parser: the text comes as generated, end-of-sequence markers included (vLLM runs ours, which "
        "drops them)",
    ),
    Difference(
        "whole-answer-without-a-call-tag",
        frozenset({"sglang"}),
        lambda cell, s, text: (
            not cell.stream
            and not cell.reasoning_parser
            and not may_hold_call(text)
            and any(marker in text for marker in ("</longcat_s>", "<|im_end|>"))
        ),
        _with_end_markers,
        "SGLang runs the tool parser on a whole answer only when the parser's has_tool_call says it may hold a call "
        "(OpenAIServingChat._process_tool_calls, OpenAIServingResponses._parse_text_output; ours answers with "
        "core.bare_calls.may_hold_call: a block, call or key tag, a tool's name as a tag, a bare call): otherwise, "
        "and without a reasoning parser, end-of-sequence markers the model wrote as text stay in the content",
    ),
    Difference(
        "blank-text-after-a-call",
        frozenset({"sglang"}),
        lambda cell, s, text: (
            cell.api == "responses"
            and cell.stream
            and s.content_without_blank_after_calls is not None
            and s.content_without_blank_after_calls() != s.content
        ),
        _without_blank_after_calls,
        "SGLang's Responses stream drops the text of a step that is only whitespace while a call that began in an "
        "earlier step is open, i.e. no text that is not whitespace came since (serving_responses."
        "_should_emit_normal_text_as_message: it takes it for a separator between calls); such text: whitespace "
        "after a call, or the unread rest of a call the output's end cut, which the reading gives as content",
    ),
)


@dataclass(frozen=True)
class Refusal:
    """A request an engine refuses (HTTP 400) by design."""

    name: str
    engines: frozenset[str]
    applies: Callable[[Cell], bool]
    reason: str


REFUSALS: tuple[Refusal, ...] = (
    Refusal(
        "tool-choice-without-tool-parser",
        frozenset({"vllm"}),
        lambda cell: (
            not cell.tool_parser and cell.api != "responses" and cell.tool_choice in ("auto", "required", "named")
        ),
        "vLLM refuses a request with tools and tool_choice auto, required or named when the server runs no tool "
        "parser ('\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser')",
    ),
)


def call_with_text_ends_in_last_step(before: str, last: str, tools: Any, cell: Cell, reasoning_open: bool) -> bool:
    """Whether, in the core's reading of an output that came as ``before`` and then ``last`` (the engine's last
    step), a call the model wrote text inside ends in the last step: that text and the call's last arguments then
    share the last message."""
    parser = StreamParser(tools if cell.tool_parser and cell.has_tools else None, core_options(cell, reasoning_open))
    early = parser.feed(before)
    late = [*parser.feed(last), *parser.finish()]
    open_call: int | None = None
    text_inside: set[int] = set()
    for n, event in enumerate([*early, *late]):
        if isinstance(event, ToolCallStart):
            open_call = event.index
        elif isinstance(event, (Content, Reasoning)) and open_call is not None and event.text:
            text_inside.add(open_call)
        elif isinstance(event, ToolCallEnd):
            if n >= len(early) and event.index in text_inside:
                return True
            open_call = None
    return False


@dataclass(frozen=True)
class EngineFault:
    """A way an engine's own serving code fails a cell, whatever the parser gives it; counted apart, never hidden.
    It applies only where its reason says: ``applies`` sees the cell, the problem, and whether a call the model wrote
    text inside ends in the output's last step (:func:`call_with_text_ends_in_last_step`)."""

    name: str
    engines: frozenset[str]
    applies: Callable[[Cell, str, bool], bool]  # (cell, the problem seen, a call with text inside ends last)
    reason: str


#: (none left: SGLang's Messages stream, which closes a ``tool_use`` block at text and drops the arguments that follow,
#: is served each call whole, see ``longcat_plugins/sglang/request_context.py``)
ENGINE_FAULTS: tuple[EngineFault, ...] = ()


def engine_fault(engine: str, cell: Cell, problem: str, ends_last: bool) -> EngineFault | None:
    return next((f for f in ENGINE_FAULTS if engine in f.engines and f.applies(cell, problem, ends_last)), None)


def refusal(engine: str, cell: Cell) -> Refusal | None:
    return next((r for r in REFUSALS if engine in r.engines and r.applies(cell)), None)


def keeps_special_tokens(engine: str, cell: Cell) -> bool:
    """Whether the engine's detokenizer keeps special tokens in the text the parsers read and the user is served.

    Our parsers ask for them (``skip_special_tokens=False``): the reasoning parser always, the tool parser for a
    request with tools whose tool choice is not ``none`` (vLLM does not let the parsers adjust such a request;
    SGLang keeps special tokens for tool parsing only then). Otherwise special tokens are dropped, as both engines
    do by default."""
    return cell.reasoning_parser or (cell.tool_parser and cell.tool_choice not in ("none", "no_tools"))


def finish_reason(engine: str, cell: Cell, served: Served, cut: bool) -> str:
    """The API's own stop reason for an answer, by how the output ended and whether it has calls. For a named tool
    choice OpenAI (and vLLM) report ``stop``; SGLang reports ``tool_calls``. SGLang's Messages API reports a stop
    sequence as ``end_turn`` (its ``STOP_REASON_MAP``)."""
    if cell.api == "chat":
        if cell.finish == "length" and cut:
            return "length"
        if served.calls and (cell.tool_choice != "named" or engine == "sglang"):
            return "tool_calls"
        return "stop"
    if cell.api == "responses":
        return "incomplete" if cell.finish == "length" and cut else "completed"
    # messages (SGLang maps every stop of the output to end_turn, a stop sequence included)
    if cell.finish == "length" and cut:
        return "max_tokens"
    if served.calls:
        return "tool_use"
    if cell.finish == "stop" and cut and engine == "vllm":
        return "stop_sequence"
    return "end_turn"


def expected(
    engine: str,
    cell: Cell,
    generated: str,
    tools: Any,
    reasoning_open: bool,
    cut: bool,
    steps: Callable[[], Sequence[str]] | None = None,
) -> Served:
    """What ``engine`` must serve in ``cell`` for an output whose generated text (after any cut) is ``generated``,
    delivered in ``steps()`` (the engine's steps' text, when known)."""
    served = one_pass(generated, tools, cell, reasoning_open, steps)
    for difference in DIFFERENCES:
        if engine in difference.engines and difference.applies(cell, served, generated):
            served = difference.apply(served, generated)
    return replace(served, finish=finish_reason(engine, cell, served, cut))
