"""The benchmark's vLLM side at toy sizes, through the real engine: the floors composed by ``ParserManager`` and
driven through ``Parser.parse_delta``, the per-request benchmark, and the server-share script (no timing is
asserted)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from benchmarks import per_request, report, server_share, targets, verdicts, vllm_part
from benchmarks.cases import agent_case, huge_case
from benchmarks.measure import Folded
from benchmarks.tokens import load_tokenizer, token_deltas
from benchmarks.vllm_floors import END_TAG, FLOOR, LEGACY


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    path = tmp_path_factory.mktemp("tok")
    patch = pytest.MonkeyPatch()
    patch.setenv("LONGCAT_BENCH_TOKENIZER", str(path))
    vllm_part.setup()
    yield load_tokenizer(path)
    patch.undo()


def _fold(tokenizer: Any, name: str, reasoning: bool, text: str) -> tuple[Folded, Any]:
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    from benchmarks.tokens import PROMPT

    cls = vllm_part.parser_class(name, name if reasoning else None, tokenizer)
    request = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "x"}], stream=True)
    parser = cls(tokenizer, None)
    prompt_ids = tokenizer.encode(PROMPT, add_special_tokens=False)
    folded = Folded()
    deltas = token_deltas(tokenizer, text, min_chars=3)
    for i, (delta, ids) in enumerate(deltas):
        message = parser.parse_delta(delta, ids, request, prompt_token_ids=prompt_ids, finished=i == len(deltas) - 1)
        if message is not None:
            vllm_part.fold_message(folded, message)
    return folded, parser


@pytest.mark.parametrize("name", [FLOOR, LEGACY])
def test_floors_pass_the_text_through_the_engine(tokenizer: Any, name: str) -> None:
    text = huge_case("longcat_json", 600).text
    folded, parser = _fold(tokenizer, name, False, text)
    assert "".join(folded.content) == text and not folded.args and not folded.reasoning
    # the legacy path is what makes a parser quadratic: vLLM keeps the whole text for it
    state = parser._stream_state
    assert len(state.previous_text) == (len(text) if name == LEGACY else 0)


@pytest.mark.parametrize("name", [FLOOR, LEGACY])
def test_floors_split_reasoning_at_the_end_token(tokenizer: Any, name: str) -> None:
    text = agent_case("xml", 4).text
    folded, _ = _fold(tokenizer, name, True, text)
    assert "".join(folded.reasoning) + END_TAG + "".join(folded.content) == text


def test_floor_specs_run_and_are_unchecked(tokenizer: Any) -> None:
    specs = {spec.name: spec for spec in vllm_part.specs(tokenizer)}
    assert specs[vllm_part.FLOOR_NAME].role == "floor" and specs[vllm_part.LEGACY_NAME].role == "no-op"
    case = huge_case("xml", 300)
    deltas = token_deltas(tokenizer, case.text, min_chars=3)
    assert specs[vllm_part.FLOOR_NAME].make_runner(case)(deltas, float("inf"), True) is None
    ours = specs["ours"].make_runner(case)(deltas, float("inf"), True)
    assert ours is not None and "".join(ours.args[0])


def test_per_request_at_toy_size(tokenizer: Any) -> None:
    rows = {c.name: per_request.measure(c, tokenizer, 6, 1) for c in vllm_part.request_contenders(tokenizer)}
    assert rows["ours"]["correct"] == "yes"
    assert rows[vllm_part.FLOOR_NAME]["correct"] == "n/a"
    assert {"ours", "longcat (built-in)", "hermes (built-in)", "qwen3_coder (built-in)"} <= set(rows)
    for row in rows.values():
        assert row["startup_us"] > 0 and row["construct_new_us"] > 0 and row["stream_same_us"] > 0


def test_server_share_smoke(tmp_path: Path) -> None:
    out = tmp_path / "server.json"
    server_share.main(["--smoke", "--out", str(out)])
    payload = json.loads(out.read_text())
    run = payload["profiled"]
    assert run["streams_ok"] == payload["streams"] == 2
    profile = run["profile"]
    assert 0 < profile["ours_own_s"] <= profile["ours_inclusive_s"] < profile["profiled_cpu_s"]
    assert any("extract_tool_calls_streaming" in name for name in profile["entries"])
    verdict = verdicts.server_share(payload, targets.SERVER_SHARE)
    text = "\n".join(
        [*report.server_section([payload]), f"| {verdict.target} | {verdict.measured} | {verdict.reached} |"]
    )
    assert "Our share of the profiled CPU" in text and "<= 5% of the replay server's CPU" in text
