"""Whether a text may begin with a call written with no tag (a bare ``{"name": ...}`` object, or an array of them),
and whether it may hold a call at all.

Cheap looks for adapters that must say whether an output holds a call before parsing it (SGLang's
``has_tool_call``); the parser decides (``docs/design.md``, dialects: a bare block).
"""

from __future__ import annotations

import re
from typing import Final

from . import dialects as D
from .tool_tags import may_hold_tool_tag

_BARE_CALL_START: Final = re.compile(r'[ \t\r\n]*(?:\[[ \t\r\n]*)?\{[ \t\r\n]*"name"[ \t\r\n]*:')


def may_start_bare_call(text: str) -> bool:
    return _BARE_CALL_START.match(text) is not None


#: tags that may start a call: a block, an XML call with no block, a key/value call's pairs after its name (the
#: model left the block's opening tag out)
_CALL_MARKS: Final = (*D.BLOCK_OPENS, *D.CALL_OPENS, *D.PAIR_KEY_OPENS)


def may_hold_call(text: str) -> bool:
    """Whether ``text`` may hold a call: a tag that opens a block, a call or a key, a tool's name used as a tag, or a
    bare call at its start."""
    return any(tag in text for tag in _CALL_MARKS) or may_hold_tool_tag(text) or may_start_bare_call(text)
