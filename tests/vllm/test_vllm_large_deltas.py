"""Large deltas on vLLM's own server, Chat Completions, Responses and Messages (see
:mod:`tests.support.twins.large_deltas`), and a Chat Completions request's own ``stream_interval``."""

from __future__ import annotations

from typing import Any

import pytest
from served_vllm import VllmDriver

from tests.served.cells import Cell
from tests.served.fold import FOLDS
from tests.served.oracle import Served, expected
from tests.served.requests import request_body
from tests.served.run import compare
from tests.support.twins.large_deltas import *  # noqa: F403 (the tests, run on VllmDriver)
from tests.support.twins.large_deltas import GROUPS

pytestmark = pytest.mark.vllm

DRIVER = VllmDriver


def _differences(driver: Any, cell: Cell, text: Any, stream_interval: int = 1, **extra: Any) -> list[str]:
    """What the cell serves for ``text`` that is not the one-pass reading, by a server started with
    ``--stream-interval stream_interval``; ``extra``: more of the request's body."""
    want = expected("vllm", cell, text.text, text.tools, False, False)
    body = request_body(cell, text.tools, False, max_tokens=4096) | extra
    status, payload = driver.servers.serve(cell, text.text, body, stream_interval)
    served = FOLDS[(cell.api, cell.stream)](payload) if status == 200 else Served(faults=(f"HTTP {status}: {payload}",))
    return [*served.faults, *compare(served, want)]


def test_a_request_stream_interval(driver: Any, text: Any) -> None:
    """A Chat Completions request's own ``stream_interval`` (``text``: each text of the twin): vLLM's output
    processor hands the tokens on in steps of that many (after the first token alone), and the answer is the one-pass
    reading."""
    failed = []
    for interval in (1, *GROUPS):
        problems = _differences(driver, Cell(api="chat", stream=True), text, stream_interval=interval)
        if problems:
            failed.append(f"stream_interval {interval}: {' | '.join(problems)}")
    assert not failed, "\n".join(failed)


@pytest.mark.parametrize("interval", [14, 20, 29, 32, 64])
def test_a_server_stream_interval(driver: Any, text: Any, interval: int) -> None:
    """``vllm serve --stream-interval N``: every API streams the one-pass reading, and a Responses stream completes."""
    failed = []
    for api in driver.apis:
        problems = _differences(driver, Cell(api=api, stream=True), text, interval)
        if problems:
            failed.append(f"{api}: {' | '.join(problems)}")
    assert not failed, "\n".join(failed)
