"""vLLM's Rust OpenAI frontend (``vllm-rs``) with the ``hf`` response-template parsers, over HTTP with the official
openai client.

The tests run in the vLLM test environment (scripts/env_vllm.sh). Without vLLM or openai the directory is skipped,
unless ``LONGCAT_REQUIRE_ENGINE=vllm`` (CI) makes that an error; a vLLM wheel without the ``vllm-rs`` binary skips
the tests that need it, saying so.
"""

from __future__ import annotations

from tests.support.engine_suite import ignored_without

collect_ignore_glob = ignored_without("vllm", ("vllm", "openai"), "scripts/env_vllm.sh")
