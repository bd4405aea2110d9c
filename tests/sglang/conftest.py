"""The SGLang suite runs in the SGLang test environment (scripts/env_sglang.sh).

Without SGLang the directory is skipped, unless ``LONGCAT_REQUIRE_ENGINE=sglang`` (CI) makes that an error. The
plugins are loaded once here through SGLang's own ``load_plugins()``, so every test sees ``longcat`` registered the
way a server does.
"""

from __future__ import annotations

import importlib.util
import os
import sys

import pytest
from sglang_support import STANDINS

_REQUIRED = os.environ.get("LONGCAT_REQUIRE_ENGINE", "").strip().lower() == "sglang"
SGLANG_AVAILABLE = importlib.util.find_spec("sglang") is not None

if not SGLANG_AVAILABLE:
    if _REQUIRED:
        raise ImportError(
            "LONGCAT_REQUIRE_ENGINE=sglang but sglang is not importable: run the suite with .venvs/sglang/bin/python "
            "(made by scripts/env_sglang.sh)"
        )
    collect_ignore_glob = ["test_*.py"]
else:
    # Nothing here may reach the Hugging Face Hub (no model files can be downloaded): fail fast instead of retrying.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if importlib.util.find_spec("torchvision") is None:
        sys.path.insert(0, str(STANDINS))
    from sglang.srt.plugins import load_plugins

    load_plugins()


@pytest.fixture
def dialect_env(monkeypatch: pytest.MonkeyPatch):
    """Set ``LONGCAT_TOOL_DIALECT`` for the test (detectors read it when they are built)."""

    def set_dialect(name: str) -> None:
        monkeypatch.setenv("LONGCAT_TOOL_DIALECT", name)

    return set_dialect
