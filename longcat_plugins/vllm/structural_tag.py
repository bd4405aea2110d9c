"""Constrained decoding in the model's own tool-call dialect (``tool_choice="required"``, named tools, strict tools).

vLLM asks the tool parser for a structural tag through ``structural_tag_model``; each dialect has its own key here,
registered with vLLM's structural-tag registry. Importing this module imports xgrammar, so it is only imported when
a structural tag is needed (or the registry is already loaded).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from vllm.tool_parsers.structural_tag_registry import register_vllm_structural_tag
from xgrammar import StructuralTag
from xgrammar.openai_tool_call_schema import BuiltinToolParam, FunctionToolParam
from xgrammar.structural_tag import TagsWithSeparatorFormat

from longcat_plugins.core.dialects import DIALECTS
from longcat_plugins.structural import call_tags, reasoning_then, triggered_calls

from .names import STRUCTURAL_TAG_MODELS

_CALL_SEPARATOR: Final = "\n"


def build_structural_tag(dialect: str, tools: list[FunctionToolParam], tool_choice: str) -> StructuralTag:
    """The structural tag for ``tools`` in ``dialect``; ``tool_choice`` is ``auto``, ``required`` or ``forced``."""
    table = DIALECTS[dialect]
    tags = call_tags(table, (tool.function for tool in tools), forced=tool_choice != "auto")
    fmt: Any
    if tool_choice == "auto":
        fmt = triggered_calls(table, tags)
    else:
        fmt = TagsWithSeparatorFormat(
            tags=tags, separator=_CALL_SEPARATOR, at_least_one=True, stop_after_first=tool_choice == "forced"
        )
    return StructuralTag(format=fmt)


def covering_reasoning(tag: StructuralTag) -> StructuralTag:
    """``tag`` preceded by the reasoning a forced call may follow (the grammar then applies from the first token)."""
    return StructuralTag(format=reasoning_then(tag.format))


def _registry_entry(dialect: str) -> Callable[..., StructuralTag]:
    def entry(
        tools: list[FunctionToolParam],
        builtin_tools: list[BuiltinToolParam],
        tool_choice: str,
        reasoning: bool,
        token_suffix: str = "",
    ) -> StructuralTag:
        # (vLLM asks for these tags without the reasoning; the tool parser adds it for a forced call that reasons)
        del builtin_tools, reasoning, token_suffix
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
