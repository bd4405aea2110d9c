"""The parsers an engine module declares: one table row per parser, from which it builds what the side-by-side
benchmark (benchmarks/part.py) and the per-request benchmark (benchmarks/per_request.py) run.

A parser's role: ``"ours"``, ``"floor"`` (the engine's floor: every parser's "x the engine floor" is against it),
``"no-op"`` (another no-op, shown for reference) or ``"builtin"``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from .cases import Case
from .measure import Folded, Runner
from .tokens import Delta

#: the order the tables list the roles in
ROLE_ORDER = {"ours": 0, "floor": 1, "no-op": 2, "builtin": 3}


def checks_message(role: str) -> bool:
    """Whether a parser's output is checked against the expected message: a no-op's is the raw text."""
    return role not in ("floor", "no-op")


class Entry(NamedTuple):
    """One parser of an engine: the workloads' dialects it runs (the first is the per-request call's), the engine's
    name for its tool parser, and the reasoning parser beside it on the workloads with reasoning."""

    name: str
    role: str
    dialects: tuple[str, ...]
    tool: str
    reasoning: str


@dataclass
class ParserSpec:
    """One parser in the side-by-side benchmark."""

    name: str
    dialects: tuple[str, ...]
    make_runner: Callable[[Case], Runner]
    role: str = "builtin"
    memory: bool = True
    #: (family, dialect, size, seconds) of a target: run even if predicted too slow, stopped after that long
    probes: tuple[tuple[str, str, int, float], ...] = ()


@dataclass
class Contender:
    """One parser as an engine builds and drives it for a request."""

    name: str
    role: str
    dialect: str
    #: the engine's request-side objects for a tool list (not timed: the engine's own validation)
    request: Callable[[list[dict[str, Any]]], Any]
    #: the timed per-request construction
    construct: Callable[[Any], Any]
    #: feed one delta (text, ids, is_last) to the parser built for ``request``, folding what comes out
    feed: Callable[[Any, Any, Delta, bool, Folded], None]
    #: the construction at start-up, without tools (None: the engine has none)
    startup: Callable[[], Any] | None = None
