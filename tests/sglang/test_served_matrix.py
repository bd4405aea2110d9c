"""The served-path matrix's smoke on SGLang: what SGLang's own Chat Completions serving serves, streamed or not, for
every parser configuration, tool choice, finish and tokenization, equals the core's one-pass reading of the same text
(``tests/served``; the whole matrix: ``python -m tests.served sglang``)."""

from __future__ import annotations

import pytest
from served_sglang import SglangDriver

from tests.support.twins.served_matrix import *  # noqa: F403 (the smoke's tests, run on SglangDriver)

pytestmark = pytest.mark.sglang

DRIVER = SglangDriver
