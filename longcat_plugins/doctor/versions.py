"""Version specifiers of the form ``>=0.33,<0.34`` without a dependency on ``packaging``.

Enough of PEP 440 for engine versions: release numbers, pre/dev/post releases and local labels (``+cu129``).
A pre-release of a bound (``0.34.0rc1`` for ``<0.34``, ``0.33.0rc1`` for ``>=0.33``) is outside the range.
"""

from __future__ import annotations

import re
from typing import Final

_VERSION: Final = re.compile(
    r"^\s*v?(?P<release>\d+(?:\.\d+)*)"
    r"(?P<pre>[-_.]?(?:a|b|c|rc|alpha|beta|pre|preview)[-_.]?\d*)?"
    r"(?P<post>[-_.]?(?:post|rev|r)[-_.]?\d*)?"
    r"(?P<dev>[-_.]?dev[-_.]?\d*)?"
    r"(?:\+[a-z0-9.]+)?\s*$",
    re.IGNORECASE,
)
_CLAUSE: Final = re.compile(r"^\s*(>=|<=|==|!=|<|>)\s*([0-9][0-9a-z.+\-_]*)\s*$", re.IGNORECASE)

Key = tuple[tuple[int, ...], int]


class InvalidVersion(ValueError):
    pass


def _key(version: str) -> Key:
    m = _VERSION.match(version)
    if m is None:
        raise InvalidVersion(f"not a version: {version!r}")
    release = tuple(int(p) for p in m["release"].split("."))
    while len(release) > 1 and release[-1] == 0:
        release = release[:-1]
    phase = -2 if m["dev"] else -1 if m["pre"] else 1 if m["post"] else 0
    return release, phase


def is_prerelease(version: str) -> bool:
    return _key(version)[1] < 0


def satisfies(version: str, specifier: str) -> bool:
    """Whether ``version`` satisfies every comma-separated clause of ``specifier``."""
    have = _key(version)
    for clause in specifier.split(","):
        m = _CLAUSE.match(clause)
        if m is None:
            raise InvalidVersion(f"not a version clause: {clause!r}")
        op, bound = m[1], _key(m[2])
        same_release = have[0] == bound[0]
        ok = {
            ">=": have >= bound,
            ">": have > bound and not same_release,
            "<=": have <= bound,
            "<": have < bound and not same_release,
            "==": have == bound,
            "!=": have != bound,
        }[op]
        if not ok:
            return False
    return True
