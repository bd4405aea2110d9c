"""SGLang adapter: ``--tool-call-parser longcat`` and ``--reasoning-parser longcat``.

:func:`register` is the ``sglang.srt.plugins`` entry point. SGLang runs it in every process before the command line
is parsed, so it stays cheap: it adds ``longcat`` to SGLang's dependency-free name lists at once, and puts the
detector classes into ``FunctionCallParser.ToolCallParserEnum`` / ``ReasoningParser.DetectorMap`` right away when
those (heavy) modules are already imported, or else the moment they are.

When SGLang's chat serving is imported, it is told to keep special tokens in the text of requests served with
``--reasoning-parser longcat`` (it does so on its own only for requests with tools and for the reasoning parsers it
knows by name): think tags are often special tokens and must reach the reasoning detector. The same per-request hook
notes the tools SGLang's tool-call parser will be handed (for a Responses request, the Responses serving notes the
tools it converts), and SGLang's ``ReasoningParser`` hands our reasoning detector the request it is built for: with
both of our parsers, a Chat Completions or Responses request is read in one pass (:mod:`.one_pass`). The Messages
serving's conversion to a Chat Completions request notes that its stream takes each call whole (see
:func:`.request_context.takes_whole_calls`).

The detectors rely on SGLang internals (:data:`TOOL_CONTRACTS`, :data:`REASONING_CONTRACTS`, :data:`SERVING`,
declared in :mod:`longcat_plugins.contracts`), each checked as its module is imported. When one is missing,
``longcat`` is registered to a stand-in that fails with a message naming the versions (see
:mod:`longcat_plugins.doctor.drift`) instead of half working. Nothing here raises into SGLang: the callbacks run
inside SGLang's own imports.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from types import ModuleType
from typing import Any, Final

from longcat_plugins.contracts import (
    SGLANG_FORCED_REASONING,
    SGLANG_MESSAGES,
    SGLANG_ONE_PASS,
    SGLANG_REASONING,
    SGLANG_SERVING,
    SGLANG_TOOL,
)

PARSER_NAME = "longcat"

logger = logging.getLogger("longcat_plugins")

_TOOL_NAMES_MODULE = "sglang.srt.function_call.parser_names"
_REASONING_NAMES_MODULE = "sglang.srt.parser.reasoning_parser_names"
_TOOL_REGISTRY_MODULE = "sglang.srt.function_call.function_call_parser"
_REASONING_REGISTRY_MODULE = "sglang.srt.parser.reasoning_parser"
_SERVING_MODULE = "sglang.srt.entrypoints.openai.serving_chat"
_RESPONSES_MODULE = "sglang.srt.entrypoints.openai.serving_responses"
_MESSAGES_MODULE = "sglang.srt.entrypoints.anthropic.serving"
_TOOL_FLAG: Final = "--tool-call-parser"
_REASONING_FLAG: Final = "--reasoning-parser"

TOOL_CONTRACTS: Final = SGLANG_TOOL
REASONING_CONTRACTS: Final = SGLANG_REASONING
SERVING: Final = SGLANG_SERVING
ONE_PASS: Final = SGLANG_ONE_PASS
FORCED_REASONING: Final = SGLANG_FORCED_REASONING
MESSAGES: Final = SGLANG_MESSAGES


def register() -> None:
    """Register the tool-call parser and the reasoning parser named ``longcat``. Idempotent."""
    import importlib

    from ._post_import import when_imported

    for module_name, list_name in (
        (_TOOL_NAMES_MODULE, "TOOL_CALL_PARSER_NAMES"),
        (_REASONING_NAMES_MODULE, "REASONING_PARSER_NAMES"),
    ):
        try:
            names = getattr(importlib.import_module(module_name), list_name)
            if PARSER_NAME not in names:
                names.append(PARSER_NAME)
        except Exception as exc:  # SGLang's command line then rejects 'longcat': say why
            _log_drift(f"{_TOOL_FLAG} / {_REASONING_FLAG}", f"{module_name}.{list_name} is missing ({exc!r})")

    when_imported(_TOOL_REGISTRY_MODULE, _on_tool_registry)
    when_imported(_REASONING_REGISTRY_MODULE, _on_reasoning_registry)
    when_imported(_SERVING_MODULE, _on_serving)
    when_imported(_RESPONSES_MODULE, _on_responses_serving)
    when_imported(_MESSAGES_MODULE, _on_messages_serving)
    _check_dialect_setting()
    _point_http_workers_here()


#: SGLang's HTTP workers (``--tokenizer-worker-num`` > 1) import their app from this path and never load plugins
HTTP_APP_ENV: Final = "SGLANG_HTTP_SERVER_APP_PATH"
HTTP_APP: Final = "longcat_plugins.sglang.http_app:app"


def _point_http_workers_here() -> None:
    """Unless the operator chose an app, SGLang's HTTP workers (started after this runs, with this environment)
    import the app that registers ``longcat`` first. SGLang reads the variable only with several workers."""
    import os

    os.environ.setdefault(HTTP_APP_ENV, HTTP_APP)


def _check_dialect_setting() -> None:
    """Say at start-up what would otherwise only show as a failure of each request with tools (SGLang builds the
    detector per request, and a plugin that raises here would just be skipped)."""
    from longcat_plugins.core.dialects import dialect_override
    from longcat_plugins.core.options import none_grammar_from_env

    try:
        dialect_override()
    except ValueError as e:
        logger.error("%s; every request with tools will fail until it is fixed", e)
    try:
        none_grammar_from_env()
    except ValueError as e:
        logger.error("%s; every tool_choice=none request with tools will fail until it is fixed", e)


def _guarded(callback: Callable[[ModuleType], None]) -> Callable[[ModuleType], None]:
    """The callbacks run inside SGLang's import of the module: an exception must not break that import."""

    def run(module: ModuleType) -> None:
        try:
            callback(module)
        except Exception as exc:
            _log_drift(f"{_TOOL_FLAG} / {_REASONING_FLAG}", f"registering in {module.__name__} raised {exc!r}")

    run.__qualname__ = f"guarded({callback.__qualname__})"
    return run


