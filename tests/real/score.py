"""Scores a parser on the corpus of real model outputs (tests/real/cases.jsonl; see README.md).

    python -m tests.real.score [--verbose] [--cases PATH]

Runs every case through the core once in one piece (``parse``) and streamed through ``StreamParser`` in pieces of 1,
4 and 7 characters and as one delta, and prints per dialect how many cases come out right. A case is right when every
one of those runs gives the expected content, reasoning and calls (name, and arguments equal as JSON values).

``compare`` is the comparison on its own, for scorers of other producers (an engine's HTTP response, say): it takes
the expected block of a case and a message in any of the shapes ``normalize`` accepts.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

CASES_PATH = Path(__file__).with_name("cases.jsonl")

#: Delta sizes the core is streamed in; ``None`` is the whole text as one delta.
SPLITS: tuple[int | None, ...] = (1, 4, 7, None)


class Message(NamedTuple):
    """The parts of a response the corpus checks."""

    content: str
    reasoning: str
    tool_calls: list[tuple[str, Any]]  # (name, arguments as a JSON text or an already decoded value)


def load_cases(path: Path | str = CASES_PATH) -> list[dict[str, Any]]:
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def normalize(message: Any) -> Message:
    """A ``Message`` from: a core ``ParsedMessage`` (or anything with ``content``, ``reasoning`` and ``tool_calls``
    whose items have ``name`` and ``arguments``); an OpenAI chat-completion message dict (``content``,
    ``reasoning_content`` or ``reasoning``, ``tool_calls[].function.{name, arguments}``); or a dict shaped like a
    case's ``expected`` block. ``None`` content or reasoning counts as empty."""
    if isinstance(message, Message):
        return message
    if isinstance(message, dict):
        content = message.get("content")
        reasoning = message.get("reasoning_content", message.get("reasoning"))
        calls = []
        for tc in message.get("tool_calls") or []:
            f = tc.get("function", tc)
            calls.append((f.get("name"), f.get("arguments")))
    else:
        content = message.content
        reasoning = message.reasoning
        calls = [(tc.name, tc.arguments) for tc in message.tool_calls]
    return Message(content or "", reasoning or "", calls)


def canonical(value: Any) -> str:
    """Type-strict, key-order-free form of a JSON value (``3`` is not ``3.0``, ``true`` is not ``1``)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _short(text: str, limit: int = 160) -> str:
    r = repr(text)
    return r if len(r) <= limit else r[: limit - 3] + "..."


def compare(expected: dict[str, Any], message: Any) -> list[str]:
    """Differences between a case's ``expected`` block and ``message`` (empty when it is right).

    Content and reasoning are compared as exact strings (no normalisation at all); calls in order, by name, and by
    arguments as decoded JSON values, type-strictly. Arguments given as text must be valid JSON for a call to match.
    """
    got = normalize(message)
    problems: list[str] = []
    if got.content != expected["content"]:
        problems.append(f"content {_short(got.content)} != expected {_short(expected['content'])}")
    if got.reasoning != expected["reasoning"]:
        problems.append(f"reasoning {_short(got.reasoning)} != expected {_short(expected['reasoning'])}")
    want = expected["tool_calls"]
    if len(got.tool_calls) != len(want):
        names = [name for name, _ in got.tool_calls]
        problems.append(f"{len(got.tool_calls)} calls {names} != expected {len(want)} {[w['name'] for w in want]}")
    for i, ((name, arguments), w) in enumerate(zip(got.tool_calls, want, strict=False)):
        if name != w["name"]:
            problems.append(f"call {i}: name {name!r} != expected {w['name']!r}")
        if isinstance(arguments, str):
            try:
                value = json.loads(arguments)
            except ValueError:
                problems.append(f"call {i}: arguments are not JSON: {_short(arguments)}")
                continue
        else:
            value = arguments
        if canonical(value) != canonical(w["arguments"]):
            problems.append(f"call {i}: arguments {_short(canonical(value))} != expected {canonical(w['arguments'])}")
    return problems


# ----------------------------------------------------------------------------------------------------------------------
# Running the core
# ----------------------------------------------------------------------------------------------------------------------


def core_options(case: dict[str, Any]) -> Any:
    from longcat_plugins.core import ParserOptions

    return ParserOptions(reasoning=True, reasoning_open=bool(case.get("reasoning_open", False)))


def pieces(text: str, size: int | None) -> list[str]:
    if size is None:
        return [text]
    return [text[i : i + size] for i in range(0, len(text), size)]


def run_core(case: dict[str, Any], size: int | None = None, *, one_shot: bool = False) -> Any:
    """The core's message for a case: from ``parse`` (``one_shot``) or streamed in deltas of ``size`` characters."""
    from longcat_plugins.core import parse
    from tests.support.events import feed

    if one_shot:
        return parse(case["text"], case["tools"], core_options(case))
    return feed(pieces(case["text"], size), case["tools"], core_options(case)).message


