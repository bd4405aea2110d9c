"""The tags at which the parser starts reading a call, in every dialect it reads: what a grammar keeps out of an
output that must hold no call (``tool_choice="none"``, :func:`longcat_plugins.structural.no_calls`)."""

from __future__ import annotations

from typing import Final

from .dialects import BLOCK_OPENS, CALL_OPENS, PAIR_KEY_OPENS

#: Every block's opening tag (a call block, a call list), every call's opening tag read in any block or outside one
#: (a markup call such as ``<function=``, a separated call), and every key/value dialect's key tag (a declared name
#: right before it is a call with no block), of every dialect the parser reads (the registry's and the extra ones).
#: A tag is kept out whole: a text that holds only a part of one (``<``, ``<tool``) is not a call.
CALL_OPENERS: Final = tuple(dict.fromkeys([*BLOCK_OPENS, *CALL_OPENS, *PAIR_KEY_OPENS]))
