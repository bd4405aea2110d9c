"""Load and faults against the replay server, at full size, with the figures printed as a table.

    .venvs/vllm/bin/python scripts/load.py                      # 64 streams x 20k-char argument, 3 rounds, ...
    .venvs/vllm/bin/python scripts/load.py --streams 256 --rounds 1 --hangups 0

The same phases as tests/e2e/test_load.py (the CI smoke), larger: ``--rounds`` rounds of ``--streams`` streaming
requests at once, one round half streamed and half not, requests declaring ``--many-tools`` tools, then
``--hangups`` clients that go away (spread over a warm-up round and ``--hangup-rounds`` rounds, with ordinary
requests between them). Every reply is compared whole with its turn's message. The server is started here
(loopback, a free port) and stopped at the end. tokens/s is completion tokens (as the server counts them) over
wall time; server CPU is the server process's own CPU time. Exit status 1 if any reply was wrong, a request was
left open, or memory or file descriptors kept growing.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import random
import signal
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "e2e"))

from load_support import (  # noqa: E402
    BASE_TOOLS,
    Expected,
    Phase,
    chat_body,
    long_text,
    make_recording,
    many_tools,
    process_usage,
    random_hangups,
    run_phase,
    wait_fds,
)
from replay_support import MODEL, Server, replay_server  # noqa: E402

HEADER = (
    f"{'phase':<16} {'requests':>8} {'hang-ups':>8} {'exact':>6} {'wall s':>7} {'tokens':>9} {'tok/s':>7} "
    f"{'server CPU s':>12} {'RSS MB before':>13} {'after':>6} {'fds before':>10} {'after':>5}"
)


def row(p: Phase) -> str:
    return (
        f"{p.name:<16} {p.requests:>8} {p.hangups:>8} {p.exact:>6} {p.wall_s:>7.1f} {p.completion_tokens:>9} "
        f"{p.tokens_per_s:>7.0f} {p.after.cpu_s - p.before.cpu_s:>12.1f} {p.before.rss_mb:>13.0f} "
        f"{p.after.rss_mb:>6.0f} {p.before.fds:>10} {p.after.fds:>5}"
    )


async def run(server: Server, expected: list[Expected], args: argparse.Namespace) -> list[Phase]:
    pid = server.process.pid
    phases: list[Phase] = []

    async def go(name: str, bodies: list[dict[str, object]], **kw: object) -> Phase:
        result = await run_phase(name, server.url, pid, expected, bodies, **kw)  # type: ignore[arg-type]
        phases.append(result)
        print(row(result), flush=True)
        for failure in result.failures[:5]:
            print("   ", failure[:2000], flush=True)
        return result

    print(HEADER, flush=True)
    for number in range(args.rounds):
        await go(f"streams {number + 1}", [chat_body(BASE_TOOLS, True, MODEL) for _ in range(args.streams)],
                 concurrency=args.streams)  # fmt: skip
    for number in range(args.mixed_rounds):
        bodies = [chat_body(BASE_TOOLS, i % 2 == 0, MODEL) for i in range(args.streams)]
        await go(f"mixed {number + 1}", bodies, concurrency=args.streams)
    if args.many_tools:
        tools = many_tools(args.many_tools)
        bodies = [chat_body(tools, i % 2 == 0, MODEL) for i in range(args.tool_requests)]
        bodies += [chat_body(BASE_TOOLS, i % 2 == 0, MODEL) for i in range(args.tool_requests)]
        await go(f"{args.many_tools} tools", bodies, concurrency=len(bodies))
    if args.hangups:
        per_round = -(-args.hangups // (args.hangup_rounds + 1))
        for number in range(args.hangup_rounds + 1):
            rng = random.Random(number)
            conversation = long_text(args.hangup_prompt_chars, random.Random(1000 + number))
            plans = random_hangups(per_round, rng, args.max_events)
            hangups = [(chat_body(BASE_TOOLS, p.stream, MODEL, conversation), p) for p in plans]
            bodies = [chat_body(BASE_TOOLS, i % 2 == 0, MODEL) for i in range(args.requests_per_round)]
            name = "hang-ups warm-up" if number == 0 else f"hang-ups {number}"
            await go(name, bodies, hangups=hangups, seed=number, concurrency=args.streams)
        await wait_fds(pid, phases[-args.hangup_rounds - 1].after.fds)
    return phases


def sglang_environment() -> None:
    """What the SGLang tests give the server process: no Hub access, and the torchvision stand-in if needed."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if importlib.util.find_spec("torchvision") is None:
        standins = str(REPO / "tests" / "sglang" / "_standins")
        os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (standins, os.environ.get("PYTHONPATH")) if p)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--streams", type=int, default=64, help="requests at once (and turns in the recording)")
    parser.add_argument("--argument-chars", type=int, default=20_000, help="length of each long argument")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of --streams streaming requests")
    parser.add_argument("--mixed-rounds", type=int, default=1, help="rounds of half streamed, half not")
    parser.add_argument("--many-tools", type=int, default=200, help="tools declared by the many-tools requests")
    parser.add_argument("--tool-requests", type=int, default=8, help="many-tools requests (as many ordinary ones)")
    parser.add_argument("--hangups", type=int, default=500, help="clients that go away, in all")
    parser.add_argument("--hangup-rounds", type=int, default=4, help="rounds of hang-ups after the warm-up round")
    parser.add_argument("--hangup-prompt-chars", type=int, default=40_000, help="conversation the hang-ups send")
    parser.add_argument("--requests-per-round", type=int, default=16, help="ordinary requests among the hang-ups")
    parser.add_argument("--max-events", type=int, default=2000, help="most SSE events read before hanging up")
    parser.add_argument("--rss-slack-mb", type=float, default=40.0, help="allowed memory growth after warm-up")
    parser.add_argument("--engine", default="vllm", help="replay engine (longcat-plugins serve --engine)")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the server on the way out (e.g. under timeout)

    with tempfile.TemporaryDirectory(prefix="longcat-load-") as tmp:
        started = time.monotonic()
        recording, expected = make_recording(Path(tmp), args.streams, args.argument_chars)
        extra = () if args.engine == "vllm" else ("--engine", args.engine)
        if args.engine == "sglang":
            sglang_environment()
        with replay_server(recording, *extra) as server:
            start = process_usage(server.process.pid)
            time.sleep(2.0)  # start-up messages logged just after the ready line are not the load's
            ready_log = len(server.log_text())
            print(f"server ({args.engine}) ready in {time.monotonic() - started:.1f} s: {start}", flush=True)
            phases = asyncio.run(run(server, expected, args))
            end = process_usage(server.process.pid)
            print(f"server at the end: {end}", flush=True)
            log = server.log_text()[ready_log:]
            broken = "Traceback" in log

    ok = not broken and all(not p.failures and p.settled is not False and not p.running for p in phases)
    hangup_phases = [p for p in phases if p.hangups]
    if len(hangup_phases) > 1:
        warm = hangup_phases[0].after
        growth = [round(p.after.rss_mb - warm.rss_mb, 1) for p in hangup_phases[1:]]
        print(f"memory after each hang-up round, above the warm-up round: {growth} MB; fds {warm.fds} -> {end.fds}")
        ok = ok and growth[-1] < args.rss_slack_mb and end.fds <= warm.fds + 2
    streams = [p for p in phases if p.name.startswith("streams")]
    total_tokens = sum(p.completion_tokens for p in streams)
    total_wall = sum(p.wall_s for p in streams)
    if streams:
        print(f"streams: {args.streams} x {args.argument_chars}-char argument x {len(streams)} rounds, "
              f"{total_tokens} tokens in {total_wall:.1f} s = {total_tokens / total_wall:.0f} tok/s")  # fmt: skip
    if broken:
        at = log.index("Traceback")
        print(f"the server log has a traceback:\n{log[max(0, at - 500) : at + 3000]}")
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
