"""The enums of the core's machine and readers."""

from __future__ import annotations

from enum import Enum


class IdentityEnum(Enum):
    """An enum whose members hash by identity: the reading loops key tables by members and compare them with ``is``,
    and Enum's own ``__hash__`` is Python code. (The loops also bind members to module names, as in
    ``_OPEN, _DONE = _State``: a global is cheaper than an attribute of an Enum on Python 3.11.)"""

    __hash__ = object.__hash__
