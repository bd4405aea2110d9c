"""Which stops of a request may end its output inside a call (:attr:`.ParserOptions.cut_calls_as_text`).

Engines do not tell a parser why an output ended. A stop that can match at any point of the output -- a stop string,
a stop pattern, a stop token that the model may write inside a call -- can end it in the middle of a call's
arguments, and such a call must not come back as a complete call. An end-of-sequence token ends the output where the
model ends its turn, as it does without the stop; ``max_tokens`` is reported by the engine (``length``), and a call
it cuts comes back as a call whose arguments are closed. Each adapter reads its request's stops into
:func:`stops_may_cut_calls`: the one place this is decided.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping

from . import dialects as D


def stops_may_cut_calls(
    stop_texts: Iterable[object],
    stop_token_ids: Iterable[int] | None = None,
    end_of_sequence_ids: Collection[int] = frozenset(),
) -> bool:
    """Whether a request's stops may end its output inside a call.

    ``stop_texts``: the request's stop strings and stop patterns, one entry per field (``stop``, SGLang's
    ``stop_regex``), each a string, a list of them, or None; any one given may match inside a call.
    ``stop_token_ids``: a stop on any token but an end of sequence (``end_of_sequence_ids``,
    :func:`end_of_sequence_ids`) may end the output inside a call: an ordinary token, or a tag that is one token."""
    if any(isinstance(stop, (str, list, tuple)) and stop for stop in stop_texts):
        return True
    return any(token_id not in end_of_sequence_ids for token_id in stop_token_ids or ())


def end_of_sequence_ids(vocab: Mapping[str, int], eos_token_ids: Iterable[object] = ()) -> frozenset[int]:
    """The token ids that end a turn: the tokenizer's end-of-sequence ids, and the end-of-sequence markers of every
    dialect the parser reads (:data:`.dialects.END_OF_SEQUENCE`) that are one token of ``vocab``."""
    ids = {token_id for token_id in eos_token_ids if isinstance(token_id, int)}
    ids.update(vocab[marker] for marker in D.END_OF_SEQUENCE if marker in vocab)
    return frozenset(ids)
