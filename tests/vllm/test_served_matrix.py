"""The served-path matrix's smoke on vLLM: what vLLM's own server serves, for every API, streamed or not, every
parser configuration, tool choice, finish and tokenization, equals the core's one-pass reading of the same text
(``tests/served``; the whole matrix: ``python -m tests.served vllm``)."""

from __future__ import annotations

import pytest
from served_vllm import VllmDriver

from tests.support.twins.served_matrix import *  # noqa: F403 (the smoke's tests, run on VllmDriver)

pytestmark = pytest.mark.vllm

DRIVER = VllmDriver
