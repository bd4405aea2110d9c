"""The invariants of the design (section 4) as checks on one case; each failure names its check.

* ``exception``: no input raises (invariant 3).
* ``stream-equal``: streaming equals the whole parse for 1-char, random, k-group splits, and large deltas that hold
  several events each (up to 256 characters, and deltas that each end right after a tag) (invariant 1).
* ``item-order``: each split's events, batch by batch through what orders them for the item-by-item APIs
  (:class:`~longcat_plugins.core.item_order.CallItemOrder`), give the same message, with no text inside a call.
* ``order``: calls numbered 0..n-1 in order, a call's first event carries id and name, every call ends (6).
* ``args-json``: each call's arguments, at the end, are one JSON object that strict decoders (``JSON.parse`` without
  loss, serde_json) accept: no NaN/Infinity, no number out of range, no lone surrogate (invariant 2).
* ``accounting-verbatim``: with no call and no reasoning or end-of-sequence tag, the output comes back verbatim (3).
* ``accounting-order``: content, and reasoning, are each a subsequence of the output (nothing invented, duplicated
  or reordered) (3).
* ``accounting-words``: every sentinel word of an output with no JSON call syntax (``{``) comes out somewhere: in
  content, reasoning, a call's name or arguments (3: nothing lost).
* ``roundtrip``: a well-formed output gives exactly the content, reasoning and calls it was built from (3).
* ``two-stage``: SGLang's chain of our parsers (``longcat_plugins/sglang/one_pass.py``): the reasoning stage reads
  the output, split in steps, with the request's tools and keeps the reasoning; the tool stage takes the rest of that
  reading after each step (and after the reasoning stage's end); the two together equal one pass. Only for a request
  with tools (SGLang runs no tool stage without them) whose output starts where the request says.
* ``progress``: text with no character a tag starts with ('<', or a declared tag's first) is released at once
  (until a call is announced), up to a possible tool name, or the head of a call object written with no tag at the
  start of the output (invariant 5); not where the options hold text by design (a start nothing tells; a call, or a
  call object, that a stop may cut).

Every check runs under the case's parser options, drawn in any combination (``outputs.request_options``).
* ``name``: a call's name is never empty and holds no whitespace or markup (design, section 3).
"""

from __future__ import annotations

import json
import random
import re
import traceback
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from longcat_plugins.core import MessageBuilder, ParsedMessage, ParserOptions, StreamParser
from longcat_plugins.core import dialects as D
from longcat_plugins.core.events import Content, Event, Reasoning, ToolCallArgs, ToolCallEnd, ToolCallStart
from longcat_plugins.core.item_order import CallItemOrder
from longcat_plugins.core.tag_starts import has_tag_start

from ..support.events import feed, fold, groups_of, split_at, summary
from ..support.strict_json import strict_json_loads
from .cases import Case, Expected
from .texts import END_OF_SEQUENCE, SENTINEL, THINK_AND_EOS

#: the key/value dialects' pair tags, as declared
_PAIRS = tuple(d.pairs for d in D.PAIR_DIALECTS.values() if d.pairs is not None)

CHECKS = (
    "exception",
    "stream-equal",
    "item-order",
    "order",
    "args-json",
    "accounting-verbatim",
    "accounting-order",
    "accounting-words",
    "roundtrip",
    "two-stage",
    "progress",
    "name",
)


@dataclass(frozen=True)
class Failure:
    check: str
    detail: str


@dataclass
class Run:
    """One parse of a case in one split."""

    split: str
    message: ParsedMessage
    events: list[Event]
    #: the events of each feed, then of ``finish()``
    batches: list[list[Event]]
    #: characters of content and reasoning released after each feed
    released: list[int]
    #: the feeds before the first call was announced
    before_calls: int


def stream(pieces: Sequence[str], tools: Any, options: ParserOptions, split: str) -> Run:
    streamed = feed(pieces, parser=StreamParser(tools, options))
    released: list[int] = []
    total = 0
    before_calls = -1
    for i, batch in enumerate(streamed.batches[:-1]):
        total += sum(len(e.text) for e in batch if isinstance(e, (Content, Reasoning)))
        released.append(total)
        if before_calls < 0 and any(isinstance(e, ToolCallStart) for e in batch):
            before_calls = i
    before = len(released) if before_calls < 0 else before_calls
    return Run(split, streamed.message, streamed.events, streamed.batches, released, before)


#: the most characters a large delta holds (64 tokens of a few characters each)
LARGE_DELTA = 256


