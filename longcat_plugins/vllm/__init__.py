"""vLLM adapter: ``--tool-call-parser longcat`` and ``--reasoning-parser longcat``.

vLLM calls :func:`register` in every process through the ``vllm.general_plugins`` entry point. It imports only the
two parser-manager modules and this package's parsers, and registers eagerly (``force=True``), so vLLM's built-in
``longcat`` tool parser (a lazy registration) cannot shadow ours. The structural tags for constrained decoding are
registered with vLLM's (xgrammar-backed) registry only when that registry is loaded anyway, else on first use.
It also registers our chat template as vLLM's fallback for model types whose tokenizer has none (``longcat_flash``).

The parsers rely on vLLM internals (:data:`TOOL_CONTRACTS`, :data:`REASONING_CONTRACTS`, :data:`STREAM_END`, declared
in :mod:`longcat_plugins.contracts`). When
one is missing, ``longcat`` is registered to a stand-in that fails with a message naming the versions (see
:mod:`longcat_plugins.doctor.drift`): vLLM then refuses to start instead of serving ``longcat`` with its built-in
JSON-only parser. :func:`register` itself never raises, since vLLM would log that and fall back to the built-in.

``--tool-parser-plugin longcat_plugins.vllm`` works too: importing this package inside a vLLM process registers.
Importing it elsewhere imports nothing from vLLM.
"""

from __future__ import annotations

import logging
import os
import sys
from types import ModuleType
from typing import Final

from longcat_plugins.contracts import (
    VLLM_PARSER_BESIDE,
    VLLM_REASONING,
    VLLM_REGISTRY,
    VLLM_RUST_FRONTEND,
    VLLM_STREAM_END,
    VLLM_TOOL,
)

from .names import REASONING_PARSER_NAME, STRUCTURAL_TAG_MODELS, TOOL_PARSER_NAME

__all__ = [
    "REASONING_CONTRACTS",
    "REASONING_PARSER_NAME",
    "STREAM_END",
    "STRUCTURAL_TAG_MODELS",
    "TOOL_CONTRACTS",
    "TOOL_PARSER_NAME",
    "register",
]

logger = logging.getLogger("longcat_plugins")

_STRUCTURAL_TAG_REGISTRY = "vllm.tool_parsers.structural_tag_registry"
_TOOL_FLAG: Final = "--tool-call-parser"
_REASONING_FLAG: Final = "--reasoning-parser"

TOOL_CONTRACTS: Final = (*VLLM_REGISTRY, *VLLM_TOOL)
REASONING_CONTRACTS: Final = (*VLLM_REGISTRY, *VLLM_REASONING)
#: Checked when vLLM imports its serving-side parser module (the API server), not before: importing it costs a second.
STREAM_END: Final = VLLM_STREAM_END


def register() -> None:
    """Register the ``longcat`` tool and reasoning parsers with vLLM. Idempotent; cheap after the first call."""
    _note_rust_frontend()
    try:
        import vllm.reasoning.abs_reasoning_parsers
        import vllm.tool_parsers.abstract_tool_parser  # noqa: F401
    except Exception as exc:  # nothing to register with: vLLM's own 'longcat' (if any) answers, doctor reports it
        _log_unregistered(f"vLLM's parser registries do not import ({type(exc).__name__}: {exc})")
        return
    try:
        _register()
    except Exception as exc:  # a failure here must not leave vLLM's built-in parser in our place
        problem = f"registering raised {type(exc).__name__}: {exc}"
        try:
            _install_stand_ins([problem])
        except Exception as again:
            _log_unregistered(f"{problem}, and registering a stand-in raised {type(again).__name__}: {again}")


def _note_rust_frontend() -> None:
    """One line per process when ``VLLM_USE_RUST_FRONTEND`` is on: ``vllm serve`` then answers through vLLM's Rust
    frontend, which runs none of our parsers (this process is its engine core, or the ``vllm serve`` that starts it)."""
    from longcat_plugins.doctor.drift import log_once, missing
    from longcat_plugins.doctor.env_checks import (
        RUST_FRONTEND_ENV,
        RUST_FRONTEND_GUIDE,
        RUST_FRONTEND_REFUSAL,
        rust_frontend,
    )

    try:
        if not rust_frontend() or missing([VLLM_RUST_FRONTEND]):
            return
    except Exception:  # only a log line: never in the way of registering
        return
    log_once(
        logging.WARNING,
        f"{RUST_FRONTEND_ENV}={os.environ[RUST_FRONTEND_ENV]}: vllm serve answers through vLLM's Rust frontend "
        f"(vllm-rs), whose parsers are compiled in: --tool-call-parser / --reasoning-parser longcat cannot run there "
        f'(it stops with "{RUST_FRONTEND_REFUSAL}"). Unset {RUST_FRONTEND_ENV} (or set it to 0) to serve with '
        "vLLM's Python API server, which loads longcat-plugins; or serve the Rust frontend with --tool-call-parser hf "
        "--reasoning-parser hf and a tokenizer that carries the model's response template (longcat-plugins "
        f"response-template; {RUST_FRONTEND_GUIDE}).",
    )


def _log_unregistered(problem: str) -> None:
    from longcat_plugins.doctor.drift import drift_message, log_once
    from longcat_plugins.doctor.model import VLLM

    log_once(logging.ERROR, drift_message(VLLM, f"{_TOOL_FLAG} / {_REASONING_FLAG}", [problem]))


