"""How the CLI reads its input and reports a user's mistake: one line on stderr, exit status 2, no traceback.

Every file the commands read (``-`` is stdin) is UTF-8 text of at most :data:`MAX_INPUT_BYTES`, whatever the
locale says: the bytes are decoded here, so a wrong byte is a one-line error naming the file, and an endless input
(``/dev/zero``, a pipe that never ends) stops at the limit instead of filling the memory.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, BinaryIO

#: The largest input a command reads: far more than any model output or conversation (1M tokens is ~4 MiB).
MAX_INPUT_BYTES = 64 * 1024 * 1024


class UsageError(Exception):
    """A problem with what the user asked for (a missing file, bad JSON...)."""


def read_text(path: str) -> str:
    """The UTF-8 text of file ``path`` (``-``: stdin), or a :class:`UsageError` naming it."""
    if path == "-":
        if sys.stdin is None:
            raise UsageError("-: there is no standard input")
        return _decode(_read_bounded(sys.stdin.buffer, "-"), "-")
    p = Path(path)
    if not p.exists():
        raise UsageError(f"{path}: no such file")
    if p.is_dir():
        raise UsageError(f"{path}: is a directory, expected a file")
    try:
        with p.open("rb") as stream:
            data = _read_bounded(stream, path)
    except OSError as e:
        raise UsageError(f"{path}: cannot read ({e.strerror or e})") from None
    return _decode(data, path)


def read_json(path: str, what: str) -> Any:
    text = read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise UsageError(f"{path}: {what} is not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None


def _read_bounded(stream: BinaryIO, path: str) -> bytes:
    data = stream.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:
        raise UsageError(f"{path}: larger than {MAX_INPUT_BYTES // (1024 * 1024)} MiB, not a model output or a request")
    return data


def _decode(data: bytes, path: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise UsageError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None
