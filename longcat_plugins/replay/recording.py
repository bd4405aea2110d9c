"""The replay recording format: JSON lines, one per model turn. Engine-free.

Each non-blank line is an object ``{"output": "<raw model text>", "expect_prompt": "<prompt text>"}``:
``output`` is what the model generated for that turn (without the end-of-sequence token, which the replay
adds); ``expect_prompt`` (optional) is the exact prompt text the chat template must have rendered for the
request that this turn answers. ``"note"`` is allowed for a human comment and ignored.

The first line may instead be a header, ``{"template": "<chat template name>"}`` (and an optional ``"note"``):
the template the recording was made with (default ``longcat-flash-chat``). ``read_recording`` returns it with the
turns; ``load_recording`` and ``parse_recording`` return the turns alone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

KNOWN_KEYS = frozenset({"output", "expect_prompt", "note"})
HEADER_KEYS = frozenset({"template", "note"})


class RecordingError(ValueError):
    """A recording file that cannot be replayed (with the file and line it is about)."""


@dataclass(frozen=True, slots=True)
class Turn:
    output: str
    expect_prompt: str | None = None
    line: int = 0  # 1-based line in the recording file, for messages


@dataclass(frozen=True, slots=True)
class Recording:
    turns: list[Turn]
    template: str | None = None  # the chat template named by the header line, if any


def parse_recording_text(text: str, source: str = "<recording>") -> Recording:
    turns: list[Turn] = []
    template: str | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        where = f"{source}:{number}"
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as e:
            raise RecordingError(f"{where}: not valid JSON ({e.msg} at column {e.colno})") from None
        if not isinstance(obj, dict):
            raise RecordingError(f"{where}: expected a JSON object with an 'output' string")
        if "template" in obj and "output" not in obj:
            if turns or template is not None:
                raise RecordingError(f"{where}: the header line (\"template\") must be the first line")
            unknown = sorted(set(obj) - HEADER_KEYS)
            if unknown:
                names = ", ".join(map(repr, unknown))
                raise RecordingError(f"{where}: unknown header key(s) {names}; known: template, note")
            if not isinstance(obj["template"], str) or not obj["template"]:
                raise RecordingError(f"{where}: 'template' must be a chat template name")
            template = obj["template"]
            continue
        unknown = sorted(set(obj) - KNOWN_KEYS)
        if unknown:
            raise RecordingError(
                f"{where}: unknown key(s) {', '.join(map(repr, unknown))}; known: output, expect_prompt, note"
            )
        output = obj.get("output")
        if not isinstance(output, str):
            raise RecordingError(f"{where}: 'output' must be a string (the raw model text of the turn)")
        expect = obj.get("expect_prompt")
        if expect is not None and not isinstance(expect, str):
            raise RecordingError(f"{where}: 'expect_prompt' must be a string when given")
        turns.append(Turn(output=output, expect_prompt=expect, line=number))
    if not turns:
        raise RecordingError(f"{source}: the recording has no turns (one JSON object per line)")
    return Recording(turns, template)


def parse_recording(text: str, source: str = "<recording>") -> list[Turn]:
    return parse_recording_text(text, source).turns


def read_recording(path: str | Path) -> Recording:
    """The turns of a recording file and the template its header names."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RecordingError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise RecordingError(f"{path}: is a directory, expected a .jsonl file") from None
    except UnicodeDecodeError as e:
        raise RecordingError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    except OSError as e:
        raise RecordingError(f"{path}: cannot read ({e.strerror})") from None
    return parse_recording_text(text, str(path))


def load_recording(path: str | Path) -> list[Turn]:
    return read_recording(path).turns


class Script:
    """The turns in order. The current turn is consumed only when a request is accepted for it;
    after the last turn the replay starts again from the first (a client can rerun its conversation)."""

    def __init__(self, turns: list[Turn]) -> None:
        if not turns:
            raise RecordingError("a script needs at least one turn")
        self.turns = list(turns)
        self.position = 0

    @property
    def current(self) -> Turn:
        return self.turns[self.position]

    def advance(self) -> None:
        self.position = (self.position + 1) % len(self.turns)


def prompt_mismatch(expected: str, actual: str) -> str:
    """A short description of where ``actual`` first differs from ``expected``."""
    i = 0
    limit = min(len(expected), len(actual))
    while i < limit and expected[i] == actual[i]:
        i += 1
    start = max(0, i - 40)
    return (
        f"first difference at character {i} (line {actual.count(chr(10), 0, i) + 1}): "
        f"expected ...{expected[start : i + 40]!r}, got ...{actual[start : i + 40]!r} "
        f"(expected {len(expected)} characters, got {len(actual)})"
    )
