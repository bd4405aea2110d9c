"""The benchmark code at toy sizes, in the core environment, so that it cannot rot (no timing is asserted).

The engine parts (benchmarks/vllm_part.py, benchmarks/sglang_part.py) need their engines; here they are only
imported. scripts/bench.sh runs everything for real.
"""

from __future__ import annotations

import argparse
import importlib
import json
from pathlib import Path

import pytest

from benchmarks import report
from benchmarks.cases import agent_case, all_cases, huge_case, many_case
from benchmarks.core_part import SPECS, core_runner
from benchmarks.measure import Folded, Series, check
from benchmarks.part import run_part
from benchmarks.tokens import SPECIAL_TAGS, load_tokenizer, token_deltas
from benchmarks.workloads import DIALECTS

pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory: pytest.TempPathFactory) -> object:
    return load_tokenizer(tmp_path_factory.mktemp("tok"))


def test_tags_are_single_tokens_and_deltas_join_back(tokenizer: object) -> None:
    for tag in SPECIAL_TAGS:
        assert len(tokenizer.encode(tag, add_special_tokens=False)) == 1, tag  # type: ignore[attr-defined]
    for case in all_cases(DIALECTS, (300,), (5,), (1, 64)):
        group = case.size if case.chunking == "tokens" else None
        deltas = token_deltas(tokenizer, case.text, group=group, min_chars=3)
        assert "".join(text for text, _ in deltas) == case.text
        assert all(ids for _, ids in deltas)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_expected_messages_match_the_core(tokenizer: object, dialect: str) -> None:
    for case in (huge_case(dialect, 700), many_case(dialect, 7), agent_case(dialect, 4)):
        deltas = token_deltas(tokenizer, case.text, group=4 if case.chunking == "tokens" else None)
        folded = core_runner(case)(deltas, float("inf"), True)
        assert folded is not None and check(case, folded) == "yes", case.key


def test_check_reports_what_is_wrong() -> None:
    case = agent_case("xml", 4)
    assert check(case, Folded()).startswith("NO: 0/3 calls")


def test_series_skips_and_extrapolates_a_slow_parser() -> None:
    cases = [(huge_case("xml", n), [("x", [1])] * 10) for n in (100, 400, 1600)]
    times = iter([0.2, 1.6])  # exponent 1.5: 1600 is predicted at 12.8 s, over the cap

    def make(case: object) -> object:
        def run(deltas: object, deadline: float, keep: bool) -> Folded:
            return Folded()

        return run

    series = Series("test", "slow", cap=5.0, repeat=1)
    import benchmarks.measure as measure

    real = measure.time_runner
    measure.time_runner = lambda runner, deltas, cap, repeat: (next(times), None)  # type: ignore
    try:
        series.run(cases, make)  # type: ignore[arg-type]
    finally:
        measure.time_runner = real
    statuses = [m.status for m in series.results]
    assert statuses == ["ok", "ok", "skipped"], series.results
    assert series.results[2].estimate_s and series.results[2].estimate_s > 5.0


def test_core_part_and_report(tmp_path: Path, tokenizer: object, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LONGCAT_BENCH_TOKENIZER", str(tmp_path / "tok"))
    out = tmp_path / "core.json"
    args = argparse.Namespace(
        out=out, cap=30.0, repeat=1, sizes="512,2048", counts="5,20", groups="1,64", no_memory=False
    )
    run_part("core", SPECS, args, {})
    payload = json.loads(out.read_text())
    ours = [m for m in payload["results"] if m["parser"] == "ours (core)" and m["family"] != "memory"]
    assert ours and all(m["status"] == "ok" and m["correct"] == "yes" for m in ours)
    assert any(m["family"] == "memory" and m["peak_kib"] is not None for m in payload["results"])

    md, png = tmp_path / "RESULTS.md", tmp_path / "scaling.png"
    index = report.Index([payload])
    drew = report.plot(index, png)
    report.write_markdown([payload], index, md, png if drew else None)
    text = md.read_text()
    assert "## Targets" in text and "| ours (core) |" in text
    assert drew == png.exists()


@pytest.mark.parametrize("module", ["benchmarks.vllm_part", "benchmarks.sglang_part", "benchmarks.core_bench"])
def test_engine_parts_import_without_their_engine(module: str) -> None:
    importlib.import_module(module)
