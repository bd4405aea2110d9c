"""Where a tag may start: the first characters of every tag the parser reads (:mod:`.dialects`).

Every tag of the registry's dialects starts with '<'. With only such dialects read (:data:`ONLY_LT`), the scanners
look for '<' with ``str.find`` and ``in``, as they always did; a declared dialect whose tags start otherwise
(``[TOOL_CALLS]``) has them look with one precompiled search for any of :data:`TAG_STARTS`
(:func:`find_tag_start`). A character of :data:`TAG_STARTS` that starts no tag is text, as a '<' is.
"""

from __future__ import annotations

import re
from typing import Final

from . import dialects as D


def _read_tags() -> list[str]:
    """Every tag the scanners look for: the blocks', the calls' and their bodies', the reasoning tags, the
    end-of-sequence markers (a name's end and a namespace are read after a tag, never looked for)."""
    tags = [*D.BLOCK_OPENS, *D.BLOCK_CLOSES, *D.END_OF_SEQUENCE, *D.THINK_OPENS, *D.THINK_CLOSES]
    for m in D.MARKUPS.values():
        tags += (m.call_open, m.call_close, m.param_open, m.param_close)
    for s in D.SEPARATED.values():
        tags += (s.call_open, s.separator, s.call_close)
    for d in D.PAIR_DIALECTS.values():
        assert d.pairs is not None
        tags += (d.pairs.key_open, d.pairs.key_close, d.pairs.value_open, d.pairs.value_close)
    return [tag for tag in tags if tag]


#: the characters a tag may start with ('<' always: a tool's name as a tag, ``<NAME>{...}``, starts with it)
TAG_STARTS: Final = frozenset(["<", *(tag[0] for tag in _read_tags())])
#: only '<' starts a tag: the scanners' fast path
ONLY_LT: Final = len(TAG_STARTS) == 1
#: any character that may start a tag
TAG_START: Final = re.compile("[" + "".join(map(re.escape, sorted(TAG_STARTS))) + "]")


def find_tag_start(buf: str, pos: int, end: int | None = None) -> int:
    """The first position in ``buf[pos:end]`` where a tag may start, or -1 (``str.find`` for any of
    :data:`TAG_STARTS`)."""
    m = TAG_START.search(buf, pos) if end is None else TAG_START.search(buf, pos, end)
    return -1 if m is None else m.start()


def has_tag_start(text: str) -> bool:
    """Whether a tag may start somewhere in ``text``."""
    return ("<" in text) if ONLY_LT else TAG_START.search(text) is not None
