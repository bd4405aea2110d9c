"""Which tool a written call name means.

When the request declares tools, a call names one of them: the written name exactly, else the name without a
namespace prefix (``functions.get_weather``, ``tools.get_weather``: models prompted with a TypeScript-style namespace
write it). A name that resolves to no declared tool is no call. Without declared tools, any identifier is accepted as
written; a name never holds whitespace, markup or prose.
"""

from __future__ import annotations

import re
from collections.abc import Container
from typing import Final

_IDENTIFIER: Final = re.compile(r"[A-Za-z_$][\w$.\-/]*")


def resolve_tool_name(written: str, declared: Container[str], any_declared: bool) -> str | None:
    """The declared tool ``written`` names (or, when no tool is declared, ``written`` if it is an identifier)."""
    if not any_declared:
        return written if _IDENTIFIER.fullmatch(written) else None
    if written in declared:
        return written
    _, dot, bare = written.rpartition(".")
    if dot and bare in declared:
        return bare
    return None


def is_identifier(name: str) -> bool:
    return _IDENTIFIER.fullmatch(name) is not None