def _register() -> None:
    from longcat_plugins.doctor import drift
    from longcat_plugins.doctor.model import VLLM
    from longcat_plugins.sglang._post_import import when_imported

    tool = drift.parser_or_stand_in(VLLM, _TOOL_FLAG, TOOL_CONTRACTS, _tool_parser, _tool_base)
    reasoning = drift.parser_or_stand_in(VLLM, _REASONING_FLAG, REASONING_CONTRACTS, _reasoning_parser, _reasoning_base)
    if drift.stand_in_message(tool) is None and _STRUCTURAL_TAG_REGISTRY in sys.modules:
        try:
            from .structural_tag import register_structural_tags

            register_structural_tags()
        except Exception as exc:
            problem = f"the structural tags for tool_choice='required' / named tools do not register ({exc!r})"
            tool = drift.broken(VLLM, _TOOL_FLAG, [problem], _tool_base)
    _install(tool, reasoning)
    _register_chat_template_fallbacks()
    when_imported(STREAM_END.target.split(":")[0], _check_stream_end)
    _warn_untested()


def _tool_parser() -> type:
    from .tool_parser import LongcatToolParser

    return LongcatToolParser


def _reasoning_parser() -> type:
    from .reasoning_parser import LongcatReasoningParser

    return LongcatReasoningParser


def _tool_base() -> type:
    from vllm.tool_parsers.abstract_tool_parser import ToolParser

    return ToolParser


def _reasoning_base() -> type:
    from vllm.reasoning.abs_reasoning_parsers import ReasoningParser

    return ReasoningParser


def _install(tool: type, reasoning: type) -> None:
    """Register both classes eagerly, then check that vLLM's lookup really answers with them."""
    from vllm.reasoning.abs_reasoning_parsers import ReasoningParserManager
    from vllm.tool_parsers.abstract_tool_parser import ToolParserManager

    from longcat_plugins.doctor.drift import drift_message, log_once
    from longcat_plugins.doctor.model import VLLM

    ToolParserManager.register_module(name=TOOL_PARSER_NAME, module=tool, force=True)
    ReasoningParserManager.register_module(name=REASONING_PARSER_NAME, module=reasoning, force=True)
    for flag, registered, found in (
        (_TOOL_FLAG, tool, ToolParserManager.get_tool_parser(TOOL_PARSER_NAME)),
        (_REASONING_FLAG, reasoning, ReasoningParserManager.get_reasoning_parser(REASONING_PARSER_NAME)),
    ):
        if found is not registered:  # vLLM's lookup order changed: nothing more a plugin can do, say it loudly
            where = f"{found.__module__}.{found.__qualname__}"
            problem = f"after registration vLLM still resolves 'longcat' to {where}"
            log_once(logging.ERROR, drift_message(VLLM, flag, [problem]))


def _install_stand_ins(problems: list[str]) -> None:
    from longcat_plugins.doctor.drift import broken
    from longcat_plugins.doctor.model import VLLM

    _install(broken(VLLM, _TOOL_FLAG, problems, _tool_base), broken(VLLM, _REASONING_FLAG, problems, _reasoning_base))


def _check_stream_end(module: ModuleType) -> None:
    """Runs as vLLM imports its serving-side parser module: never raise into that import."""
    from longcat_plugins.doctor.drift import missing

    try:
        problems = missing([STREAM_END])
        if problems:
            _install_stand_ins(problems)
        beside = missing([VLLM_PARSER_BESIDE])
        if beside:
            logger.warning(
                "%s longcat reads in two stages here, and alone it streams a think block after the first answer "
                "text as content: %s",
                _REASONING_FLAG,
                "; ".join(beside),
            )
    except Exception as exc:
        logger.error("checking %s failed: %r", STREAM_END.name, exc)


def _warn_untested() -> None:
    from vllm.reasoning.abs_reasoning_parsers import ReasoningParserManager
    from vllm.tool_parsers.abstract_tool_parser import ToolParserManager

    from longcat_plugins.doctor.drift import log_once, stand_in_message, untested_warning
    from longcat_plugins.doctor.model import VLLM

    registered = (
        ToolParserManager.get_tool_parser(TOOL_PARSER_NAME),
        ReasoningParserManager.get_reasoning_parser(REASONING_PARSER_NAME),
    )
    if any(stand_in_message(cls) for cls in registered):
        return
    warning = untested_warning(VLLM)
    if warning is not None:
        log_once(logging.WARNING, warning)


def _register_chat_template_fallbacks() -> None:
    """Our chat templates for model types whose tokenizer may ship without one (``longcat_flash``).

    Not a parser contract: without it vLLM reports the missing chat template itself, so a failure is a warning.
    """
    try:
        from vllm.transformers_utils.chat_templates import registry

        from longcat_plugins.templates import VLLM_FALLBACKS, vllm_fallback_path

        for model_type in VLLM_FALLBACKS:
            path = vllm_fallback_path(model_type)
            if path is not None and registry.get_chat_template_fallback_path(model_type, "") != path:
                registry.register_chat_template_fallback_path(model_type, path)
    except Exception as exc:
        from longcat_plugins.doctor.drift import engine_version
        from longcat_plugins.doctor.model import VLLM

        logger.warning(
            "vLLM %s: the chat-template fallback for model types without a template did not register (%r); "
            'pass --chat-template "$(longcat-plugins template longcat-flash-chat)" for LongCat-Flash-Chat',
            engine_version(VLLM),
            exc,
        )


if "vllm" in sys.modules:  # imported by vLLM itself (entry point, --tool-parser-plugin)
    register()
