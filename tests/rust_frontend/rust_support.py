"""vLLM's Rust OpenAI frontend (``vllm-rs``, in the vLLM wheel) serving a weight-less model directory for a test.

``VLLM_USE_RUST_FRONTEND=1 vllm serve DIR --tool-call-parser hf --reasoning-parser hf`` runs the Rust frontend in
place of vLLM's Python API server; it reads tool calls and reasoning by executing the ``response_template`` of the
directory's ``tokenizer_config.json``, and talks over ZMQ to vLLM's Python engine core, whose executor here is
:class:`tests.rust_frontend.scripted_executor.ScriptedExecutor` (no model: recorded outputs). ``vllm-rs render`` (no
engine) loads the same model files, and tells in a fraction of a second whether the frontend can execute a template.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from longcat_plugins import response_templates
from longcat_plugins.core.dialects import DIALECTS
from tests.support.model_dir import save_qwen3_dir
from tests.support.server import START_TIMEOUT, group_alive, stop_server

REPO = Path(__file__).resolve().parents[2]
EXECUTOR = "tests.rust_frontend.scripted_executor.ScriptedExecutor"
MODEL = "tiny"
#: in the model directory: the executor's recording, and its log of the requests the engine received
RECORDING = "scripted_outputs.json"
REQUEST_LOG = "scripted_requests.jsonl"
#: the log line of the Rust frontend once it can execute the model's response template
TEMPLATE_LOADED = "loaded response_template for the `hf` parser"
TEMPLATE_REFUSED = "the `hf` parser cannot execute the model's response_template"
#: the chat templates' own markers, besides those of the response template (see :func:`special_tokens`)
CHAT_MARKERS = {
    "qwen3-tools-first": ("<|endoftext|>", "<|im_start|>", "<|im_end|>"),
    "xml-function-thinking": ("<|endoftext|>", "<|im_start|>", "<|im_end|>"),
    "longcat-flash-chat": ("</longcat_s>",),
}
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def rust_binary() -> Path | None:
    """The ``vllm-rs`` binary of the installed vLLM wheel (found without importing vLLM), or None."""
    spec = importlib.util.find_spec("vllm")
    if spec is None or not spec.submodule_search_locations:
        return None
    binary = Path(next(iter(spec.submodule_search_locations))) / "vllm-rs"
    return binary if binary.is_file() and os.access(binary, os.X_OK) else None


def transformers_qwen3_template() -> dict[str, Any]:
    """The response template transformers uses for Qwen3 checkpoints without one (``transformers serve``'s
    fallback, ``_RESPONSE_TEMPLATE_FALLBACKS``)."""
    from transformers.cli.serving.utils import _RESPONSE_TEMPLATE_FALLBACKS

    template = next(t for types, t in _RESPONSE_TEMPLATE_FALLBACKS.items() if "qwen3" in types)
    return copy.deepcopy(template)


def chat_template_for(template: str) -> str:
    """The shipped chat template that writes the turn of the response template ``template`` (its
    ``start_anchor``): its own, or for a template that names none, the one of another template of the same turn (the
    key/value LongCat models speak LongCat-Flash-Chat's ``ASSISTANT:`` turn)."""
    spec = response_templates.spec(template)
    same_turn = (s for s in response_templates.SPECS.values() if s.start_anchor == spec.start_anchor)
    return next(name for name in (spec.chat_template, *(s.chat_template for s in same_turn)) if name is not None)


def special_tokens(template: str) -> tuple[str, ...]:
    """The special tokens of a model that writes the response template ``template``: its chat template's markers, its
    end markers (the first is the end-of-sequence token), its reasoning tags, and its dialect's block and key/value
    tags (as LongCat's and Qwen's tokenizers have them). A markup call's tags (``<function=``) are text, as in
    Qwen3-Coder's vocabulary."""
    spec = response_templates.spec(template)
    dialect = DIALECTS[spec.dialect]
    pairs = dialect.pairs
    tags = [
        *spec.end_markers,
        *CHAT_MARKERS[chat_template_for(template)],
        *spec.think,
        dialect.block.open,
        dialect.block.close,
        *((pairs.key_open, pairs.key_close, pairs.value_open, pairs.value_close) if pairs else ()),
    ]
    return tuple(dict.fromkeys(tags))


def build_model_dir(
    root: Path,
    template: str,
    recording: Sequence[Mapping[str, str]],
    response_template: Mapping[str, Any] | None = None,
) -> Path:
    """A one-layer Qwen3 directory without weights whose model writes the response template ``template`` (shipped
    in ``longcat_plugins/response_templates``; ``response_template`` replaces it in ``tokenizer_config.json``): the
    chat template that writes its turn (:func:`chat_template_for`), a byte-level BPE trained on the spot with
    :func:`special_tokens`, its first end marker the end of sequence, and the executor's recording
    (``[{"when": ..., "output": ...}]``, see :mod:`scripted_executor`)."""
    from longcat_plugins.replay.tokenizer import train_bpe_tokenizer
    from longcat_plugins.templates import template_path

    jinja = template_path(chat_template_for(template)).read_text(encoding="utf-8")
    tokens = special_tokens(template)
    eos = response_templates.spec(template).end_markers[0]
    tokenizer = train_bpe_tokenizer(
        [jinja, *(entry["output"] for entry in recording)],
        tokens,
        vocab_size=800,
        eos_token=eos,
        additional_special_tokens=[t for t in tokens if t != eos],
        chat_template=jinja,
    )
    tokenizer.response_template = dict(
        response_templates.load(template) if response_template is None else response_template
    )
    root.mkdir(parents=True, exist_ok=True)
    save_qwen3_dir(root, tokenizer, eos_token_id=tokenizer.eos_token_id)
    (root / RECORDING).write_text(json.dumps(list(recording), ensure_ascii=False), encoding="utf-8")
    return root


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def render_log(model_dir: Path, binary: Path) -> str:
    """What ``vllm-rs render MODEL_DIR --tool-call-parser hf --reasoning-parser hf`` logs while it loads the model
    files (it is stopped once it serves, or has exited), without colour codes."""
    command = [str(binary), "render", str(model_dir), "--tool-call-parser", "hf", "--reasoning-parser", "hf"]
    command += ["--port", str(_free_port())]
    with tempfile.TemporaryFile() as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 60
            while process.poll() is None and time.monotonic() < deadline:
                out.seek(0)
                if b"starting engine-free Rust render server" in out.read():
                    break
                time.sleep(0.05)
        finally:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        out.seek(0)
        return _ANSI.sub("", out.read().decode("utf-8", errors="replace"))


@dataclass
class RustServer:
    process: subprocess.Popen[bytes]
    base_url: str
    log: Path
    model_dir: Path

    def log_text(self) -> str:
        return _ANSI.sub("", self.log.read_text(encoding="utf-8", errors="replace"))

    def engine_requests(self) -> dict[str, dict[str, Any]]:
        """What the engine core received, per request id (written by the executor)."""
        path = self.model_dir / REQUEST_LOG
        lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
        return {r["request_id"]: r for r in map(json.loads, lines)}

    def engine_request(self, response_id: str) -> dict[str, Any]:
        """The engine's record of the request answered as ``response_id`` (the frontend's request id is the
        response's id plus a suffix)."""
        found = [r for request_id, r in self.engine_requests().items() if request_id.startswith(response_id + "-")]
        assert len(found) == 1, (response_id, list(self.engine_requests()))
        return found[0]


def serve_command(model_dir: Path, port: int) -> list[str]:
    """``vllm serve`` (vLLM's CLI, on the platform of :mod:`tests.rust_frontend.cpu_serve`) with the Rust frontend's
    parsers and the scripted executor."""
    return [
        *(sys.executable, "-m", "tests.rust_frontend.cpu_serve", "serve", str(model_dir)),
        *("--served-model-name", MODEL, "--host", "127.0.0.1", "--port", str(port)),
        *("--tool-call-parser", "hf", "--reasoning-parser", "hf"),
        *("--load-format", "dummy", "--enforce-eager", "--max-model-len", "4096"),
        *("--distributed-executor-backend", EXECUTOR),
    ]


def serve_env() -> dict[str, str]:
    """The Rust frontend instead of the Python API server; vLLM's CPU platform (no accelerator here); the repository
    importable by the engine core (the executor)."""
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "VLLM_USE_RUST_FRONTEND": "1", "VLLM_TARGET_DEVICE": "cpu", "PYTHONPATH": path}


