"""SGLang's ``StreamingParseResult`` and ``ToolCallItem``, built for every chunk, so on the hot path.

What the detector puts in them is valid by construction (strings, an int index), and pydantic's validation costs more
per chunk than reading the chunk. So :func:`call_item` and :func:`parse_result` lay the models out directly, exactly
as their validating constructors would (the same field values and fields set), for the layout checked at import
(:data:`DIRECT`); for any other layout (a future SGLang) they validate.
"""

from __future__ import annotations

from types import EllipsisType
from typing import Any, Final

from pydantic import BaseModel
from sglang.srt.function_call.core_types import StreamingParseResult, ToolCallItem

_new: Final = object.__new__
_set: Final = object.__setattr__


def call_item(index: int, parameters: str, name: str | EllipsisType | None = ...) -> ToolCallItem:
    """``ToolCallItem(tool_index=index, parameters=parameters[, name=name])``: ``...`` leaves the name unset."""
    if not DIRECT:
        named: dict[str, Any] = {} if name is ... else {"name": name}
        return ToolCallItem(tool_index=index, parameters=parameters, **named)
    item = _new(ToolCallItem)
    _set(item, "__dict__", {"tool_index": index, "name": None if name is ... else name, "parameters": parameters})
    _set(item, "__pydantic_fields_set__", {"tool_index", "parameters"} if name is ... else set(_ITEM_NAMED))
    _set(item, "__pydantic_extra__", None)
    _set(item, "__pydantic_private__", None)
    return item


def parse_result(normal_text: str | None = None, calls: list[ToolCallItem] | None = None) -> StreamingParseResult:
    """``StreamingParseResult(normal_text=..., calls=...)`` with the arguments given (None: not given)."""
    given: dict[str, Any] = {}
    if normal_text is not None:
        given["normal_text"] = normal_text
    if calls is not None:
        given["calls"] = calls
    if not DIRECT:
        return StreamingParseResult(**given)
    result = _new(StreamingParseResult)
    _set(result, "__dict__", {"normal_text": "", "calls": [], **given})
    _set(result, "__pydantic_fields_set__", set(given))
    _set(result, "__pydantic_extra__", None)
    _set(result, "__pydantic_private__", None)
    return result


_ITEM_NAMED: Final = frozenset({"tool_index", "name", "parameters"})

#: per model: its fields (in order) with their defaults (``...``: required)
_LAYOUTS: Final[dict[type[BaseModel], dict[str, Any]]] = {
    ToolCallItem: {"tool_index": ..., "name": None, "parameters": ...},
    StreamingParseResult: {"normal_text": "", "calls": []},
}


def _layout_matches(cls: type[BaseModel], fields: dict[str, Any]) -> bool:
    """Whether ``cls`` is laid out as the direct construction assumes: these fields with these defaults, no extra
    fields kept, and nothing pydantic would add on validation (aliases, validators, private attributes, a post-init
    hook)."""
    if list(cls.model_fields) != list(fields) or cls.model_config.get("extra") == "allow":
        return False
    if cls.__pydantic_post_init__ or cls.__private_attributes__ or cls.__pydantic_root_model__:
        return False
    if cls.__pydantic_decorators__.field_validators or cls.__pydantic_decorators__.model_validators:
        return False
    for name, field in cls.model_fields.items():
        if field.alias is not None or field.validation_alias is not None or field.default_factory is not None:
            return False
        if fields[name] is ... and field.is_required():
            continue
        if field.is_required() or field.default != fields[name]:
            return False
    return True


#: whether :func:`call_item` and :func:`parse_result` build the models directly (else they validate)
DIRECT: Final = all(_layout_matches(cls, fields) for cls, fields in _LAYOUTS.items())