def _register_tool_parser(module: Any) -> None:
    from longcat_plugins.doctor.drift import parser_or_stand_in
    from longcat_plugins.doctor.model import SGLANG

    detector = parser_or_stand_in(
        SGLANG,
        _TOOL_FLAG,
        TOOL_CONTRACTS,
        _tool_detector,
        _tool_base,
        # as ours: SGLang then builds it for requests without tools too, so those fail loudly as well
        parses_without_tools=classmethod(lambda cls: True),
    )
    module.FunctionCallParser.ToolCallParserEnum[PARSER_NAME] = detector
    _warn_untested(detector)


def _register_reasoning_parser(module: Any) -> None:
    from longcat_plugins.doctor.drift import parser_or_stand_in
    from longcat_plugins.doctor.model import SGLANG

    detector = parser_or_stand_in(SGLANG, _REASONING_FLAG, REASONING_CONTRACTS, _reasoning_detector, _reasoning_base)
    module.ReasoningParser.DetectorMap[PARSER_NAME] = detector
    _warn_untested(detector)
    _hand_requests_to_reasoning_detectors(module.ReasoningParser)


def _hand_requests_to_reasoning_detectors(parser_class: Any) -> None:
    """``ReasoningParser(..., request, ..., tool_call_parser_active)`` builds its detector from a few options of the
    request; ours is handed the request itself (``serve_request``), to read calls as the tool-call parser that
    follows it (see :mod:`.one_pass`). Without these interfaces, the two parsers read in two stages."""
    import inspect

    from longcat_plugins.doctor.drift import missing

    # (the serving's contract is checked where it is used: importing it here would load the API server's modules)
    problems = missing(c for c in ONE_PASS if c.target.startswith(_REASONING_REGISTRY_MODULE))
    if problems:
        logger.warning("SGLang reads reasoning and tool calls in two stages here: %s", "; ".join(problems))
        return

    def hand_request(original: Callable[..., None]) -> Callable[..., None]:
        signature = inspect.signature(original)

        def init(self: Any, *args: Any, **kwargs: Any) -> None:
            original(self, *args, **kwargs)
            serve_request = getattr(self.detector, "serve_request", None)
            if serve_request is not None:
                serve_request(signature.bind(self, *args, **kwargs).arguments.get("request"))

        return init

    _wrap_once(parser_class, "__init__", hand_request)


