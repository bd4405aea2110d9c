"""Run a callback when a module has been imported (at once if it already is), without importing it ourselves.

Importing SGLang's parser registries costs seconds (torch, transformers); the plugin entry point must not pay that in
processes that never use them. A meta-path finder wraps the loader of the awaited modules and runs the callbacks
right after the module body has executed, before the importer gets the module.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import threading
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

Callback = Callable[[ModuleType], None]

_lock = threading.RLock()
_pending: dict[str, list[Callback]] = {}


def when_imported(name: str, callback: Callback) -> None:
    """Call ``callback(module)`` once ``name`` is imported; now when it already is. Idempotent per callback."""
    module = sys.modules.get(name)
    if module is not None:
        callback(module)
        return
    with _lock:
        callbacks = _pending.setdefault(name, [])
        if callback not in callbacks:
            callbacks.append(callback)
        if not any(isinstance(finder, _Finder) for finder in sys.meta_path):
            sys.meta_path.insert(0, _Finder())


def _run_pending(name: str, module: ModuleType) -> None:
    with _lock:
        callbacks = _pending.pop(name, [])
        if not _pending:
            sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _Finder)]
    for callback in callbacks:
        callback(module)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in _pending:
            return None
        for finder in sys.meta_path:
            find_spec = getattr(finder, "find_spec", None)
            if finder is self or find_spec is None:
                continue
            spec = find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _Loader(spec.loader)
        return spec


class _Loader(importlib.abc.Loader):
    """Delegates everything to the real loader; runs the pending callbacks after ``exec_module``."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._inner.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._inner.exec_module(module)
        _run_pending(module.__name__, module)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)
