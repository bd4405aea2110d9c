"""Timing, memory and correctness of one parser on one workload, with a time cap (engine-free).

A *runner* is ``run(deltas, deadline, keep) -> Folded | None``: it builds a fresh parser, feeds every delta through
the engine's entry point and, when ``keep`` (memory runs do not), folds what comes out into a message as a client
would, at once (retaining the engine's per-delta objects would make the garbage collector's cost grow with the
stream). It raises :class:`Overtime` once ``time.perf_counter()`` passes ``deadline`` (checked every few deltas, so a
slow built-in cannot hold the whole run hostage). ``None``: the parser produces no message (the floor).
"""

from __future__ import annotations

import gc
import json
import math
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from .cases import Case
from .tokens import Delta

CHECK_EVERY = 64


class Overtime(Exception):
    """The runner passed its deadline."""

    def __init__(self, done: int) -> None:
        super().__init__(done)
        self.done = done
        self.cpu_s: float | None = None  # CPU time the stopped run had taken (set by time_runner)


@dataclass
class Folded:
    """What a client assembles from a stream: text, reasoning, and per call its name and argument fragments."""

    content: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    names: dict[int, str] = field(default_factory=dict)
    args: dict[int, list[str]] = field(default_factory=dict)

    def call(self, index: int, name: str | None, arguments: str | None) -> None:
        if index not in self.args:
            self.args[index] = []
        if name and index not in self.names:
            self.names[index] = name
        if arguments:
            self.args[index].append(arguments)


Runner = Callable[[list[Delta], float, bool], "Folded | None"]


def unchecked(runner: Runner) -> Runner:
    """``runner`` with its output folded (the same client-side cost as every parser) but not checked: a no-op
    parser's message is the raw text, not the expected message."""

    def run(deltas: list[Delta], deadline: float, keep: bool) -> Folded | None:
        runner(deltas, deadline, keep)
        return None

    return run


def blocks(deltas: list[Delta], deadline: float) -> Any:
    """``deltas`` in blocks of CHECK_EVERY, checking the deadline between blocks (a tight inner loop stays tight)."""
    for start in range(0, len(deltas), CHECK_EVERY):
        if time.perf_counter() > deadline:
            raise Overtime(start)
        yield deltas[start : start + CHECK_EVERY]


def _norm(text: str) -> str:
    return " ".join(text.split())


def _strip_strings(value: Any) -> Any:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, dict):
        return {k: _strip_strings(v) for k, v in value.items()}
    return value


def check(case: Case, folded: Folded) -> str:
    """``"yes"``, ``"yes (ws)"`` (only whitespace around string values differs), or what is wrong."""
    problems: list[str] = []
    indices = sorted(folded.args)
    if indices != list(range(len(case.calls))):
        problems.append(f"{len(indices)}/{len(case.calls)} calls")
    loose = False
    for i, (name, expected) in enumerate(case.calls):
        if i not in folded.args:
            continue
        if folded.names.get(i) != name:
            problems.append(f"call {i} name")
            continue
        raw = "".join(folded.args[i])
        try:
            got = json.loads(raw)
        except ValueError:
            problems.append(f"call {i} invalid JSON")
            continue
        if got != expected:
            if isinstance(got, dict) and _strip_strings(got) == _strip_strings(expected):
                loose = True
            elif isinstance(got, dict) and set(got) == set(expected):
                problems.append(f"call {i} values")
            else:
                problems.append(f"call {i} arguments")
    if _norm("".join(folded.content)) != _norm(case.content):
        problems.append("content")
    if _norm("".join(folded.reasoning)) != _norm(case.reasoning):
        problems.append("reasoning")
    if problems:
        return "NO: " + ", ".join(dict.fromkeys(problems))
    return "yes (ws)" if loose else "yes"


