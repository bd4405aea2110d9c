"""The core on the peers' test cases (cases.jsonl; see README.md).

Each case that is not a declined convention must come out as the peer's test expects, in one piece and streamed in
1-, 4- and 7-character pieces, as one piece and at seeded random splits. Cases ours is known to get wrong are listed
in known_failures.txt and expected to fail (strictly: a case that starts passing fails the run until its line is
removed). Declined cases are checked to be declined for a stated reason, and to still differ from the peer's reading.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.peers.score import CASES_PATH, SCOPES, cases, core_runs, describe, load_known, right
from tests.real.score import compare, normalize

CASES = cases()
KNOWN = load_known("core")


def _params(declined: bool) -> list[Any]:
    params = []
    for case in CASES:
        if bool(case.get("declined")) != declined:
            continue
        marks = []
        if case["id"] in KNOWN:
            marks.append(pytest.mark.xfail(strict=True, reason=KNOWN[case["id"]]))
        params.append(pytest.param(case, id=case["id"], marks=marks))
    return params


@pytest.mark.parametrize("case", _params(declined=False))
def test_core_passes_peer_case(case: dict[str, Any]) -> None:
    runs = core_runs(case)
    assert right(runs), describe(runs)


@pytest.mark.parametrize("case", _params(declined=True))
def test_declined_convention_still_differs(case: dict[str, Any]) -> None:
    """A declined case states its reason, and ours still reads it its own way (else the decline is stale)."""
    assert len(case["declined"]) > 40, case["id"]
    assert not right(core_runs(case)), f"{case['id']} passes now: it is no longer a declined convention"


def test_known_failures_name_existing_undeclined_cases() -> None:
    ids = {c["id"] for c in CASES if not c.get("declined")}
    for scope in SCOPES:
        known = load_known(scope)
        assert set(known) <= ids, f"known_failures.txt names unknown or declined cases: {sorted(set(known) - ids)}"


def test_cases_file_matches_generator() -> None:
    """cases.jsonl is what make_cases.py writes (edit the generator, then regenerate)."""
    from tests.peers import make_cases

    written = [json.loads(line) for line in CASES_PATH.read_text(encoding="utf-8").splitlines() if line]
    assert written == make_cases.CASES


def test_cases_are_well_formed() -> None:
    ids = [c["id"] for c in CASES]
    assert len(ids) == len(set(ids))
    for case in CASES:
        origin = case["origin"]
        assert origin["repo"] and origin["path"] and len(origin["commit"]) == 40 and origin["test"], case["id"]
        assert case["peer"] in {"vllm", "sglang", "ollama"}, case["id"]
        assert set(case.get("checks", ["content"])) <= {"content", "reasoning", "tool_calls"}, case["id"]
        declared = {t["function"]["name"] for t in case["tools"]}
        for call in case["expected"]["tool_calls"]:
            assert call["name"] in declared, (case["id"], call["name"])
        if all(isinstance(c["arguments"], dict) for c in case["expected"]["tool_calls"]):
            assert compare(case["expected"], normalize(case["expected"])) == [], case["id"]
        else:  # only a declined peer convention expects arguments that are no object
            assert case.get("declined"), case["id"]
