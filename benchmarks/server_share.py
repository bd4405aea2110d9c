"""Our parser's and adapter's share of the replay server's CPU under concurrent streams.

    .venvs/vllm/bin/python -m benchmarks.server_share [--streams 16] [--chars 65536] [--out build/bench/server.json]
    .venvs/vllm/bin/python -m benchmarks.server_share --smoke

Starts ``longcat-plugins serve --replay`` (vLLM's own API server with our ``longcat`` tool and reasoning parsers over
the replay engine) under ``benchmarks/profiled_serve.py``, with a recording of one turn: a short line of text and a
call writing a file whose content is ``--chars`` characters long (LongCat JSON). Then ``--streams`` concurrent
streaming chat requests (httpx), two or three times: unprofiled (wall time, tokens per second, the server's CPU
seconds); under cProfile (CPU-time timer, in the server's main thread, where vLLM's API server, the detokenizer, our
parsers and the replay engine all run); and, when py-spy is installed (``scripts/env_tools.sh``), sampled by py-spy
(no per-call overhead, so no bias towards code that makes many small calls). Our share under cProfile is the
inclusive time of the calls into ``longcat_plugins.core`` and ``longcat_plugins.vllm`` (the pydantic objects our
adapter builds included) over the profiled CPU time, our own time (excluding what our code calls) beside it; under
py-spy, the share of the samples with one of our frames on the stack. Every stream is checked: the call's arguments
must arrive whole.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import suppress
from pathlib import Path
from typing import Any

from .paths import OUT, REPO
from .workloads import WRITE_FILE_TOOL, big_text

PY_SPY = Path(os.environ.get("LONGCAT_VENVS", REPO / ".venvs")) / "tools" / "bin" / "py-spy"
DEFAULT_OUT = OUT / "server.json"
READY = re.compile(r"^longcat-plugins serve: .* at (http://\S+)$", re.MULTILINE)
START_TIMEOUT = 300.0
LEAD = "I will write the file now."


def recording(chars: int) -> tuple[str, dict[str, Any]]:
    arguments = {"path": "src/app.py", "content": big_text(chars)}
    call = json.dumps({"name": "write_file", "arguments": arguments}, ensure_ascii=False)
    output = f"{LEAD}\n<longcat_tool_call>\n{call}\n</longcat_tool_call>"
    return json.dumps({"output": output}, ensure_ascii=False) + "\n", arguments


class Server:
    """The replay server under benchmarks.profiled_serve, in its own process group."""

    def __init__(self, recording_path: Path, windows: Path, profiled: str, log: Path) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
        self.log = log
        self.windows = windows
        command = [sys.executable, "-m", "benchmarks.profiled_serve", "--windows", str(windows)]
        command += ["--profile", profiled, "--", "serve", "--replay", str(recording_path), "--port", "0"]
        with log.open("wb") as out:
            self.process = subprocess.Popen(
                command,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                cwd=REPO,
                env=env,
                start_new_session=True,
            )
        self.url = self._wait_ready()
        self.n = 0

    def _wait_ready(self) -> str:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            text = self.log.read_text(encoding="utf-8", errors="replace")
            if match := READY.search(text):
                return match.group(1)
            if self.process.poll() is not None:
                raise RuntimeError(f"the replay server exited ({self.process.returncode}):\n{text[-4000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the replay server did not start:\n{text[-4000:]}")
            time.sleep(0.2)

    def window(self, run: Any) -> tuple[Any, dict[str, Any]]:
        """``run()`` between the opening and the closing of a measurement window; its result and the window's."""
        self.n += 1
        self.process.send_signal(signal.SIGUSR1)
        time.sleep(0.2)  # the handler runs at the server's next bytecode; its loop is idle
        result = run()
        self.process.send_signal(signal.SIGUSR2)
        path = self.windows / f"window-{self.n}.json"
        deadline = time.monotonic() + 120
        while not path.exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"no {path.name}:\n{self.log.read_text(errors='replace')[-4000:]}")
            time.sleep(0.1)
        return result, json.loads(path.read_text(encoding="utf-8"))

    def sampled(self, py_spy: Path, out: Path, run: Any) -> tuple[Any, dict[str, Any]]:
        """``run()`` while py-spy samples the server (100 Hz, non-blocking); its result and the samples' analysis."""
        command = [str(py_spy), "record", "--pid", str(self.process.pid), "--rate", "100", "--format", "raw"]
        command += ["--nonblocking", "--output", str(out)]
        spy = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        try:
            time.sleep(2.0)  # attach
            if spy.poll() is not None:
                raise RuntimeError(f"py-spy did not start: {spy.stderr.read().decode(errors='replace')[-2000:]}")
            result = run()
        finally:
            spy.send_signal(signal.SIGINT)
            try:
                spy.wait(timeout=60)
            except subprocess.TimeoutExpired:
                spy.kill()
                spy.wait()
        return result, samples_share(out.read_text(encoding="utf-8"))

    def stop(self) -> None:
        pgid = self.process.pid
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                with suppress(ProcessLookupError):
                    os.killpg(pgid, signal.SIGKILL)
                self.process.wait()
        with suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)


