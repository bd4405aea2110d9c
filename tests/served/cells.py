"""The matrix's axes, a cell (one way a user can be served a text), and the samples of cells that run."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields, replace

APIS = ("chat", "responses", "messages")
#: which parsers the server runs: ``--tool-call-parser`` and ``--reasoning-parser``, one of them, or both
PARSERS = ("both", "tool", "reasoning")
TOOL_CHOICES = ("auto", "required", "named", "none", "no_tools")
#: how the output ends: the model's end of sequence, ``max_tokens``, a stop string
FINISHES = ("end", "length", "stop")
#: how the tags are tokenized: each one special token, each one ordinary token, or split into several
TOKENIZATIONS = ("special", "plain", "split")
#: a step that holds the whole turn (every token of the output in one delta)
WHOLE_TURN = 1 << 20
#: tokens per step the engine hands over (1; speculative decoding / MTP; ``--stream-interval``, a chunk under load;
#: the whole turn at once); the scaled run draws them from 1..64 and the whole turn (:func:`drawn_group`)
GROUPS = (1, 3, 16, 64, WHOLE_TURN)


def drawn_group(rng: random.Random) -> int:
    """Tokens per step for the scaled run: the whole turn one time in five, else 1 to 64."""
    return WHOLE_TURN if rng.random() < 0.2 else rng.randint(1, 64)


@dataclass(frozen=True)
class Cell:
    api: str = "chat"
    stream: bool = False
    parsers: str = "both"
    tool_choice: str = "auto"
    strict: bool = False
    parallel: bool = True
    finish: str = "end"
    tokens: str = "special"
    group: int = 1

    def __str__(self) -> str:
        mode = "stream" if self.stream else "whole"
        flags = ("strict" if self.strict else "") + ("" if self.parallel else "+single")
        group = "gturn" if self.group == WHOLE_TURN else f"g{self.group}"
        parts = [self.api, mode, self.parsers, self.tool_choice, flags, self.finish, self.tokens, group]
        return "-".join(p for p in parts if p)

    @property
    def tool_parser(self) -> bool:
        return self.parsers in ("both", "tool")

    @property
    def reasoning_parser(self) -> bool:
        return self.parsers in ("both", "reasoning")

    @property
    def has_tools(self) -> bool:
        return self.tool_choice != "no_tools"

    @property
    def calls_parsed(self) -> bool:
        """Whether tool calls are read at all (else call markup is content)."""
        return self.tool_parser and self.tool_choice not in ("none", "no_tools")

    @property
    def constrained(self) -> bool:
        """Whether the engine constrains the output with the dialect's grammar."""
        forced = self.tool_choice in ("required", "named")
        return self.tool_parser and (forced or (self.strict and self.tool_choice == "auto"))

    def valid(self) -> bool:
        """Whether a server and a request can be configured so."""
        return self.has_tools or (not self.strict and self.parallel)


AXES: dict[str, Sequence[object]] = {
    "api": APIS,
    "stream": (False, True),
    "parsers": PARSERS,
    "tool_choice": TOOL_CHOICES,
    "strict": (False, True),
    "parallel": (True, False),
    "finish": FINISHES,
    "tokens": TOKENIZATIONS,
    "group": GROUPS,
}


def every_cell(apis: Sequence[str] = APIS) -> Iterator[Cell]:
    """Every valid cell (the whole matrix)."""
    names = [f.name for f in fields(Cell)]
    for values in itertools.product(*(AXES[name] if name != "api" else apis for name in names)):
        cell = Cell(**dict(zip(names, values, strict=True)))
        if cell.valid():
            yield cell


def covering_sample(seed: int, apis: Sequence[str] = APIS, per_value: int = 2) -> list[Cell]:
    """A fixed sample in which every value of every axis appears at least ``per_value`` times, and every pair of
    (api, stream), (api, parsers), (parsers, tool_choice) values at least once: the CI smoke."""
    rng = random.Random(seed)
    pool = list(every_cell(apis))
    rng.shuffle(pool)
    chosen: list[Cell] = []
    needs: dict[tuple[str, object], int] = {
        (name, value): per_value for name, values in AXES.items() for value in values if name != "api"
    }
    needs.update({("api", api): per_value for api in apis})
    pairs = [("api", "stream"), ("api", "parsers"), ("parsers", "tool_choice"), ("api", "finish")]
    for a, b in pairs:
        for cell in pool:
            key = (a, getattr(cell, a), b, getattr(cell, b))
            if not any((a, getattr(c, a), b, getattr(c, b)) == key for c in chosen):
                chosen.append(cell)
    for cell in pool:
        if any(needs.get((name, getattr(cell, name)), 0) > 0 for name in AXES):
            chosen.append(cell)
            for name in AXES:
                key = (name, getattr(cell, name))
                if key in needs:
                    needs[key] -= 1
    unique = list(dict.fromkeys(chosen))
    return unique


def with_(cell: Cell, **changes: object) -> Cell:
    return replace(cell, **changes)  # type: ignore[arg-type]
