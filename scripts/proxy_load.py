"""Load through ``longcat-plugins proxy``: concurrent streams for a while, each also read directly, figures as a table.

    .venvs/clients/bin/python scripts/proxy_load.py                              # 64 streams for 600 s
    .venvs/clients/bin/python scripts/proxy_load.py --streams 8 --duration 5     # a smoke (tests/proxy/test_load.py)

A fake upstream (aiohttp, a process of its own) streams chat-completion chunks of scripted answers: text around
calls in four dialects (Hermes JSON, LongCat JSON, XML function, LongCat key/value), call markup split across chunks,
several calls in one chunk; one chunk every ``--interval-ms``, each stamped with the moment it was sent. Each of
``--streams`` slots sends one streaming request after another until ``--duration`` has passed, and each request runs
twice at once: through the proxy (a process of its own), and directly to the upstream with the client library's
repair applied here (what the proxy runs). An event's latency: from the upstream's stamp to the moment the client
holds the repaired chunk; the proxy adds the difference between the two paths (p50, p99). The proxy's RSS is sampled
every ``--sample-s`` (first sample after the warm-up, last, max, slope).

Exit status 1 when an answer through the proxy differs from the direct repair of the same stream (or that from the
repair of the whole answer), a stream failed or did not end with ``[DONE]``, a request the proxy received has no
access-log line (it never ended), the proxy's log has a traceback, or its RSS grew by more than ``--rss-slack-mib``
after the warm-up.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from array import array
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from longcat_plugins.client import ChatStreamRepair, repair_chat_completion  # noqa: E402
from longcat_plugins.client.options import RepairOptions  # noqa: E402

TOOLS: list[dict[str, Any]] = [
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
DIALECTS = ("hermes", "longcat_json", "xml", "longcat_kv")
SENTENCES = (
    "Let me look that up.",
    "I'll check both cities at once.",
    "Writing the file now, then the weather.",
    "a < b and b > c, so <tool is no tag here.",
    "Done: here is what I found.",
)
CITIES = ("Paris", "Tokyo", "São Paulo", "New York, NY", "Zürich")
FILE_TEXTS = ("print('hi')\n", 'if a < b:\n    print("<b>")\n', "line one\nline two\n\n", '{"json": [1, 2]}')
#: the field of each upstream chunk that carries the moment it was sent (``time.monotonic()``, one clock for every
#: process of the machine); the repair keeps a chunk's extra fields
STAMP = "sent_at"
MODEL = "load"
READY_UPSTREAM = re.compile(r"^proxy_load upstream at (http://\S+)$")
READY_PROXY = re.compile(r"^longcat-plugins proxy: .* at (http://\S+)$")
ACCESS_OK = re.compile(r"access: POST /v1/chat/completions 200 \d+ [\d.]+s$", re.MULTILINE)


# -- the answers ---------------------------------------------------------------------------------------------------


def call_markup(dialect: str, name: str, arguments: dict[str, Any]) -> str:
    if dialect in ("hermes", "longcat_json"):
        tag = "tool_call" if dialect == "hermes" else "longcat_tool_call"
        body = json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)
        return f"<{tag}>\n{body}\n</{tag}>"
    if dialect == "xml":
        params = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in arguments.items())
        return f"<tool_call>\n<function={name}>\n{params}</function>\n</tool_call>"
    pairs = "".join(
        f"<longcat_arg_key>{k}</longcat_arg_key>\n<longcat_arg_value>{v}</longcat_arg_value>\n"
        for k, v in arguments.items()
    )
    return f"<longcat_tool_call>{name}\n{pairs}</longcat_tool_call>"


def a_call(rng: random.Random) -> str:
    dialect = rng.choice(DIALECTS)
    if rng.random() < 0.6:
        return call_markup(dialect, "get_weather", {"city": rng.choice(CITIES), "days": rng.randint(1, 9)})
    content = "".join(rng.choice(FILE_TEXTS) for _ in range(rng.randint(1, 6)))
    return call_markup(dialect, "write_file", {"path": f"src/f{rng.randint(0, 99)}.py", "content": content})


def answer_pieces(seed: int, reasoning: bool = False) -> list[str]:
    """The content deltas of answer ``seed``: text, calls (one to four, in random dialects), text; cut at random
    points (inside tags too), with a chance that one delta holds two whole calls; with ``reasoning``, a think block
    first (or a closer only, as after a template that opened it) in half of the answers."""
    rng = random.Random(seed)
    parts: list[str] = []
    if reasoning and rng.random() < 0.5:
        thought = rng.choice(SENTENCES)
        parts.append(rng.choice([f"<think>{thought}</think>\n\n", f"{thought}\n</think>\n\n"]))
    parts.append(rng.choice(SENTENCES) + "\n")
    calls = [a_call(rng) for _ in range(rng.randint(1, 4))]
    together = len(calls) >= 2 and rng.random() < 0.4  # the first two calls in one delta
    start = len("".join(parts))
    for number, call in enumerate(calls):
        parts.append(call + ("\n" if number < len(calls) - 1 else ""))
    end_of_two = start + len(calls[0]) + 1 + len(calls[1]) if together else -1
    if rng.random() < 0.5:
        parts.append("\n" + rng.choice(SENTENCES))
    text = "".join(parts)
    cuts: list[int] = []
    at = 0
    while at < len(text):
        at += rng.randint(1, 24)
        if together and start < at < end_of_two:
            at = end_of_two
        cuts.append(min(at, len(text)))
    if together and start > 0 and start not in cuts:
        cuts.append(start)
    points = sorted({0, *cuts})
    return [text[a:b] for a, b in itertools.pairwise(points) if b > a]


def request_body(seed: int) -> dict[str, Any]:
    return {
        "model": MODEL,
        "messages": [{"role": "user", "content": "Weather, and write a file."}],
        "tools": TOOLS,
        "stream": True,
        "seed": seed,
    }


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-load",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": MODEL,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}],
        STAMP: time.monotonic(),
    }


def whole_answer(text: str) -> dict[str, Any]:
    message = {"role": "assistant", "content": text}
    return {"id": "chatcmpl-load", "object": "chat.completion", "created": 1, "model": MODEL,
            "choices": [{"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}]}  # fmt: skip


# -- the upstream (its own process) --------------------------------------------------------------------------------


def serve_upstream(interval_s: float, reasoning: bool) -> None:
    from aiohttp import web

    async def answer(request: web.Request) -> web.StreamResponse:
        body = await request.json()
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)

        async def send(value: Any) -> None:
            await response.write(b"data: " + json.dumps(value, ensure_ascii=False).encode() + b"\n\n")

        await send(chunk({"role": "assistant", "content": ""}))
        for piece in answer_pieces(int(body["seed"]), reasoning):
            await asyncio.sleep(interval_s)
            await send(chunk({"content": piece}))
        await asyncio.sleep(interval_s)
        await send(chunk({}, "stop"))
        await response.write(b"data: [DONE]\n\n")
        await response.write_eof()
        return response

    async def main() -> None:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", answer)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        print(f"proxy_load upstream at http://127.0.0.1:{runner.addresses[0][1]}", flush=True)
        await asyncio.Event().wait()

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    asyncio.run(main())


# -- processes -----------------------------------------------------------------------------------------------------


@dataclass
class Process:
    popen: subprocess.Popen[str]
    url: str
    log: Path

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


@contextmanager
def started(argv: Sequence[str], ready: re.Pattern[str], log_dir: Path, name: str) -> Iterator[Process]:
    """Run ``argv`` (stdout read until its ready line, stderr to a log file) until the block ends."""
    log = log_dir / f"{name}.log"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    with open(log, "w") as err:
        popen = subprocess.Popen(list(argv), stdout=subprocess.PIPE, stderr=err, text=True, env=env, cwd=REPO)
    try:
        url = _ready_url(popen.stdout, ready)
        if url is None:
            popen.wait(30)
            raise RuntimeError(f"the {name} did not start ({popen.returncode}):\n{log.read_text()[-3000:]}")
        yield Process(popen, url, log)
    finally:
        if popen.poll() is None:
            popen.send_signal(signal.SIGTERM)
            try:
                popen.wait(30)
            except subprocess.TimeoutExpired:
                popen.kill()
                popen.wait()


def _ready_url(out: IO[str] | None, ready: re.Pattern[str]) -> str | None:
    assert out is not None
    for line in out:
        match = ready.match(line.strip())
        if match:
            return match.group(1)
    return None


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# -- the clients ---------------------------------------------------------------------------------------------------


@dataclass
class Folded:
    """An answer as a client reads it: content, reasoning, calls (name, arguments) in order, finish reason."""

    content: str = ""
    reasoning: str = ""
    calls: dict[int, list[str]] = field(default_factory=dict)
    finish: str | None = None

    def add(self, data: dict[str, Any]) -> None:
        for choice in data.get("choices") or []:
            delta = choice.get("delta") or choice.get("message") or {}
            self.content += delta.get("content") or ""
            self.reasoning += delta.get("reasoning_content") or delta.get("reasoning") or ""
            for number, item in enumerate(delta.get("tool_calls") or []):
                index = item.get("index", number)
                function = item.get("function") or {}
                slot = self.calls.setdefault(index, ["", ""])
                slot[0] += function.get("name") or ""
                slot[1] += function.get("arguments") or ""
            self.finish = choice.get("finish_reason") or self.finish

    def key(self) -> tuple[Any, ...]:
        return self.content, self.reasoning, [tuple(self.calls[i]) for i in sorted(self.calls)], self.finish


@dataclass
class Stream:
    folded: Folded = field(default_factory=Folded)
    done: bool = False
    events: int = 0


@dataclass
class Tally:
    proxy_ms: array[float] = field(default_factory=lambda: array("d"))
    direct_ms: array[float] = field(default_factory=lambda: array("d"))
    started: int = 0
    seconds: float = 0.0
    requests: int = 0
    events: int = 0
    #: requests that failed, or whose stream did not end with [DONE]
    failures: list[str] = field(default_factory=list)
    #: answers through the proxy that differ from the direct repair (or that from the repair of the whole answer)
    mismatches: list[str] = field(default_factory=list)
    #: the proxy's RSS over time: (seconds since the start, answers finished, KiB)
    rss: list[tuple[float, int, int]] = field(default_factory=list)


async def _events(response: Any) -> Any:
    """The data of an SSE answer's events, as they arrive ('[DONE]' included)."""
    async for line in response.content:
        if line.startswith(b"data: "):
            yield line[6:].rstrip(b"\r\n")


