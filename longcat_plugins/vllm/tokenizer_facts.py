"""What the adapters need to know about a model's tokenizer, read once per tokenizer.

The tool-call dialect used for constrained decoding (``LONGCAT_TOOL_DIALECT``, a name of
:data:`~longcat_plugins.core.dialects.DIALECTS`, overrides the choice), and the token ids of the reasoning markers,
turn boundaries and ends of sequence. Nothing here imports vLLM.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import Any, Final

from longcat_plugins.core import dialects
from longcat_plugins.core.prompt import TURN_BOUNDARIES, template_may_think
from longcat_plugins.core.stops import end_of_sequence_ids

DIALECT_ENV: Final = dialects.ENV_VAR
DIALECTS: Final = tuple(dialects.DIALECTS)

THINK_STARTS: Final = tuple(reversed(dialects.THINK_OPENS))  # (declared ones, then <longcat_think>, then <think>)
THINK_ENDS: Final = tuple(reversed(dialects.THINK_CLOSES))


@dataclass(frozen=True, slots=True)
class TokenizerFacts:
    dialect: str
    think_start_ids: frozenset[int]
    think_end_ids: frozenset[int]
    boundary_ids: frozenset[int]
    think_start: str
    think_end: str
    #: the ids that end a turn (:func:`longcat_plugins.core.stops.end_of_sequence_ids`)
    end_of_sequence_ids: frozenset[int] = frozenset()
    #: the tokenizer's own chat template (the model's, not a ``--chat-template`` the API server applies) says the model
    #: may reason (:func:`longcat_plugins.core.prompt.template_may_think`)
    template_may_think: bool = True


_cache: dict[tuple[int, str], tuple[Any, TokenizerFacts]] = {}
_lock = threading.Lock()


def tokenizer_facts(tokenizer: Any) -> TokenizerFacts:
    """Facts about ``tokenizer`` (``None`` allowed), computed once per tokenizer and dialect override."""
    override = os.environ.get(DIALECT_ENV, "").strip().lower()
    key = (id(tokenizer), override)
    hit = _cache.get(key)
    if hit is not None and hit[0] is tokenizer:
        return hit[1]
    facts = _read_facts(tokenizer, override)
    with _lock:
        _cache[key] = (tokenizer, facts)  # the tokenizer is kept alive, so its id is never reused
    return facts


def _read_facts(tokenizer: Any, override: str) -> TokenizerFacts:
    vocab = _vocab(tokenizer)
    template = _chat_template(tokenizer)

    def ids(tokens: tuple[str, ...]) -> frozenset[int]:
        return frozenset(vocab[t] for t in tokens if t in vocab)

    return TokenizerFacts(
        dialect=dialects.detect_dialect(vocab, template).name,
        think_start_ids=ids(THINK_STARTS),
        think_end_ids=ids(THINK_ENDS),
        boundary_ids=ids(TURN_BOUNDARIES),
        think_start="<longcat_think>" if "<longcat_think>" in vocab else "<think>",
        think_end="</longcat_think>" if "</longcat_think>" in vocab else "</think>",
        template_may_think=template_may_think(template),
        end_of_sequence_ids=end_of_sequence_ids(vocab, _eos_ids(tokenizer)),
    )


def _eos_ids(tokenizer: Any) -> list[object]:
    eos = getattr(tokenizer, "eos_token_id", None)
    return list(eos) if isinstance(eos, (list, tuple)) else [eos]


def _vocab(tokenizer: Any) -> dict[str, int]:
    if tokenizer is None:
        return {}
    try:
        vocab = tokenizer.get_vocab()
    except Exception:
        return {}
    return vocab if isinstance(vocab, dict) else {}


def _chat_template(tokenizer: Any) -> str:
    template = getattr(tokenizer, "chat_template", None)
    if isinstance(template, dict):
        return "\n".join(str(t) for t in template.values())
    return template if isinstance(template, str) else ""
