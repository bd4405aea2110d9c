"""XGrammar structural tags that force tool calls in the model's own dialect (``tool_choice`` required/named/strict).

SGLang calls :meth:`LongcatDetector.get_structural_tag` and silently drops constrained decoding when it raises, so
everything here is plain construction from the dialect table in :mod:`.dialect`; the tests compile every shape.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from xgrammar import StructuralTag, normalize_tool_choice
from xgrammar.structural_tag import (
    AnyTextFormat,
    JSONSchemaFormat,
    SequenceFormat,
    TagFormat,
    TagsWithSeparatorFormat,
    TriggeredTagsFormat,
)

from longcat_plugins.core import tags as T
from longcat_plugins.core.schema import schema_types

from .dialect import Dialect


def _schema(function: Any) -> dict[str, Any] | bool:
    # As XGrammar's own builders: a non-strict or parameter-less tool gets syntax-only arguments.
    if getattr(function, "strict", None) is False or function.parameters is None:
        return True
    return function.parameters


def _kv_body(dialect: Dialect, schema: dict[str, Any] | bool) -> Any:
    """Key/value pairs of the declared parameters, each value typed by its schema (a string is free text).

    Pairs may come in any order and repeat (the format has no way to require a key); without declared parameters
    (or for a non-strict tool) the body is free text up to the closing tag.
    """
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping) or not properties:
        return AnyTextFormat(excludes=[dialect.end])
    pairs = []
    for key, sub in properties.items():
        sub = sub if isinstance(sub, Mapping) else {}
        types = schema_types(sub)
        value: Any = (
            AnyTextFormat(excludes=[T.ARG_VALUE_CLOSE])
            if not types or "string" in types
            else JSONSchemaFormat(json_schema=dict(sub))
        )
        begin = f"{T.ARG_KEY_OPEN}{key}{T.ARG_KEY_CLOSE}\n{T.ARG_VALUE_OPEN}"
        pairs.append(TagFormat(begin=begin, content=value, end=f"{T.ARG_VALUE_CLOSE}\n"))
    return TagsWithSeparatorFormat(tags=pairs, separator="")


def _call_tag(dialect: Dialect, function: Any) -> TagFormat:
    content: Any
    if dialect.body == "kv":
        content = _kv_body(dialect, _schema(function))
    else:
        content = JSONSchemaFormat(json_schema=_schema(function), style=dialect.body)
    return TagFormat(begin=dialect.begin(function.name), content=content, end=dialect.end)


def _dump(value: Any) -> Any:
    return value.model_dump() if hasattr(value, "model_dump") else value


def build_structural_tag(
    dialect: Dialect,
    tools: Sequence[Any] | None,
    tool_choice: Any = "auto",
    thinking_mode: bool = False,
    parallel_tool_calls: bool = True,
) -> StructuralTag:
    """The structural tag for ``tools`` under ``tool_choice`` (``"auto"``, ``"required"``, ``"none"``, a named
    choice as a pydantic model or dict). ``thinking_mode``: the output first finishes a reasoning block the prompt
    opened. Raises ``ValueError`` for a choice the tools cannot satisfy (e.g. a named tool that is not declared)."""
    functions, _builtins, choice = normalize_tool_choice([_dump(t) for t in tools or ()], _dump(tool_choice))
    tags = [_call_tag(dialect, tool.function) for tool in functions]
    suffix: Any
    if choice == "forced":
        suffix = tags[0]
    elif tags:
        suffix = TriggeredTagsFormat(
            triggers=[dialect.trigger],
            tags=tags,
            at_least_one=choice == "required",
            stop_after_first=not parallel_tool_calls,
        )
    else:
        suffix = AnyTextFormat()
    if not thinking_mode:
        return StructuralTag(format=suffix)
    # The template opened reasoning; it ends at either closing tag.
    reasoning = TagFormat(begin="", content=AnyTextFormat(excludes=list(T.THINK_CLOSES)), end=list(T.THINK_CLOSES))
    return StructuralTag(format=SequenceFormat(elements=[reasoning, suffix]))
