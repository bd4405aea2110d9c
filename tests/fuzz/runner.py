"""Running cases (in several processes), grouping the findings by check, minimizing and saving them."""

from __future__ import annotations

import json
import logging
import multiprocessing
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from longcat_plugins.core import dialects as D

from .cases import Case, case_from_json
from .checks import CHECKS, Failure, run_checks
from .known import known_for
from .mutations import generate
from .shrink import minimize

CHUNK = 250


@dataclass(frozen=True)
class Finding:
    seed: int
    index: int
    generator: str
    check: str
    detail: str
    #: the known-bug entry it matches, if any
    known: str | None = None


def quiet() -> None:
    """The core logs unknown tool names and non-object arguments: expected here, thousands of times."""
    logging.getLogger("longcat_plugins").setLevel(logging.CRITICAL)


def check_cases(seed: int, start: int, stop: int, skip_known: bool, slow: float | None) -> tuple[int, list[Finding]]:
    quiet()
    findings: list[Finding] = []
    for index in range(start, stop):
        case = generate(seed, index)
        t0 = time.perf_counter()
        failures = run_checks(case)
        elapsed = time.perf_counter() - t0
        if slow is not None and elapsed > slow:
            failures.append(Failure("slow", f"{elapsed:.1f} s for {len(case.text)} chars"))
        for failure in failures:
            known = known_for(case, failure)
            if skip_known and known is not None:
                continue
            findings.append(Finding(seed, index, case.generator, failure.check, failure.detail, known))
    return stop - start, findings


def _check_chunk(args: tuple[int, int, int, bool, float | None]) -> tuple[int, list[Finding]]:
    return check_cases(*args)


def run(
    cases: int, seed: int, jobs: int = 1, skip_known: bool = False, slow: float | None = None, progress: bool = False
) -> Iterator[tuple[int, list[Finding]]]:
    """Check cases ``0..cases-1`` of ``seed``; yields (cases done, findings) per chunk."""
    chunks = [(seed, s, min(cases, s + CHUNK), skip_known, slow) for s in range(0, cases, CHUNK)]
    if jobs <= 1:
        for chunk in chunks:
            yield _check_chunk(chunk)
        return
    with multiprocessing.get_context("spawn").Pool(jobs, initializer=quiet) as pool:
        yield from pool.imap_unordered(_check_chunk, chunks)


# -- minimizing ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Minimized:
    finding: Finding
    case: Case
    detail: str


def _minimize(finding: Finding) -> Minimized:
    quiet()
    case = generate(finding.seed, finding.index)
    if finding.check == "slow":
        return Minimized(finding, case, finding.detail)
    small = minimize(case, Failure(finding.check, finding.detail))
    detail = next((f.detail for f in run_checks(small) if f.check == finding.check), finding.detail)
    return Minimized(finding, small, detail)


def pick(findings: list[Finding], per_group: int) -> list[Finding]:
    """Up to ``per_group`` findings of each check and known fault (or none), from as many generators as possible."""
    groups: dict[tuple[str, str], dict[str, list[Finding]]] = defaultdict(lambda: defaultdict(list))
    for f in findings:
        groups[(f.check, f.known or "")][f.generator].append(f)
    chosen: list[Finding] = []
    for by_generator in groups.values():
        queues = sorted(by_generator.values(), key=len, reverse=True)
        taken = 0
        depth = 0
        while taken < per_group and any(depth < len(q) for q in queues):
            for q in queues:
                if depth < len(q) and taken < per_group:
                    chosen.append(q[depth])
                    taken += 1
            depth += 1
    return chosen


def minimize_all(findings: list[Finding], jobs: int) -> list[Minimized]:
    if jobs <= 1:
        return [_minimize(f) for f in findings]
    with multiprocessing.get_context("spawn").Pool(jobs, initializer=quiet) as pool:
        return pool.map(_minimize, findings, chunksize=1)


# -- reporting -----------------------------------------------------------------------------------------------------


def dialects_drawn(seed: int, cases: int) -> Counter[str]:
    """How many of cases ``0..cases-1`` of ``seed`` hold a block in each dialect the parser reads (none: 0)."""
    drawn: Counter[str] = Counter(dict.fromkeys(D.READ_DIALECTS, 0))
    for index in range(cases):
        drawn.update({f.removeprefix("dialect.") for f in generate(seed, index).features if f.startswith("dialect.")})
    return drawn


def report(
    cases: int, seconds: float, findings: list[Finding], minimized: list[Minimized], drawn: Counter[str] | None = None
) -> str:
    """The findings by check, then each minimized one; with ``drawn`` (:func:`dialects_drawn`), the cases in each
    dialect, and the dialects the parser reads that none was drawn in."""
    failed = len({(f.seed, f.index) for f in findings})
    lines = [f"cases: {cases} in {seconds:.0f} s; findings: {len(findings)} in {failed} cases"]
    if drawn is not None:
        lines.append("dialects (cases): " + ", ".join(f"{name} {n}" for name, n in sorted(drawn.items())))
        if missing := sorted(name for name, n in drawn.items() if not n):
            lines.append(f"  never drawn: {', '.join(missing)}")
    counts = Counter(f.check for f in findings)
    known = Counter((f.check, f.known) for f in findings if f.known)
    for check in [*CHECKS, "slow"]:
        if counts[check]:
            known_here = ", ".join(f"{k} {n}" for (c, k), n in known.items() if c == check)
            lines.append(f"  {check:20} {counts[check]:7}" + (f"   (known: {known_here})" if known_here else ""))
    seen: set[tuple[str, str]] = set()
    for m in sorted(minimized, key=lambda m: (m.finding.check, len(m.case.text))):
        key = (m.finding.check, m.case.literal())
        if key in seen:
            continue
        seen.add(key)
        f = m.finding
        lines.append("")
        lines.append(
            f"[{f.check}] seed {f.seed} case {f.index} ({f.generator})" + (f" known: {f.known}" if f.known else "")
        )
        lines.append(f"  {m.detail}")
        lines.append(f"  {m.case.literal()}")
    return "\n".join(lines)


def save(out: Path, findings: list[Finding], minimized: list[Minimized], text: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "findings.jsonl", "w", encoding="utf-8") as fh:
        for f in findings:
            fh.write(json.dumps(asdict(f), ensure_ascii=False) + "\n")
    with open(out / "minimized.jsonl", "w", encoding="utf-8") as fh:
        for m in minimized:
            record = {"finding": asdict(m.finding), "detail": m.detail, "case": m.case.to_json()}
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    (out / "report.txt").write_text(text + "\n", encoding="utf-8")


def load_case(path: Path, line: int = 0) -> Case:
    """A case saved in ``minimized.jsonl`` (its ``line``-th record)."""
    records = path.read_text(encoding="utf-8").splitlines()
    return case_from_json(json.loads(records[line])["case"])
