"""``tool_choice="none"`` with tools declared: the request's grammar keeps every call tag out of the output.

SGLang builds no grammar for such a request (its serving asks the tool-call parser for one only when calls are
allowed), and hands the model's text back as content, call markup included. When the server's tool-call parser is
ours, the request SGLang's Chat Completions serving makes (also for a Messages request) gets the structural tag of
:func:`longcat_plugins.structural.no_calls`, applied from the first token, reasoning included
(``set_request_reasoning_in_grammar``, contract :data:`longcat_plugins.contracts.SGLANG_FORCED_REASONING`): an opening
block tag inside reasoning ends it, and SGLang's reasoning-aware grammar would wait for ``</think>`` and let the call
through. A grammar the client's request carries (``response_format``, ``regex``, ``ebnf``) is kept, alone; so is a
server whose grammar backend cannot compile a structural tag (only XGrammar can);
``LONGCAT_TOOL_CHOICE_NONE_GRAMMAR=0`` turns it off.
"""

from __future__ import annotations

import json
from typing import Any, Final

from longcat_plugins.core.options import none_grammar_from_env

#: the sampling parameters that carry a grammar (SGLang compiles one of them)
GRAMMAR_KEYS: Final = ("regex", "ebnf", "structural_tag", "json_schema")
#: the grammar backends that compile structural tags (None: SGLang's default, XGrammar)
STRUCTURAL_TAG_BACKENDS: Final = (None, "xgrammar")


def keep_calls_out(adapted_request: Any, request: Any, grammar_backend: str | None = None) -> bool:
    """Give ``adapted_request`` (SGLang's ``GenerateReqInput`` for ``request``) the grammar that keeps calls out,
    when ``request`` declares tools under ``tool_choice="none"`` and carries no grammar; whether it did."""
    if getattr(request, "tool_choice", None) != "none" or not getattr(request, "tools", None):
        return False
    sampling_params = getattr(adapted_request, "sampling_params", None)
    if not isinstance(sampling_params, dict) or any(sampling_params.get(key) for key in GRAMMAR_KEYS):
        return False
    if grammar_backend not in STRUCTURAL_TAG_BACKENDS or not none_grammar_from_env():
        return False
    from sglang.srt.sampling.sampling_params import set_request_reasoning_in_grammar
    from xgrammar import StructuralTag

    from longcat_plugins.structural import no_calls

    sampling_params["structural_tag"] = json.dumps(StructuralTag(format=no_calls()).model_dump(by_alias=True))
    set_request_reasoning_in_grammar(sampling_params, bool(getattr(adapted_request, "require_reasoning", False)))
    return True
