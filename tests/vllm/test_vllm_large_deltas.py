"""Large deltas on vLLM's own server, Chat Completions, Responses and Messages (see
:mod:`tests.support.twins.large_deltas`)."""

from __future__ import annotations

import pytest
from served_vllm import VllmDriver

from tests.support.twins.large_deltas import *  # noqa: F403 (the tests, run on VllmDriver)

pytestmark = pytest.mark.vllm

DRIVER = VllmDriver
