"""The serving benchmark's smoke (``benchmarks/serving_cost.py --smoke``): every server of the comparison starts on
vLLM's CPU build, serves the same streams, and the payload the report reads is complete."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks import report, serving_cost


def test_the_serving_benchmark_runs(tmp_path: Path) -> None:
    out = tmp_path / "serving.json"
    assert serving_cost.main(["--smoke", "--out", str(out)]) == 0
    payload = json.loads(out.read_text(encoding="utf-8"))
    assert set(payload["workloads"]) == set(serving_cost.WORKLOADS)
    for workload, result in payload["workloads"].items():
        assert set(result["configurations"]) == set(serving_cost.WORKLOADS[workload])
        for name, configuration in result["configurations"].items():
            (first,) = configuration["rounds"]
            served = first["served"]
            if workload == "content":
                assert first["completion_tokens"] == 4 * 48  # every stream as long as asked (ignore_eos)
                assert served["content_chars"] + served["reasoning_chars"] > 0, name
            else:  # a forced call is served as a call, by every parser's grammar
                assert served["tool_call_deltas"] >= 4, name
        assert all(r["cpu_ratio"] > 0 and r["throughput_ratio"] > 0 for r in result["ratios"].values())
    assert any("ours over it" in line for line in report.serving_section([payload]))
