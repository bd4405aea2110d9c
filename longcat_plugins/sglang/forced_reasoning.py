"""A forced call of a request that reasons: the grammar covers the reasoning too, so the turn cannot end inside it.

SGLang's reasoning-aware grammar waits for the end of reasoning before it applies a request's grammar: a model
under ``tool_choice`` required or a named tool could end its turn inside the reasoning, and the answer then carries
no call. For such a request, when the server's tool-call parser is ours, the structural tag our detector built is
wrapped in the reasoning that may come first (:func:`longcat_plugins.structural.reasoning_then`), and the request
is marked so that SGLang applies it from the first token (``set_request_reasoning_in_grammar``, contract
:data:`longcat_plugins.contracts.SGLANG_FORCED_REASONING`). Requests with ``tool_choice`` auto are left as they are.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from longcat_plugins.core.tool_choice import forces_a_call

logger = logging.getLogger("longcat_plugins")


def cover_reasoning(adapted_request: Any, request: Any) -> bool:
    """Wrap the forced call's structural tag of ``adapted_request`` (SGLang's ``GenerateReqInput``) in the reasoning
    that may come first, when ``request`` asks for a call and reasons; whether it did."""
    from sglang.srt.sampling.sampling_params import set_request_reasoning_in_grammar
    from xgrammar import StructuralTag

    from longcat_plugins.structural import reasoning_then

    sampling_params = getattr(adapted_request, "sampling_params", None)
    forced = forces_a_call(getattr(request, "tool_choice", None))
    if not (forced and getattr(adapted_request, "require_reasoning", False)):
        return False
    if not isinstance(sampling_params, dict) or not isinstance(sampling_params.get("structural_tag"), str):
        return False
    calls = StructuralTag.model_validate_json(sampling_params["structural_tag"])
    covered = StructuralTag(format=reasoning_then(calls.format))
    sampling_params["structural_tag"] = json.dumps(covered.model_dump(by_alias=True))
    set_request_reasoning_in_grammar(sampling_params, True)
    return True


def wrap_conversion(is_ours: Callable[[Any], bool]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A wrapper for ``OpenAIServingChat._convert_to_internal_request`` (Chat Completions and Messages requests): a
    forced call's grammar covers the reasoning, and a request under ``tool_choice="none"`` gets a grammar that keeps
    calls out (:mod:`.no_calls`)."""
    from .no_calls import keep_calls_out

    def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
        def convert(self: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
            converted = original(self, request, *args, **kwargs)
            if is_ours(self) and isinstance(converted, tuple) and converted:
                cover_reasoning(converted[0], request)
                keep_calls_out(converted[0], request, _grammar_backend(self))
            return converted

        return convert

    return wrap


def _grammar_backend(serving: Any) -> str | None:
    """The server's ``--grammar-backend`` (None: not set, or not known here)."""
    manager = getattr(serving, "tokenizer_manager", None)
    try:
        value = manager.config_value("grammar_backend") if manager is not None else None
    except Exception:
        value = getattr(getattr(manager, "server_args", None), "grammar_backend", None)
    return value if isinstance(value, str) else None
