"""Minimizing a failing case: delete chunks of the output, then simplify the tools and options, while the same check
still fails."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from longcat_plugins.core import dialects as D
from longcat_plugins.core import tags as T

from .cases import Case, Segment, expected_of
from .checks import Failure, run_checks
from .known import known_for
from .texts import ALL_TAGS


def still_fails(check: str, detail: str, known: str | None) -> Callable[[Case], bool]:
    """The predicate a smaller case must keep: the same check fails, as the same known fault (or as none), and for
    an exception with the same type."""
    kind = detail.split(":", 1)[0] if check == "exception" else None

    def same(case: Case, f: Failure) -> bool:
        if f.check != check or (kind is not None and f.detail.split(":", 1)[0] != kind):
            return False
        return known_for(case, f) == known

    def fails(case: Case) -> bool:
        return any(same(case, f) for f in run_checks(case, only=check))

    return fails


class _Budget:
    def __init__(self, evaluations: int) -> None:
        self.left = evaluations

    def test(self, fails: Callable[[Case], bool], case: Case) -> bool:
        if self.left <= 0:
            return False
        self.left -= 1
        return fails(case)


def _shrink_text(case: Case, fails: Callable[[Case], bool], budget: _Budget) -> Case:
    text = case.text
    chunk = max(1, len(text) // 2)
    while budget.left > 0:
        removed = False
        i = 0
        while i < len(text) and budget.left > 0:
            candidate = text[:i] + text[i + chunk :]
            if budget.test(fails, case.with_text(candidate)):
                text = candidate
                removed = True
            else:
                i += chunk
        if chunk == 1 and not removed:
            break
        if not removed or chunk > len(text):
            chunk = max(1, chunk // 2)
    return case.with_text(text)


def _tool_variants(tools: list[dict[str, Any]]) -> list[list[dict[str, Any]] | None]:
    """Simpler tool lists: none at all, one tool fewer, one parameter fewer, no $defs."""
    variants: list[list[dict[str, Any]] | None] = [None, []]
    for i in range(len(tools)):
        variants.append(tools[:i] + tools[i + 1 :])
    for i, tool in enumerate(tools):
        function = tool.get("function", tool)
        params = function.get("parameters") if isinstance(function, dict) else None
        if not isinstance(params, dict):
            continue
        properties = params.get("properties")
        simpler: list[dict[str, Any]] = []
        if isinstance(properties, dict):
            for key in properties:
                simpler.append({**params, "properties": {k: v for k, v in properties.items() if k != key}})
        if "$defs" in params:
            simpler.append({k: v for k, v in params.items() if k != "$defs"})
        for p in simpler:
            new_function = {k: v for k, v in function.items() if k != "description"} | {"parameters": p}
            new_tool = {"type": "function", "function": new_function} if "function" in tool else new_function
            variants.append([*tools[:i], new_tool, *tools[i + 1 :]])
    return variants


def _shrink_request(case: Case, fails: Callable[[Case], bool], budget: _Budget) -> Case:
    changed = True
    while changed and budget.left > 0:
        changed = False
        if case.options:
            for key in list(case.options):
                candidate = replace(case, options={k: v for k, v in case.options.items() if k != key})
                if budget.test(fails, candidate):
                    case, changed = candidate, True
                    break
        if case.tools is not None:
            for tools in _tool_variants(case.tools):
                candidate = replace(case, tools=tools)
                if budget.test(fails, candidate):
                    case, changed = candidate, True
                    break
    return case


def minimize(case: Case, failure: Failure, evaluations: int = 4000) -> Case:
    """The smallest case found (within ``evaluations`` checks) that fails ``failure.check`` the same way."""
    fails = still_fails(failure.check, failure.detail, known_for(case, failure))
    budget = _Budget(evaluations)
    if failure.check == "roundtrip" and case.segments is not None:
        return _shrink_segments(case, fails, budget)
    case = case.with_text(case.text)
    while budget.left > 0:
        before = (case.text, case.tools, case.options)
        case = _shrink_text(case, fails, budget)
        case = _shrink_request(case, fails, budget)
        if (case.text, case.tools, case.options) == before:
            break
    return case


# -- well-formed outputs: shrink by structure, so that the expected result stays known --------------------------------

_WRAPPER_OPENS = (T.LONGCAT_CALL_OPEN, T.HERMES_CALL_OPEN)


def _tag_count(text: str) -> int:
    return sum(text.count(t) for t in ALL_TAGS)


def _valid(segments: tuple[Segment, ...], options: dict[str, bool]) -> bool:
    """Whether segments still form an output whose expected result is what :func:`expected_of` says."""
    if options.get("reasoning_open") and (not segments or segments[0].kind != "reasoning"):
        return False
    for i, segment in enumerate(segments):
        following = segments[i + 1] if i + 1 < len(segments) else None
        closed = any(role == "think-markup" and text in D.THINK_CLOSES for role, text in segment.parts)
        ended_by_call = segment.kind == "reasoning" and not closed  # by the call tag that follows it
        if ended_by_call and (following is None or not following.text.startswith(_WRAPPER_OPENS)):
            return False
        if segment.kind == "kv.no-closer":
            if following is not None and following.kind == "prose" and following.text.strip(" \t\r\n"):
                return False  # text after an unclosed key/value call is read as part of it
            if not any(role.startswith("param:") for role, _ in segment.parts):
                return False  # a name alone, cut off, is not a call
    parts = [part for s in segments for part in s.parts]
    for role, text in parts:
        if role == "stray" and (not text.strip(" \t\r\n") or text[-1] in " \t\r\n"):
            return False  # stray text ends in text (whitespace before a tag is markup), and is not whitespace alone
    for (_, before), (role, _) in itertools.pairwise(parts):
        if role == "stray" and before[-1:] in " \t\r\n":
            return False  # the whitespace before stray text is text: it must be the stray text's own
    text = "".join(s.text for s in segments)
    return _tag_count(text) == sum(_tag_count(t) for s in segments for _, t in s.parts)


def _shrink_segments(case: Case, fails: Callable[[Case], bool], budget: _Budget) -> Case:
    assert case.segments is not None
    reasoning = case.options.get("reasoning", True)
    tools = case.options.get("tools", True)

    def build(segments: tuple[Segment, ...]) -> Case:
        text = "".join(s.text for s in segments)
        return replace(case, text=text, expected=expected_of(segments, reasoning, tools), segments=segments)

    segments = case.segments
    changed = True
    while changed and budget.left > 0:
        changed = False
        for i in range(len(segments)):
            candidate = segments[:i] + segments[i + 1 :]
            if _valid(candidate, case.options) and budget.test(fails, build(candidate)):
                segments, changed = candidate, True
                break
    # then the parameters of markup calls, one at a time
    changed = True
    while changed and budget.left > 0:
        changed = False
        for si, segment in enumerate(segments):
            if len(segment.calls) != 1:
                continue
            call = segment.calls[0]
            for pi, (role, _) in enumerate(segment.parts):
                if not role.startswith("param:"):
                    continue
                key = role[len("param:") :]
                args = {k: v for k, v in call.arguments.items() if k != key}
                seg = replace(
                    segment,
                    parts=segment.parts[:pi] + segment.parts[pi + 1 :],
                    calls=(replace(call, arguments=args),),
                )
                candidate = (*segments[:si], seg, *segments[si + 1 :])
                if _valid(candidate, case.options) and budget.test(fails, build(candidate)):
                    segments, changed = candidate, True
                    break
            if changed:
                break
    # then the text of prose and reasoning parts, a chunk at a time
    for si in range(len(segments)):
        for pi in range(len(segments[si].parts)):
            role, text = segments[si].parts[pi]
            if role not in ("prose", "reasoning", "stray"):
                continue
            chunk = max(1, len(text) // 2)
            while budget.left > 0 and text:
                removed = False
                i = 0
                while i < len(text) and budget.left > 0:
                    shorter = text[:i] + text[i + chunk :]
                    parts = segments[si].parts
                    seg = replace(segments[si], parts=(*parts[:pi], (role, shorter), *parts[pi + 1 :]))
                    candidate = (*segments[:si], seg, *segments[si + 1 :])
                    if (
                        _tag_count(shorter) <= _tag_count(text)
                        and _valid(candidate, case.options)
                        and budget.test(fails, build(candidate))
                    ):
                        segments, text, removed = candidate, shorter, True
                    else:
                        i += chunk
                if chunk == 1 and not removed:
                    break
                if not removed:
                    chunk = max(1, chunk // 2)
    segments = tuple(s for s in segments if s.parts and s.text)
    result = build(segments)
    # tools no call names can go (the others type the expected values)
    called = {c.name for s in segments for c in s.calls}
    for tool in list(result.tools or ()):
        function = tool.get("function", tool)
        if function.get("name") not in called and result.tools is not None and budget.left > 0:
            fewer = replace(result, tools=[t for t in result.tools if t is not tool])
            if budget.test(fails, fewer):
                result = fewer
    return result
