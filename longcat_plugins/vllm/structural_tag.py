"""Constrained decoding in the model's own tool-call dialect (``tool_choice="required"``, named tools, strict tools).

vLLM asks the tool parser for a structural tag through ``structural_tag_model``; each dialect has its own key here,
registered with vLLM's structural-tag registry. Importing this module imports xgrammar, so it is only imported when
a structural tag is needed (or the registry is already loaded).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

from vllm.tool_parsers.structural_tag_registry import get_function_parameters, register_vllm_structural_tag
from xgrammar import StructuralTag
from xgrammar.openai_tool_call_schema import BuiltinToolParam, FunctionToolParam
from xgrammar.structural_tag import (
    AnyTextFormat,
    ConstStringFormat,
    JSONSchemaFormat,
    OrFormat,
    SequenceFormat,
    StarFormat,
    TagFormat,
    TagsWithSeparatorFormat,
    TriggeredTagsFormat,
)

from longcat_plugins.core import tags as T
from longcat_plugins.core.dialects import DIALECTS

from .names import STRUCTURAL_TAG_MODELS

LONGCAT_OPEN: Final = T.LONGCAT_CALL_OPEN
LONGCAT_CLOSE: Final = T.LONGCAT_CALL_CLOSE
HERMES_OPEN: Final = T.HERMES_CALL_OPEN
HERMES_CLOSE: Final = T.HERMES_CALL_CLOSE
KEY_OPEN: Final = T.ARG_KEY_OPEN
KEY_CLOSE: Final = T.ARG_KEY_CLOSE
VALUE_OPEN: Final = T.ARG_VALUE_OPEN
VALUE_CLOSE: Final = T.ARG_VALUE_CLOSE
_KV_EXCLUDES: Final = [LONGCAT_OPEN, LONGCAT_CLOSE, KEY_OPEN, KEY_CLOSE, VALUE_OPEN, VALUE_CLOSE]
_CALL_SEPARATOR: Final = "\n"

TagBuilder = Callable[[FunctionToolParam], list[TagFormat]]


def _json_tags(open_tag: str, close_tag: str) -> TagBuilder:
    def build(tool: FunctionToolParam) -> list[TagFormat]:
        schema = get_function_parameters(tool.function)
        head = '{"name": ' + json.dumps(tool.function.name, ensure_ascii=False) + ', "arguments": '
        return [
            TagFormat(begin=begin + head, content=JSONSchemaFormat(json_schema=schema), end=end)
            for begin, end in ((open_tag + "\n", "}\n" + close_tag), (open_tag, "}" + close_tag))
        ]

    return build


def _xml_tags(tool: FunctionToolParam) -> list[TagFormat]:
    return [
        TagFormat(
            begin=f"{HERMES_OPEN}\n<function={tool.function.name}>\n",
            content=JSONSchemaFormat(json_schema=get_function_parameters(tool.function), style="qwen_xml"),
            end=f"\n</function>\n{HERMES_CLOSE}",
        )
    ]


def _kv_value(schema: Any) -> Any:
    if isinstance(schema, dict) and schema.get("type") not in (None, "string"):
        return JSONSchemaFormat(json_schema=schema)
    return AnyTextFormat(excludes=_KV_EXCLUDES)


def _kv_pair(key: Any, value: Any) -> SequenceFormat:
    return SequenceFormat(
        elements=[
            ConstStringFormat(value=KEY_OPEN),
            key,
            ConstStringFormat(value=f"{KEY_CLOSE}\n{VALUE_OPEN}"),
            value,
            ConstStringFormat(value=f"{VALUE_CLOSE}\n"),
        ]
    )


def _kv_tags(tool: FunctionToolParam) -> list[TagFormat]:
    schema = get_function_parameters(tool.function)
    properties = schema.get("properties") if isinstance(schema, dict) else None
    pairs: list[Any]
    if isinstance(properties, dict) and properties:
        pairs = [_kv_pair(ConstStringFormat(value=k), _kv_value(v)) for k, v in properties.items()]
    else:
        pairs = [_kv_pair(AnyTextFormat(excludes=_KV_EXCLUDES), AnyTextFormat(excludes=_KV_EXCLUDES))]
    content = StarFormat(content=pairs[0] if len(pairs) == 1 else OrFormat(elements=pairs))
    return [TagFormat(begin=f"{LONGCAT_OPEN}{tool.function.name}\n", content=content, end=LONGCAT_CLOSE)]


def _structural_tag(builder: TagBuilder, trigger: str, tools: list[FunctionToolParam], choice: str) -> StructuralTag:
    tags = [tag for tool in tools for tag in builder(tool)]
    if choice == "auto":
        fmt: Any = TriggeredTagsFormat(triggers=[trigger], tags=tags) if tags else AnyTextFormat()
    else:
        fmt = TagsWithSeparatorFormat(
            tags=tags, separator=_CALL_SEPARATOR, at_least_one=True, stop_after_first=choice == "forced"
        )
    return StructuralTag(format=fmt)


_DIALECT_BUILDERS: Final[dict[str, TagBuilder]] = {
    "json": _json_tags(LONGCAT_OPEN, LONGCAT_CLOSE),
    "hermes": _json_tags(HERMES_OPEN, HERMES_CLOSE),
    "kv": _kv_tags,
    "xml": _xml_tags,
}


def build_structural_tag(dialect: str, tools: list[FunctionToolParam], tool_choice: str) -> StructuralTag:
    """The structural tag for ``tools`` in ``dialect``; ``tool_choice`` is ``auto``, ``required`` or ``forced``."""
    return _structural_tag(_DIALECT_BUILDERS[dialect], DIALECTS[dialect].trigger, tools, tool_choice)


def _registry_entry(dialect: str) -> Callable[..., StructuralTag]:
    def entry(
        tools: list[FunctionToolParam],
        builtin_tools: list[BuiltinToolParam],
        tool_choice: str,
        reasoning: bool,
        token_suffix: str = "",
    ) -> StructuralTag:
        del builtin_tools, reasoning, token_suffix  # the reasoning phase is never constrained by these tags
        return build_structural_tag(dialect, tools, tool_choice)

    return entry


_registered = False


def register_structural_tags() -> None:
    """Register one structural-tag model per dialect with vLLM (idempotent)."""
    global _registered
    if _registered:
        return
    for dialect, model in STRUCTURAL_TAG_MODELS.items():
        register_vllm_structural_tag(model)(_registry_entry(dialect))
    _registered = True
