"""Load and fault workloads against a replay server: deterministic recordings with long arguments in every dialect,
asyncio clients that fold what they receive (or hang up mid-stream), and what can be seen of the server from outside.

Used by tests/e2e/test_load.py (the CI smoke) and scripts/load.py (the long run that prints the figures).
Loopback only: every client talks to the replay server this process started.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import socket
import struct
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.tools import function_tool

DIALECTS = ("longcat-json", "key-value", "xml-function")
CHAT_PATH = "/v1/chat/completions"

# -- tools -------------------------------------------------------------------------------------------------------

BASE_TOOLS: list[dict[str, Any]] = [
    function_tool(
        "write_file",
        {
            "path": {"type": "string", "description": "Path relative to the workspace root."},
            "content": {"type": "string", "description": "The whole new content of the file."},
            "mode": {"type": "integer", "description": "Unix permission bits, e.g. 420 for 0644."},
        },
        ["path", "content"],
        "Create or overwrite a file in the workspace with the given content.",
    ),
    function_tool(
        "run_command",
        {
            "command": {"type": "string"},
            "timeout": {"type": "integer", "description": "Seconds before the command is killed."},
            "env": {"type": "object", "additionalProperties": {"type": "string"}},
        },
        ["command"],
        "Run a shell command in the workspace and return its output.",
    ),
]

# fmt: off
_VERBS = ("get", "list", "create", "update", "delete", "search", "sync", "export", "archive", "restore")
_NOUNS = (
    "invoice", "customer", "ticket", "repository", "branch", "pipeline", "deployment", "calendar_event", "contact",
    "document", "spreadsheet", "dataset", "metric", "alert", "user", "team", "project", "order", "shipment",
    "payment",
)
_FIELDS = (
    "id", "name", "status", "limit", "offset", "order", "tags",
    "filter", "since", "owner", "priority", "amount", "notes", "archived",
)
# fmt: on
_FIELD_TYPES: tuple[dict[str, Any], ...] = (
    {"type": "string"},
    {"type": "integer", "minimum": 0},
    {"type": "number"},
    {"type": "boolean"},
    {"type": "string", "enum": ["asc", "desc"]},
    {"type": "array", "items": {"type": "string"}},
    {"type": "object", "properties": {"key": {"type": "string"}, "value": {"type": "string"}}},
    {"type": "string", "format": "date-time"},
)


def many_tools(count: int, seed: int = 7) -> list[dict[str, Any]]:
    """``count`` tools: the base tools, then deterministic ones with realistic schemas (unique names)."""
    rng = random.Random(seed)
    tools = [dict(t) for t in BASE_TOOLS]
    names = [f"{verb}_{noun}" for noun in _NOUNS for verb in _VERBS]
    rng.shuffle(names)
    for name in names[: max(0, count - len(tools))]:
        verb, noun = name.split("_", 1)
        fields = rng.sample(_FIELDS, rng.randint(1, 4))
        properties = {}
        for f in fields:
            schema = dict(rng.choice(_FIELD_TYPES))
            if rng.random() < 0.5:
                schema["description"] = f"The {f} of the {noun.replace('_', ' ')}."
            properties[f] = schema
        tools.append(
            function_tool(
                name,
                properties,
                fields[:1],
                f"{verb.capitalize()} {noun.replace('_', ' ')} records in the tenant's account.",
            )
        )
    if len(tools) < count:
        raise ValueError(f"at most {len(names) + len(BASE_TOOLS)} tools")
    return tools[:count]


# -- the recording ----------------------------------------------------------------------------------------------

# fmt: off
_WORDS = (
    "alpha", "buffer", "cache", "delta", "event", "frame", "offset", "parser", "record", "schema", "stream",
    "token", "value", "window", "client", "server", "index", "result", "config", "handle",
)
_UNICODE = ("café", "東京", "naïve", "🙂", "Ωmega", "straße", "→", "ñandú")
# fmt: on
_LINES = (
    "def {a}_{b}({c}, {d}=None):",
    '    """Return the {a} of {b} (see {c})."""',
    '    {a} = {b}.get("{c}", {n})',
    "    if {a} < {n} and {b} >= {m}:",
    '        raise ValueError(f"bad {a}: {{{b}!r}}")',
    '    path = "C:\\\\data\\\\{a}\\\\{b}.txt"',
    "    # {a} -> {b} ({u})",
    "    html = \"<div class='{a}'>{b} &amp; {c}</div>\"",
    '\treturn {{"{a}": {n}, "{b}": [{n}, {m}], "ok": true}}',
    "",
)


def long_text(chars: int, rng: random.Random) -> str:
    """Code-like text of about ``chars`` characters: quotes, backslashes, tabs, markup, non-ASCII, emoji.
    It starts and ends with a non-blank character (a value's edges are not trimmed in any dialect)."""
    lines: list[str] = []
    size = 0
    while size < chars:
        a, b, c, d = rng.sample(_WORDS, 4)
        line = rng.choice(_LINES).format(
            a=a, b=b, c=c, d=d, n=rng.randint(0, 999), m=rng.randint(0, 99), u=rng.choice(_UNICODE)
        )
        lines.append(line)
        size += len(line) + 1
    return "# " + "\n".join(lines)[: max(0, chars - 4)].strip() + " #"


@dataclass(frozen=True)
class Expected:
    """The message a client must receive for a turn, whole."""

    content: str
    reasoning: str
    calls: tuple[tuple[str, str], ...]  # (name, arguments as canonical JSON)
    finish_reason: str


def canonical(arguments: Any) -> str:
    return json.dumps(arguments, sort_keys=True, ensure_ascii=False)


def _value_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def render_call(dialect: str, name: str, arguments: dict[str, Any], name_first: bool = True) -> str:
    if dialect == "longcat-json":
        body = {"name": name, "arguments": arguments} if name_first else {"arguments": arguments, "name": name}
        return f"<longcat_tool_call>\n{json.dumps(body, ensure_ascii=False)}\n</longcat_tool_call>"
    if dialect == "key-value":
        pairs = "".join(
            f"<longcat_arg_key>{k}</longcat_arg_key>\n<longcat_arg_value>{_value_text(v)}</longcat_arg_value>\n"
            for k, v in arguments.items()
        )
        return f"<longcat_tool_call>{name}\n{pairs}</longcat_tool_call>"
    if dialect == "xml-function":
        params = "".join(f"<parameter={k}>\n{_value_text(v)}\n</parameter>\n" for k, v in arguments.items())
        return f"<tool_call>\n<function={name}>\n{params}</function>\n</tool_call>"
    raise ValueError(f"unknown dialect {dialect!r}")


def make_turn(number: int, argument_chars: int, seed: int = 0) -> tuple[str, Expected]:
    """Turn ``number`` of a load recording: its raw model output and the message it must fold to.

    Dialects rotate; most turns are reasoning, a sentence, a ``write_file`` call with a long ``content`` and a
    ``run_command`` call with typed values; every eighth is a long plain answer (no call). Every turn names
    itself in its text, so a client can tell which turn it was given."""
    rng = random.Random(seed * 100_003 + number)
    dialect = DIALECTS[number % len(DIALECTS)]
    reasoning = f"Turn {number}: the user wants module {number} written ({dialect}), then its tests run."
    if number % 8 == 7:
        content = f"Turn {number}: no tool needed. " + long_text(argument_chars, rng)
        return f"<longcat_think>{reasoning}</longcat_think>{content}", Expected(content, reasoning, (), "stop")
    calls: list[tuple[str, dict[str, Any]]] = [
        ("write_file", {"path": f"src/module_{number}.py", "content": long_text(argument_chars, rng), "mode": 420}),
        (
            "run_command",
            {
                "command": f"pytest -q tests/test_module_{number}.py",
                "timeout": 30 + number,
                "env": {"PYTHONHASHSEED": "0", "CASE": f"{number}"},
            },
        ),
    ]
    before = f"Turn {number}: writing src/module_{number}.py and running its tests.\n"
    after = f"\nTurn {number}: both calls sent." if dialect == "longcat-json" else ""
    blocks = "\n".join(render_call(dialect, n, a, name_first=number % 2 == 0) for n, a in calls)
    output = f"<longcat_think>{reasoning}</longcat_think>{before}{blocks}{after}"
    expected = Expected(before + after, reasoning, tuple((n, canonical(a)) for n, a in calls), "tool_calls")
    return output, expected


def make_recording(directory: Path, turns: int, argument_chars: int, seed: int = 0) -> tuple[Path, list[Expected]]:
    """Write ``turns`` turns to ``directory/load.jsonl``; return the file and each turn's expected message."""
    outputs, expected = zip(*(make_turn(i, argument_chars, seed) for i in range(turns)), strict=True)
    path = directory / "load.jsonl"
    path.write_text("".join(json.dumps({"output": o}, ensure_ascii=False) + "\n" for o in outputs), encoding="utf-8")
    return path, list(expected)


_TURN = re.compile(r"^Turn (\d+):")


def turn_of(message: Expected) -> int | None:
    """Which turn a received message says it is (its reasoning names it)."""
    match = _TURN.match(message.reasoning)
    return int(match.group(1)) if match else None


# -- clients ------------------------------------------------------------------------------------------------------


@dataclass
class Reply:
    message: Expected
    completion_tokens: int
    chunks: int = 0


class FoldError(AssertionError):
    """The shape of a response or stream is wrong (not merely a different message)."""


def _reasoning(part: dict[str, Any]) -> str:
    return part.get("reasoning") or part.get("reasoning_content") or ""


def _canonical_arguments(name: str, text: str) -> str:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise FoldError(f"{name}: arguments are not valid JSON ({e}): {text[:200]!r}") from None
    if not isinstance(value, dict):
        raise FoldError(f"{name}: arguments are not a JSON object: {text[:200]!r}")
    return canonical(value)


def fold_completion(body: dict[str, Any]) -> Reply:
    choice = body["choices"][0]
    message = choice["message"]
    calls = message.get("tool_calls") or []
    if len({c["id"] for c in calls}) != len(calls) or not all(c["id"] for c in calls):
        raise FoldError("tool-call ids must be present and distinct")
    folded = Expected(
        content=message.get("content") or "",
        reasoning=_reasoning(message),
        calls=tuple(
            (c["function"]["name"], _canonical_arguments(c["function"]["name"], c["function"]["arguments"]))
            for c in calls
        ),
        finish_reason=choice["finish_reason"],
    )
    return Reply(folded, body["usage"]["completion_tokens"])


@dataclass
class StreamFold:
    """Chat-completion chunks accumulated as an agent does, checking the tool-call stream's shape on the way."""

    content: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)
    arguments: list[list[str]] = field(default_factory=list)
    finish_reason: str | None = None
    completion_tokens: int = 0
    chunks: int = 0

    def add(self, chunk: dict[str, Any]) -> None:
        self.chunks += 1
        if chunk.get("usage"):
            self.completion_tokens = chunk["usage"]["completion_tokens"]
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            self.content.append(delta.get("content") or "")
            self.reasoning.append(_reasoning(delta))
            for call in delta.get("tool_calls") or []:
                index = call["index"]
                function = call.get("function") or {}
                if index == len(self.names):
                    if not (call.get("id") and function.get("name")):
                        raise FoldError(f"the first fragment of call {index} must carry its id and name")
                    self.names.append(function["name"])
                    self.ids.append(call["id"])
                    self.arguments.append([])
                elif index < len(self.names):
                    if call.get("id") or function.get("name"):
                        raise FoldError(f"a later fragment of call {index} carries an id or a name")
                else:
                    raise FoldError(f"call {index} arrived before call {len(self.names)}")
                self.arguments[index].append(function.get("arguments") or "")
            if choice.get("finish_reason") is not None:
                if self.finish_reason is not None:
                    raise FoldError("two finish_reasons in one stream")
                self.finish_reason = choice["finish_reason"]

    def reply(self) -> Reply:
        if self.finish_reason is None:
            raise FoldError("the stream ended without a finish_reason")
        if len(set(self.ids)) != len(self.ids):
            raise FoldError("tool-call ids must be distinct")
        calls = tuple((n, _canonical_arguments(n, "".join(a))) for n, a in zip(self.names, self.arguments, strict=True))
        message = Expected("".join(self.content), "".join(self.reasoning), calls, self.finish_reason)
        return Reply(message, self.completion_tokens, self.chunks)


