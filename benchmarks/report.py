"""Render the parts' JSON files as ``benchmarks/RESULTS.md`` and the plot ``benchmarks/scaling.png``.

    python -m benchmarks.report [build/bench/core.json build/bench/vllm.json build/bench/sglang.json]

The targets' verdicts come from benchmarks/verdicts.py; this module only renders. The plot needs matplotlib
(scripts/bench.sh installs it into the environment that runs this); without it only the Markdown is written.
``benchmarks/analysis.md`` (hand-written: profiles, where the time goes) is appended if present.
"""

from __future__ import annotations

import argparse
import os
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from .parsers import ROLE_ORDER
from .paths import HERE, OUT
from .results import DIALECT_TITLES, FAMILY_TITLES, Index, Row, load, profiled_share, seconds, size_label
from .scaling_plot import plot
from .targets import SPEEDUPS
from .verdicts import all_verdicts

__all__ = ["Index", "plot", "targets", "timing_table", "write_markdown"]

DEFAULT_PARTS = [
    OUT / f"{name}.json" for name in ("vllm", "sglang", "core", "vllm_request", "sglang_request", "server", "serving")
]

ENGINE_TITLES = {
    "vllm": "vLLM, through `Parser.parse_delta`",
    "sglang": "SGLang, through `FunctionCallParser.parse_stream_chunk`",
    "core": "The core alone, and its floors",
}

PER_REQUEST_INTRO = (
    "`benchmarks/per_request.py`: the parser built for one request as the engine builds it (vLLM: the class"
    " from `ParserManager.get_parser`, `cls(tokenizer, request.tools, chat_template_kwargs={})`, and"
    " `cls(tokenizer)` once at start-up; SGLang: `FunctionCallParser(tools, name, tokenizer=...)`), then one"
    " short call to the last of the tools (nested objects, an array of objects, a string with quotes and `<`)"
    " streamed through the engine's entry point. Tool parsers alone (no reasoning parser). *New tool list*:"
    " each repeat changes the tools' descriptions; *same list*: the same tools again in a fresh request."
    " CPU time of the thread, median of the repeats; lazy preparation shows in the first or slowest delta."
)
SERVER_INTRO = (
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
    " the share of the samples with one of our frames on the stack, without that bias."
)


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


