"""The replay server for the client tests: started in an engine's own environment, used from this one.

The clients live in ``.venvs/clients``; the server runs with ``.venvs/vllm/bin/python`` (or SGLang's) as a
subprocess in its own process group, with ``PYTHONPATH`` at this checkout, and is stopped with SIGTERM (the
engines' graceful shutdown), then SIGKILL for anything left of its group.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
RECORDINGS = Path(__file__).resolve().parent / "recordings"
VENVS = Path(os.environ.get("LONGCAT_VENVS", REPO / ".venvs"))
ENGINES = ("vllm", "sglang")
START_TIMEOUT = 300.0  # a safety net for a stuck start-up, not a speed requirement
STOP_TIMEOUT = 60.0
_READY = re.compile(r"^longcat-plugins serve: .* at (http://\S+)$", re.MULTILINE)


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


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def stop(process: subprocess.Popen[bytes]) -> None:
    pgid = process.pid  # the server leads its own session
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            with suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGKILL)
            process.wait()
    deadline = time.monotonic() + 10
    while _group_alive(pgid):
        with suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)
        if time.monotonic() > deadline:
            raise RuntimeError(f"processes of the replay server (group {pgid}) are still running")
        time.sleep(0.05)


@contextmanager
def replay_server(engine: str, recording: Path) -> Iterator[Server]:
    """``longcat-plugins serve --replay RECORDING --port 0`` in the engine's environment, until the block ends."""
    fd, log_name = tempfile.mkstemp(prefix=f"longcat-clients-{engine}-", suffix=".log")
    log = Path(log_name)
    path = [*engine_path(engine), str(REPO), os.environ.get("PYTHONPATH")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, path)), HF_HUB_OFFLINE="1")
    command = [str(engine_python(engine)), "-m", "longcat_plugins", "serve", "--replay", str(recording)]
    with os.fdopen(fd, "wb") as out:
        process = subprocess.Popen(
            [*command, "--port", "0", *engine_args(engine)],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=REPO,
            env=env,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT
        url = None
        while url is None:
            text = log.read_text(encoding="utf-8", errors="replace")
            match = _READY.search(text)
            if match:
                url = match.group(1)
            elif process.poll() is not None:
                raise RuntimeError(f"the {engine} replay server exited ({process.returncode}):\n{text[-4000:]}")
            elif time.monotonic() > deadline:
                raise RuntimeError(f"the {engine} replay server did not start:\n{text[-4000:]}")
            else:
                time.sleep(0.1)
        yield Server(engine, recording, url, process, log)
    finally:
        stop(process)
        log.unlink(missing_ok=True)
