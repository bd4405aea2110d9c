"""The serving benchmark's smoke (``benchmarks/serving_cost.py --smoke``): both servers of the comparison start on
vLLM's CPU build, serve the same streams, and the payload the report reads is complete."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks import report, serving_cost


def test_the_serving_benchmark_runs(tmp_path: Path) -> None:
    out = tmp_path / "serving.json"
    assert serving_cost.main(["--smoke", "--out", str(out)]) == 0
    payload = json.loads(out.read_text(encoding="utf-8"))
    assert set(payload["configurations"]) == {"ours", "vllm"}
    for result in payload["configurations"].values():
        (first,) = result["rounds"]
        assert first["completion_tokens"] == 4 * 16  # every stream as long as asked (ignore_eos)
        served = first["served"]
        assert served["content_chars"] + served["reasoning_chars"] > 0
    assert payload["cpu_ratio"] > 0 and payload["throughput_ratio"] > 0
    assert any("Ours over vLLM's" in line for line in report.serving_section([payload]))
