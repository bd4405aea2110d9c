"""SGLang adapter: ``--tool-call-parser longcat`` and ``--reasoning-parser longcat``.

:func:`register` is the ``sglang.srt.plugins`` entry point. SGLang runs it in every process before the command line
is parsed, so it stays cheap: it adds ``longcat`` to SGLang's dependency-free name lists at once, and puts the
detector classes into ``FunctionCallParser.ToolCallParserEnum`` / ``ReasoningParser.DetectorMap`` right away when
those (heavy) modules are already imported, or else the moment they are.
"""

from __future__ import annotations

PARSER_NAME = "longcat"

_TOOL_NAMES_MODULE = "sglang.srt.function_call.parser_names"
_REASONING_NAMES_MODULE = "sglang.srt.parser.reasoning_parser_names"
_TOOL_REGISTRY_MODULE = "sglang.srt.function_call.function_call_parser"
_REASONING_REGISTRY_MODULE = "sglang.srt.parser.reasoning_parser"


def register() -> None:
    """Register the tool-call parser and the reasoning parser named ``longcat``. Idempotent."""
    import importlib

    from ._post_import import when_imported

    for module_name, list_name in (
        (_TOOL_NAMES_MODULE, "TOOL_CALL_PARSER_NAMES"),
        (_REASONING_NAMES_MODULE, "REASONING_PARSER_NAMES"),
    ):
        names = getattr(importlib.import_module(module_name), list_name)
        if PARSER_NAME not in names:
            names.append(PARSER_NAME)

    when_imported(_TOOL_REGISTRY_MODULE, _register_tool_parser)
    when_imported(_REASONING_REGISTRY_MODULE, _register_reasoning_parser)
    _check_dialect_setting()


def _check_dialect_setting() -> None:
    """Say at start-up what would otherwise only show as a failure of each request with tools (SGLang builds the
    detector per request, and a plugin that raises here would just be skipped)."""
    from longcat_plugins.core.dialects import dialect_override

    try:
        dialect_override()
    except ValueError as e:
        import logging

        logging.getLogger("longcat_plugins").error("%s; every request with tools will fail until it is fixed", e)


def _register_tool_parser(module: object) -> None:
    from .detector import LongcatDetector

    module.FunctionCallParser.ToolCallParserEnum[PARSER_NAME] = LongcatDetector  # type: ignore[attr-defined]


def _register_reasoning_parser(module: object) -> None:
    from .reasoning import LongcatReasoningDetector

    module.ReasoningParser.DetectorMap[PARSER_NAME] = LongcatReasoningDetector  # type: ignore[attr-defined]


__all__ = ["PARSER_NAME", "register"]
