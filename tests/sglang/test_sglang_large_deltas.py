"""Large deltas on SGLang's Chat Completions and Responses serving (see :mod:`tests.support.twins.large_deltas`).

SGLang's Messages stream is left out: made of the Chat Completions stream, which sends a step's text before the step's
call fragments, it closes a ``tool_use`` block at text and drops the arguments that follow, so text after a call that
is open when the output's last step begins cannot be placed there (``tests/served/oracle.py``, ENGINE_FAULTS)."""

from __future__ import annotations

import pytest
from served_sglang import SglangDriver

from tests.support.twins.large_deltas import *  # noqa: F403 (the tests, run on SglangDriver)

pytestmark = pytest.mark.sglang

DRIVER = SglangDriver
APIS = ("chat", "responses")
