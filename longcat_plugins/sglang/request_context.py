"""What the tool-call detector needs to know of its request, which SGLang does not hand it.

SGLang builds a detector from the request's tools only, and may parse on another thread than the one that read the
request. Whether the request has stop strings matters to it: a stop string can end the output inside a call, which
must then not come back as a complete call (:attr:`longcat_plugins.core.ParserOptions.cut_calls_as_text`). The
serving layer's per-request hook (``SERVING`` in :mod:`longcat_plugins.sglang`) marks the tool objects of such a
request; the detector is handed those same objects with every piece of text.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from typing import Any

_marked: dict[int, weakref.ref[Any]] = {}
_lock = threading.Lock()


def note_request(request: Any) -> None:
    stop = getattr(request, "stop", None)
    if not (isinstance(stop, (str, list, tuple)) and stop):
        return
    for tool in getattr(request, "tools", None) or ():
        key = id(tool)
        try:
            ref = weakref.ref(tool, lambda _, key=key: _forget(key))
        except TypeError:
            continue
        with _lock:
            _marked[key] = ref


def _forget(key: int) -> None:
    with _lock:
        _marked.pop(key, None)


def tools_of_a_request_with_stop_strings(tools: Sequence[Any] | None) -> bool:
    for tool in tools or ():
        ref = _marked.get(id(tool))
        if ref is not None and ref() is tool:
            return True
    return False
