"""A ``max_tokens`` cut inside a call's arguments, through every client, streaming and not: the client reports the
cut as its API names it, and the arguments it shows are still one valid JSON object, the long value a prefix of
the recorded one (for the agent frameworks, the tool itself runs on those arguments)."""

from __future__ import annotations

import httpx
import pytest
import scenario
from clients import CELLS
from harness import Server
from matrix import cell_params

RECORDINGS = ("note_cut",)


@pytest.fixture(scope="module")
def max_tokens(server: Server) -> int:
    """Three quarters of the whole turn's length in tokens: the long ``body`` value makes most of the turn, so the
    cut falls inside it (the test checks that it did)."""
    response = httpx.post(
        f"{server.url}/chat/completions",
        json={"model": scenario.MODEL, "messages": [{"role": "user", "content": scenario.QUESTION}],
              "tools": [scenario.NOTE_TOOL]},
        timeout=60,
    )  # fmt: skip
    assert response.status_code == 200, response.text
    return int(response.json()["usage"]["completion_tokens"]) * 3 // 4


@pytest.mark.parametrize(
    ("server", "cell", "stream"), cell_params("cut", RECORDINGS), indirect=["server"], scope="module"
)
def test_cut_inside_a_call(server: Server, max_tokens: int, cell: str, stream: bool) -> None:
    cut = CELLS[cell].cut(server, stream, max_tokens)
    if CELLS[cell].cut_finish is not None:
        assert cut.finish == CELLS[cell].cut_finish
    if not CELLS[cell].cut_shows_call:
        assert not cut.calls
        return
    assert len(cut.calls) == 1, cut.calls
    name, args = cut.calls[0]
    assert name == "save_note"
    assert args["title"] == "Trip"
    body = args["body"]
    assert body and scenario.NOTE_BODY.startswith(body) and len(body) < len(scenario.NOTE_BODY), body
