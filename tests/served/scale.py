"""The matrix at scale: N served outputs, each a random cell (every axis drawn, tokens per step from 1..64 or the
whole turn in one step) and a text the cell can serve (the matrix's own texts, or an output of the fuzzer's
generators: well-formed in every dialect, mutated, markup soup), compared with the core's one-pass reading.

Output ``i`` of seed ``s`` is always the same (``--show`` serves one again). What is printed: outputs served, cells
and texts seen, differences (served != the reading), failures (a request that failed, a broken stream, a malformed
answer), engine faults (counted apart, see ``ENGINE_FAULTS``), the time, and the differences and failures grouped."""

from __future__ import annotations

import logging
import multiprocessing
import random
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .cells import Cell, drawn_group, every_cell
from .report import summary
from .run import Outcome, run_cell
from .texts import Text, _function_tools

#: the longest fuzzer output served (a longer one is drawn again): streamed a token per step, it would dominate
MAX_FUZZ_CHARS = 3000
#: problems that say the request failed or the answer was malformed, rather than that it differs from the reading
_FAILURE_MARKS = ("HTTP ", "error:", "expected the engine to refuse", "not JSON", "not an object", "without id",
                  "out of order", "repeats id", "before their call", "before its block", "an empty ")  # fmt: skip


def driver_for(engine: str) -> Any:
    if engine == "vllm":
        sys.path.insert(0, "tests/vllm")
        from served_vllm import VllmDriver  # type: ignore[import-not-found]

        return VllmDriver()
    sys.path.insert(0, "tests/sglang")
    from served_sglang import SglangDriver  # type: ignore[import-not-found]

    return SglangDriver()


def quiet() -> None:
    """The parsers log every call of an unknown tool and every malformed value: thousands of lines here."""
    logging.getLogger("longcat_plugins").setLevel(logging.CRITICAL)
    logging.getLogger("sglang").propagate = False  # (the driver's own handler still records its warnings)


def fuzz_text(seed: int, index: int) -> Text | None:
    """Output ``index`` of the fuzzer's run ``seed`` as a text to serve (None when it is too long)."""
    from tests.fuzz.mutations import generate

    case = generate(seed, index)
    if len(case.text) > MAX_FUZZ_CHARS:
        return None
    tools = _accepted_tools(_function_tools(case.tools) or [])
    reasoning_open = bool(case.options.get("reasoning_open"))
    return Text(f"fuzz:{seed}:{index}:{case.generator}", case.text, tools or None, reasoning_open)


