"""Which cells run on which engine, and the cells that fail because of the engine (strict xfails that say why)."""

from __future__ import annotations

from typing import Any

import pytest
from clients import CELLS
from harness import REPO, engine_python

# The HTTP endpoints each engine's own server has (the replay runs that server unchanged).
ENGINE_APIS = {
    "vllm": {"chat", "responses", "messages"},
    "sglang": {"chat"},
}

# (engine, cell, what) -> reason: the engine, not our parsers, makes these fail.
ENGINE_FAULTS: dict[tuple[str, str, str], str] = {}


def engines() -> list[str]:
    """vLLM always; SGLang once its environment exists and the replay speaks it (``serve --engine sglang``)."""
    serve = (REPO / "longcat_plugins" / "commands" / "serve.py").read_text(encoding="utf-8")
    has_sglang = engine_python("sglang").exists() and '"--engine"' in serve
    return ["vllm", "sglang"] if has_sglang else ["vllm"]


def cell_params(what: str, engine_list: list[str] | None = None) -> list[Any]:
    """pytest params (engine, cell name) for the cells an engine's server has; engine faults as strict xfails."""
    params = []
    for engine in engine_list or engines():
        for name, cell in CELLS.items():
            if cell.api not in ENGINE_APIS[engine]:
                continue
            reason = ENGINE_FAULTS.get((engine, name, what))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            params.append(pytest.param(engine, name, marks=marks, id=f"{engine}-{name}"))
    return params