def _models_answer(base_url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base_url}/models", timeout=5) as answer:
            return bool(answer.status == 200)
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return False


@contextmanager
def rust_frontend(model_dir: Path) -> Iterator[RustServer]:
    """``vllm serve`` with the Rust frontend, until the block ends, once ``/v1/models`` answers."""
    port = _free_port()
    fd, log_name = tempfile.mkstemp(prefix="longcat-rust-frontend-", suffix=".log")
    log = Path(log_name)
    with os.fdopen(fd, "wb") as out:
        process = subprocess.Popen(
            serve_command(model_dir, port),
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=REPO,
            env=serve_env(),
            start_new_session=True,
        )
    server = RustServer(process, f"http://127.0.0.1:{port}/v1", log, model_dir)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while not _models_answer(server.base_url):
            if process.poll() is not None:
                raise RuntimeError(
                    f"vllm serve (Rust frontend) exited ({process.returncode}):\n{server.log_text()[-6000:]}"
                )
            if time.monotonic() > deadline:
                raise RuntimeError(f"vllm serve (Rust frontend) did not start:\n{server.log_text()[-6000:]}")
            time.sleep(0.2)
        yield server
    finally:
        stop_server(process)
        assert not group_alive(process.pid), f"a process of vllm serve (group {process.pid}) is still running"
        with suppress(FileNotFoundError):
            log.unlink()
