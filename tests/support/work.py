"""How the work of a piece of code grows with its input, measured so that a busy machine cannot fake a square law.

Two measures, each immune to what the other misses:

- :func:`python_calls` counts the Python-level calls (Python functions and builtins) a run makes, with
  ``sys.setprofile``: exact and the same on any machine, so its 4x / 1x ratio needs no retry and no margin for
  noise. It catches every loop written in Python that re-reads what was read before; it cannot see the length of
  what one builtin call copies or scans (a slice of the rest of a buffer is one call, however long the rest).
- :func:`paired_ratio` times a subject against a reference workload that costs the same when the code is linear
  (the text at 4x against the text at 1x parsed four times; a pattern followed by a long plain text against the two
  parsed apart), in CPU time (time spent waiting for a core does not count), with the collector off, alternately,
  several rounds, best of each. A busy machine slows both sides alike; what is left is the work the subject does
  beyond the reference, which catches a builtin that copies or scans the whole text again at every step.
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

_COUNTED = frozenset(("call", "c_call"))


def python_calls(run: Callable[[], object]) -> int:
    """The Python-level calls ``run()`` makes (functions and builtins, ``run`` itself aside)."""
    count = 0

    def hook(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal count
        if event in _COUNTED:
            count += 1

    previous = sys.getprofile()
    sys.setprofile(hook)
    try:
        run()
    finally:
        sys.setprofile(previous)
    return count - 1  # (the call of run)


def cpu_seconds(run: Callable[[], object]) -> float:
    """The CPU time of one ``run()``, with the cyclic collector off (it runs at moments the code does not choose)."""
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        t0 = time.process_time()
        run()
        return time.process_time() - t0
    finally:
        if enabled:
            gc.enable()


def paired_ratio(subject: Callable[[], object], reference: Callable[[], object], rounds: int = 3) -> float:
    """The best CPU time of ``subject`` over the best of ``reference``, the two measured alternately."""
    best_subject = best_reference = float("inf")
    for _ in range(rounds):
        best_subject = min(best_subject, cpu_seconds(subject))
        best_reference = min(best_reference, cpu_seconds(reference))
    return best_subject / max(best_reference, 1e-9)


def repeated(run: Callable[[], object], times: int) -> Callable[[], None]:
    """``run`` ``times`` times in a row (the reference for a run over ``times`` times the input)."""

    def runs() -> None:
        for _ in range(times):
            run()

    return runs
