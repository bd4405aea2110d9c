"""Responses and chunks as dicts: a dict as it is, an openai (pydantic) object through ``model_dump`` and back
(``openai`` is never imported here)."""

from __future__ import annotations

from typing import Any


def as_dict(obj: Any) -> dict[str, Any] | None:
    """The JSON shape of a response or chunk: the dict itself, or an openai (pydantic) object's ``model_dump()``."""
    if isinstance(obj, dict):
        return obj
    dump = getattr(obj, "model_dump", None)
    if callable(dump):
        try:
            data = dump()
        except Exception:
            return None
        return data if isinstance(data, dict) else None
    return None


def like(original: Any, data: dict[str, Any]) -> Any:
    """``data`` as the type of ``original`` (a dict stays a dict; an openai object is validated back)."""
    if isinstance(original, dict):
        return data
    return as_class(type(original), data, original)


def as_class(cls: Any, data: dict[str, Any], fallback: Any) -> Any:
    """``data`` as an object of ``cls`` (an SDK's pydantic class): validated, else constructed unvalidated, else
    ``fallback``."""
    try:
        return cls.model_validate(data)
    except Exception:
        try:
            return cls.model_construct(**data)
        except Exception:
            return fallback
