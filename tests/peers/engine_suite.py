"""The peers' test cases through an engine: the checks tests/vllm/test_peers_vllm.py and
tests/sglang/test_peers_sglang.py share. Importing this module needs no engine; running the checks needs one."""

from __future__ import annotations

from typing import Any

import pytest

from tests.peers.score import Board, cases, contenders, describe, engine_runs, load_known, right, score_engine

CASES = cases()


def params(engine: str) -> list[Any]:
    """Every case that is not a declined convention; the engine's known failures are strict xfails."""
    known = load_known(engine)
    out = []
    for case in CASES:
        if case.get("declined"):
            continue
        marks = [pytest.mark.xfail(strict=True, reason=known[case["id"]])] if case["id"] in known else []
        out.append(pytest.param(case, id=case["id"], marks=marks))
    return out


def check_ours(engine: str, driver: Any, case: dict[str, Any]) -> None:
    """Ours (``longcat`` tool and reasoning parsers) through the engine gives what the peer's test expects, in one
    piece and at every split."""
    runs = engine_runs(driver, contenders(engine)[0], case)
    assert right(runs), describe(runs)


def check_board(engine: str, driver: Any) -> Board:
    """Ours fails no case a built-in passes, except the known failures of the engine; and per peer ours passes at
    least as many cases as the built-ins together."""
    board = score_engine(engine, CASES, driver)
    known = load_known(engine)
    behind = sorted(i for i, ok in board.builtins_right.items() if ok and i in board.ours_wrong and i not in known)
    assert not behind, f"a built-in passes and ours fails: {behind}"
    for peer, row in board.rows.items():
        assert row.ours >= row.builtin, f"{peer}: ours {row.ours} < built-ins {row.builtin}"
    return board