async def through_proxy(session: Any, url: str, body: dict[str, Any], latencies: array[float]) -> Stream:
    stream = Stream()
    async with session.post(f"{url}/chat/completions", json=body) as response:
        response.raise_for_status()
        async for data in _events(response):
            if data == b"[DONE]":
                stream.done = True
                continue
            value = json.loads(data)
            latencies.append((time.monotonic() - value[STAMP]) * 1000)
            stream.folded.add(value)
            stream.events += 1
    return stream


async def direct(
    session: Any, url: str, body: dict[str, Any], options: RepairOptions, latencies: array[float]
) -> Stream:
    stream = Stream()
    repair = ChatStreamRepair(body, options=options)
    async with session.post(f"{url}/chat/completions", json=body) as response:
        response.raise_for_status()
        async for data in _events(response):
            if data == b"[DONE]":
                out = repair.finish()
                stream.done = True
            else:
                out = repair.feed(json.loads(data))
            now = time.monotonic()
            for value in out:
                latencies.append((now - value[STAMP]) * 1000)
                stream.folded.add(value)
                stream.events += 1
    return stream


def expected_whole(seed: int, body: dict[str, Any], options: RepairOptions, reasoning: bool) -> Folded:
    text = "".join(answer_pieces(seed, reasoning))
    folded = Folded()
    folded.add(repair_chat_completion(whole_answer(text), body, options=options))
    return folded


