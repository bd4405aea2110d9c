"""XGrammar structural tags for tool calls in the model's own dialect, shared by the vLLM and SGLang adapters.

Every call is built from the core's dialect table (:data:`longcat_plugins.core.dialects.DIALECTS`): the dialect's
``begin(name)``, its ``end``, and a body in its style. In the key/value dialect a value whose schema admits a string
(per :func:`longcat_plugins.core.schema.schema_types`: ``"string"`` among its types, or no types at all) is free text
up to the value's closing tag, exactly as the parser reads it; any other value is JSON of its schema.

Importing this module imports xgrammar, so neither ``longcat_plugins`` nor the core imports it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from xgrammar.structural_tag import (
    AnyTextFormat,
    ConstStringFormat,
    JSONSchemaFormat,
    OrFormat,
    SequenceFormat,
    StarFormat,
    TagFormat,
    TriggeredTagsFormat,
)

from longcat_plugins.core import tags as T
from longcat_plugins.core.dialects import Dialect
from longcat_plugins.core.schema import schema_types

__all__ = ["call_body", "call_tag", "call_tags", "function_schema", "triggered_calls"]

_KEY_TO_VALUE = f"{T.ARG_KEY_CLOSE}\n{T.ARG_VALUE_OPEN}"
_PAIR_END = f"{T.ARG_VALUE_CLOSE}\n"
#: where a schema keeps the definitions its ``$ref``s point to
_DEFINITION_KEYS = ("$defs", "definitions")


def function_schema(function: Any) -> dict[str, Any] | bool:
    """The schema a call's arguments are held to: the declared parameters, or ``True`` (any JSON object's syntax) for
    a tool declared ``strict: false`` or without parameters, as XGrammar's own builders do."""
    parameters = getattr(function, "parameters", None)
    if getattr(function, "strict", None) is False or parameters is None:
        return True
    return dict(parameters) if isinstance(parameters, Mapping) else True


def _admits_string(schema: Any) -> bool:
    types = schema_types(schema if isinstance(schema, Mapping) else {})
    return not types or "string" in types


def _with_definitions(schema: Any, root: Mapping[str, Any]) -> Any:
    """A parameter's schema as a schema of its own: with the root's definitions, which its ``$ref``s name
    (``#/$defs/...`` resolves against the schema it is compiled as)."""
    if not isinstance(schema, Mapping):
        return schema
    definitions = {key: root[key] for key in _DEFINITION_KEYS if key in root and key not in schema}
    return {**schema, **definitions} if definitions else schema


def _kv_value(schema: Any) -> Any:
    if _admits_string(schema):
        return AnyTextFormat(excludes=[T.ARG_VALUE_CLOSE])
    return JSONSchemaFormat(json_schema=dict(schema))


def _kv_body(dialect: Dialect, schema: dict[str, Any] | bool) -> Any:
    """Key/value pairs of the declared parameters, each value typed by its schema.

    Pairs may come in any order and repeat (the format has no way to require a key). Without declared parameters
    (or for a non-strict tool) any keys may come, each value free text. The pairs are a repetition of choices,
    not a ``TagsWithSeparatorFormat``: engines take that format for a list of calls (vLLM stops it after its first
    tag for ``parallel_tool_calls=false``)."""
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping) or not properties:
        free_pair = SequenceFormat(
            elements=[
                ConstStringFormat(value=T.ARG_KEY_OPEN),
                AnyTextFormat(excludes=[T.ARG_KEY_CLOSE, dialect.end]),
                ConstStringFormat(value=_KEY_TO_VALUE),
                AnyTextFormat(excludes=[T.ARG_VALUE_CLOSE]),
                ConstStringFormat(value=_PAIR_END),
            ]
        )
        return StarFormat(content=free_pair)
    assert isinstance(schema, Mapping)
    pairs: list[Any] = [
        TagFormat(
            begin=f"{T.ARG_KEY_OPEN}{key}{_KEY_TO_VALUE}",
            content=_kv_value(_with_definitions(sub, schema)),
            end=_PAIR_END,
        )
        for key, sub in properties.items()
    ]
    return StarFormat(content=OrFormat(elements=pairs))


def call_body(dialect: Dialect, schema: dict[str, Any] | bool) -> Any:
    """The format of one call's arguments in ``dialect`` (between ``begin(name)`` and ``end``)."""
    if dialect.body == "kv":
        return _kv_body(dialect, schema)
    return JSONSchemaFormat(json_schema=schema, style=dialect.body)


def call_tag(dialect: Dialect, name: str, schema: dict[str, Any] | bool) -> TagFormat:
    """One call of tool ``name`` with arguments held to ``schema``, as ``dialect`` writes it."""
    return TagFormat(begin=dialect.begin(name), content=call_body(dialect, schema), end=dialect.end)


def call_tags(dialect: Dialect, functions: Iterable[Any]) -> list[TagFormat]:
    """One tag per function (anything with ``name``, ``parameters`` and optionally ``strict``)."""
    return [call_tag(dialect, function.name, function_schema(function)) for function in functions]


def triggered_calls(
    dialect: Dialect, tags: list[TagFormat], *, at_least_one: bool = False, stop_after_first: bool = False
) -> Any:
    """Free text in which the dialect's trigger starts one of ``tags`` (free text alone when there are none)."""
    if not tags:
        return AnyTextFormat()
    return TriggeredTagsFormat(
        triggers=[dialect.trigger], tags=tags, at_least_one=at_least_one, stop_after_first=stop_after_first
    )