def splits(text: str) -> list[tuple[str, list[str]]]:
    """The splits every case is streamed in besides the whole text (deterministic for a given text): a character
    at a time, k at a time, at random cuts, in large deltas of 1 to 256 characters (an engine's many tokens per
    step), and in deltas that each end right after a tag, a few tags apart (so that one delta closes a call and
    holds the next one whole)."""
    rng = random.Random(zlib.crc32(text.encode("utf-8", "surrogatepass")))
    k = rng.choice((2, 3, 4, 5, 7, 16, 64))
    cuts = [rng.randint(1, max(1, len(text) - 1)) for _ in range(rng.randint(1, 30))]
    large, at = [], 0
    while at < len(text):
        at += rng.randint(1, LARGE_DELTA)
        large.append(at)
    tag_ends = [i + 1 for i, c in enumerate(text) if c == ">"]
    every = rng.randint(1, 4)
    by_tags = tag_ends[rng.randrange(every) :: every] if tag_ends else []
    return [
        ("chars", list(text)),
        (f"groups-{k}", groups_of(text, k)),
        ("random", split_at(text, cuts)),
        ("large", split_at(text, large)),
        (f"tags-{every}", split_at(text, by_tags)),
    ]


# -- JSON values -------------------------------------------------------------------------------------------------------


