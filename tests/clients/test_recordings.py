"""The recordings are what ``make_recordings.py`` writes from the scenario (prompts rendered by the package)."""

from __future__ import annotations

import make_recordings
import pytest


@pytest.mark.parametrize("name", sorted(make_recordings.recordings()))
def test_recording_is_generated(name: str) -> None:
    expected = make_recordings.lines(make_recordings.recordings()[name])
    assert (make_recordings.DIR / name).read_text(encoding="utf-8") == expected, (
        f"recordings/{name} is stale: run python tests/clients/make_recordings.py"
    )


def test_every_recording_is_listed_in_the_note() -> None:
    note = (make_recordings.DIR / "README.md").read_text(encoding="utf-8")
    files = sorted(p.name for p in make_recordings.DIR.glob("*.jsonl"))
    assert files == sorted(make_recordings.recordings())
    assert all(f"`{name}`" in note for name in files)
