"""What our parsers need to know of their request, which SGLang does not hand them.

SGLang builds a tool-call detector from the request's tools only, and may parse on another thread than the one that
read the request. The serving layer's per-request hook (``SERVING`` in :mod:`longcat_plugins.sglang`) notes here:

- whether a stop of the request may end the output inside a call (:func:`may_be_cut_by_a_stop`), which must then
  not come back as a complete call (:attr:`longcat_plugins.core.ParserOptions.cut_calls_as_text`). The hook marks the
  tool objects the tool-call parser of such a request is handed; the detector is handed those same objects with
  every piece of text.
- when the server's tool-call parser is ours, the tools it will be handed for the request, so that the reasoning
  parser, which SGLang builds with the request (see :mod:`longcat_plugins.sglang.one_pass`), reads calls as that
  parser does (beside an engine's own tool-call parser, nothing is noted: the two read in two stages).

And the Messages serving's conversion to a Chat Completions request (``MESSAGES`` in :mod:`longcat_plugins.sglang`)
notes that the request is streamed as items, each call whole (:func:`takes_whole_calls`), on the tools of the request
it makes: SGLang's Messages stream is made of the Chat Completions stream, which sends a step's text before the
step's call fragments, so text in the output's last step would close the ``tool_use`` block of a call still open,
before its last arguments (see :mod:`longcat_plugins.core.item_order`).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from typing import Any

from longcat_plugins.core.stops import end_of_sequence_ids, stops_may_cut_calls

#: (by the address of the object noted) a weak reference to the object, and what is noted of it
_marked: dict[int, tuple[weakref.ref[Any], bool]] = {}
_tools_of: dict[int, tuple[weakref.ref[Any], tuple[Any, ...]]] = {}
_whole_calls: dict[int, tuple[weakref.ref[Any], bool]] = {}
# Re-entrant: replacing an entry can free the objects it held, and their weak references call back into _forget
# while the lock is held.
_lock = threading.RLock()


def note_request(request: Any, tools: Sequence[Any] | None = None, tokenizer: Any = None) -> None:
    """Note a request SGLang is about to serve; ``tools``: those its tool-call parser will be handed (by default
    the request's own); ``tokenizer``: the server's (it tells which stop token ids end a turn)."""
    if tools:
        _remember(_tools_of, request, tuple(tools))
    if not may_be_cut_by_a_stop(request, tokenizer):
        return
    for tool in tools or getattr(request, "tools", None) or ():
        _remember(_marked, tool, True)


def may_be_cut_by_a_stop(request: Any, tokenizer: Any = None) -> bool:
    """Whether a stop of ``request`` may end its output inside a call: a stop string (``stop``; the Messages API
    hands its ``stop_sequences`` on as ``stop``), a stop pattern (``stop_regex``), a stop token id that is not an end
    of sequence (``stop_token_ids``; without a tokenizer, any). The Responses API takes ``stop`` only."""
    stop_token_ids = getattr(request, "stop_token_ids", None)
    eos_ids = _end_of_sequence_ids(tokenizer) if stop_token_ids else frozenset()
    return stops_may_cut_calls(
        (getattr(request, "stop", None), getattr(request, "stop_regex", None)), stop_token_ids, eos_ids
    )


def note_whole_calls(request: Any) -> None:
    """Note that ``request`` (a Chat Completions request SGLang made of a Messages request) is streamed as items that
    each take one call whole: the tool objects its tool-call parser is handed are marked."""
    for tool in getattr(request, "tools", None) or ():
        _remember(_whole_calls, tool, True)


def takes_whole_calls(tools: Sequence[Any] | None) -> bool:
    """Whether the stream of the request whose tool-call parser is handed ``tools`` takes each call whole."""
    return any(_recall(_whole_calls, tool) for tool in tools or ())


def tools_of_a_request_a_stop_may_cut(tools: Sequence[Any] | None) -> bool:
    return any(_recall(_marked, tool) for tool in tools or ())


def tool_parser_tools(request: Any) -> tuple[Any, ...] | None:
    """The tools noted for ``request`` (those SGLang's tool-call parser is handed), if it was noted."""
    return _recall(_tools_of, request)


_eos_ids: dict[int, tuple[Any, frozenset[int]]] = {}


def _end_of_sequence_ids(tokenizer: Any) -> frozenset[int]:
    """The ids of ``tokenizer`` that end a turn, read once per tokenizer."""
    if tokenizer is None:
        return frozenset()
    hit = _eos_ids.get(id(tokenizer))
    if hit is not None and hit[0] is tokenizer:
        return hit[1]
    try:
        vocab = tokenizer.get_vocab()
    except Exception:
        vocab = {}
    eos = getattr(tokenizer, "eos_token_id", None)
    eos_ids = eos if isinstance(eos, (list, tuple)) else [eos]
    ids = end_of_sequence_ids(vocab if isinstance(vocab, dict) else {}, eos_ids)
    with _lock:
        _eos_ids[id(tokenizer)] = (tokenizer, ids)  # the tokenizer is kept alive, so its id is never reused
    return ids


def _remember(table: dict[int, tuple[weakref.ref[Any], Any]], obj: Any, value: Any) -> None:
    """Note ``value`` of ``obj`` while ``obj`` lives (an object that takes no weak reference is not noted)."""
    key = id(obj)
    try:
        ref = weakref.ref(obj, lambda ref, key=key: _forget(table, key, ref))
    except TypeError:
        return
    with _lock:
        table[key] = (ref, value)


def _recall(table: dict[int, tuple[weakref.ref[Any], Any]], obj: Any) -> Any:
    """What is noted of ``obj`` (None: nothing)."""
    entry = table.get(id(obj))
    return entry[1] if entry is not None and entry[0]() is obj else None


def _forget(table: dict[int, tuple[weakref.ref[Any], Any]], key: int, ref: weakref.ref[Any]) -> None:
    """Drop ``table[key]`` if it is still the entry of ``ref``'s object (the address may have been reused)."""
    with _lock:
        entry = table.get(key)
        if entry is not None and entry[0] is ref:
            del table[key]