def _keep_reasoning_markup(module: Any) -> None:
    """``--reasoning-parser longcat``: keep special tokens in the text (SGLang's hook for its own parsers)."""
    from longcat_plugins.doctor.drift import broken, missing
    from longcat_plugins.doctor.model import SGLANG

    problems = missing([SERVING])
    if problems:  # think tags that are special tokens would vanish before the detector sees them
        import sglang.srt.parser.reasoning_parser as registry

        registry.ReasoningParser.DetectorMap[PARSER_NAME] = broken(SGLANG, _REASONING_FLAG, problems, _reasoning_base)
        return
    from .request_context import note_request

    def keep_special_tokens(original: Callable[..., None]) -> Callable[..., None]:
        def patch(self: Any, request: Any) -> None:
            original(self, request)
            effective_tools = getattr(self, "_effective_tools", None)  # (ONE_PASS: the tools of the tool-call parser)
            one_pass = effective_tools is not None and _tool_parser_is_ours(self)
            note_request(request, effective_tools(request) if one_pass else None, _tokenizer(self))
            if self.reasoning_parser == PARSER_NAME:
                request.skip_special_tokens = False

        return patch

    _wrap_once(module.OpenAIServingChat, "_patch_reasoning_skip_special_tokens", keep_special_tokens)


def _note_responses_tools(module: Any) -> None:
    """A Responses request's tool-call parser is handed the tools ``_response_tools_to_chat_tools`` converts from
    the request, made anew on each call; the call made last before the parsers are built gives theirs. Each result
    is noted for the request (see :mod:`.request_context`), so that our reasoning parser reads with those tools."""
    from longcat_plugins.doctor.drift import missing

    problems = missing(c for c in ONE_PASS if c.target.startswith(_RESPONSES_MODULE))
    if problems:
        logger.warning(
            "SGLang reads a Responses request's reasoning and tool calls in two stages here: %s", "; ".join(problems)
        )
        return
    from .request_context import note_request

    def note_tools(original: Callable[..., Any]) -> Callable[..., Any]:
        def convert(self: Any, request: Any) -> Any:
            tools = original(self, request)
            note_request(request, tools if _tool_parser_is_ours(self) else None, _tokenizer(self))
            return tools

        return convert

    _wrap_once(module.OpenAIServingResponses, "_response_tools_to_chat_tools", note_tools)


def _note_messages_streams(module: Any) -> None:
    """A Messages request is served as a Chat Completions request ``_convert_to_chat_completion_request`` makes of
    it, whose stream SGLang turns into content blocks, one at a time: noted, so that its tool-call parser passes each
    call on whole (see :func:`.request_context.takes_whole_calls`)."""
    from longcat_plugins.doctor.drift import missing

    problems = missing(MESSAGES)
    if problems:
        logger.warning(
            "SGLang's Messages stream may drop a call's last arguments when text follows the call in the output's "
            "last step here: %s",
            "; ".join(problems),
        )
        return
    from .request_context import note_whole_calls

    def note(original: Callable[..., Any]) -> Callable[..., Any]:
        def convert(self: Any, anthropic_request: Any) -> Any:
            request = original(self, anthropic_request)
            note_whole_calls(request)
            return request

        return convert

    _wrap_once(module.AnthropicServing, "_convert_to_chat_completion_request", note)


