"""vLLM's Rust OpenAI frontend (``vllm-rs``) with the ``hf`` response-template parsers, over HTTP with the official
openai client.

The tests run in the vLLM test environment (scripts/env_vllm.sh). Without vLLM or openai the directory is skipped,
unless ``LONGCAT_REQUIRE_ENGINE=vllm`` (CI) makes that an error; a vLLM wheel without the ``vllm-rs`` binary skips
the tests that need it, saying so.
"""

from __future__ import annotations

import importlib.util
import os

_REQUIRED = os.environ.get("LONGCAT_REQUIRE_ENGINE", "").strip().lower() == "vllm"
_MISSING = [name for name in ("vllm", "openai") if importlib.util.find_spec(name) is None]

if _MISSING:
    if _REQUIRED:
        raise ImportError(
            f"LONGCAT_REQUIRE_ENGINE=vllm but {', '.join(_MISSING)} not importable: run the suite with "
            ".venvs/vllm/bin/python (made by scripts/env_vllm.sh)"
        )
    collect_ignore_glob = ["test_*.py"]