def chat_body(
    tools: Sequence[dict[str, Any]], stream: bool, model: str, prompt: str = "Write the next module."
) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "messages": [{"role": "user", "content": prompt}], "tools": list(tools)}
    if stream:
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
    return body


async def chat(client: Any, base_url: str, body: dict[str, Any]) -> Reply:
    """One chat completion through ``httpx.AsyncClient`` ``client``, streamed (SSE) or not, folded."""
    url = base_url + "/chat/completions"
    if not body.get("stream"):
        response = await client.post(url, json=body)
        if response.status_code != 200:
            raise FoldError(f"HTTP {response.status_code}: {response.text[:500]}")
        return fold_completion(response.json())
    fold = StreamFold()
    done = False
    async with client.stream("POST", url, json=body) as response:
        if response.status_code != 200:
            raise FoldError(f"HTTP {response.status_code}: {(await response.aread())[:500]!r}")
        async for line in response.aiter_lines():
            if not line.startswith("data: "):
                continue
            data = line[6:]
            if data == "[DONE]":
                done = True
                continue
            fold.add(json.loads(data))
    if not done:
        raise FoldError("the stream ended without [DONE]")
    return fold.reply()


@dataclass(frozen=True)
class Hangup:
    """A client that goes away: after ``after_events`` SSE events (0: before any response), or halfway through
    sending its request body (``mid_body``); ``reset`` closes with RST instead of FIN."""

    stream: bool
    after_events: int
    reset: bool = False
    mid_body: bool = False


