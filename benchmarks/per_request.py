"""Per-request cost: constructing a parser for one request with a large tool list (``benchmarks/big_tools.py``, 200
tools), as the engines do, and the first deltas after it (lazy preparation counts).

    .venvs/vllm/bin/python -m benchmarks.per_request --engine vllm [--out build/bench/vllm_request.json]
    .venvs/sglang/bin/python -m benchmarks.per_request --engine sglang

vLLM builds its ``Parser`` per request from the class ``ParserManager.get_parser`` returns,
``cls(tokenizer, request.tools, chat_template_kwargs=...)``, and once at start-up with no tools (the tokenizer check);
SGLang builds ``FunctionCallParser(tools, name, tokenizer=...)`` per request. Measured per contender (tool parser
only, no reasoning parser, so that the first delta reaches the tool parser): the construction for a tool list not
seen before (each repeat changes the descriptions) and for the same tool list again (a fresh request object each
time, as a server gets), then one short call to the last tool streamed through the engine's entry point: the first
delta, the slowest delta and the whole stream. The engine's own validation of the request (its pydantic models of
the 200 tools) is measured once for reference: every parser pays it. CPU time of the thread (``time.thread_time``),
median of the repeats.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .big_tools import call_arguments, call_text, called_tool, many_tools
from .cases import Case
from .measure import Folded, check
from .parsers import Contender, checks_message
from .paths import OUT
from .tokens import Delta, load_tokenizer, token_deltas

LEAD = "I will update the ticket."


def _cpu_us(fn: Callable[[], Any]) -> tuple[float, Any]:
    t0 = time.thread_time_ns()
    out = fn()
    return (time.thread_time_ns() - t0) / 1e3, out


def _stream(c: Contender, parser: Any, request: Any, deltas: list[Delta]) -> tuple[list[float], Folded]:
    folded = Folded()
    times: list[float] = []
    last = len(deltas) - 1
    for i, delta in enumerate(deltas):
        t0 = time.thread_time_ns()
        c.feed(parser, request, delta, i == last, folded)
        times.append((time.thread_time_ns() - t0) / 1e3)
    return times, folded


def measure(c: Contender, tokenizer: Any, count: int, repeat: int) -> dict[str, Any]:
    base = many_tools(count)
    name = called_tool(base)
    text = call_text(c.dialect, name, call_arguments())
    deltas = token_deltas(tokenizer, text, min_chars=3)
    case = Case("request", c.dialect, count, text, base, [(name, call_arguments())], content=LEAD)
    row: dict[str, Any] = {"parser": c.name, "role": c.role, "dialect": c.dialect, "deltas": len(deltas)}
    if c.startup is not None:
        row["startup_us"] = statistics.median(_cpu_us(c.startup)[0] for _ in range(repeat))
    correct = ""
    for label, salts in (("new", [f" (v{i})" for i in range(repeat)]), ("same", [""] * repeat)):
        constructs: list[float] = []
        firsts: list[float] = []
        slowest: list[float] = []
        streams: list[float] = []
        if label == "same":  # the tool list has been seen once before the repeats
            request = c.request(base)
            _stream(c, c.construct(request), request, deltas)
        for salt in salts:
            request = c.request(many_tools(count, salt) if salt else base)
            gc.collect()
            us, parser = _cpu_us(lambda: c.construct(request))  # noqa: B023
            times, folded = _stream(c, parser, request, deltas)
            constructs.append(us)
            firsts.append(times[0])
            slowest.append(max(times))
            streams.append(sum(times))
            if not correct:
                correct = check(case, folded) if checks_message(c.role) else "n/a"
        row[f"construct_{label}_us"] = statistics.median(constructs)
        row[f"first_delta_{label}_us"] = statistics.median(firsts)
        row[f"slowest_delta_{label}_us"] = statistics.median(slowest)
        row[f"stream_{label}_us"] = statistics.median(streams)
    row["correct"] = correct
    return row


def run(
    engine: str, contenders: list[Contender], tokenizer: Any, args: argparse.Namespace, meta: dict[str, Any]
) -> None:
    tools = many_tools(args.tools)
    validation = [_cpu_us(lambda: contenders[0].request(tools))[0] for _ in range(args.repeat)]
    rows = []
    for c in contenders:
        rows.append(measure(c, tokenizer, args.tools, args.repeat))
        r = rows[-1]
        print(
            f"[bench] {engine} per request {c.name:>28}: construct new {r['construct_new_us']:,.0f} us,"
            f" same {r['construct_same_us']:,.0f} us, first delta new {r['first_delta_new_us']:,.0f} us,"
            f" stream new {r['stream_new_us']:,.0f} us, same {r['stream_same_us']:,.0f} us {r['correct']}",
            file=sys.stderr,
        )
    payload = {
        "kind": "per_request",
        "engine": engine,
        "meta": {**meta, "python": platform.python_version(), "repeat": args.repeat},
        "tools": args.tools,
        "tools_json_chars": len(json.dumps(tools)),
        "request_validation_us": statistics.median(validation),
        "rows": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(payload, indent=1), encoding="utf-8")
    print(f"[bench] {engine} per request -> {args.out}", file=sys.stderr)


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", choices=("vllm", "sglang"), required=True)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--tools", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args(argv)
    if args.out is None:
        args.out = OUT / f"{args.engine}_request.json"
    return args


def main(argv: list[str] | None = None) -> None:
    args = arguments(argv)
    if args.engine == "vllm":
        from . import vllm_part as part
    else:
        from . import sglang_part as part  # type: ignore[no-redef]
    meta = part.setup()
    tokenizer = load_tokenizer()
    run(args.engine, part.request_contenders(tokenizer), tokenizer, args, meta)


if __name__ == "__main__":
    main()
