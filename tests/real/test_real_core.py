"""The core on the corpus of real model outputs (cases.jsonl; see README.md).

Each case must come out right in one piece and streamed in 1-, 4- and 7-character deltas and as one delta. Cases the
core is known to get wrong are listed in known_failures.txt and expected to fail (strictly: a case that starts passing
fails the run until its line is removed).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.real.score import CASES_PATH, SPLITS, compare, describe, load_cases, normalize, score_case

HERE = Path(__file__).parent
CASES = load_cases()


def _known_failures() -> dict[str, str]:
    known: dict[str, str] = {}
    for line in (HERE / "known_failures.txt").read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        case_id, _, reason = line.partition(" ")
        known[case_id] = reason.strip()
    return known


KNOWN = _known_failures()


def _params() -> list[Any]:
    params = []
    for case in CASES:
        marks = []
        if case["id"] in KNOWN:
            marks.append(pytest.mark.xfail(strict=True, reason=KNOWN[case["id"]]))
        params.append(pytest.param(case, id=case["id"], marks=marks))
    return params


@pytest.mark.parametrize("case", _params())
def test_core_reads_real_output(case: dict[str, Any]) -> None:
    runs = score_case(case, SPLITS)
    assert not any(runs.values()), describe(runs)


def test_known_failures_name_existing_cases() -> None:
    ids = {c["id"] for c in CASES}
    assert set(KNOWN) <= ids, f"known_failures.txt names unknown cases: {sorted(set(KNOWN) - ids)}"


def test_cases_file_matches_generator() -> None:
    """cases.jsonl is what make_cases.py writes (edit the generator, then regenerate)."""
    from tests.real import make_cases

    written = [json.loads(line) for line in CASES_PATH.read_text(encoding="utf-8").splitlines() if line]
    assert written == make_cases.CASES


def test_cases_are_well_formed() -> None:
    ids = [c["id"] for c in CASES]
    assert len(ids) == len(set(ids))
    for case in CASES:
        assert case["dialect"] in {"longcat_kv", "xml", "hermes", "other", "reasoning"}, case["id"]
        assert case["text"] and case["source"] and case["note"] and case["provenance"], case["id"]
        declared = {t["function"]["name"] for t in case["tools"]}
        for call in case["expected"]["tool_calls"]:
            assert call["name"] in declared, (case["id"], call["name"])
            assert isinstance(call["arguments"], dict), case["id"]
        # the expected block is itself a right answer
        assert compare(case["expected"], normalize(case["expected"])) == [], case["id"]


def test_compare_reads_openai_messages() -> None:
    expected = {"content": "", "reasoning": "r", "tool_calls": [{"name": "f", "arguments": {"n": 1}}]}
    message: dict[str, Any] = {
        "role": "assistant",
        "content": None,
        "reasoning_content": "r",
        "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": '{"n": 1}'}}],
    }
    assert compare(expected, message) == []
    message["tool_calls"][0]["function"]["arguments"] = '{"n": 1.0}'
    assert compare(expected, message), "1.0 is not 1"
    message["tool_calls"][0]["function"]["arguments"] = '{"n": 1'
    assert compare(expected, message), "arguments that are not JSON never match"
