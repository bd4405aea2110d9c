"""Strict JSON: what ``JSON.parse`` and serde_json accept, read and written.

* a number outside the range of a double (``1e999``, an integer of 400 digits) is refused; NaN and Infinity are
  never produced;
* a surrogate code point without its other half (``{"a": "\\ud83d"}``) becomes U+FFFD, as JavaScript's
  ``String.prototype.toWellFormed`` does; a pair written as two code points (a Python literal) is joined.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Final

INVALID: Any = object()  # what is not strict JSON, or what a strict JSON value cannot hold

_SURROGATE: Final = re.compile("[\ud800-\udfff]")
_SURROGATE_OR_ESCAPE: Final = re.compile(r"[\ud800-\udfff]|\\u[dD][89a-fA-F]")
_MAX_DOUBLE_DIGITS: Final = 308  # an integer with no more digits is always within the range of a double


def parse_strict_json(text: str) -> Any:
    """The value of a JSON text, INVALID unless it is strict JSON; a lone surrogate in it becomes U+FFFD."""
    try:
        value = json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float, parse_int=_bounded_int)
    except (ValueError, RecursionError):
        return INVALID
    if _SURROGATE_OR_ESCAPE.search(text):
        value = strict_json_value(value)
    return value


def strict_json_dumps(value: Any) -> str | None:
    """``value`` as JSON text that strict readers accept (lone surrogates replaced as above), or None when it holds
    what they refuse or JSON cannot carry (a number out of range, NaN, a set...)."""
    value = strict_json_value(value)
    if value is INVALID:
        return None
    try:
        return json.dumps(value, ensure_ascii=False)
    except (ValueError, RecursionError):
        return None


def strict_json_value(value: Any) -> Any:
    """``value`` as a JSON value that strict readers accept (text well formed, tuples as lists, keys as JSON writes
    them), or INVALID when it holds something JSON cannot carry: a number out of range, a set, bytes... Walks the
    value with an explicit stack, so any depth is fine."""
    top: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(value, top, 0)]
    while stack:
        item, parent, slot = stack.pop()
        if isinstance(item, str):
            item = to_well_formed(item)
        elif isinstance(item, bool) or item is None:
            pass
        elif isinstance(item, int):
            if not fits_double(item):
                return INVALID
        elif isinstance(item, float):
            if not math.isfinite(item):
                return INVALID
        elif isinstance(item, (list, tuple)):
            items = item
            item = [None] * len(items)
            stack.extend((member, item, i) for i, member in enumerate(items))
        elif isinstance(item, dict):
            members = item
            item = {}
            for key, member in members.items():
                name = _json_key(key)
                if name is INVALID:
                    return INVALID
                item[name] = None  # keeps the order of the keys
                stack.append((member, item, name))
        else:
            return INVALID
        parent[slot] = item
    return top[0]


def to_well_formed(text: str) -> str:
    """``text`` with each surrogate code point that has no other half replaced by U+FFFD (a pair is joined)."""
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def fits_double(value: int) -> bool:
    """Whether a JSON reader that reads numbers as doubles gets a finite number from this integer."""
    try:
        float(value)
    except OverflowError:
        return False
    return True


def _json_key(key: Any) -> Any:
    """A dict key as JSON writes it (``1`` -> ``"1"``, ``None`` -> ``"null"``), or INVALID."""
    if isinstance(key, str):
        return to_well_formed(key)
    if key is None or isinstance(key, bool):
        return json.dumps(key)
    if isinstance(key, int):
        return str(key) if fits_double(key) else INVALID
    if isinstance(key, float):
        return repr(key) if math.isfinite(key) else INVALID
    return INVALID


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is out of range")
    return value


def _bounded_int(text: str) -> int:
    value = int(text)
    if len(text) > _MAX_DOUBLE_DIGITS and not fits_double(value):
        raise ValueError("integer out of range")
    return value