def timing_table(index: Index, engine: str) -> list[str]:
    lines = [
        "| workload | size | dialect | parser | deltas | total (ms) | per delta (us) | x slower than ours |"
        " x the engine floor | exponent | correct |",
        "|---|---|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    rows = index.timed(engine)
    order = {"huge": 0, "many": 1, "agent": 2}
    rows.sort(
        key=lambda m: (order[m["family"]], m["size"], m["dialect"], ROLE_ORDER.get(index.role(m), 4), m["parser"])
    )
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
            f"| {FAMILY_TITLES[m['family']]} | {size_label(m)} | {DIALECT_TITLES[m['dialect']]} | {m['parser']} |"
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


def targets(index: Index, servers: list[dict[str, Any]] | None = None) -> list[str]:
    """The targets' table: one row per verdict (``servers``: the server part's payloads)."""
    rows = [f"| {v.target} | {v.measured} | {v.reached} |" for v in all_verdicts(index, servers or [])]
    return ["| target | measured | reached |", "|---|---|---|", *rows]


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
    for r in sorted(payload["rows"], key=lambda r: ROLE_ORDER.get(r["role"], 4)):
        lines.append(
            f"| {r['parser']} | {DIALECT_TITLES[r['dialect']]} | {_us(r.get('startup_us')) or 'n/a'} |"
            f" {_us(r['construct_new_us'])} | {_us(r['construct_same_us'])} | {_us(r['first_delta_new_us'])} |"
            f" {_us(r['first_delta_same_us'])} | {_us(r['slowest_delta_new_us'])} | {_us(r['stream_new_us'])} |"
            f" {_us(r['stream_same_us'])} | {r['deltas']} | {r['correct']} |"
        )
    return lines


def per_request_section(payloads: list[dict[str, Any]]) -> list[str]:
    body = [
        line
        for payload in payloads
        for line in (f"### {ENGINE_TITLES[payload['engine']].split(',')[0]}", "", *per_request_table(payload), "")
    ]
    return _section("Per-request cost with a large tool list", PER_REQUEST_INTRO, body)


SERVING_INTRO = (
    "`benchmarks/serving_cost.py`: vLLM's own engine (its CPU build) serving a tiny Qwen3 with random weights, the"
    " same server up to four times, differing only in its parsers: ours (`longcat` tool and reasoning parsers), vLLM's"
    " (`hermes` + `qwen3`), the floor (a no-op tool and reasoning parser pair, `benchmarks/vllm_floors.py`, loaded"
    " with vLLM's own `--tool-parser-plugin` and `--reasoning-parser-plugin`: what any parser pair costs) and none."
    " The same seed and requests, greedy, N concurrent streams per round. *content*:"
    ' `tool_choice="auto"` with two tools (no grammar, so the tokens do not depend on the parser; the server with no'
    ' parser is asked with `"none"`), `ignore_eos`; *calls*: `tool_choice="required"`, each configuration\'s grammar'
    " forcing calls. *API-server CPU*: user + system seconds of the API-server process (vLLM's serving code, the"
    " detokenized text and the parsers; the engine core is another process) per 1,000 output tokens; *tokens/s*:"
    " output tokens over the round's wall time. Medians of the rounds; *ours over*: the median and range of the"
    " per-round ratios (the rounds of the configurations alternate)."
)


def serving_section(payloads: list[dict[str, Any]]) -> list[str]:
    body: list[str] = []
    for payload in payloads:
        body += [
            f"Run {payload['run']}, {payload['vllm']}, {payload['cpus']} CPUs: {payload['streams']} streams of"
            f" {payload['tokens_per_stream']} tokens, {payload['rounds']} rounds per configuration.",
            "",
        ]
        for workload, result in payload["workloads"].items():
            body += [
                f"**{workload}**",
                "",
                "| parsers | API-server CPU (s) per 1k tokens | ours over it | tokens/s | engine-core CPU (s) per 1k"
                " tokens | served per round (content / reasoning characters, tool-call deltas) |",
                "|---|---:|---|---:|---:|---|",
            ]
            for name, config in result["configurations"].items():
                first = config["rounds"][0]
                served = first.get("served", {})
                engine = sorted(r["engine_cpu_s"] / r["completion_tokens"] * 1000 for r in config["rounds"])
                ratio = result["ratios"].get(name)
                over = (
                    f"{ratio['cpu_ratio']:.2f}x ({ratio['cpu_ratio_min']:.2f}-{ratio['cpu_ratio_max']:.2f})"
                    if ratio
                    else ""
                )
                body.append(
                    f"| {name}: `{config['parsers']}` | {config['api_cpu_s_per_1k_tokens']:.3f} | {over} |"
                    f" {config['tokens_per_s']:,.0f} | {engine[len(engine) // 2]:.3f} |"
                    f" {served.get('content_chars', 0):,} / {served.get('reasoning_chars', 0):,},"
                    f" {served.get('tool_call_deltas', 0)} |"
                )
            body.append("")
    return _section("Real engine: the parsers' cost in vLLM's token loop", SERVING_INTRO, body)


def server_section(payloads: list[dict[str, Any]]) -> list[str]:
    body = [line for payload in payloads for line in server_tables(payload)]
    return _section("Server level: our share of the replay server's CPU", SERVER_INTRO, body)


def server_tables(payload: dict[str, Any]) -> list[str]:
    plain, prof = payload.get("plain"), payload["profiled"]
    profile = prof["profile"]
    total = profile["profiled_cpu_s"]
    lines = [
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
        f"Our share of the profiled CPU: **{profiled_share(payload):.1%}** inclusive"
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


def _section(title: str, intro: str, body: list[str]) -> list[str]:
    """A section: its title, what it measures and how, then its tables (no tables: no section)."""
    return [f"## {title}", "", intro, "", *body] if body else []


def _stopped_after() -> str:
    """When the built-ins of the target workloads are stopped, in words: the shortest time, then the others."""
    first, *others = sorted(SPEEDUPS, key=lambda t: t.stop_after_s)
    where = {"huge": lambda t: f"{t.size // 1024}k", "many": lambda t: f"{t.size} parameters"}
    rest = ", ".join(
        f"{t.stop_after_s:.0f} s for `{t.builtin.removesuffix(' (built-in)')}` at {where[t.family](t)}" for t in others
    )
    return f"stopped after {first.stop_after_s:.0f} s" + (f" ({rest})" if rest else "")


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
        f" always run, and {_stopped_after()}, so that every target is checked against a measurement or a measured"
        " lower bound.",
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
        *targets(index, [e for e in extras if e.get("kind") == "server"]),
        "",
    ]
    if plot is not None:
        lines += ["## Scaling", "", f"![total time against size]({plot.name})", ""]
    for engine in ("vllm", "sglang", "core"):
        if engine in meta:
            lines += [f"## {ENGINE_TITLES[engine]}", "", *timing_table(index, engine), ""]
    lines += per_request_section([e for e in extras if e.get("kind") == "per_request"])
    lines += server_section([e for e in extras if e.get("kind") == "server"])
    lines += serving_section([e for e in extras if e.get("kind") == "serving"])
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
