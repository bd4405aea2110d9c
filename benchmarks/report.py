"""Merge the parts' JSON files into ``benchmarks/RESULTS.md`` and the plot ``benchmarks/scaling.png``.

    python -m benchmarks.report [build/bench/core.json build/bench/vllm.json build/bench/sglang.json]

The plot needs matplotlib (scripts/bench.sh installs it into the environment that runs this); without it only the
Markdown is written. ``benchmarks/analysis.md`` (hand-written: profiles, where the time goes) is appended if present.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEFAULT_PARTS = [
    HERE.parent / "build" / "bench" / f"{name}.json"
    for name in ("vllm", "sglang", "core", "vllm_request", "sglang_request", "server")
]
ENGINE_TITLES = {
    "vllm": "vLLM, through `Parser.parse_delta`",
    "sglang": "SGLang, through `FunctionCallParser.parse_stream_chunk`",
    "core": "The core alone, and its floors",
}
FAMILY_TITLES = {"huge": "one huge string argument", "many": "many small parameters", "agent": "agent turn"}
DIALECT_TITLES = {"longcat_json": "LongCat JSON", "hermes_json": "Hermes JSON", "xml": "XML"}

Row = dict[str, Any]


def load(paths: Iterable[Path]) -> list[dict[str, Any]]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in paths if p.exists()]


def seconds(m: Row) -> float | None:
    return m["total_s"] if m["total_s"] is not None else m["estimate_s"]


def _size_label(m: Row) -> str:
    if m["family"] in ("huge", "memory"):
        return f"{m['size'] // 1024}k chars"
    if m["family"] == "many":
        return f"{m['size']} params"
    return f"{m['size']}-token deltas"


def _fmt_time(m: Row) -> str:
    if m["status"] == "ok":
        return f"{m['total_s'] * 1e3:,.1f}"
    text = m["status"]
    if m["estimate_s"] is not None:
        text = f"~{m['estimate_s'] * 1e3:,.0f} (extrapolated)"
    if m.get("min_s"):
        text = f"> {m['min_s'] * 1e3:,.0f} (stopped), {text}"
    return text


def _per_delta(m: Row) -> str:
    t = seconds(m)
    if t is None:
        return ""
    text = f"{t / m['deltas'] * 1e6:,.2f}"
    return text if m["status"] == "ok" else f"~{text}"


def role_of(part: dict[str, Any], parser: str) -> str:
    """ "ours", "builtin", "floor" (the engine's floor) or "no-op"; from the part's meta, else from the name."""
    roles = part.get("meta", {}).get("roles", {})
    if parser in roles:
        return str(roles[parser])
    if parser.startswith("ours"):
        return "ours"
    if parser == "floor":
        return "floor"
    return "builtin" if parser.endswith("(built-in)") else "no-op"


class Index:
    """Measurements by (engine, parser, family, dialect, size)."""

    def __init__(self, parts: list[dict[str, Any]]) -> None:
        self.rows: list[Row] = [m for part in parts for m in part["results"]]
        self.by_key = {(m["engine"], m["parser"], m["family"], m["dialect"], m["size"]): m for m in self.rows}
        self.ours = {part["engine"]: _ours_name(part) for part in parts}
        self.roles = {
            (part["engine"], m["parser"]): role_of(part, m["parser"]) for part in parts for m in part["results"]
        }
        self.floor: dict[str, str] = {}
        for (engine, parser), role in self.roles.items():
            if role == "floor":
                self.floor.setdefault(engine, parser)

    def role(self, m: Row) -> str:
        return self.roles.get((m["engine"], m["parser"]), "no-op")

    def floor_ratio(self, m: Row) -> float | None:
        """The parser's time over the engine floor's on the same workload (1: as cheap as a parser can be)."""
        name = self.floor.get(m["engine"])
        floor = name and self.get(m["engine"], name, m["family"], m["dialect"], m["size"])
        t = seconds(m)
        if not floor or not floor["total_s"] or t is None:
            return None
        return t / floor["total_s"]

    def get(self, engine: str, parser: str, family: str, dialect: str, size: int) -> Row | None:
        return self.by_key.get((engine, parser, family, dialect, size))

    def ratio(self, m: Row, lower: bool = False) -> float | None:
        """The built-in's time over ours on the same workload (>1: ours is faster); ``lower``: from the time a
        stopped run had already taken (a measured lower bound)."""
        ours = self.get(m["engine"], self.ours[m["engine"]], m["family"], m["dialect"], m["size"])
        t, t_ours = (m.get("min_s") if lower else seconds(m)), ours and ours["total_s"]
        if t is None or not t_ours:
            return None
        return t / t_ours

    def exponent(self, m: Row) -> float | None:
        """Scaling exponent against the next smaller size of the same series (1: linear, 2: quadratic)."""
        if m["family"] not in ("huge", "many"):
            return None
        smaller = [
            r
            for r in self.rows
            if (r["engine"], r["parser"], r["family"], r["dialect"])
            == (m["engine"], m["parser"], m["family"], m["dialect"])
            and r["size"] < m["size"]
        ]
        if not smaller:
            return None
        prev = max(smaller, key=lambda r: r["size"])
        t0, t1 = seconds(prev), seconds(m)
        if not t0 or not t1:
            return None
        return math.log(t1 / t0) / math.log(m["size"] / prev["size"])


def _ours_name(part: dict[str, Any]) -> str:
    names = [m["parser"] for m in part["results"] if m["parser"].startswith("ours")]
    return names[0] if names else "ours"


def timing_table(index: Index, engine: str) -> list[str]:
    lines = [
        "| workload | size | dialect | parser | deltas | total (ms) | per delta (us) | x slower than ours |"
        " x the engine floor | exponent | correct |",
        "|---|---|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    rows = [m for m in index.rows if m["engine"] == engine and m["family"] != "memory"]
    order = {"huge": 0, "many": 1, "agent": 2}
    roles = {"ours": 0, "floor": 1, "no-op": 2, "builtin": 3}
    rows.sort(key=lambda m: (order[m["family"]], m["size"], m["dialect"], roles.get(index.role(m), 4), m["parser"]))
    for m in rows:
        ratio = index.ratio(m)
        is_ours = m["parser"] == index.ours[engine]
        ratio_text = "1" if is_ours else ("" if ratio is None else f"{ratio:,.1f}")
        if ratio is not None and not is_ours and m["status"] != "ok":
            ratio_text = f"~{ratio_text}"
            if (low := index.ratio(m, lower=True)) is not None:
                ratio_text = f"> {low:,.0f}, {ratio_text}"
        exp = index.exponent(m)
        correct = m["correct"] or (m["note"] if m["status"] != "ok" else "")
        floor = index.floor_ratio(m)
        floor_text = "" if floor is None else f"{floor:,.2f}" if floor < 10 else f"{floor:,.0f}"
        if floor is not None and m["status"] != "ok":
            floor_text = f"~{floor_text}"
        lines.append(
            f"| {FAMILY_TITLES[m['family']]} | {_size_label(m)} | {DIALECT_TITLES[m['dialect']]} | {m['parser']} |"
            f" {m['deltas']:,} | {_fmt_time(m)} | {_per_delta(m)} | {ratio_text} | {floor_text} |"
            f" {'' if exp is None else f'{exp:.2f}'} | {correct} |"
        )
    return lines


def memory_table(index: Index) -> list[str]:
    mem = [m for m in index.rows if m["family"] == "memory"]
    sizes = sorted({m["size"] for m in mem})
    head = " | ".join(f"peak at {s // 1024}k (KiB)" for s in sizes)
    lines = [f"| engine | dialect | parser | {head} |", "|---|---|---|" + "---:|" * len(sizes)]
    keys = sorted(
        {(m["engine"], m["dialect"], m["parser"]) for m in mem},
        key=lambda k: (k[0], k[1], not k[2].startswith("ours"), k[2]),
    )
    for engine, dialect, parser in keys:
        cells = []
        for s in sizes:
            m = index.get(engine, parser, "memory", dialect, s)
            cells.append("" if m is None or m["peak_kib"] is None else f"{m['peak_kib']:,.0f}")
        lines.append(f"| {engine} | {DIALECT_TITLES[dialect]} | {parser} | {' | '.join(cells)} |")
    return lines


def targets(index: Index) -> list[str]:
    out = ["| target | measured | reached |", "|---|---|---|"]

    def ratio_target(label: str, engine: str, builtin: str, family: str, dialect: str, size: int, goal: float) -> None:
        m = index.get(engine, builtin, family, dialect, size)
        r = m and index.ratio(m)
        if not r:
            out.append(f"| {label} | not measured | ? |")
            return
        low = index.ratio(m, lower=True)
        if m["status"] == "ok":
            out.append(f"| {label} | {r:,.0f}x | {'yes' if r >= goal else 'NO'} |")
        elif low is not None:
            verdict = "yes" if low >= goal else ("yes (extrapolated)" if r >= goal else "NO")
            out.append(
                f"| {label} | more than {low:,.0f}x (built-in stopped after {m['min_s']:.0f} s;"
                f" extrapolated ~{r:,.0f}x) | {verdict} |"
            )
        else:
            verdict = "yes (extrapolated)" if r >= goal else "NO (extrapolated)"
            out.append(f"| {label} | ~{r:,.0f}x (built-in not run: time extrapolated) | {verdict} |")

    ratio_target(
        "vLLM, LongCat JSON 256k: >= 50x faster than built-in `longcat`",
        "vllm",
        "longcat (built-in)",
        "huge",
        "longcat_json",
        262144,
        50,
    )
    ratio_target(
        "vLLM, XML 2000 params: >= 100x faster than `qwen3_coder`",
        "vllm",
        "qwen3_coder (built-in)",
        "many",
        "xml",
        2000,
        100,
    )
    ratio_target(
        "SGLang, JSON 64k: >= 100x faster than `qwen25`",
        "sglang",
        "qwen25 (built-in)",
        "huge",
        "hermes_json",
        65536,
        100,
    )

    slower = [
        m
        for m in index.rows
        if m["engine"] in ("vllm", "sglang")
        and m["family"] != "memory"
        and index.role(m) == "builtin"
        and (r := index.ratio(m)) is not None
        and r < 1.0
    ]
    if slower:
        cases = "; ".join(
            f"{m['engine']} {m['parser']} {FAMILY_TITLES[m['family']]} {_size_label(m)}: ours {1 / index.ratio(m):.2f}x"
            f" its time"
            for m in slower
        )
        out.append(f"| never slower than any built-in on any workload | slower in {len(slower)}: {cases} | NO |")
    else:
        out.append("| never slower than any built-in on any workload | no workload where ours is slower | yes |")

    worst_us, where = 0.0, ""
    for dialect in DIALECT_TITLES:
        core = index.get("core", "ours (core)", "huge", dialect, 262144)
        if core and core["total_s"]:
            worst_us = max(worst_us, core["total_s"] / core["deltas"] * 1e6)
            where = "256k argument"
    if where:
        out.append(
            f"| core: <= 2 us per ~4-char delta inside a long argument | worst {worst_us:.2f} us ({where}) |"
            f" {'yes' if worst_us <= 2 else 'NO'} |"
        )
    for engine, goal, label in (
        ("vllm", 1.5, "vLLM: ours <= 1.5x the engine floor on every workload"),
        ("sglang", 1.5, "SGLang: ours <= 1.5x the engine floor on every workload"),
        ("core", 10.0, "core: ours within 10x of its floor on every workload"),
    ):
        out += floor_target(index, engine, goal, label)
    # Over the widest range that is not dominated by fixed costs: 16k -> 256k characters, 500 -> 2000 parameters
    # (the per-row column gives each 4x step; on a shared machine a single step can be off by +-0.3).
    spans = {"huge": (16384, 262144), "many": (500, 2000)}
    exps: list[tuple[float, str]] = []
    steps: list[float] = []
    for m in index.rows:
        if not m["parser"].startswith("ours") or m["family"] not in spans or m["size"] != spans[m["family"]][1]:
            continue
        first = index.get(m["engine"], m["parser"], m["family"], m["dialect"], spans[m["family"]][0])
        if first and first["total_s"] and m["total_s"]:
            e = math.log(m["total_s"] / first["total_s"]) / math.log(m["size"] / first["size"])
            where = f"{m['engine']} {DIALECT_TITLES[m['dialect']]} {FAMILY_TITLES[m['family']]}"
            exps.append((e, where))
    for m in index.rows:
        if m["parser"].startswith("ours") and m["family"] in spans and m["size"] > spans[m["family"]][0]:
            e = index.exponent(m)
            if e is not None and m["size"] >= spans[m["family"]][0] * 4:
                steps.append(e)
    if exps:
        lo, hi = min(exps), max(exps)
        ok = all(0.9 <= e <= 1.1 for e, _ in exps)
        step_text = f"; single 4x steps {min(steps):.2f} to {max(steps):.2f}" if steps else ""
        out.append(
            f"| scaling exponent of ours 0.9-1.1 (16k->256k chars, 500->2000 params) | {lo[0]:.2f} ({lo[1]})"
            f" to {hi[0]:.2f} ({hi[1]}){step_text} | {'yes' if ok else 'NO'} |"
        )
    return out


def floor_target(index: Index, engine: str, goal: float, label: str) -> list[str]:
    """The worst ratio of ours to the engine floor over every workload measured, where, and the median."""
    if engine not in index.floor or engine not in index.ours:
        return []
    measured = [
        (r, m)
        for m in index.rows
        if m["engine"] == engine
        and m["parser"] == index.ours[engine]
        and m["family"] != "memory"
        and m["status"] == "ok"
        and (r := index.floor_ratio(m)) is not None
    ]
    if not measured:
        return [f"| {label} | not measured | ? |"]
    measured.sort(key=lambda rm: rm[0])
    worst, m = measured[-1]
    median = measured[len(measured) // 2][0]
    over = sum(1 for r, _ in measured if r > goal)
    where = f"{DIALECT_TITLES[m['dialect']]} {FAMILY_TITLES[m['family']]} {_size_label(m)}"
    return [
        f"| {label} | worst {worst:.2f}x ({where}); median {median:.2f}x; over {goal:g}x on {over} of"
        f" {len(measured)} workloads | {'yes' if worst <= goal else 'NO'} |"
    ]


def _us(value: float | None) -> str:
    if value is None:
        return ""
    return f"{value / 1e3:,.2f} ms" if value >= 1000 else f"{value:,.0f} us"


def per_request_table(payload: dict[str, Any]) -> list[str]:
    lines = [
        f"Tool list: {payload['tools']} tools, {payload['tools_json_chars']:,} characters of JSON. The engine's own"
        f" validation of such a request (its models of the tools, paid by every parser):"
        f" {_us(payload['request_validation_us'])}.",
        "",
        "| parser | dialect | start-up, no tools | construct, new tool list | construct, same list again |"
        " first delta, new list | first delta, same list | slowest delta, new list | whole call, new list |"
        " whole call, same list | deltas | correct |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    order = {"ours": 0, "floor": 1, "no-op": 2, "builtin": 3}
    for r in sorted(payload["rows"], key=lambda r: order.get(r["role"], 4)):
        lines.append(
            f"| {r['parser']} | {DIALECT_TITLES[r['dialect']]} | {_us(r.get('startup_us')) or 'n/a'} |"
            f" {_us(r['construct_new_us'])} | {_us(r['construct_same_us'])} | {_us(r['first_delta_new_us'])} |"
            f" {_us(r['first_delta_same_us'])} | {_us(r['slowest_delta_new_us'])} | {_us(r['stream_new_us'])} |"
            f" {_us(r['stream_same_us'])} | {r['deltas']} | {r['correct']} |"
        )
    return lines


def per_request_section(payloads: list[dict[str, Any]]) -> list[str]:
    if not payloads:
        return []
    lines = [
        "## Per-request cost with a large tool list",
        "",
        "`benchmarks/per_request.py`: the parser built for one request as the engine builds it (vLLM: the class"
        " from `ParserManager.get_parser`, `cls(tokenizer, request.tools, chat_template_kwargs={})`, and"
        " `cls(tokenizer)` once at start-up; SGLang: `FunctionCallParser(tools, name, tokenizer=...)`), then one"
        " short call to the last of the tools (nested objects, an array of objects, a string with quotes and `<`)"
        " streamed through the engine's entry point. Tool parsers alone (no reasoning parser). *New tool list*:"
        " each repeat changes the tools' descriptions; *same list*: the same tools again in a fresh request."
        " CPU time of the thread, median of the repeats; lazy preparation shows in the first or slowest delta.",
        "",
    ]
    for payload in payloads:
        lines += [f"### {ENGINE_TITLES[payload['engine']].split(',')[0]}", "", *per_request_table(payload), ""]
    return lines


def server_share(payload: dict[str, Any]) -> float:
    profile = payload["profiled"]["profile"]
    return float(profile["ours_inclusive_s"] / profile["profiled_cpu_s"])


def server_target(payloads: list[dict[str, Any]]) -> list[str]:
    out = []
    for payload in payloads:
        shares = [server_share(payload)]
        text = f"{shares[0]:.1%} under cProfile"
        if "py_spy" in payload:
            shares.append(payload["py_spy"]["share"])
            text += f", {shares[1]:.1%} of py-spy's samples"
        out.append(
            f"| server: our parser and adapter <= 5% of the replay server's CPU | {text} ({payload['streams']}"
            f" streams, {payload['chars']:,} characters each) | {'yes' if max(shares) <= 0.05 else 'NO'} |"
        )
    return out


def server_section(payloads: list[dict[str, Any]]) -> list[str]:
    if not payloads:
        return []
    lines = [
        "## Server level: our share of the replay server's CPU",
        "",
        "`benchmarks/server_share.py`: `longcat-plugins serve --replay` (vLLM's API server with our `longcat` tool"
        " and reasoning parsers, over the replay engine) with one recorded turn, a line of text and a call writing"
        " a file; N concurrent streaming chat requests (httpx), all checked (the call's arguments arrive whole)."
        " Run once unprofiled (wall time, tokens per second, the server process's CPU seconds over the window) and"
        " once under cProfile with a CPU-time timer in the server's main thread, where the API server, the"
        " detokenizer, our parsers and the replay engine all run. *Our share*: the inclusive time of the calls into"
        " `longcat_plugins.core` and `longcat_plugins.vllm` (the pydantic objects our adapter builds included) over"
        " the profiled CPU; *our own time* excludes what our code calls. cProfile slows every Python call alike, so"
        " the share is a ratio within the profiled run; it favours code that makes many small calls. When py-spy"
        " is installed (`scripts/env_tools.sh`) a third run is sampled by it (100 Hz, all threads, idle excluded):"
        " the share of the samples with one of our frames on the stack, without that bias.",
        "",
    ]
    for payload in payloads:
        plain, prof = payload.get("plain"), payload["profiled"]
        profile = prof["profile"]
        total = profile["profiled_cpu_s"]
        lines += [
            "| streams | chars per call | run | wall (s) | completion tokens | tokens/s | server CPU (s) |"
            " main thread CPU (s) | correct streams |",
            "|---:|---:|---|---:|---:|---:|---:|---:|---:|",
        ]
        for name, run in (("unprofiled", plain), ("cProfile", prof)):
            if run is None:
                continue
            lines.append(
                f"| {payload['streams']} | {payload['chars']:,} | {name} | {run['wall_s']:.2f} | {run['tokens']:,} |"
                f" {run['tokens_per_s']:,.0f} | {run['process_cpu_s']:.2f} | {run['main_thread_cpu_s']:.2f} |"
                f" {run['streams_ok']}/{payload['streams']} |"
            )
        spy = payload.get("py_spy")
        if spy:
            lines.append(
                f"| {payload['streams']} | {payload['chars']:,} | py-spy | {spy['wall_s']:.2f} | {spy['tokens']:,} |"
                f" {spy['tokens'] / spy['wall_s']:,.0f} | | | {spy['streams_ok']}/{payload['streams']} |"
            )
        lines += [
            "",
            f"Our share of the profiled CPU: **{server_share(payload):.1%}** inclusive"
            f" ({profile['ours_inclusive_s']:.2f} of {total:.2f} s), {profile['ours_own_s'] / total:.1%} own time.",
        ]
        if spy:
            leaves = "; ".join(f"`{leaf}` {n / spy['samples']:.1%}" for leaf, n in spy["top_leaves"][:6])
            lines.append(
                f"py-spy (100 Hz): **{spy['share']:.1%}** of {spy['samples']:,} samples have our code on the stack."
                f" Innermost frames with the most samples: {leaves}."
            )
        lines += [
            "",
            "| entry point into our code | inclusive (s) | share |",
            "|---|---:|---:|",
            *(f"| `{name}` | {t:.3f} | {t / total:.1%} |" for name, t in list(profile["entries"].items())[:6]),
            "",
            "| package (own time) | s | share |",
            "|---|---:|---:|",
            *(f"| {name} | {t:.3f} | {t / total:.1%} |" for name, t in list(profile["packages"].items())[:12]),
            "",
            "| top functions by own time | calls | own (s) | share | cumulative (s) |",
            "|---|---:|---:|---:|---:|",
            *(
                f"| `{t['function']}`{' (ours)' if t['ours'] else ''} | {t['calls']:,} | {t['own_s']:.3f} |"
                f" {t['own_s'] / total:.1%} | {t['cumulative_s']:.3f} |"
                for t in profile["top"][:15]
            ),
            "",
        ]
    return lines


def write_markdown(
    parts: list[dict[str, Any]],
    index: Index,
    path: Path,
    plot: Path | None,
    extras: list[dict[str, Any]] | None = None,
) -> None:
    extras = extras or []
    meta = {p["engine"]: p["meta"] for p in parts}
    digests: dict[str, set[str]] = defaultdict(set)
    for p in parts:
        for key, digest in p["meta"].get("streams", {}).items():
            digests[key].add(digest)
    same = all(len(d) == 1 for d in digests.values())
    versions = ", ".join(f"{k} {v}" for p in parts for k, v in p["meta"].items() if k in ("vllm", "sglang"))
    lines = [
        "# Benchmark results",
        "",
        "Generated by `bash scripts/bench.sh` (method: docs/design.md, speed;"
        " code: `benchmarks/`). Do not edit by hand: `benchmarks/analysis.md` holds the commentary.",
        "",
        f"- Run: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} CPUs, Python"
        f" {next(iter(meta.values())).get('python', '?')}, {versions}.",
        "- Every parser of one engine is measured in one process on identical deltas (text and token ids of a"
        " byte-level BPE in which the tags are special tokens); huge arguments and parameter lists arrive in"
        " deltas of whole tokens of at least 3 characters (mean about 4.4), the agent turn in groups of 1, 4 and"
        " 64 tokens."
        + (
            " The token streams of all parts are identical (same digests)."
            if same
            else " WARNING: the token streams of the parts differ (digests)."
        ),
        "- Times are CPU times of the measuring thread (time waiting for a core on the shared machine is not"
        " counted), the best of up to 7 runs within 2.5 s (at least 3 for runs under 2 s), with the garbage"
        " collector on and each delta's output folded into a message at once, as a client does. A size predicted"
        " to take more than 30 s is not run: its time is extrapolated from the two smaller sizes with their"
        " scaling exponent (marked `~`). A run that passes 45 s (wall) is stopped (`> N (stopped)`: the CPU time it"
        " had taken, a measured lower bound, plus an extrapolation). The built-in of each target workload is"
        " always run, and stopped after 20 s (30 s for `qwen3_coder` at 2000 parameters, 75 s for `longcat` at"
        " 256k), so that every target is checked against a measurement or a measured lower bound.",
        "- *x slower than ours*: the parser's total time over ours on the same workload in the same engine."
        " *x the engine floor*: the parser's total time over the engine floor's on the same workload (each"
        " engine's parsers against that engine's floor). The floors are no-op parsers driven through the same"
        " entry point (`benchmarks/vllm_floors.py`, `benchmarks/sglang_floors.py`): in vLLM an engine-based tool"
        " parser returning `DeltaMessage(content=delta)` (and, for the agent turn, a reasoning parser that only"
        " finds the end token among the delta's ids), composed by `ParserManager.get_parser`; the same no-op on"
        " vLLM's legacy path is shown for its quadratic wall; in SGLang a detector returning each chunk as normal"
        " text (and a reasoning detector that only splits at the end tag). The core's floor is a method call and"
        " a look for '<' per delta; `floor + one event` also returns one event per delta, folded as ours' are."
        " Floors produce the raw text, so their *correct* is n/a."
        " *exponent*: log(time ratio) / log(size ratio) against the next smaller size (1 linear, 2 quadratic)."
        " *correct*: the streamed calls (name, arguments as JSON), content and reasoning against the expected"
        " message; `yes (ws)`: only whitespace around string values differs.",
        "",
        "## Targets",
        "",
        *targets(index),
        *server_target([e for e in extras if e.get("kind") == "server"]),
        "",
    ]
    if plot is not None:
        lines += ["## Scaling", "", f"![total time against size]({plot.name})", ""]
    for engine in ("vllm", "sglang", "core"):
        if engine in meta:
            lines += [f"## {ENGINE_TITLES[engine]}", "", *timing_table(index, engine), ""]
    lines += per_request_section([e for e in extras if e.get("kind") == "per_request"])
    lines += server_section([e for e in extras if e.get("kind") == "server"])
    lines += [
        "## Peak memory (tracemalloc) on the huge-argument workload",
        "",
        "Traced only where the untraced run took at most 4 s (tracing is 3-5x slower).",
        "",
        *memory_table(index),
        "",
    ]
    analysis = HERE / "analysis.md"
    if analysis.exists():
        lines += [analysis.read_text(encoding="utf-8").rstrip(), ""]
    path.write_text("\n".join(lines), encoding="utf-8")


def plot(index: Index, path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    engines = [e for e in ("vllm", "sglang", "core") if e in index.ours]
    fig, axes = plt.subplots(2, len(engines), figsize=(5.2 * len(engines), 8.5), squeeze=False)
    styles = {"longcat_json": "o", "hermes_json": "s", "xml": "^"}
    for col, engine in enumerate(engines):
        for row, family in enumerate(("huge", "many")):
            ax = axes[row][col]
            series: dict[tuple[str, str], list[Row]] = defaultdict(list)
            for m in index.rows:
                if m["engine"] == engine and m["family"] == family and seconds(m):
                    series[(m["parser"], m["dialect"])].append(m)
            parsers = sorted({p for p, _ in series}, key=lambda p: (not p.startswith("ours"), p))
            builtins = [p for p in parsers if index.roles.get((engine, p)) in ("ours", "builtin")]
            colors = {p: f"C{i}" for i, p in enumerate(builtins)}
            for (parser, dialect), ms in sorted(series.items()):
                ms.sort(key=lambda m: m["size"])
                xs = [m["size"] for m in ms]
                ys = [seconds(m) for m in ms]
                label = f"{parser}, {DIALECT_TITLES[dialect]}"
                role = index.roles.get((engine, parser))
                if role == "floor":
                    style: dict[str, Any] = {"color": "black", "linestyle": ":", "linewidth": 1.6, "alpha": 0.8}
                elif role == "no-op":
                    style = {"color": "0.55", "linestyle": "-.", "linewidth": 1.2}
                else:
                    style = {"color": colors[parser], "linestyle": "-" if role == "ours" else "--"}
                ax.plot(xs, ys, marker=styles[dialect], label=label, markersize=4, **style)
                est = [m for m in ms if m["status"] != "ok"]
                if est:
                    ex, ey = [m["size"] for m in est], [seconds(m) for m in est]
                    ax.scatter(ex, ey, s=90, facecolors="none", edgecolors="red", zorder=5)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.grid(True, which="both", alpha=0.3)
            ax.set_title(f"{engine}: {FAMILY_TITLES[family]}", fontsize=10)
            ax.set_xlabel("argument size (characters)" if family == "huge" else "number of parameters")
            ax.set_ylabel("total time (s)")
            ax.legend(fontsize=6.5, loc="upper left")
    title = (
        "Total streaming time against size (log-log; black dotted: the engine floor, grey dash-dot: other no-ops;"
        " red circles: extrapolated)"
    )
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("parts", nargs="*", type=Path, default=DEFAULT_PARTS)
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    ap.add_argument("--plot", type=Path, default=HERE / "scaling.png")
    args = ap.parse_args()
    loaded = load(args.parts)
    parts = [p for p in loaded if "kind" not in p]
    extras = [p for p in loaded if "kind" in p]
    if not parts:
        raise SystemExit(f"no results in {[str(p) for p in args.parts]}: run the parts first (scripts/bench.sh)")
    index = Index(parts)
    drew = plot(index, args.plot)
    write_markdown(parts, index, args.out, args.plot if drew else None, extras)
    print(f"[bench] wrote {args.out}" + (f" and {args.plot}" if drew else " (no matplotlib: no plot)"))


if __name__ == "__main__":
    main()
