"""The peers' test cases (tests/peers/cases.jsonl) through vLLM's own entry points, ours beside vLLM's built-in
parsers (``hermes``, ``qwen3_coder``, ``qwen3_xml`` with ``qwen3``; ``hermes`` with ``deepseek_r1``).

Ours gives every case that is not a declined convention as the peer's test expects, one piece and streamed, except
the vLLM known failures of tests/peers/known_failures.txt (strict); and ours fails no case a built-in passes.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.peers.engine_suite import check_board, check_ours, params
from tests.real.score_engines import VllmDriver

pytestmark = pytest.mark.vllm


@pytest.fixture(scope="module")
def driver() -> VllmDriver:
    return VllmDriver()


@pytest.mark.parametrize("case", params("vllm"))
def test_ours_passes_peer_case_through_vllm(driver: VllmDriver, case: dict[str, Any]) -> None:
    check_ours("vllm", driver, case)


def test_ours_fails_no_case_a_vllm_builtin_passes(driver: VllmDriver) -> None:
    check_board("vllm", driver)
