"""The token-loop suite runs in the vLLM CPU environment (scripts/env_vllm_cpu.sh): vLLM's real engine, with tiny
random models, on this machine's CPU.

Without vLLM's CPU build the directory is skipped, unless ``LONGCAT_REQUIRE_ENGINE=vllm-cpu`` (CI) makes that an
error."""

from __future__ import annotations

import importlib.metadata
import os

import pytest

_REQUIRED = os.environ.get("LONGCAT_REQUIRE_ENGINE", "").strip().lower() == "vllm-cpu"

try:
    importlib.metadata.version("vllm-cpu")
except importlib.metadata.PackageNotFoundError:
    if _REQUIRED:
        raise ImportError(
            "LONGCAT_REQUIRE_ENGINE=vllm-cpu but vLLM's CPU build is not installed: run the suite with "
            ".venvs/vllm-cpu/bin/python (made by scripts/env_vllm_cpu.sh)"
        ) from None
    collect_ignore_glob = ["test_*.py"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests of one model run together, so that its server starts once (one server at a time)."""
    names = (
        "qwen3", "xml", "longcat-json", "longcat-kv", "qwen3-vocab", "xml-vocab", "longcat-kv-vocab",
        "longcat-json-vocab",
    )  # fmt: skip
    order = {name: i for i, name in enumerate(names)}

    def model(item: pytest.Item) -> int:
        callspec = getattr(item, "callspec", None)
        name = callspec.params.get("name") if callspec is not None else "qwen3"
        return order.get(str(name), 0)

    items.sort(key=model)
