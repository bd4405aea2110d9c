"""XGrammar structural tags that force tool calls in the model's own dialect (``tool_choice`` required/named/strict).

SGLang calls :meth:`LongcatDetector.get_structural_tag` and silently drops constrained decoding when it raises, so
the calls are built by :mod:`longcat_plugins.structural` from the dialect table; the tests compile every shape.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xgrammar import StructuralTag, normalize_tool_choice
from xgrammar.structural_tag import AnyTextFormat, SequenceFormat, TagFormat

from longcat_plugins.core import dialects as D
from longcat_plugins.structural import call_tags, triggered_calls

from .dialect import Dialect


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
    tags = call_tags(dialect, (tool.function for tool in functions), forced=choice in ("forced", "required"))
    suffix: Any
    if choice == "forced":
        suffix = tags[0]
    else:
        suffix = triggered_calls(
            dialect, tags, at_least_one=choice == "required", stop_after_first=not parallel_tool_calls
        )
    if not thinking_mode:
        return StructuralTag(format=suffix)
    # The template opened reasoning; it ends at either closing tag.
    reasoning = TagFormat(begin="", content=AnyTextFormat(excludes=list(D.THINK_CLOSES)), end=list(D.THINK_CLOSES))
    return StructuralTag(format=SequenceFormat(elements=[reasoning, suffix]))