async def slot(
    number: int, proxy_url: str, upstream_url: str, args: argparse.Namespace, deadline: float, tally: Tally
) -> None:
    import aiohttp

    options = RepairOptions(reasoning=args.reasoning)
    timeout = aiohttp.ClientTimeout(total=None, sock_read=60)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        seed = number
        while time.monotonic() < deadline and (args.answers is None or tally.started < args.answers):
            tally.started += 1
            body = request_body(seed)
            tasks = [
                asyncio.ensure_future(through_proxy(session, proxy_url, body, tally.proxy_ms)),
                asyncio.ensure_future(direct(session, upstream_url, body, options, tally.direct_ms)),
            ]
            try:
                proxied, plain = await asyncio.gather(*tasks)
            except Exception as e:
                tally.failures.append(f"seed {seed}: {type(e).__name__}: {e}")
            else:
                whole = expected_whole(seed, body, options, args.reasoning)
                if not (proxied.done and plain.done):
                    tally.failures.append(f"seed {seed}: a stream did not end with [DONE]")
                elif proxied.folded.key() != plain.folded.key():
                    tally.mismatches.append(f"seed {seed}: proxy {proxied.folded.key()} != direct {plain.folded.key()}")
                elif plain.folded.key() != whole.key():
                    tally.mismatches.append(f"seed {seed}: streamed {plain.folded.key()} != whole {whole.key()}")
                tally.events += proxied.events
            finally:
                for task in tasks:  # (the other one, when one failed)
                    task.cancel()
            tally.requests += 1
            seed += args.streams


