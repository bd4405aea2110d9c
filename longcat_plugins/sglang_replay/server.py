"""Assembly of the SGLang replay server: SGLang's own HTTP server over the stand-in scheduler.

What ``python -m sglang.launch_server`` does (``load_plugins``, ``prepare_server_args``, ``launch_server``), with
``run_scheduler_process_func`` set to :func:`~.scheduler.run_replay_scheduler`. SGLang's tokenizer manager (chat
template, tokenization, ``OpenAIServingChat`` with our ``longcat`` parsers), its detokenizer process and its HTTP
server (uvicorn, one or several workers) are SGLang's own, unpatched.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import socket
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from longcat_plugins.replay.model_dir import TEMPLATE_NAME, build_model_dir, family
from longcat_plugins.replay.recording import Turn
from longcat_plugins.templates import template_path

TOOL_PARSER = "longcat"
REASONING_PARSER = "longcat"
#: The app module HTTP workers import when there are several (``SGLANG_HTTP_SERVER_APP_PATH``).
WORKER_APP_PATH = "longcat_plugins.sglang.http_app:app"
#: Seconds the ready line waits for ``/health`` to answer.
READY_TIMEOUT = 600.0


def corpus(turns: Sequence[Turn]) -> list[str]:
    """Text to train the replay tokenizer on: every output and expected prompt, a few times."""
    texts = [t.output for t in turns] + [t.expect_prompt for t in turns if t.expect_prompt]
    return texts * 3


def free_port(host: str) -> int:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def server_argv(
    model_dir: Path,
    host: str,
    port: int,
    served_model_name: str,
    tokenizer_workers: int = 1,
    template: str = TEMPLATE_NAME,
) -> list[str]:
    """The ``sglang.launch_server`` command line of the replay."""
    return [
        "--model-path", str(model_dir),
        "--served-model-name", served_model_name,
        "--host", host,
        "--port", str(port),
        "--device", "cpu",
        "--skip-server-warmup",
        "--tool-call-parser", TOOL_PARSER,
        "--reasoning-parser", REASONING_PARSER,
        "--chat-template", str(template_path(template)),
        "--tokenizer-worker-num", str(tokenizer_workers),
    ]  # fmt: skip


def announce_when_healthy(url: str, on_ready: Callable[[str], None]) -> threading.Thread:
    """Call ``on_ready(url + "/v1")`` once ``/health`` answers 200 (in a daemon thread)."""

    def wait() -> None:
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            with (
                contextlib.suppress(OSError, ValueError),
                urllib.request.urlopen(url + "/health", timeout=5) as response,
            ):
                if response.status == 200:
                    on_ready(url + "/v1")
                    return
            time.sleep(0.2)

    thread = threading.Thread(target=wait, name="replay-ready", daemon=True)
    thread.start()
    return thread


def run_sglang_replay_server(
    turns: Sequence[Turn],
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    served_model_name: str | None = None,
    token_delay: float = 0.0,
    tokenizer_workers: int = 1,
    template: str = TEMPLATE_NAME,
    sglang_args: Sequence[str] = (),
    on_ready: Callable[[str], None] | None = None,
    response_template: Mapping[str, Any] | None = None,
) -> None:
    """Build the model directory and serve ``turns`` with SGLang until interrupted (blocking); ``response_template``:
    the tokenizer's (see :func:`~longcat_plugins.replay.model_dir.build_model_dir`)."""
    from sglang.srt.entrypoints.http_server import launch_server
    from sglang.srt.plugins import load_plugins
    from sglang.srt.server_args import prepare_server_args
    from sglang.srt.utils import kill_process_tree

    from .scheduler import ReplayConfig, run_replay_scheduler

    name = served_model_name or family(template).served_model_name
    if tokenizer_workers > 1:
        # Workers import the app by path and never load plugins: this module registers ours first.
        os.environ.setdefault("SGLANG_HTTP_SERVER_APP_PATH", WORKER_APP_PATH)
    if port == 0:
        port = free_port(host)
    with tempfile.TemporaryDirectory(prefix="longcat-sglang-replay-") as tmp:
        model_dir = build_model_dir(Path(tmp) / "model", corpus(turns), template, response_template=response_template)
        config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
        load_plugins()
        argv = server_argv(model_dir, host, port, name, tokenizer_workers, template) + list(sglang_args)
        server_args = prepare_server_args(argv)
        replay = ReplayConfig(
            turns=tuple(turns),
            model_dir=str(model_dir),
            context_len=int(config["max_position_embeddings"]),
            token_delay=token_delay,
        )
        url_host = f"[{host}]" if ":" in host else host
        if on_ready is not None:
            announce_when_healthy(f"http://{url_host}:{port}", on_ready)
        try:
            launch_server(server_args, run_scheduler_process_func=functools.partial(run_replay_scheduler, replay))
        finally:
            kill_process_tree(os.getpid(), include_parent=False)
            sys.stdout.flush()
