"""vLLM adapter: ``--tool-call-parser longcat`` and ``--reasoning-parser longcat``.

vLLM calls :func:`register` in every process through the ``vllm.general_plugins`` entry point. It imports only the
two parser-manager modules and this package's parsers, and registers eagerly (``force=True``), so vLLM's built-in
``longcat`` tool parser (a lazy registration) cannot shadow ours. The structural tags for constrained decoding are
registered with vLLM's (xgrammar-backed) registry only when that registry is loaded anyway, else on first use.
It also registers our chat template as vLLM's fallback for model types whose tokenizer has none (``longcat_flash``).

``--tool-parser-plugin longcat_plugins.vllm`` works too: importing this package inside a vLLM process registers.
Importing it elsewhere imports nothing from vLLM.
"""

from __future__ import annotations

import sys

from .names import REASONING_PARSER_NAME, STRUCTURAL_TAG_MODELS, TOOL_PARSER_NAME

__all__ = ["REASONING_PARSER_NAME", "STRUCTURAL_TAG_MODELS", "TOOL_PARSER_NAME", "register"]

_STRUCTURAL_TAG_REGISTRY = "vllm.tool_parsers.structural_tag_registry"


def register() -> None:
    """Register the ``longcat`` tool and reasoning parsers with vLLM. Idempotent; cheap after the first call."""
    from vllm.reasoning.abs_reasoning_parsers import ReasoningParserManager
    from vllm.tool_parsers.abstract_tool_parser import ToolParserManager

    from .reasoning_parser import LongcatReasoningParser
    from .tool_parser import LongcatToolParser

    ToolParserManager.register_module(name=TOOL_PARSER_NAME, module=LongcatToolParser, force=True)
    ReasoningParserManager.register_module(name=REASONING_PARSER_NAME, module=LongcatReasoningParser, force=True)
    _register_chat_template_fallbacks()
    if _STRUCTURAL_TAG_REGISTRY in sys.modules:
        from .structural_tag import register_structural_tags

        register_structural_tags()


def _register_chat_template_fallbacks() -> None:
    """Our chat templates for model types whose tokenizer may ship without one (``longcat_flash``)."""
    from vllm.transformers_utils.chat_templates import registry

    from longcat_plugins.templates import VLLM_FALLBACKS, vllm_fallback_path

    for model_type in VLLM_FALLBACKS:
        path = vllm_fallback_path(model_type)
        if path is not None and registry._MODEL_TYPE_TO_CHAT_TEMPLATE_FALLBACK.get(model_type) != path:
            registry.register_chat_template_fallback_path(model_type, path)


if "vllm" in sys.modules:  # imported by vLLM itself (entry point, --tool-parser-plugin)
    register()
