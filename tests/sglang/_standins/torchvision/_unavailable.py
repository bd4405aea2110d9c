from __future__ import annotations

from collections.abc import Callable
from typing import Any


def unavailable_module_getattr(module: str) -> Callable[[str], Any]:
    """A module ``__getattr__``: public names resolve to callables that raise when used."""

    def __getattr__(name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(f"module {module!r} has no attribute {name!r}")

        def unavailable(*args: Any, **kwargs: Any) -> Any:
            raise RuntimeError(f"{module}.{name} is not available in the SGLang test environment")

        unavailable.__name__ = unavailable.__qualname__ = name
        return unavailable

    return __getattr__