def random_hangups(count: int, rng: random.Random, max_events: int) -> list[Hangup]:
    out = []
    for _ in range(count):
        kind = rng.random()
        if kind < 0.06:
            out.append(Hangup(stream=rng.random() < 0.5, after_events=0, mid_body=True))
        elif kind < 0.16:
            out.append(Hangup(stream=False, after_events=0, reset=rng.random() < 0.5))
        else:
            out.append(Hangup(stream=True, after_events=rng.randint(0, max_events), reset=rng.random() < 0.3))
    return out


async def hang_up(host: str, port: int, body: dict[str, Any], plan: Hangup) -> int:
    """Send a chat request over a raw socket and go away as ``plan`` says; return the SSE events seen."""
    payload = json.dumps(dict(body, stream=plan.stream)).encode()
    head = (
        f"POST {CHAT_PATH} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(payload)}\r\n\r\n"
    ).encode()
    reader, writer = await asyncio.open_connection(host, port)
    seen = 0
    try:
        if plan.mid_body:
            writer.write(head + payload[: len(payload) // 2])
            await writer.drain()
            await asyncio.sleep(0.05)
            return 0
        writer.write(head + payload)
        await writer.drain()
        while seen < plan.after_events:
            line = await reader.readline()
            if not line:
                break
            if line.startswith(b"data: "):
                seen += 1
        return seen
    finally:
        if plan.reset:
            sock = writer.get_extra_info("socket")
            if sock is not None:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await writer.wait_closed()


# -- the server seen from outside ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Usage:
    rss_mb: float
    fds: int
    threads: int
    cpu_s: float

    def __str__(self) -> str:
        return f"rss {self.rss_mb:.0f} MB, {self.fds} fds, {self.threads} threads"


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if int((entry / "stat").read_text().rpartition(")")[2].split()[1]) == pid:
                    out.append(int(entry.name))
    return out


def process_usage(pid: int) -> Usage:
    """Resident memory, open file descriptors, threads and CPU time of process ``pid`` and its descendants (a
    server with worker processes counts whole), from Linux /proc."""
    rss_kb = fds = threads = 0
    cpu = 0.0
    ticks = os.sysconf("SC_CLK_TCK")
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            stat = Path(f"/proc/{current}/stat").read_text().rpartition(")")[2].split()
            fds += len(list(Path(f"/proc/{current}/fd").iterdir()))
        except OSError:
            if current == pid:
                raise
            continue  # a child that just exited
        rss = re.search(r"^VmRSS:\s+(\d+) kB", status, re.MULTILINE)
        count = re.search(r"^Threads:\s+(\d+)", status, re.MULTILINE)
        rss_kb += int(rss.group(1)) if rss else 0
        threads += int(count.group(1)) if count else 0
        cpu += (int(stat[11]) + int(stat[12])) / ticks  # utime and stime, fields 14 and 15 of /proc/PID/stat
        pending += _children(current)
    return Usage(rss_kb / 1024, fds, threads, cpu)


def metric_sum(text: str, name: str, **labels: str) -> float:
    """The sum of a Prometheus metric's samples that carry ``labels``."""
    total = 0.0
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        head, _, value = line.rpartition(" ")
        metric, _, label_text = head.partition("{")
        if metric == name and all(f'{k}="{v}"' in label_text for k, v in labels.items()):
            total += float(value)
    return total


async def server_metrics(base_url: str) -> Any:
    """The server's /metrics response, over a connection of its own: a pooled keep-alive connection that sat idle
    while a phase ran may be closed by the server (uvicorn's keep-alive timeout) just as a poll reuses it, which
    the client sees as "Server disconnected without sending a response"."""
    import httpx

    async with httpx.AsyncClient(timeout=30.0) as fresh:
        return await fresh.get(base_url.removesuffix("/v1") + "/metrics")


async def finished_chat_requests(base_url: str) -> int | None:
    """Chat requests the server is done with (answered, refused or abandoned by their client), from its /metrics
    (vLLM's HTTP metrics); None if it does not count them."""
    response = await server_metrics(base_url)
    if response.status_code != 200 or "# HELP http_request_duration_seconds " not in response.text:
        return None
    return int(metric_sum(response.text, "http_request_duration_seconds_count", handler=CHAT_PATH))


async def wait_settled(base_url: str, count: int | None, timeout: float = 60.0) -> int | None:
    """Wait until the server is done with ``count`` chat requests in all; return how many it is done with."""
    deadline = time.monotonic() + timeout
    while True:
        done = await finished_chat_requests(base_url)
        if done is None or count is None or done >= count or time.monotonic() > deadline:
            return done
        await asyncio.sleep(0.2)


async def wait_running(base_url: str, timeout: float = 60.0) -> int | None:
    """Wait until the engine reports no running request (vLLM's ``vllm:num_requests_running``); return how many
    it reports then, None if it does not report them."""
    deadline = time.monotonic() + timeout
    while True:
        response = await server_metrics(base_url)
        if response.status_code != 200 or "# HELP vllm:num_requests_running " not in response.text:
            return None
        running = int(metric_sum(response.text, "vllm:num_requests_running"))
        if running == 0 or time.monotonic() > deadline:
            return running
        await asyncio.sleep(0.2)


async def wait_fds(pid: int, at_most: int, timeout: float = 30.0) -> int:
    """Wait until process ``pid`` has at most ``at_most`` open file descriptors; return how many it has."""
    deadline = time.monotonic() + timeout
    while True:
        fds = process_usage(pid).fds
        if fds <= at_most or time.monotonic() > deadline:
            return fds
        await asyncio.sleep(0.2)


# -- a phase: many requests at once, checked ---------------------------------------------------------------------


@dataclass
class Phase:
    """What a batch of concurrent requests gave: exact replies, failures, and the server before and after."""

    name: str
    requests: int
    hangups: int
    exact: int
    failures: list[str]
    turns: list[int]  # the turn of every exact reply
    wall_s: float
    completion_tokens: int
    running: int | None  # requests the engine still ran afterwards (None: it does not say)
    settled: bool | None  # the server was done with every request afterwards (None: it does not count them)
    before: Usage
    after: Usage

    @property
    def tokens_per_s(self) -> float:
        return self.completion_tokens / self.wall_s if self.wall_s else 0.0


def check_reply(reply: Reply, expected: Sequence[Expected]) -> str | None:
    """None if the reply is exactly one of the recording's messages, else what is wrong."""
    turn = turn_of(reply.message)
    if turn is None or not 0 <= turn < len(expected):
        return f"a reply that names no turn: {reply.message.reasoning[:80]!r} {reply.message.content[:80]!r}"
    want = expected[turn]
    if reply.message == want:
        return None
    got = reply.message
    parts = [
        f"{name} differs: got {getattr(got, name)!r:.300} expected {getattr(want, name)!r:.300}"
        for name in ("content", "reasoning", "finish_reason")
        if getattr(got, name) != getattr(want, name)
    ]
    if got.calls != want.calls:
        parts.append(
            f"calls differ: got {[(n, len(a)) for n, a in got.calls]} expected "
            f"{[(n, len(a)) for n, a in want.calls]} (name, argument length)"
        )
        for i, (g, w) in enumerate(zip(got.calls, want.calls)):  # noqa: B905
            if g != w:
                k = next((j for j, (x, y) in enumerate(zip(g[1], w[1])) if x != y), min(len(g[1]), len(w[1])))  # noqa: B905
                parts.append(
                    f"call {i} arguments first differ at {k}: got {g[1][k - 40 : k + 40]!r} "
                    f"expected {w[1][k - 40 : k + 40]!r}"
                )
    return f"turn {turn}: " + "; ".join(parts)


async def run_phase(
    name: str,
    base_url: str,
    pid: int,
    expected: Sequence[Expected],
    bodies: Sequence[dict[str, Any]],
    hangups: Sequence[tuple[dict[str, Any], Hangup]] = (),
    *,
    concurrency: int = 64,
    seed: int = 0,
    timeout: float = 600.0,
) -> Phase:
    """Send ``bodies`` (each folded and checked) and ``hangups`` (clients that go away) interleaved, at most
    ``concurrency`` at once, then wait until the server is done with all of them."""
    import httpx

    host, _, port_text = base_url.split("//", 1)[1].split("/", 1)[0].rpartition(":")
    port = int(port_text)
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(timeout=timeout, limits=limits) as client:
        start_count = await finished_chat_requests(base_url)
        before = process_usage(pid)
        jobs: list[tuple[str, Any]] = [("chat", b) for b in bodies] + [("hangup", h) for h in hangups]
        random.Random(seed).shuffle(jobs)
        gate = asyncio.Semaphore(concurrency)

        async def one(kind: str, job: Any) -> Reply | int:
            async with gate:
                if kind == "chat":
                    return await chat(client, base_url, job)
                body, plan = job
                return await hang_up(host, port, body, plan)

        started = time.monotonic()
        results = await asyncio.gather(*(one(k, j) for k, j in jobs), return_exceptions=True)
        wall = time.monotonic() - started
        failures: list[str] = []
        turns: list[int] = []
        tokens = 0
        for (kind, _), result in zip(jobs, results, strict=True):
            if isinstance(result, BaseException):
                failures.append(f"{kind}: {type(result).__name__}: {str(result)[:1500]}")
            elif isinstance(result, Reply):
                tokens += result.completion_tokens
                problem = check_reply(result, expected)
                if problem is None:
                    turns.append(turn_of(result.message) or 0)
                else:
                    failures.append(problem)
        target = None if start_count is None else start_count + len(jobs)
        done = await wait_settled(base_url, target)
        running = await wait_running(base_url)
    return Phase(
        name=name,
        requests=len(bodies),
        hangups=len(hangups),
        exact=len(turns),
        failures=failures,
        turns=turns,
        wall_s=wall,
        completion_tokens=tokens,
        running=running,
        settled=None if target is None else done == target,
        before=before,
        after=process_usage(pid),
    )


async def wait_idle(pid: int, quiet_cpu_s: float = 0.05, interval: float = 0.5, timeout: float = 120.0) -> float:
    """Wait until process ``pid`` uses less than ``quiet_cpu_s`` of CPU in each of three ``interval``s in a row
    (its engine has nothing left to step); return its CPU time then."""
    deadline = time.monotonic() + timeout
    quiet = 0
    cpu = process_usage(pid).cpu_s
    while quiet < 3 and time.monotonic() < deadline:
        await asyncio.sleep(interval)
        now = process_usage(pid).cpu_s
        quiet = quiet + 1 if now - cpu < quiet_cpu_s else 0
        cpu = now
    return cpu


async def server_cpu_of(pid: int, phase: Any) -> float:
    """Server CPU time spent on ``phase`` (a coroutine), counted until the server is idle again."""
    start = await wait_idle(pid)
    await phase
    return await wait_idle(pid) - start
