"""Whether a text may begin with a call written with no tag (a bare ``{"name": ...}`` object, or an array of them).

A cheap look for adapters that must say whether an output holds a call before parsing it (SGLang's
``has_tool_call``); the parser decides (``docs/design.md``, dialects: a bare block).
"""

from __future__ import annotations

import re
from typing import Final

_BARE_CALL_START: Final = re.compile(r'[ \t\r\n]*(?:\[[ \t\r\n]*)?\{[ \t\r\n]*"name"[ \t\r\n]*:')


def may_start_bare_call(text: str) -> bool:
    return _BARE_CALL_START.match(text) is not None