async def sample_rss(pid: int, every_s: float, tally: Tally, stop: asyncio.Event) -> None:
    start = time.monotonic()
    while True:
        tally.rss.append((time.monotonic() - start, tally.requests, rss_kib(pid)))
        if stop.is_set():
            return
        try:
            await asyncio.wait_for(stop.wait(), every_s)
        except asyncio.TimeoutError:
            continue


async def load(proxy: Process, upstream: Process, args: argparse.Namespace) -> Tally:
    tally = Tally()
    stop = asyncio.Event()
    sampler = asyncio.create_task(sample_rss(proxy.popen.pid, args.sample_s, tally, stop))
    start = time.monotonic()
    deadline = start + args.duration
    upstream_url = f"{upstream.url}/v1"
    await asyncio.gather(*(slot(n, proxy.url, upstream_url, args, deadline, tally) for n in range(args.streams)))
    tally.seconds = time.monotonic() - start
    stop.set()
    await sampler
    return tally


# -- the figures ---------------------------------------------------------------------------------------------------


def percentile(sorted_values: Sequence[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def slope_mib_per_min(samples: Sequence[tuple[float, int, int]]) -> float:
    xs = [t for t, _, _ in samples]
    ys = [kib / 1024 for _, _, kib in samples]
    return statistics.linear_regression(xs, ys).slope * 60 if len(set(xs)) > 1 else 0.0


@dataclass
class Verdict:
    #: the proxy's RSS at each tenth of the run after the warm-up: (seconds, answers, MiB)
    rss_profile: list[tuple[float, int, float]]
    answers_equal: bool
    all_ended: bool
    rss_flat: bool
    clean_log: bool
    figures: dict[str, float]
    failures: list[str]

    @property
    def ok(self) -> bool:
        return self.answers_equal and self.all_ended and self.rss_flat and self.clean_log


def judge(tally: Tally, proxy_log: str, args: argparse.Namespace) -> Verdict:
    proxy_ms, direct_ms = sorted(tally.proxy_ms), sorted(tally.direct_ms)
    warmup = args.warmup_answers if args.warmup_answers is not None else 4 * args.streams
    warm = [sample for sample in tally.rss if sample[1] >= warmup] or tally.rss[-1:]
    first, last = warm[0][2] / 1024, warm[-1][2] / 1024
    peak = max(kib for _, _, kib in warm) / 1024
    figures = {
        "seconds": tally.seconds,
        "warmup_answers": warm[0][1],
        "requests": tally.requests,
        "events": tally.events,
        "proxy_p50_ms": percentile(proxy_ms, 0.5),
        "proxy_p99_ms": percentile(proxy_ms, 0.99),
        "direct_p50_ms": percentile(direct_ms, 0.5),
        "direct_p99_ms": percentile(direct_ms, 0.99),
        "rss_first_mib": first,
        "rss_last_mib": last,
        "rss_max_mib": peak,
        "rss_slope_mib_per_min": slope_mib_per_min(warm),
        "rss_slope_second_half_mib_per_min": slope_mib_per_min(warm[len(warm) // 2 :]),
    }
    figures["added_p50_ms"] = figures["proxy_p50_ms"] - figures["direct_p50_ms"]
    figures["added_p99_ms"] = figures["proxy_p99_ms"] - figures["direct_p99_ms"]
    answered = len(ACCESS_OK.findall(proxy_log))
    failures = tally.mismatches + tally.failures
    if answered != tally.requests:
        failures.append(f"{tally.requests} requests, {answered} access-log lines of answers that ended normally")
    profile = [warm[min(len(warm) - 1, len(warm) * tenth // 10)] for tenth in range(11)]
    return Verdict(
        rss_profile=[(t, answers, kib / 1024) for t, answers, kib in profile],
        answers_equal=not tally.mismatches,
        all_ended=not tally.failures and answered == tally.requests,
        rss_flat=max(last, peak) - first < args.rss_slack_mib,
        clean_log="Traceback" not in proxy_log,
        figures=figures,
        failures=failures,
    )


def table(verdict: Verdict, args: argparse.Namespace, cpu: dict[str, float]) -> str:
    f = verdict.figures
    lines = [
        f"{args.streams} streams through the proxy (and {args.streams} direct) for {f['seconds']:.0f} s, "
        f"a chunk every {args.interval_ms:g} ms{', --reasoning' if args.reasoning else ''}: "
        f"{f['requests']:.0f} answers, {f['events']:.0f} events through the proxy",
        f"{'latency per event, ms':<24} {'p50':>8} {'p99':>8}",
        f"{'through the proxy':<24} {f['proxy_p50_ms']:>8.2f} {f['proxy_p99_ms']:>8.2f}",
        f"{'direct (repair here)':<24} {f['direct_p50_ms']:>8.2f} {f['direct_p99_ms']:>8.2f}",
        f"{'added by the proxy':<24} {f['added_p50_ms']:>8.2f} {f['added_p99_ms']:>8.2f}",
        f"proxy RSS MiB: first {f['rss_first_mib']:.1f} (after {f['warmup_answers']:.0f} answers), "
        f"last {f['rss_last_mib']:.1f}, "
        f"max {f['rss_max_mib']:.1f}, slope {f['rss_slope_mib_per_min']:+.3f} MiB/min "
        f"({f['rss_slope_second_half_mib_per_min']:+.3f} in the second half)",
        "proxy RSS MiB by tenths: " + ", ".join(f"{t:.0f} s {mib:.1f}" for t, _, mib in verdict.rss_profile),
        "CPU s: " + ", ".join(f"{name} {seconds:.1f}" for name, seconds in cpu.items()) + "; the machine's load "
        f"average (1 min) {f['load_before']:.1f} before, {f['load_after']:.1f} after (on {os.cpu_count()} CPUs)",
        f"answers equal to the direct repair: {'yes' if verdict.answers_equal else 'NO'}; every request ended: "
        f"{'yes' if verdict.all_ended else 'NO'}; RSS flat (< {args.rss_slack_mib:g} MiB growth): "
        f"{'yes' if verdict.rss_flat else 'NO'}; no traceback in the proxy's log: "
        f"{'yes' if verdict.clean_log else 'NO'}",
    ]
    lines += [f"  {failure[:2000]}" for failure in verdict.failures[:5]]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> Verdict:
    """Start the upstream and the proxy, run the load, stop them; the verdict (the table is printed)."""
    script = [sys.executable, str(Path(__file__).resolve()), "--serve-upstream", "--interval-ms", str(args.interval_ms)]
    if args.reasoning:
        script.append("--reasoning")
    proxy_argv = [sys.executable, *(args.proxy_command or ["-m", "longcat_plugins", "proxy"]), "--port", "0"]
    if args.reasoning:
        proxy_argv.append("--reasoning")
    load_before = os.getloadavg()[0]
    temporary = tempfile.TemporaryDirectory(prefix="longcat-proxy-load-")
    with temporary as tmp, started(script, READY_UPSTREAM, Path(tmp), "upstream") as up:
        proxy_argv += ["--upstream", f"{up.url}/v1"]
        with started(proxy_argv, READY_PROXY, Path(tmp), "proxy") as px:
            before = {"proxy": cpu_s(px.popen.pid), "upstream": cpu_s(up.popen.pid), "client": time.process_time()}
            tally = asyncio.run(load(px, up, args))
            log = _settled_log(px, tally.requests)
            cpu = {
                "proxy": cpu_s(px.popen.pid) - before["proxy"],
                "upstream": cpu_s(up.popen.pid) - before["upstream"],
                "client": time.process_time() - before["client"],
            }
    verdict = judge(tally, log, args)
    verdict.figures.update(load_before=load_before, load_after=os.getloadavg()[0])
    print(table(verdict, args, cpu), flush=True)
    return verdict


def _settled_log(proxy: Process, requests: int) -> str:
    """The proxy's log once it holds an access line for every request (a line is written as its answer ends, at
    most a moment after the client read it), or after 10 s."""
    for _ in range(100):
        log = proxy.log_text()
        if len(ACCESS_OK.findall(log)) >= requests:
            return log
        time.sleep(0.1)
    return proxy.log_text()


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--streams", type=int, default=64, help="concurrent streams through the proxy (as many direct)")
    p.add_argument("--duration", type=float, default=600.0, help="seconds of load")
    p.add_argument("--interval-ms", type=float, default=10.0, help="the upstream's pause before each chunk")
    p.add_argument("--sample-s", type=float, default=5.0, help="how often the proxy's RSS is read")
    p.add_argument("--answers", type=int, default=None, help="stop after this many answers (before --duration)")
    p.add_argument(
        "--warmup-answers", type=int, default=None, help="RSS is measured from this many answers on (4 per stream)"
    )
    p.add_argument("--rss-slack-mib", type=float, default=32.0, help="allowed RSS growth after the warm-up")
    p.add_argument("--reasoning", action="store_true", help="answers with reasoning, the proxy with --reasoning")
    p.add_argument("--proxy-command", nargs="+", default=None, help=argparse.SUPPRESS)  # (a test's proxy script)
    p.add_argument("--serve-upstream", action="store_true", help=argparse.SUPPRESS)  # (the upstream's process)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.serve_upstream:
        serve_upstream(args.interval_ms / 1000, args.reasoning)
        return 0
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the processes on the way out
    verdict = run(args)
    print("OK" if verdict.ok else "FAILED", flush=True)
    return 0 if verdict.ok else 1


if __name__ == "__main__":
    sys.exit(main())