def same_json(a: Any, b: Any) -> bool:
    """Equality of JSON values that tells booleans from numbers (1 == True in Python)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


# -- the checks --------------------------------------------------------------------------------------------------------


def _events(run: Run) -> list[Failure]:
    """Invariants 6 and 2 on one event stream."""
    failures: list[Failure] = []
    started: list[int] = []
    ids: set[str] = set()
    ended: set[int] = set()
    args: dict[int, list[str]] = {}
    where = f"(split {run.split})"
    for e in run.events:
        if isinstance(e, ToolCallStart):
            if e.index != len(started):
                failures.append(Failure("order", f"call numbered {e.index}, expected {len(started)} {where}"))
            if not (isinstance(e.id, str) and e.id and isinstance(e.name, str) and e.name):
                failures.append(Failure("order", f"call {e.index} starts without id or name {where}"))
            if e.id in ids:
                failures.append(Failure("order", f"call id {e.id!r} used twice {where}"))
            ids.add(e.id)
            started.append(e.index)
            args[e.index] = []
        elif isinstance(e, ToolCallArgs):
            if e.index not in args or e.index in ended:
                failures.append(Failure("order", f"arguments of call {e.index} outside the call {where}"))
            else:
                args[e.index].append(e.text)
        elif isinstance(e, ToolCallEnd):
            if e.index not in args or e.index in ended:
                failures.append(Failure("order", f"end of call {e.index} without its start, or twice {where}"))
            ended.add(e.index)
    missing = set(started) - ended
    if missing:
        failures.append(Failure("order", f"calls {sorted(missing)} never end {where}"))
    for index, fragments in args.items():
        text = "".join(fragments)
        try:
            value = strict_json_loads(text)
        except RecursionError:
            continue  # nested deeper than this checker's decoder goes: not decided here
        except ValueError as exc:
            failures.append(Failure("args-json", f"call {index}: {exc}: {text[:200]!r} {where}"))
            continue
        if not isinstance(value, dict):
            failures.append(Failure("args-json", f"call {index}: not an object: {text[:200]!r} {where}"))
    return failures


def _item_order(run: Run, reference: tuple[str, str, list[tuple[str, str]]]) -> list[Failure]:
    """The run's batches through :class:`CallItemOrder`: the same message, and no text between a call's start and
    its end but in the last batch (which ends every call)."""
    order = CallItemOrder()
    batches = [list(order.filter(batch)) for batch in run.batches[:-1]]
    batches.append(order.finish(run.batches[-1]))
    ordered = summary(fold(batches))
    if ordered != reference:
        return [Failure("item-order", f"split {run.split}: {_diff(ordered, reference)}")]
    open_call = False
    for event in (e for batch in batches[:-1] for e in batch):
        if isinstance(event, ToolCallStart):
            open_call = True
        elif isinstance(event, ToolCallEnd):
            open_call = False
        elif open_call and isinstance(event, (Content, Reasoning)) and event.text:
            return [Failure("item-order", f"split {run.split}: text inside a call: {_short(event.text)}")]
    return []


def _diff(a: tuple[str, str, list[tuple[str, str]]], b: tuple[str, str, list[tuple[str, str]]]) -> str:
    for label, x, y in (("content", a[0], b[0]), ("reasoning", a[1], b[1]), ("calls", a[2], b[2])):
        if x != y:
            return f"{label}: {_short(x)} != {_short(y)}"
    return "equal"


def _short(value: Any, limit: int = 300) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit // 2] + " ... " + text[-limit // 2 :]


def _has_tag(text: str, options: ParserOptions) -> bool:
    tags = THINK_AND_EOS if options.reasoning else END_OF_SEQUENCE
    return any(t in text for t in tags)


def _is_subsequence(pieces: list[str], text: str) -> int:
    """-1 when the pieces, joined, are a subsequence of ``text``; else how many characters of them were matched."""
    pos = 0
    matched = 0
    find = text.find
    for piece in pieces:
        i = find(piece, pos)  # the common case: a contiguous piece
        if i >= 0 and i == pos:
            pos = i + len(piece)
            matched += len(piece)
            continue
        for c in piece:
            i = find(c, pos)
            if i < 0:
                return matched
            pos = i + 1
            matched += 1
    return -1


def _accounting(case: Case, run: Run, options: ParserOptions) -> list[Failure]:
    failures: list[Failure] = []
    text = case.text
    message = run.message
    if not message.tool_calls and not _has_tag(text, options) and message.reasoning + message.content != text:
        failures.append(
            Failure(
                "accounting-verbatim",
                f"no call, no reasoning tag, but reasoning+content != input: {_short(message.reasoning)} + "
                f"{_short(message.content)}",
            )
        )
    # each channel on its own (whitespace after a block is decided after reasoning that follows it, so the two
    # channels together need not be in input order)
    for kind in (Content, Reasoning):
        pieces = [e.text for e in run.events if isinstance(e, kind)]
        matched = _is_subsequence(pieces, text)
        if matched >= 0:
            shown = "".join(pieces)
            failures.append(
                Failure(
                    "accounting-order",
                    f"{kind.__name__.lower()} is not a subsequence of the input from char {matched}: "
                    f"{_short(shown[max(0, matched - 20) : matched + 40])}",
                )
            )
    if "{" not in text:
        found = [message.content, message.reasoning]
        for call in message.tool_calls:
            found += [call.name, call.arguments]
        haystack = "\x00".join(found)
        # (a key or a parameter's header the output ends in, cut off after its name began, is text too)
        lost = sorted({w for w in SENTINEL.findall(text) if w not in haystack})
        if lost:
            i = text.find(lost[0])
            context = text[max(0, i - 60) : i + len(lost[0]) + 20]
            keys = [(text.rfind(pairs.key_open, 0, i), pairs.key_close) for pairs in _PAIRS]
            inside = any(key >= 0 and text.find(close, key, i) < 0 for key, close in keys)
            where = " inside a key/value key" if inside else ""
            failures.append(Failure("accounting-words", f"lost {', '.join(lost)}; first{where} in {context!r}"))
    return failures


def _roundtrip(expected: Expected, message: ParsedMessage) -> list[Failure]:
    problems = []
    if message.content != expected.content:
        problems.append(f"content {_short(message.content)} != expected {_short(expected.content)}")
    if message.reasoning != expected.reasoning:
        problems.append(f"reasoning {_short(message.reasoning)} != expected {_short(expected.reasoning)}")
    got = [(c.name, c.arguments) for c in message.tool_calls]
    if len(got) != len(expected.calls):
        problems.append(f"{len(got)} calls != expected {len(expected.calls)}: {_short(got)}")
    else:
        for (name, arguments), want in zip(got, expected.calls, strict=True):
            if name != want.name:
                problems.append(f"name {name!r} != expected {want.name!r}")
            try:
                value = json.loads(arguments)
            except ValueError:
                value = None
            if not same_json(value, want.arguments):
                problems.append(f"arguments of {name}: {_short(arguments)} != expected {_short(want.arguments)}")
    return [Failure("roundtrip", "; ".join(problems))] if problems else []


def _two_stage(case: Case, whole: Run, options: ParserOptions) -> list[Failure]:
    stage_options = ParserOptions(
        reasoning_open=options.reasoning_open,
        emit_unknown_calls=options.emit_unknown_calls,
        cut_calls_as_text=options.cut_calls_as_text,
    )
    reasoning_stage = StreamParser(case.tools, stage_options)
    reasoning = MessageBuilder()
    tool_stage = MessageBuilder()
    pieces = splits(case.text)[-1][1] or [""]  # SGLang's steps (the random split)
    for n, piece in enumerate(pieces, 1):
        events = reasoning_stage.feed(piece)
        if n == len(pieces):  # the reasoning stage ends with the last step, before the tool stage takes it
            events += reasoning_stage.finish()
        reasoning.add(e for e in events if isinstance(e, Reasoning))
        tool_stage.add(e for e in events if not isinstance(e, Reasoning))
    two = (tool_stage.message.content, reasoning.message.reasoning, summary(tool_stage.message)[2])
    one = summary(whole.message)
    if two != one:
        kind = "whitespace" if _squeeze(two) == _squeeze(one) else "text"
        return [Failure("two-stage", f"two stages != one pass ({kind}): {_diff(two, one)}")]
    return []


def _squeeze(result: tuple[str, str, list[tuple[str, str]]]) -> tuple[str, str, list[tuple[str, str]]]:
    return "".join(result[0].split()), "".join(result[1].split()), result[2]


#: ``[{"name": "", "parameters"`` and the little whitespace a call with no tag may have around its markup
_UNTAGGED_CALL_HEAD = len('[{"name":"","parameters"') + 16


_REASONING_SPAN = re.compile(r"<(longcat_)?think>.*?(</(longcat_)?think>|$)|</(longcat_)?think>", re.DOTALL)


def _content_start(case: Case) -> str:
    """The output from where its content starts: after leading whitespace and reasoning (a generous reading)."""
    text = case.text
    if case.options.get("reasoning_open"):
        text = re.sub(r"^.*?</(longcat_)?think>", "", text, count=1, flags=re.DOTALL)
    return _REASONING_SPAN.sub("", text).lstrip(" \t\r\n")


def _progress(case: Case, run: Run) -> list[Failure]:
    # what may be held back: a declared name, maybe with a namespace ("functions."), and a little whitespace
    longest = max((len(t) for t in _tool_names(case.tools)), default=None)
    bound = 0 if longest is None else longest + len("functions.") + 10
    if longest is not None and _content_start(case)[:1] in ("{", "["):
        bound += _UNTAGGED_CALL_HEAD  # the head of a call object written with no tag, up to its arguments key
    for i, released in enumerate(run.released[: run.before_calls]):  # (after, the text is a call block's)
        if i + 1 - released > bound:
            return [Failure("progress", f"after {i + 1} chars only {released} released (bound {bound})")]
    return []


def _tool_names(tools: Any) -> list[str]:
    names = []
    for tool in tools or ():
        function = tool.get("function", tool) if isinstance(tool, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        if isinstance(name, str):
            names.append(name)
    return names


_BAD_NAME = re.compile(r"[\s<>]")


def _names(run: Run) -> list[Failure]:
    bad = [c.name for c in run.message.tool_calls if not c.name or _BAD_NAME.search(c.name)]
    return [Failure("name", f"call names {_short(bad)}")] if bad else []


#: the checks that need the output streamed in every split (the others look at the whole parse only)
_SPLIT_CHECKS = frozenset({"exception", "stream-equal", "item-order", "order", "args-json", "progress"})


def run_checks(case: Case, only: str | None = None) -> list[Failure]:
    """All checks on one case (or the work ``only`` that check needs); at most one failure per check."""
    options = case.parser_options()
    try:
        whole = stream([case.text], case.tools, options, "whole")
    except Exception as exc:
        return [Failure("exception", f"{_exception(exc)} (split whole)")]
    failures: list[Failure] = []
    failures += _events(whole)
    reference = summary(whole.message)
    failures += _item_order(whole, reference)  # (the whole output in one delta: an engine's whole turn in one step)
    runs = [whole]
    for split, pieces in splits(case.text) if only is None or only in _SPLIT_CHECKS else ():
        try:
            run = stream(pieces, case.tools, options, split)
        except Exception as exc:
            failures.append(Failure("exception", f"{_exception(exc)} (split {split})"))
            continue
        runs.append(run)
        failures += _events(run)
        if summary(run.message) != reference:
            failures.append(Failure("stream-equal", f"split {split}: {_diff(summary(run.message), reference)}"))
        failures += _item_order(run, summary(run.message))
    if only is None or only.startswith("accounting"):
        failures += _accounting(case, whole, options)
    failures += _names(whole)
    if case.expected is not None and only in (None, "roundtrip"):
        failures += _roundtrip(case.expected, whole.message)
    # (SGLang's chain runs where the start of the output is known: its chat and Responses serving)
    two_stage = case.tools and options.tools and options.reasoning and not options.reasoning_start_unknown
    if two_stage and only in (None, "two-stage", "exception"):
        try:
            failures += _two_stage(case, whole, options)
        except Exception as exc:
            failures.append(Failure("exception", f"{_exception(exc)} (two stages)"))
    # (a start of the output that nothing tells is held until a think tag; with cut_calls_as_text a call is reported
    # once it is complete, and its text, or a call object's that may be cut, is held until then)
    may_hold_call = bool(whole.message.tool_calls) or _content_start(case)[:1] in ("{", "[")
    held = options.reasoning_start_unknown or (options.cut_calls_as_text and may_hold_call)
    if not has_tag_start(case.text) and not held:
        failures += [f for run in runs if run.split == "chars" for f in _progress(case, run)]
    first: dict[str, Failure] = {}
    for f in failures:
        first.setdefault(f.check, f)
    return list(first.values())


def _exception(exc: BaseException) -> str:
    frame = traceback.extract_tb(exc.__traceback__)[-1]
    return f"{type(exc).__name__}: {str(exc)[:200]} at {frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}"
