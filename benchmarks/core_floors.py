"""The least a parser can cost with no engine around it: the core's floors (benchmarks/core_part.py,
benchmarks/core_bench.py)."""

from __future__ import annotations

from longcat_plugins.core import Content


class FloorParser:
    """Receives each delta through a method call and looks for '<' in it; nothing else."""

    def __init__(self) -> None:
        self.hits = 0

    def feed(self, delta: str) -> list[object]:
        if "<" in delta:
            self.hits += 1
        return []


class EmittingFloorParser(FloorParser):
    """The floor plus what any parser that reports what it read must do: one event per delta, carrying its text."""

    def feed(self, delta: str) -> list[object]:
        if "<" in delta:
            self.hits += 1
        return [Content(delta)]
