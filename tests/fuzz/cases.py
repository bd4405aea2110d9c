"""One fuzz case: a model output, the request's tools, the parser options, and what a well-formed output must give."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from longcat_plugins.core import ParserOptions


@dataclass(frozen=True)
class ExpectedCall:
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Expected:
    """The result a well-formed (unmutated) output must parse to."""

    content: str
    reasoning: str
    calls: tuple[ExpectedCall, ...]


@dataclass(frozen=True)
class Segment:
    """A piece of a generated output: its reasoning section, a prose run, one call block, an end marker."""

    kind: str
    #: (role, text): role is think-markup, reasoning, prose, block (markup of a call block), stray (text inside a
    #: block that belongs to no call) or eos
    parts: tuple[tuple[str, str], ...]
    calls: tuple[ExpectedCall, ...] = ()

    @property
    def text(self) -> str:
        return "".join(t for _, t in self.parts)


_WS = " \t\r\n"


def expected_of(segments: tuple[Segment, ...], reasoning: bool = True, tools: bool = True) -> Expected:
    """What an output made of these segments must parse to, under the given parser options.

    Reasoning is what its tags enclose; content is prose and stray text; whitespace between blocks, and between a
    block and the end, is markup (reasoning and end markers in between are transparent); without tool parsing,
    blocks are shown verbatim."""
    parts: list[tuple[str, str]] = []
    for segment in segments:
        for role, text in segment.parts:
            if role.startswith("param:"):
                role = "block"
            if role in ("think-markup", "reasoning") and not reasoning:
                role = "prose"
            if role in ("block", "stray") and not tools:
                role = "prose"
            if parts and role == "prose" and parts[-1][0] == "prose":
                parts[-1] = ("prose", parts[-1][1] + text)
            else:
                parts.append((role, text))
    content: list[str] = []
    after_block = False
    for i, (role, text) in enumerate(parts):
        if role == "prose":
            blank = text.strip(_WS) == ""
            # whitespace after a block is markup when another block or the end follows, text when text follows;
            # reasoning and end markers in between change nothing
            if not (after_block and blank and _next_decides(parts, i + 1) in (None, "block")):
                content.append(text)
            after_block = after_block and blank
        elif role == "stray":
            content.append(text)
        elif role == "block":
            after_block = True
    return Expected(
        content="".join(content),
        reasoning="".join(t for r, t in parts if r == "reasoning"),
        calls=tuple(c for s in segments for c in s.calls) if tools else (),
    )


def _next_decides(parts: list[tuple[str, str]], start: int) -> str | None:
    """The role of the first part from ``start`` on that decides the whitespace after a block: not reasoning, not an
    end marker, not more whitespace (None: the end)."""
    for role, text in parts[start:]:
        if role in ("think-markup", "reasoning", "eos") or (role == "prose" and text.strip(_WS) == ""):
            continue
        return role
    return None


@dataclass(frozen=True)
class Case:
    text: str
    tools: list[dict[str, Any]] | None = None
    #: ParserOptions fields other than the id factory (reasoning, tools, reasoning_open, reasoning_start_unknown,
    #: emit_unknown_calls, cut_calls_as_text), those set to other than their default
    options: dict[str, bool] = field(default_factory=dict)
    #: e.g. ``kv.name-own-line+mut.truncate``; its parts are the case's features
    generator: str = "manual"
    expected: Expected | None = None
    #: how a generated output was built (for minimizing a failed round trip)
    segments: tuple[Segment, ...] | None = None

    @property
    def features(self) -> frozenset[str]:
        return frozenset(self.generator.split("+"))

    def parser_options(self) -> ParserOptions:
        o = self.options
        return ParserOptions(
            reasoning=o.get("reasoning", True),
            tools=o.get("tools", True),
            reasoning_open=o.get("reasoning_open", False),
            reasoning_start_unknown=o.get("reasoning_start_unknown", False),
            emit_unknown_calls=o.get("emit_unknown_calls", False),
            cut_calls_as_text=o.get("cut_calls_as_text", False),
        )

    def with_text(self, text: str) -> Case:
        """The same request with another output (no longer the well-formed one: nothing is expected of it)."""
        return replace(self, text=text, expected=None, segments=None)

    def literal(self) -> str:
        """The case as a Python literal that rebuilds it: ``Case(text=..., tools=..., options=...)``."""
        parts = [f"text={self.text!r}"]
        if self.tools is not None:
            parts.append(f"tools={self.tools!r}")
        if self.options:
            parts.append(f"options={self.options!r}")
        return "Case(" + ", ".join(parts) + ")"

    def to_json(self) -> dict[str, Any]:
        return {"generator": self.generator, "text": self.text, "tools": self.tools, "options": self.options}


def case_from_json(data: dict[str, Any]) -> Case:
    return Case(
        text=data["text"], tools=data.get("tools"), options=data.get("options") or {}, generator=data["generator"]
    )


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=1)