def samples_share(raw: str) -> dict[str, Any]:
    """py-spy's collapsed stacks (``frame;frame;... count``, innermost last): the share of the samples that are
    inside our code, and the innermost frames that take the most samples."""
    total = ours = 0
    leaves: dict[str, int] = {}
    for line in raw.splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        total += count
        if any(part in stack for part in ("longcat_plugins/core/", "longcat_plugins/vllm/")):
            ours += count
        leaf = stack.rsplit(";", 1)[-1]
        leaves[leaf] = leaves.get(leaf, 0) + count
    top = sorted(leaves.items(), key=lambda kv: -kv[1])[:10]
    return {"samples": total, "ours_samples": ours, "share": ours / total if total else 0.0, "top_leaves": top}


async def _one_stream(client: Any, url: str, expected: dict[str, Any]) -> dict[str, Any]:
    body = {
        "model": "LongCat-Flash-Chat",
        "messages": [{"role": "user", "content": "Write src/app.py."}],
        "tools": [WRITE_FILE_TOOL],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    chunks = 0
    tokens = 0
    content: list[str] = []
    names: list[str] = []
    args: list[str] = []
    async with client.stream("POST", f"{url}/chat/completions", json=body) as response:
        response.raise_for_status()
        async for line in response.aiter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            chunk = json.loads(line[6:])
            if chunk.get("usage"):
                tokens = chunk["usage"]["completion_tokens"]
            for choice in chunk.get("choices", []):
                chunks += 1
                delta = choice.get("delta", {})
                content.append(delta.get("content") or "")
                for call in delta.get("tool_calls") or []:
                    function = call.get("function") or {}
                    if function.get("name"):
                        names.append(function["name"])
                    args.append(function.get("arguments") or "")
    try:
        ok = names == ["write_file"] and json.loads("".join(args)) == expected and "".join(content).strip() == LEAD
    except ValueError:
        ok = False
    return {"chunks": chunks, "tokens": tokens, "ok": ok}


def load(url: str, streams: int, expected: dict[str, Any]) -> dict[str, Any]:
    import httpx

    async def run() -> list[dict[str, Any]]:
        limits = httpx.Limits(max_connections=streams + 2)
        async with httpx.AsyncClient(timeout=httpx.Timeout(600.0), limits=limits) as client:
            return await asyncio.gather(*(_one_stream(client, url, expected) for _ in range(streams)))

    t0 = time.perf_counter()
    results = asyncio.run(run())
    wall = time.perf_counter() - t0
    return {
        "wall_s": wall,
        "tokens": sum(r["tokens"] for r in results),
        "chunks": sum(r["chunks"] for r in results),
        "streams_ok": sum(r["ok"] for r in results),
    }


def measure(streams: int, chars: int, plain: bool, py_spy: Path | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="longcat-server-share-") as tmp:
        root = Path(tmp)
        line, expected = recording(chars)
        (root / "turns.jsonl").write_text(line, encoding="utf-8")
        profiled = "3" if plain else "2"
        server = Server(root / "turns.jsonl", root / "windows", profiled, root / "server.log")
        try:
            warm = load(server.url, 1, expected)  # first request: lazy imports, compiled templates
            if warm["streams_ok"] != 1:
                raise RuntimeError(f"the warm-up stream is wrong:\n{server.log.read_text(errors='replace')[-3000:]}")
            out: dict[str, Any] = {}
            server.window(lambda: None)  # window 1: idle, to see the server's own idle cost
            if plain:
                out["plain"] = _merge(*server.window(lambda: load(server.url, streams, expected)))
            out["profiled"] = _merge(*server.window(lambda: load(server.url, streams, expected)))
            if py_spy is not None:
                client, sampled = server.sampled(py_spy, root / "spy.txt", lambda: load(server.url, streams, expected))
                out["py_spy"] = {**client, **sampled}
        finally:
            server.stop()
    return out


def _merge(client: dict[str, Any], window: dict[str, Any]) -> dict[str, Any]:
    return {**client, **window, "tokens_per_s": client["tokens"] / client["wall_s"] if client["wall_s"] else 0.0}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--streams", type=int, default=16)
    ap.add_argument("--chars", type=int, default=8192, help="characters of the file content in the call")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--smoke", action="store_true", help="2 streams of 2000 characters, profiled run only")
    ap.add_argument("--py-spy", type=Path, default=PY_SPY, help="py-spy executable (skipped if missing)")
    args = ap.parse_args(argv)
    if args.smoke:
        args.streams, args.chars = 2, 2000
    t0 = time.perf_counter()
    py_spy = args.py_spy if args.py_spy.exists() and not args.smoke else None
    runs = measure(args.streams, args.chars, plain=not args.smoke, py_spy=py_spy)
    payload = {
        "kind": "server",
        "engine": "vllm",
        "meta": {"python": platform.python_version(), "wall_s": time.perf_counter() - t0, "smoke": args.smoke},
        "streams": args.streams,
        "chars": args.chars,
        **runs,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(payload, indent=1), encoding="utf-8")
    prof = runs["profiled"]
    share = prof["profile"]["ours_inclusive_s"] / prof["profile"]["profiled_cpu_s"]
    print(
        f"[bench] server: {args.streams} streams x {args.chars} chars, {prof['streams_ok']} correct;"
        f" our share of the profiled CPU {share:.1%}"
        + (f", of py-spy's samples {runs['py_spy']['share']:.1%}" if "py_spy" in runs else "")
        + f" -> {args.out}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
