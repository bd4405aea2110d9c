"""The workloads of the side-by-side benchmark, each with the message a correct parser must produce from it."""

from __future__ import annotations

from dataclasses import dataclass, field

from .workloads import (
    AGENT_REASONING,
    AGENT_TEXTS,
    AGENT_TOOLS,
    WRITE_FILE_TOOL,
    agent_calls,
    agent_turn,
    big_text,
    huge_call,
    many_params_arguments,
    many_params_call,
    many_params_tool,
    xml_value,
)

HUGE_SIZES = (4096, 16384, 65536, 262144)
MANY_COUNTS = (125, 500, 2000)
TOKEN_GROUPS = (1, 4, 64)


@dataclass(frozen=True)
class Case:
    """One model output: ``family`` groups the sizes of one workload (one line of the plot per parser)."""

    family: str  # "huge", "many", "agent"
    dialect: str  # benchmarks.workloads.DIALECTS
    size: int  # characters of the argument, number of parameters, or (agent) the token group
    text: str
    tools: list[dict[str, object]]
    calls: list[tuple[str, dict[str, object]]]
    content: str = ""
    reasoning: str = ""
    #: deltas: "chars" (tokens grouped to at least 4 characters) or "tokens" (``size`` tokens per delta)
    chunking: str = "chars"
    reasoning_parser: bool = False
    tags: tuple[str, ...] = field(default=())

    @property
    def key(self) -> str:
        return f"{self.family}/{self.dialect}/{self.size}"

    @property
    def label(self) -> str:
        if self.family == "huge":
            return f"huge string argument, {self.size // 1024}k chars"
        if self.family == "many":
            return f"{self.size} small parameters"
        return f"agent turn, {self.size}-token deltas"


def huge_case(dialect: str, size: int) -> Case:
    content = xml_value(size) if dialect == "xml" else big_text(size)
    return Case(
        "huge",
        dialect,
        size,
        huge_call(dialect, size),
        [WRITE_FILE_TOOL],
        [("write_file", {"path": "src/app.py", "content": content})],
    )


def many_case(dialect: str, count: int) -> Case:
    return Case(
        "many",
        dialect,
        count,
        many_params_call(dialect, count),
        [many_params_tool(count)],
        [("configure", many_params_arguments(count))],
    )


def agent_case(dialect: str, group: int) -> Case:
    return Case(
        "agent",
        dialect,
        group,
        agent_turn(dialect),
        list(AGENT_TOOLS),
        agent_calls(),
        content=" ".join(AGENT_TEXTS),
        reasoning=AGENT_REASONING * 3,
        chunking="tokens",
        reasoning_parser=True,
    )


def all_cases(
    dialects: tuple[str, ...],
    huge_sizes: tuple[int, ...] = HUGE_SIZES,
    many_counts: tuple[int, ...] = MANY_COUNTS,
    groups: tuple[int, ...] = TOKEN_GROUPS,
) -> list[Case]:
    cases: list[Case] = []
    for dialect in dialects:
        cases += [huge_case(dialect, n) for n in huge_sizes]
        cases += [many_case(dialect, n) for n in many_counts]
        cases += [agent_case(dialect, g) for g in groups]
    return cases
