"""One engine's part of the benchmark: every parser on every workload of its dialects, in one process, written to
a JSON file that ``benchmarks.report`` merges with the other parts."""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path
from typing import Any

from .cases import HUGE_SIZES, MANY_COUNTS, TOKEN_GROUPS, Case, all_cases
from .measure import Measurement, Series, peak_memory
from .parsers import ParserSpec
from .paths import OUT
from .tokens import Delta, load_tokenizer, stream_digest, token_deltas
from .workloads import DIALECTS

#: memory is traced (3-5x slower) only where the plain run took at most this long
MEMORY_MAX_S = 4.0


def arguments(engine: str) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=f"The {engine} part of the benchmark (see scripts/bench.sh).")
    ap.add_argument("--out", type=Path, default=OUT / f"{engine}.json")
    ap.add_argument("--cap", type=float, default=30.0, help="seconds one measurement may be predicted to take")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--sizes", default=",".join(map(str, HUGE_SIZES)))
    ap.add_argument("--counts", default=",".join(map(str, MANY_COUNTS)))
    ap.add_argument("--groups", default=",".join(map(str, TOKEN_GROUPS)))
    ap.add_argument("--no-memory", action="store_true")
    return ap.parse_args()


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(",") if x)


def run_part(engine: str, specs: list[ParserSpec], args: argparse.Namespace, meta: dict[str, Any]) -> None:
    t_start = time.perf_counter()
    tokenizer = load_tokenizer()
    cases = all_cases(DIALECTS, _ints(args.sizes), _ints(args.counts), _ints(args.groups))
    streams: dict[str, list[Delta]] = {}
    for case in cases:
        group = case.size if case.chunking == "tokens" else None
        streams[case.key] = token_deltas(tokenizer, case.text, group=group, min_chars=3)
    results: list[Measurement] = []
    for family in ("huge", "many", "agent"):
        for dialect in DIALECTS:
            family_cases = [(c, streams[c.key]) for c in cases if c.family == family and c.dialect == dialect]
            for spec in specs:
                if dialect not in spec.dialects:
                    continue
                series = Series(engine, spec.name, args.cap, args.repeat)
                probe = {size: secs for f, d, size, secs in spec.probes if (f, d) == (family, dialect)}
                series.run(family_cases, spec.make_runner, predict=family != "agent", probe=probe)
                results += series.results
                _progress(series.results)
    if not args.no_memory:
        memory_sizes = sorted(_ints(args.sizes))[-2:]
        results += _memory(engine, specs, cases, streams, results, args.cap, memory_sizes)
    meta = {
        **meta,
        "roles": {spec.name: spec.role for spec in specs},
        "python": platform.python_version(),
        "streams": {key: stream_digest(d) for key, d in streams.items()},
        "wall_s": time.perf_counter() - t_start,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    payload = {"engine": engine, "meta": meta, "results": [m.as_dict() for m in results]}
    args.out.write_text(json.dumps(payload, indent=1), encoding="utf-8")
    print(f"[bench] {engine}: {len(results)} measurements in {meta['wall_s']:.0f} s -> {args.out}", file=sys.stderr)


def _memory(
    engine: str,
    specs: list[ParserSpec],
    cases: list[Case],
    streams: dict[str, list[Delta]],
    timed: list[Measurement],
    cap: float,
    sizes: list[int],
) -> list[Measurement]:
    out: list[Measurement] = []
    by_key = {(m.parser, m.family, m.dialect, m.size): m for m in timed}
    for spec in specs:
        if not spec.memory:
            continue
        for case in cases:
            if case.family != "huge" or case.size not in sizes or case.dialect not in spec.dialects:
                continue
            timing = by_key.get((spec.name, case.family, case.dialect, case.size))
            if timing is None or timing.total_s is None or timing.total_s > MEMORY_MAX_S:
                continue
            deltas = streams[case.key]
            m = Measurement(engine, spec.name, "memory", case.dialect, case.size, len(deltas), len(case.text))
            try:
                m.peak_kib = peak_memory(spec.make_runner(case), deltas, cap * 4)
            except Exception as e:
                m.status, m.note = "error", f"{type(e).__name__}: {e}"[:200]
            out.append(m)
            print(f"[bench] {engine} {spec.name} memory {case.dialect} {case.size}: {m.peak_kib} KiB", file=sys.stderr)
    return out


def _progress(results: list[Measurement]) -> None:
    for m in results:
        t = f"{m.total_s:.3f} s" if m.total_s is not None else f"~{m.estimate_s or 0:.1f} s ({m.status})"
        print(f"[bench] {m.engine} {m.parser:>22} {m.family}/{m.dialect}/{m.size}: {t} {m.correct}", file=sys.stderr)
