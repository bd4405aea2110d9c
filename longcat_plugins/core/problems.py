"""The problems one output shows, logged once per kind when the output ends.

A model's output can repeat a problem without end (a parameter given again and again, call after call naming no
tool): one log line per occurrence would let one hostile prompt flood the server's log. So each kind of problem (one
message) is counted while the output is read, and logged once, when it ends, with the first occurrence's details and
how many times it occurred. A parser that only passes calls through to a later tool stage (``tools=False``) logs
nothing: that stage reads the same calls and logs their problems.
"""

from __future__ import annotations

import logging

logger = logging.getLogger("longcat_plugins")


class ProblemLog:
    """The problems of one output: for each message, the arguments of its first occurrence and a count."""

    __slots__ = ("_seen", "_silent")

    def __init__(self, silent: bool = False) -> None:
        self._silent = silent
        self._seen: dict[str, tuple[tuple[object, ...], list[int]]] = {}

    def note(self, message: str, *args: object) -> None:
        """A problem: ``message`` (a ``%``-format, its kind) with the details ``args``."""
        if self._silent:
            return
        seen = self._seen.get(message)
        if seen is None:
            self._seen[message] = (args, [1])
        else:
            seen[1][0] += 1

    def flush(self) -> None:
        """Log each kind noted since the last flush: one line, with its count when it occurred more than once."""
        for message, (args, count) in self._seen.items():
            if count[0] == 1:
                logger.warning(message, *args)
            else:
                logger.warning(message + " (%d times in this output; the first shown)", *args, count[0])
        self._seen.clear()