def _label(size: int | None) -> str:
    return "whole" if size is None else f"{size}-char"


def score_case(case: dict[str, Any], splits: Sequence[int | None] = SPLITS) -> dict[str, list[str]]:
    """Mismatches of the core on one case, per run (``one-shot``, ``1-char``, ..., ``whole``); empty lists when right.
    A run that raises counts as a mismatch."""
    runs: dict[str, list[str]] = {}
    for label, kwargs in [("one-shot", {"one_shot": True})] + [(_label(s), {"size": s}) for s in splits]:
        try:
            message = run_core(case, **kwargs)  # type: ignore[arg-type]
        except Exception as exc:  # a crash is a result here
            runs[label] = [f"raised {type(exc).__name__}: {exc}"]
            continue
        runs[label] = compare(case["expected"], message)
    return runs


def is_right(runs: dict[str, list[str]]) -> bool:
    return not any(runs.values())


def describe(runs: dict[str, list[str]]) -> str:
    """One line: the one-shot mismatches, and which streamed runs differ if they differ otherwise."""
    first = runs.get("one-shot", [])
    parts = ["; ".join(first)] if first else []
    for label, problems in runs.items():
        if label != "one-shot" and problems and problems != first:
            parts.append(f"[{label}] " + "; ".join(problems))
    return " | ".join(parts)


def groups(case: dict[str, Any]) -> Iterator[str]:
    yield case["dialect"]
    for tag in case.get("tags", []):
        yield f"tag:{tag}"


def print_wrong(case: str, found: dict[str, list[str]], summary: str, verbose: bool) -> None:
    """One wrong case of a report: its summary, and with ``verbose`` each problem under its run's name."""
    print(f"  {case}: {summary}")
    if verbose:
        for name, problems in found.items():
            for p in problems:
                print(f"      [{name}] {p}")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", default=str(CASES_PATH))
    ap.add_argument("--verbose", "-v", action="store_true", help="print every mismatch of every run")
    args = ap.parse_args(argv)

    cases = load_cases(args.cases)
    totals: dict[str, list[int]] = {}
    failures: list[tuple[str, str, dict[str, list[str]]]] = []
    for case in cases:
        runs = score_case(case)
        ok = is_right(runs)
        for group in groups(case):
            t = totals.setdefault(group, [0, 0])
            t[0] += int(ok)
            t[1] += 1
        if not ok:
            failures.append((case["id"], case["dialect"], runs))

    right = len(cases) - len(failures)
    print(f"real-output corpus: {right}/{len(cases)} right (one-shot and streamed at {', '.join(map(_label, SPLITS))})")
    order = sorted(totals, key=lambda g: (g.startswith("tag:"), g))
    for group in order:
        good, n = totals[group]
        print(f"  {group:<14} {good:>3}/{n:<3}")
    if failures:
        print("\nwrong:")
        for case_id, dialect, runs in failures:
            print_wrong(f"{case_id} ({dialect})", runs, describe(runs), args.verbose)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