def _tokenizer(serving: Any) -> Any:
    """The server's tokenizer (None when SGLang runs without one)."""
    return getattr(getattr(serving, "tokenizer_manager", None), "tokenizer", None)


def _tool_parser_is_ours(serving: Any) -> bool:
    """Whether the server's tool-call parser (``--tool-call-parser``, the serving's ``tool_call_parser``) is ours:
    only then do the two parsers read in one pass; beside an engine's own tool parser, ours reads reasoning and
    leaves the rest of the text to it."""
    return getattr(serving, "tool_call_parser", None) == PARSER_NAME


def _wrap_once(owner: type, name: str, wrap: Callable[[Callable[..., Any]], Callable[..., Any]]) -> None:
    """Replace the method ``owner.name`` by ``wrap(original)``, unless it is already ours (registering twice)."""
    import functools

    original = getattr(owner, name)
    if getattr(original, "_longcat_wrapped", False):
        return
    wrapped = functools.wraps(original)(wrap(original))
    wrapped._longcat_wrapped = True  # type: ignore[attr-defined]
    setattr(owner, name, wrapped)


def _tool_detector() -> type:
    from .detector import LongcatDetector

    return LongcatDetector


def _reasoning_detector() -> type:
    from .reasoning import LongcatReasoningDetector

    return LongcatReasoningDetector


def _tool_base() -> type:
    from sglang.srt.function_call.base_format_detector import BaseFormatDetector

    return BaseFormatDetector


def _reasoning_base() -> type:
    from sglang.srt.parser.reasoning_parser import BaseReasoningFormatDetector

    return BaseReasoningFormatDetector


def _log_drift(flag: str, problem: str) -> None:
    from longcat_plugins.doctor.drift import drift_message, log_once
    from longcat_plugins.doctor.model import SGLANG

    log_once(logging.ERROR, drift_message(SGLANG, flag, [problem]))


def _warn_untested(registered: type) -> None:
    from longcat_plugins.doctor.drift import log_once, stand_in_message, untested_warning
    from longcat_plugins.doctor.model import SGLANG

    if stand_in_message(registered) is None:
        warning = untested_warning(SGLANG)
        if warning is not None:
            log_once(logging.WARNING, warning)


# one callable each, so that registering twice leaves one pending callback per module
_on_tool_registry = _guarded(_register_tool_parser)
_on_reasoning_registry = _guarded(_register_reasoning_parser)
def _cover_reasoning_of_forced_calls(module: Any) -> None:
    """A forced call's grammar covers the reasoning before it (see :mod:`.forced_reasoning`); a request under
    ``tool_choice="none"`` gets a grammar that keeps calls out (:mod:`.no_calls`)."""
    from longcat_plugins.doctor.drift import missing

    problems = missing(FORCED_REASONING)
    if problems:
        logger.warning(
            "SGLang applies a forced call's grammar only from the end of reasoning here (a thinking model may end "
            "its turn inside the reasoning, with no call), and no grammar keeps calls out under tool_choice=none: "
            "%s",
            "; ".join(problems),
        )
        return
    from .forced_reasoning import wrap_conversion

    _wrap_once(module.OpenAIServingChat, "_convert_to_internal_request", wrap_conversion(_tool_parser_is_ours))


def _on_chat_serving(module: Any) -> None:
    _keep_reasoning_markup(module)
    _cover_reasoning_of_forced_calls(module)


_on_serving = _guarded(_on_chat_serving)
_on_responses_serving = _guarded(_note_responses_tools)
_on_messages_serving = _guarded(_note_messages_streams)

__all__ = ["MESSAGES", "ONE_PASS", "PARSER_NAME", "REASONING_CONTRACTS", "SERVING", "TOOL_CONTRACTS", "register"]
