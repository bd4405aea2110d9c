"""Running the replay server in a subprocess for a test, and folding what the openai client receives."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SHIPPED_RECORDING = REPO / "longcat_plugins" / "examples" / "weather_agent.jsonl"
AGENT_LOOP = REPO / "examples" / "agent_loop.py"
MODEL = "LongCat-Flash-Chat"
START_TIMEOUT = 300.0  # a safety net for a stuck start-up, not a speed requirement
STOP_TIMEOUT = 60.0
_READY = re.compile(r"^longcat-plugins serve: .* at (http://\S+)$", re.MULTILINE)

WEATHER_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather and forecast for a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                "days": {"type": "integer"},
            },
            "required": ["city"],
        },
    },
}
TOOLS = [WEATHER_TOOL]
QUESTION = [{"role": "user", "content": "Weather in Paris and Tokyo?"}]


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    url: str
    log: Path

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def stop_server(process: subprocess.Popen[bytes]) -> int:
    """SIGTERM (vLLM's graceful shutdown), then SIGKILL for the whole process group if it does not exit."""
    pgid = process.pid  # the server leads its own session (start_new_session)
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            with suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGKILL)
            process.wait()
    if _group_alive(pgid):  # children of the server
        with suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while _group_alive(pgid) and time.monotonic() < deadline:
            time.sleep(0.05)
    return process.returncode


@contextmanager
def replay_server(recording: Path, *extra: str) -> Iterator[Server]:
    """``longcat-plugins serve --replay RECORDING --port 0`` in its own process group, stopped afterwards."""
    fd, log_name = tempfile.mkstemp(prefix="longcat-replay-", suffix=".log")
    log = Path(log_name)
    with os.fdopen(fd, "wb") as out:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "longcat_plugins",
                "serve",
                "--replay",
                str(recording),
                "--port",
                "0",
                *extra,
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=REPO,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT
        url = None
        while url is None:
            match = _READY.search(log.read_text(encoding="utf-8", errors="replace"))
            if match:
                url = match.group(1)
            elif process.poll() is not None:
                raise RuntimeError(
                    f"the replay server exited ({process.returncode}):\n{log.read_text()[-4000:]}"
                )
            elif time.monotonic() > deadline:
                raise RuntimeError(f"the replay server did not start:\n{log.read_text()[-4000:]}")
            else:
                time.sleep(0.1)
        yield Server(process, url, log)
    finally:
        stop_server(process)
        assert not _group_alive(process.pid), "a process of the replay server is still running"
        log.unlink(missing_ok=True)


def write_recording(path: Path, turns: Sequence[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in turns), encoding="utf-8")
    return path


def openai_client(server: Server) -> Any:
    from openai import OpenAI

    return OpenAI(base_url=server.url, api_key="EMPTY", max_retries=0, timeout=60)


def reasoning_of(obj: Any) -> str:
    """vLLM's ``reasoning`` field, which the openai types keep as an extra field."""
    extra = getattr(obj, "model_extra", None) or {}
    return extra.get("reasoning") or extra.get("reasoning_content") or ""


@dataclass
class Folded:
    """A chat completion, from a response or accumulated from stream chunks."""

    content: str = ""
    reasoning: str = ""
    calls: list[tuple[str, str]] = field(default_factory=list)  # (name, arguments)
    ids: list[str] = field(default_factory=list)
    finish_reason: str | None = None

    def same_message(self) -> tuple[str, str, list[tuple[str, str]]]:
        return self.content, self.reasoning, self.calls


def fold_response(response: Any) -> Folded:
    choice = response.choices[0]
    message = choice.message
    calls = message.tool_calls or []
    return Folded(
        content=message.content or "",
        reasoning=reasoning_of(message),
        calls=[(c.function.name, c.function.arguments) for c in calls],
        ids=[c.id for c in calls],
        finish_reason=choice.finish_reason,
    )


def fold_chunks(chunks: Any) -> Folded:
    """Accumulate chunk deltas as an agent does, checking the shape of the tool-call stream on the way."""
    folded = Folded()
    names: dict[int, str] = {}
    args: dict[int, list[str]] = {}
    for chunk in chunks:
        if not chunk.choices:
            continue
        choice = chunk.choices[0]
        delta = choice.delta
        folded.content += delta.content or ""
        folded.reasoning += reasoning_of(delta)
        for call in delta.tool_calls or []:
            if call.index not in names:
                assert call.index == len(names), "calls are numbered 0, 1, 2 ... in order"
                assert call.id and call.function is not None and call.function.name, (
                    "first fragment: id and name"
                )
                names[call.index] = call.function.name
                folded.ids.append(call.id)
                args[call.index] = []
            else:
                assert not call.id, "only the first fragment of a call carries its id"
                assert call.function is None or not call.function.name, "only the first fragment has the name"
            if call.function is not None and call.function.arguments:
                args[call.index].append(call.function.arguments)
        if choice.finish_reason is not None:
            assert folded.finish_reason is None, "one finish_reason per choice"
            folded.finish_reason = choice.finish_reason
    folded.calls = [(names[i], "".join(args[i])) for i in range(len(names))]
    return folded


def json_arguments(folded: Folded) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for name, arguments in folded.calls:
        value = json.loads(arguments)
        assert isinstance(value, dict), (name, arguments)
        out.append((name, value))
    return out
