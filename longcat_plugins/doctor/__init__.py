"""``longcat-plugins doctor``: will the engines here serve ``longcat`` with this package's parsers?

The checks are cheap first (package metadata, entry points, allow-lists) and import an engine only to see what
its own plugin loading really registers. Nothing here imports an engine at module level.

The engine adapters use :mod:`.model` and :mod:`.drift` when they register; importing those does not load the
checks themselves (``run_checks`` is imported on first use).
"""

from __future__ import annotations

from typing import Any

from .model import ENGINES, Check, EngineSpec, Status

__all__ = ["ENGINES", "Check", "EngineSpec", "Status", "run_checks"]


def __getattr__(name: str) -> Any:
    if name == "run_checks":
        from .runner import run_checks

        return run_checks
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
