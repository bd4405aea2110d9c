"""End-to-end tests over HTTP: the replay server (vLLM's own OpenAI front end) and the official openai client.

They run in the vLLM test environment (scripts/env_vllm.sh). Without vLLM the directory is skipped, unless
``LONGCAT_REQUIRE_ENGINE=vllm`` (CI) makes that an error.
"""

from __future__ import annotations

from tests.support.engine_suite import ignored_without

collect_ignore_glob = ignored_without("vllm", ("vllm", "openai"), "scripts/env_vllm.sh")
