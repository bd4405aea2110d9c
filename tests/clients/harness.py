"""The replay server for the client tests: started in an engine's own environment, used from this one.

The clients live in ``.venvs/clients``; the server runs with ``.venvs/vllm/bin/python`` (or SGLang's) as a
subprocess in its own process group, with ``PYTHONPATH`` at this checkout (tests/support/server.py starts and
stops it).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.support.server import running

REPO = Path(__file__).resolve().parents[2]
RECORDINGS = Path(__file__).resolve().parent / "recordings"
VENVS = Path(os.environ.get("LONGCAT_VENVS", REPO / ".venvs"))
ENGINES = ("vllm", "sglang")


def engine_python(engine: str) -> Path:
    return VENVS / engine / "bin" / "python"


def engine_args(engine: str) -> list[str]:
    return [] if engine == "vllm" else ["--engine", engine]


# The SGLang environment leaves out torchvision (it cannot load beside its CPU torch); the SGLang suite's
# import-time stand-in for SGLang's multimodal modules takes its place, as in that suite's own servers.
SGLANG_STANDINS = REPO / "tests" / "sglang" / "_standins"


def engine_path(engine: str) -> list[str]:
    """What PYTHONPATH needs, besides this checkout, for the engine's server to start."""
    if engine != "sglang" or list((VENVS / engine).glob("lib/python*/site-packages/torchvision")):
        return []
    return [str(SGLANG_STANDINS)]


@dataclass
class Server:
    engine: str
    recording: Path
    url: str  # ends in /v1
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def root(self) -> str:
        return self.url.removesuffix("/v1")

    def log_tail(self, size: int = 4000) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")[-size:]


@contextmanager
def replay_server(engine: str, recording: Path) -> Iterator[Server]:
    """``longcat-plugins serve --replay RECORDING --port 0`` in the engine's environment, until the block ends."""
    path = [*engine_path(engine), str(REPO), os.environ.get("PYTHONPATH")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, path)), HF_HUB_OFFLINE="1")
    command = [str(engine_python(engine)), "-m", "longcat_plugins", "serve", "--replay", str(recording)]
    with running([*command, "--port", "0", *engine_args(engine)], f"{engine} replay server", REPO, env) as started:
        yield Server(engine, recording, started.url, started.process, started.log)
