"""What our parsers need to know of their request, which SGLang does not hand them.

SGLang builds a tool-call detector from the request's tools only, and may parse on another thread than the one that
read the request. The serving layer's per-request hook (``SERVING`` in :mod:`longcat_plugins.sglang`) notes here:

- whether the request has stop strings: a stop string can end the output inside a call, which must then not come back
  as a complete call (:attr:`longcat_plugins.core.ParserOptions.cut_calls_as_text`). The hook marks the tool objects
  the tool-call parser of such a request is handed; the detector is handed those same objects with every piece of
  text.
- when the server's tool-call parser is ours, the tools it will be handed for the request, so that the reasoning
  parser, which SGLang builds with the request (see :mod:`longcat_plugins.sglang.one_pass`), reads calls as that
  parser does (beside an engine's own tool-call parser, nothing is noted: the two read in two stages).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from typing import Any

#: (by the address of the object noted) a weak reference to the object, and what is noted of it
_marked: dict[int, tuple[weakref.ref[Any], bool]] = {}
_tools_of: dict[int, tuple[weakref.ref[Any], tuple[Any, ...]]] = {}
# Re-entrant: replacing an entry can free the objects it held, and their weak references call back into _forget
# while the lock is held.
_lock = threading.RLock()


def note_request(request: Any, tools: Sequence[Any] | None = None) -> None:
    """Note a request SGLang is about to serve; ``tools``: those its tool-call parser will be handed (by default
    the request's own)."""
    if tools:
        _remember(_tools_of, request, tuple(tools))
    stop = getattr(request, "stop", None)
    if not (isinstance(stop, (str, list, tuple)) and stop):
        return
    for tool in tools or getattr(request, "tools", None) or ():
        _remember(_marked, tool, True)


def tools_of_a_request_with_stop_strings(tools: Sequence[Any] | None) -> bool:
    return any(_recall(_marked, tool) for tool in tools or ())


def tool_parser_tools(request: Any) -> tuple[Any, ...] | None:
    """The tools noted for ``request`` (those SGLang's tool-call parser is handed), if it was noted."""
    return _recall(_tools_of, request)


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
