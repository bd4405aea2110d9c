"""How the CLI reports a user's mistake: one line on stderr, exit status 2, no traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class UsageError(Exception):
    """A problem with what the user asked for (a missing file, bad JSON...)."""


def read_text(path: str) -> str:
    if path == "-":
        import sys

        return sys.stdin.read()
    p = Path(path)
    if not p.exists():
        raise UsageError(f"{path}: no such file")
    if p.is_dir():
        raise UsageError(f"{path}: is a directory, expected a file")
    try:
        return p.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise UsageError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    except OSError as e:
        raise UsageError(f"{path}: cannot read ({e.strerror})") from None


def read_json(path: str, what: str) -> Any:
    text = read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise UsageError(f"{path}: {what} is not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
