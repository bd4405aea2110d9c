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
    """A wrapper for ``OpenAIServingChat._convert_to_internal_request`` (Chat Completions and Messages requests)."""

    def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
        def convert(self: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
            converted = original(self, request, *args, **kwargs)
            if is_ours(self) and isinstance(converted, tuple) and converted:
                cover_reasoning(converted[0], request)
            return converted

        return convert

    return wrap
