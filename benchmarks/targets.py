"""What the benchmark must show, as data: each target names the workloads it is checked on (benchmarks/cases.py)
and the bar they must clear. benchmarks/verdicts.py checks the measurements against them; the report renders the
verdicts."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Speedup:
    """A built-in's time over ours on one workload is at least ``goal``. The built-in always runs that workload
    (even when predicted to pass the time cap) and is stopped after ``stop_after_s`` seconds, so that the target is
    checked against a measurement or a measured lower bound."""

    label: str
    engine: str
    builtin: str
    family: str
    dialect: str
    size: int
    goal: float
    stop_after_s: float


@dataclass(frozen=True)
class NeverSlower:
    """Ours is at least as fast as every built-in on every workload of these engines."""

    label: str
    engines: tuple[str, ...]


@dataclass(frozen=True)
class PerDelta:
    """The core's time per delta inside a long argument, on the ``size``-character workload of every dialect."""

    label: str
    parser: str
    size: int
    most_us: float


@dataclass(frozen=True)
class FloorRatio:
    """Ours over the engine floor on every workload of ``engine``."""

    label: str
    engine: str
    goal: float


@dataclass(frozen=True)
class Scaling:
    """The scaling exponent of ours from the first to the second size of each family's span (the widest range
    not dominated by fixed costs) lies in [low, high]."""

    label: str
    spans: dict[str, tuple[int, int]]
    low: float
    high: float


@dataclass(frozen=True)
class ServerShare:
    """Our parser's and adapter's share of the replay server's CPU (cProfile's and py-spy's) is at most ``most``."""

    label: str
    most: float


SPEEDUPS = (
    Speedup(
        "vLLM, LongCat JSON 256k: >= 50x faster than built-in `longcat`",
        "vllm",
        "longcat (built-in)",
        "huge",
        "longcat_json",
        262144,
        goal=50,
        stop_after_s=75.0,
    ),
    Speedup(
        "vLLM, XML 2000 params: >= 100x faster than `qwen3_coder`",
        "vllm",
        "qwen3_coder (built-in)",
        "many",
        "xml",
        2000,
        goal=100,
        stop_after_s=30.0,
    ),
    Speedup(
        "SGLang, JSON 64k: >= 100x faster than `qwen25`",
        "sglang",
        "qwen25 (built-in)",
        "huge",
        "hermes_json",
        65536,
        goal=100,
        stop_after_s=20.0,
    ),
)
NEVER_SLOWER = NeverSlower("never slower than any built-in on any workload", ("vllm", "sglang"))
CORE_PER_DELTA = PerDelta("core: <= 2 us per ~4-char delta inside a long argument", "ours (core)", 262144, 2.0)
FLOOR_RATIOS = (
    FloorRatio("vLLM: ours <= 1.5x the engine floor on every workload", "vllm", 1.5),
    FloorRatio("SGLang: ours <= 1.5x the engine floor on every workload", "sglang", 1.5),
    FloorRatio("core: ours within 10x of its floor on every workload", "core", 10.0),
)
#: on a shared machine a single 4x step can be off by +-0.3, hence the widest span
SCALING = Scaling(
    "scaling exponent of ours 0.9-1.1 (16k->256k chars, 500->2000 params)",
    {"huge": (16384, 262144), "many": (500, 2000)},
    0.9,
    1.1,
)
SERVER_SHARE = ServerShare("server: our parser and adapter <= 5% of the replay server's CPU", 0.05)


def probes(engine: str, parser: str) -> tuple[tuple[str, str, int, float], ...]:
    """The workloads ``parser`` always runs because a target is checked on them: (family, dialect, size, seconds
    after which it is stopped)."""
    return tuple(
        (t.family, t.dialect, t.size, t.stop_after_s) for t in SPEEDUPS if (t.engine, t.builtin) == (engine, parser)
    )
