"""Which cells run on which engine, and the cells that fail because of the engine (strict xfails that say why)."""

from __future__ import annotations

from typing import Any

import pytest
from clients import CELLS
from harness import engine_python

# The HTTP endpoints each engine's own server has (the replay runs that server unchanged).
ENGINE_APIS = {
    "vllm": {"chat", "responses", "messages"},
    "sglang": {"chat", "responses", "messages"},
}

# (engine, cell, what) -> reason: the engine, not our parsers, makes these fail (none today; an entry is a strict xfail)
ENGINE_FAULTS: dict[tuple[str, str, str], str] = {}


def engines() -> list[str]:
    """vLLM always; SGLang when its environment exists (conftest.py makes its absence an error in CI)."""
    return ["vllm", "sglang"] if engine_python("sglang").exists() else ["vllm"]


def cell_params(what: str, recordings: tuple[str, ...]) -> list[Any]:
    """pytest params ((engine, recording), cell name, stream) for every cell an engine's server has, grouped by
    server; the cells the engine makes fail are strict xfails that say why."""
    params = []
    for engine in engines():
        for recording in recordings:
            for name, cell in CELLS.items():
                if cell.api not in ENGINE_APIS[engine]:
                    continue
                for stream in (False, True):
                    mode = "stream" if stream else "whole"
                    reason = ENGINE_FAULTS.get((engine, name, what)) or ENGINE_FAULTS.get(
                        (engine, name, f"{what}-{mode}")
                    )
                    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
                    params.append(
                        pytest.param(
                            (engine, recording), name, stream, marks=marks, id=f"{engine}-{recording}-{name}-{mode}"
                        )
                    )
    return params


def server_params(recordings: tuple[str, ...]) -> list[Any]:
    return [pytest.param((e, r), id=f"{e}-{r}") for e in engines() for r in recordings]
