"""The peers' test cases (tests/peers/cases.jsonl) through SGLang's own entry points, ours beside SGLang's built-in
parsers (``qwen25``, ``qwen3_coder`` with ``qwen3``; ``qwen25`` with ``deepseek-r1``).

Ours gives every case that is not a declined convention as the peer's test expects, one piece and streamed, except
the SGLang known failures of tests/peers/known_failures.txt (strict); and ours fails no case a built-in passes.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.peers.engine_suite import check_board, check_ours, params
from tests.real.score_engines import SglangDriver

pytestmark = pytest.mark.sglang


@pytest.fixture(scope="module")
def driver() -> SglangDriver:
    return SglangDriver()


@pytest.mark.parametrize("case", params("sglang"))
def test_ours_passes_peer_case_through_sglang(driver: SglangDriver, case: dict[str, Any]) -> None:
    check_ours("sglang", driver, case)


def test_ours_fails_no_case_an_sglang_builtin_passes(driver: SglangDriver) -> None:
    check_board("sglang", driver)
