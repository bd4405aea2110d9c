"""Reading an output when nothing says whether it starts inside reasoning (``reasoning_start_unknown``).

A template may open reasoning in the prompt (``<think>``, ``<longcat_think>``), so that the output starts inside it;
with the prompt at hand the parser is told so (:mod:`.prompt`). A text handed over alone carries no such word, so its
first think tag decides: a closer with no opener before it says the output started inside reasoning (it is reasoning
up to that closer); an opener, or no think tag at all, says it did not (the text is content until a block opens). The
text is held until that tag or the end of the output.
"""

from __future__ import annotations

import re
from typing import Final

from . import dialects as D

_THINK_TAGS: Final = tuple(sorted(D.THINK_OPENS + D.THINK_CLOSES, key=len, reverse=True))
_THINK_TAG: Final = re.compile("|".join(map(re.escape, _THINK_TAGS)))
#: how much of the text read so far a tag that ends in the next piece may start in
_TAIL: Final = max(map(len, _THINK_TAGS)) - 1


class UnknownStart:
    """The start of an output, held until its first think tag says whether it starts inside reasoning."""

    __slots__ = ("_parts", "_tail")

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._tail = ""

    def feed(self, delta: str) -> bool | None:
        """Hold ``delta``; True: the output starts inside reasoning, False: it does not, None: not known yet."""
        self._parts.append(delta)
        window = self._tail + delta
        match = _THINK_TAG.search(window)
        if match is None:
            self._tail = window[-_TAIL:]
            return None
        return match.group() in D.THINK_CLOSES

    def held(self) -> str:
        """Everything held so far."""
        return "".join(self._parts)