@dataclass
class Measurement:
    engine: str
    parser: str
    family: str
    dialect: str
    size: int
    deltas: int
    chars: int
    status: str = "ok"  # ok | overtime | skipped | error
    total_s: float | None = None  # measured (best of the repeats)
    estimate_s: float | None = None  # extrapolated (overtime / skipped)
    min_s: float | None = None  # overtime: the time it had already taken when it was stopped (a lower bound)
    correct: str = ""
    peak_kib: float | None = None
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def time_runner(
    runner: Runner,
    deltas: list[Delta],
    cap: float,
    repeat: int,
    budget: float = 2.5,
    least: int = 3,
    quick: float = 2.0,
) -> tuple[float, Any]:
    """Best CPU time (of this thread: time the process waits for a core on a shared machine is not counted) of up
    to ``repeat`` runs: repeats stop once ``budget`` wall seconds are spent, but a run shorter than ``quick``
    seconds is repeated at least ``least`` times (else, on a shared machine, the small sizes would get more chances
    at a quiet moment than the large ones and the scaling exponents would drift up). Raises Overtime (``cap`` is
    wall time) with the CPU time it had taken."""
    best = math.inf
    raw: Any = None
    spent = 0.0
    for i in range(repeat):
        raw = None
        gc.collect()
        t0 = time.perf_counter()
        c0 = time.thread_time()
        try:
            raw = runner(deltas, t0 + cap, True)
        except Overtime as e:
            e.cpu_s = time.thread_time() - c0
            raise
        cpu = time.thread_time() - c0
        elapsed = time.perf_counter() - t0
        best = min(best, cpu)
        spent += elapsed
        if (i + 1 >= least or elapsed >= quick) and spent + elapsed > budget:
            break
    return best, raw


def peak_memory(runner: Runner, deltas: list[Delta], cap: float) -> float:
    """Peak traced memory (KiB) during one run, above what was allocated before it."""
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        runner(deltas, time.perf_counter() + cap, False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return (peak - base) / 1024


def exponent(size_a: int, time_a: float, size_b: int, time_b: float) -> float:
    return math.log(time_b / time_a) / math.log(size_b / size_a)


@dataclass
class Series:
    """Measures one parser on the sizes of one workload family, smallest first, skipping sizes predicted to take
    longer than ``cap`` (their time is extrapolated from the last two sizes and marked as such)."""

    engine: str
    parser: str
    cap: float
    repeat: int = 3
    results: list[Measurement] = field(default_factory=list)

    def run(
        self,
        cases: list[tuple[Case, list[Delta]]],
        make_runner: Callable[[Case], Runner],
        predict: bool = True,
        probe: dict[int, float] | None = None,
    ) -> None:
        """``probe``: size -> seconds: sizes run even when predicted over the cap, stopped after that many seconds,
        so that a target is checked against a measurement (or a measured lower bound), not an extrapolation."""
        probe = probe or {}
        done: list[tuple[int, float]] = []
        for case, deltas in sorted(cases, key=lambda cd: cd[0].size):
            m = Measurement(self.engine, self.parser, case.family, case.dialect, case.size, len(deltas), len(case.text))
            self.results.append(m)
            predicted = self._predict(done, case.size) if predict else None
            limit = self.cap * 1.5
            if case.size in probe:
                limit = probe[case.size]  # a target: always run, stopped after that long
            elif predicted is not None and predicted > self.cap:
                m.status, m.estimate_s = "skipped", predicted
                m.note = f"not run: predicted {predicted:.0f} s > cap {self.cap:.0f} s"
                continue
            runner = make_runner(case)
            try:
                m.total_s, raw = time_runner(runner, deltas, limit, self.repeat)
            except Overtime as e:
                m.status, m.min_s = "overtime", e.cpu_s or limit
                m.estimate_s = self._extrapolate_stopped(done, m.min_s, e.done, len(deltas))
                m.note = f"stopped after {limit:.0f} s at delta {e.done:,}/{len(deltas):,}"
                continue
            except Exception as e:  # a built-in that crashes is a result, not a benchmark failure
                m.status, m.note = "error", f"{type(e).__name__}: {e}"[:200]
                continue
            m.correct = "n/a" if raw is None else check(case, raw)
            done.append((case.size, m.total_s))

    @staticmethod
    def _extrapolate_stopped(done: list[tuple[int, float]], elapsed: float, reached: int, total: int) -> float:
        """A run stopped at delta ``reached`` of ``total`` after ``elapsed`` s, when its cost grows with the position
        as the series' exponent says (2 if unknown)."""
        e = exponent(*done[-2], *done[-1]) if len(done) > 1 else 2.0
        return elapsed * (total / max(reached, 1)) ** max(e, 1.0)

    @staticmethod
    def _predict(done: list[tuple[int, float]], size: int) -> float | None:
        if not done:
            return None
        s1, t1 = done[-1]
        e = exponent(*done[-2], s1, t1) if len(done) > 1 else 2.0
        return t1 * (size / s1) ** max(e, 1.0)
