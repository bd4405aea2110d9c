"""``longcat-plugins doctor``: will the engines here serve ``longcat`` with this package's parsers?

The checks are cheap first (package metadata, entry points, allow-lists) and import an engine only to see what
its own plugin loading really registers. Nothing here imports an engine at module level.
"""

from __future__ import annotations

from .model import ENGINES, Check, EngineSpec, Status
from .runner import run_checks

__all__ = ["ENGINES", "Check", "EngineSpec", "Status", "run_checks"]
