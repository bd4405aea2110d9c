"""Faults of the core the fuzzer finds today, each with a minimal reproducer.

Every entry has an ``xfail(strict=True)`` test in ``test_fuzz_smoke.py``: once the fault is fixed, that test passes
and fails the suite until the entry is removed. The smoke run skips exactly what is listed here: a failure of an
entry's check whose detail matches the entry's pattern, on a case whose generator has all the features of one of the
entry's feature sets, and whose output matches the entry's text pattern if it has one; and the scaling patterns of
``KNOWN_SLOW`` in their mode.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .cases import Case
from .checks import Failure


@dataclass(frozen=True)
class KnownBug:
    name: str
    #: the check that fails
    check: str
    #: the generators it shows in: any of these feature sets
    where: tuple[frozenset[str], ...]
    reproducer: Case
    what: str
    #: a pattern the failure's detail matches (None: any detail)
    detail: str | None = None
    #: a pattern the case's output contains (None: any output)
    text: str | None = None

    def matches(self, case: Case, failure: Failure) -> bool:
        if failure.check != self.check:
            return False
        if self.detail is not None and not re.search(self.detail, failure.detail):
            return False
        if self.text is not None and not re.search(self.text, case.text):
            return False
        features = case.features
        return any(required <= features for required in self.where)


KNOWN: tuple[KnownBug, ...] = ()


@dataclass(frozen=True)
class KnownSlow:
    name: str
    #: the scaling patterns (tests/fuzz/scaling.py) that show it
    patterns: tuple[str, ...]
    #: "whole" (one feed) or "stream" (4-character deltas)
    mode: str
    #: the pattern and size factor its test measures, where the fault dominates
    probe: tuple[str, float]
    what: str


KNOWN_SLOW: tuple[KnownSlow, ...] = ()


def known_for(case: Case, failure: Failure) -> str | None:
    """The name of the known fault a failure of this case is, if any."""
    for bug in KNOWN:
        if bug.matches(case, failure):
            return bug.name
    return None


def known_slow(pattern: str, mode: str) -> str | None:
    for slow in KNOWN_SLOW:
        if pattern in slow.patterns and mode == slow.mode:
            return slow.name
    return None
