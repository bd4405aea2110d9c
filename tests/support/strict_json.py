"""A JSON reader as strict as serde_json and ``JSON.parse``: what every argument string we emit must pass."""

from __future__ import annotations

import json
import math
from typing import Any


class NotStrictJson(ValueError):
    pass


def _reject_constant(name: str) -> Any:
    raise NotStrictJson(f"{name} is not JSON")


def _strict_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise NotStrictJson(f"{text} is out of the range of a double")
    return value


def _strict_int(text: str) -> int:
    if not math.isfinite(float(text)):  # serde_json reads a large integer as a double and refuses infinity
        raise NotStrictJson(f"{text[:20]}... is out of the range of a double")
    return int(text)


def strict_json_loads(text: str) -> Any:
    """``json.loads`` as strict as serde_json: no NaN/Infinity, no number out of the range of a double, no lone
    surrogate (escaped or raw), nothing after the value."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise NotStrictJson(f"raw surrogate in the text: {e}") from e
    value = json.loads(text, parse_constant=_reject_constant, parse_float=_strict_float, parse_int=_strict_int)
    try:  # an escaped lone surrogate decodes to a surrogate code point, which UTF-8 cannot encode
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as e:
        raise NotStrictJson(f"lone surrogate escape: {e}") from e
    return value
