"""An assistant reply as a client assembles it, from a whole response or from streamed deltas."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Reply:
    content: str = ""
    reasoning: str = ""
    calls: list[tuple[str, str]] = field(default_factory=list)  # (name, arguments)
    ids: list[str] = field(default_factory=list)
