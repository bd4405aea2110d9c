"""The client matrix: real HTTP clients and agent frameworks against the replay server of each engine.

Run with ``.venvs/clients/bin/python`` (scripts/env_clients.sh); the servers run in ``.venvs/vllm`` and
``.venvs/sglang``. Without the clients the directory is skipped, unless ``LONGCAT_REQUIRE_CLIENTS=1`` (CI) makes
that an error, as it does for a missing engine environment.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import RECORDINGS, Server, engine_python, replay_server

CLIENT_MODULES = ("openai", "agents", "anthropic", "langchain_openai", "litellm", "httpx")
_REQUIRED = os.environ.get("LONGCAT_REQUIRE_CLIENTS", "").strip() == "1"
_MISSING = [name for name in CLIENT_MODULES if importlib.util.find_spec(name) is None]
_NO_ENGINE = not engine_python("vllm").exists()

if _REQUIRED and not engine_python("sglang").exists():
    raise ImportError(f"LONGCAT_REQUIRE_CLIENTS=1 but {engine_python('sglang')} is missing: run scripts/env_sglang.sh")

if _MISSING or _NO_ENGINE:
    if _REQUIRED:
        raise ImportError(
            f"LONGCAT_REQUIRE_CLIENTS=1 but {', '.join(_MISSING) or engine_python('vllm')} missing: run the suite "
            "with .venvs/clients/bin/python (scripts/env_clients.sh) after scripts/env_vllm.sh"
        )
    collect_ignore_glob = ["test_*.py"]


@pytest.fixture(scope="module")
def server(request: pytest.FixtureRequest) -> Iterator[Server]:
    """One replay server per (engine, recording), for the tests of one module that use it."""
    engine, recording = request.param
    with replay_server(engine, RECORDINGS / f"{recording}.jsonl") as running:
        yield running