def _accepted_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tools, the parameters of one replaced by an empty object schema where an engine refuses the request by
    design: they are no JSON Schema, or they define a ``$defs`` name another tool defines otherwise (the fuzzer
    writes hostile schemas; the matrix serves outputs)."""
    import jsonschema

    empty = {"type": "object", "properties": {}}
    defined: dict[str, Any] = {}
    out = []
    for tool in tools:
        parameters = tool["function"]["parameters"]
        try:
            jsonschema.Draft202012Validator.check_schema(parameters)
            defs = parameters.get("$defs") or {}
            conflict = any(name in defined and defined[name] != schema for name, schema in defs.items())
        except (jsonschema.SchemaError, AttributeError):
            conflict = True
        if conflict:
            tool = {**tool, "function": {**tool["function"], "parameters": empty}}
        else:
            defined.update(defs)
        out.append(tool)
    return out


#: cells drawn for one output at most, until one applies to its text
ATTEMPTS = 20


def draw(
    driver: Any, cells: Sequence[Cell], seed: int, index: int, fuzz: float, attempt: int = 0
) -> tuple[Cell, Text | None]:
    """Output ``index`` of the run ``seed`` (its ``attempt``-th draw): a cell, its tokens per step drawn, and a text
    it can serve (None: no text; the cell does not apply)."""
    rng = random.Random(f"served:{seed}:{index}:{attempt}")
    cell = replace(rng.choice(cells), group=drawn_group(rng))
    texts = driver.texts_for(cell)
    if not texts:
        return cell, None
    if not cell.constrained and rng.random() < fuzz:  # (a cell that serves any text: every one of ours)
        for k in range(8):
            text = fuzz_text(seed, (index * ATTEMPTS + attempt) * 8 + k)
            if text is not None:
                return cell, text
    return cell, rng.choice(texts)


@dataclass
class Tally:
    """What a run of many outputs found (the outcomes that went wrong kept whole, the rest counted)."""

    outputs: int = 0
    not_applicable: int = 0
    cells: set[str] = field(default_factory=set)
    texts: set[str] = field(default_factory=set)
    engine_faults: Counter[str] = field(default_factory=Counter)
    wrong: list[Outcome] = field(default_factory=list)

    def add(self, outcome: Outcome) -> None:
        if outcome.skipped:
            self.not_applicable += 1
            return
        self.outputs += 1
        self.cells.add(str(outcome.cell))
        self.texts.add(outcome.text.id)
        if outcome.engine_fault:
            self.engine_faults[outcome.engine_fault] += 1
        elif not outcome.ok:
            self.wrong.append(outcome)

    def merge(self, other: Tally) -> None:
        self.outputs += other.outputs
        self.not_applicable += other.not_applicable
        self.cells |= other.cells
        self.texts |= other.texts
        self.engine_faults += other.engine_faults
        self.wrong += other.wrong

    @property
    def failures(self) -> list[Outcome]:
        return [o for o in self.wrong if any(m in p for p in o.problems for m in _FAILURE_MARKS)]

    @property
    def differences(self) -> list[Outcome]:
        failed = {id(o) for o in self.failures}
        return [o for o in self.wrong if id(o) not in failed]

    def figures(self, engine: str, seconds: float) -> str:
        rate = self.outputs / seconds if seconds else 0.0
        return (
            f"[scale] {engine}: outputs {self.outputs}, cells {len(self.cells)}, texts {len(self.texts)}, "
            f"differences {len(self.differences)}, failures {len(self.failures)}, "
            f"engine faults {sum(self.engine_faults.values())} {dict(self.engine_faults)}, "
            f"never applicable {self.not_applicable}, time {seconds:.0f} s ({rate:.1f} outputs/s)"
        )


_DRIVER: Any = None
_CELLS: list[Cell] = []


def _start(engine: str) -> None:
    global _DRIVER, _CELLS
    quiet()
    _DRIVER = driver_for(engine)
    _CELLS = list(every_cell(_DRIVER.apis))


def serve_range(seed: int, start: int, stop: int, fuzz: float) -> Tally:
    tally = Tally()
    for index in range(start, stop):
        tally.add(serve_one(seed, index, fuzz)[1])
    return tally


def serve_one(seed: int, index: int, fuzz: float) -> tuple[int, Outcome]:
    """Output ``index``: the first of its draws that applies, served (its attempt, the outcome)."""
    for attempt in range(ATTEMPTS):
        cell, text = draw(_DRIVER, _CELLS, seed, index, fuzz, attempt)
        if text is not None:
            outcome = run_cell(_DRIVER, cell, text)
            if not outcome.skipped:
                return attempt, replace(outcome, output=index)
    return ATTEMPTS, Outcome(cell, text or Text("none", ""), skipped="no draw applies")


def _serve_chunk(args: tuple[int, int, int, float]) -> Tally:
    return serve_range(*args)


def run(engine: str, outputs: int, seed: int, fuzz: float, jobs: int, chunk: int = 200) -> Iterator[Tally]:
    """Serve outputs ``0..outputs-1`` of ``seed``; yields a tally per chunk."""
    chunks = [(seed, s, min(outputs, s + chunk), fuzz) for s in range(0, outputs, chunk)]
    if jobs <= 1:
        _start(engine)
        try:
            yield from map(_serve_chunk, chunks)
        finally:
            _DRIVER.close()
        return
    with multiprocessing.get_context("spawn").Pool(jobs, initializer=_start, initargs=(engine,)) as pool:
        yield from pool.imap_unordered(_serve_chunk, chunks)


def main(engine: str, outputs: int, seed: int, fuzz: float, jobs: int) -> int:
    start = time.monotonic()
    tally = Tally()
    next_note = 30.0
    for part in run(engine, outputs, seed, fuzz, jobs):
        tally.merge(part)
        if time.monotonic() - start > next_note:
            print(tally.figures(engine, time.monotonic() - start), file=sys.stderr, flush=True)
            next_note += 60
    seconds = time.monotonic() - start
    print("\n".join(summary(tally.wrong).splitlines()[1:]))
    print(f"\n{tally.figures(engine, seconds)}")
    return 0 if not tally.wrong else 1


def show(engine: str, seed: int, index: int, fuzz: float) -> int:
    """Serve output ``index`` of the run ``seed`` again and print it, the cell, and what was served."""
    _start(engine)
    attempt, outcome = serve_one(seed, index, fuzz)
    text = outcome.text
    print(f"cell: {outcome.cell} (draw {attempt})\ntext: {text.id}\n{text.text!r}\ntools: {text.tools!r}")
    print(outcome)
    if outcome.want is not None:
        print(f"one pass: {outcome.want.describe()}")
    _DRIVER.close()
    return 0 if outcome.ok else 1
