"""The vLLM suite runs in the vLLM test environment (scripts/env_vllm.sh).

Without vLLM the directory is skipped, unless ``LONGCAT_REQUIRE_ENGINE=vllm`` (CI) makes that an error. The plugins
are loaded once here through vLLM's own ``load_general_plugins()``, the way every vLLM process loads them.
"""

from __future__ import annotations

import importlib.util
import os

_REQUIRED = os.environ.get("LONGCAT_REQUIRE_ENGINE", "").strip().lower() == "vllm"

if importlib.util.find_spec("vllm") is None:
    if _REQUIRED:
        raise ImportError(
            "LONGCAT_REQUIRE_ENGINE=vllm but vllm is not importable: run the suite with .venvs/vllm/bin/python "
            "(made by scripts/env_vllm.sh)"
        )
    collect_ignore_glob = ["test_*.py"]
else:
    from vllm.plugins import load_general_plugins

    load_general_plugins()
