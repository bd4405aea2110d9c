"""Where the benchmark reads and writes."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
#: the parts' JSON files, the tokenizer, the server's scratch files
OUT = REPO / "build" / "bench"
