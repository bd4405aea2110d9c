"""A GPU-free OpenAI-compatible server for agent developers: vLLM's own API server, our ``longcat`` parsers,
and a scripted engine that replays recorded model turns token by token (``longcat-plugins serve --replay
FILE``).

``recording`` (the JSON-lines format) is engine-free; ``engine`` and ``server`` import vLLM.
"""

from __future__ import annotations

from .recording import (
    Recording,
    RecordingError,
    Script,
    Turn,
    load_recording,
    parse_recording,
    parse_recording_text,
    read_recording,
)

__all__ = [
    "Recording",
    "RecordingError",
    "Script",
    "Turn",
    "load_recording",
    "parse_recording",
    "parse_recording_text",
    "read_recording",
]
