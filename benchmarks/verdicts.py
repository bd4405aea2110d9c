"""The measurements checked against the targets (benchmarks/targets.py): one verdict per target, with what was
measured in words."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import targets
from .measure import exponent
from .results import DIALECT_TITLES, FAMILY_TITLES, Index, profiled_share, size_label, workload


@dataclass(frozen=True)
class Verdict:
    target: str
    measured: str
    #: "yes", "NO", "yes (extrapolated)", "NO (extrapolated)", or "?" (not measured)
    reached: str


def _yes(ok: bool) -> str:
    return "yes" if ok else "NO"


def _not_measured(target: str) -> Verdict:
    return Verdict(target, "not measured", "?")


def speedup(index: Index, t: targets.Speedup) -> Verdict:
    m = index.get(t.engine, t.builtin, t.family, t.dialect, t.size)
    r = m and index.ratio(m)
    if not m or not r:
        return _not_measured(t.label)
    low = index.ratio(m, lower=True)
    if m["status"] == "ok":
        return Verdict(t.label, f"{r:,.0f}x", _yes(r >= t.goal))
    if low is not None:
        reached = "yes" if low >= t.goal else ("yes (extrapolated)" if r >= t.goal else "NO")
        measured = f"more than {low:,.0f}x (built-in stopped after {m['min_s']:.0f} s; extrapolated ~{r:,.0f}x)"
        return Verdict(t.label, measured, reached)
    reached = "yes (extrapolated)" if r >= t.goal else "NO (extrapolated)"
    return Verdict(t.label, f"~{r:,.0f}x (built-in not run: time extrapolated)", reached)


def never_slower(index: Index, t: targets.NeverSlower) -> Verdict:
    slower = [
        (m, r)
        for m in index.rows
        if m["engine"] in t.engines
        and m["family"] != "memory"
        and index.role(m) == "builtin"
        and (r := index.ratio(m)) is not None
        and r < 1.0
    ]
    if not slower:
        return Verdict(t.label, "no workload where ours is slower", "yes")
    cases = "; ".join(
        f"{m['engine']} {m['parser']} {FAMILY_TITLES[m['family']]} {size_label(m)}: ours {1 / r:.2f}x its time"
        for m, r in slower
    )
    return Verdict(t.label, f"slower in {len(slower)}: {cases}", "NO")


def per_delta(index: Index, t: targets.PerDelta) -> list[Verdict]:
    per_delta_us = [
        m["total_s"] / m["deltas"] * 1e6
        for dialect in DIALECT_TITLES
        if (m := index.get("core", t.parser, "huge", dialect, t.size)) and m["total_s"]
    ]
    if not per_delta_us:
        return []
    worst = max(per_delta_us)
    return [Verdict(t.label, f"worst {worst:.2f} us ({t.size // 1024}k argument)", _yes(worst <= t.most_us))]


def floor_ratio(index: Index, t: targets.FloorRatio) -> list[Verdict]:
    """The worst ratio of ours to the engine floor over every workload measured, where, and the median."""
    if t.engine not in index.floor or t.engine not in index.ours:
        return []
    measured = sorted(
        (
            (r, m)
            for m in index.timed(t.engine)
            if m["parser"] == index.ours[t.engine] and m["status"] == "ok" and (r := index.floor_ratio(m)) is not None
        ),
        key=lambda rm: rm[0],
    )
    if not measured:
        return [_not_measured(t.label)]
    worst, m = measured[-1]
    median = measured[len(measured) // 2][0]
    over = sum(1 for r, _ in measured if r > t.goal)
    text = (
        f"worst {worst:.2f}x ({workload(m)}); median {median:.2f}x; over {t.goal:g}x on {over} of"
        f" {len(measured)} workloads"
    )
    return [Verdict(t.label, text, _yes(worst <= t.goal))]


def scaling(index: Index, t: targets.Scaling) -> list[Verdict]:
    """The exponent of ours over each span, and for reference the range of its single 4x steps within it."""
    spans: list[tuple[float, str]] = []
    steps: list[float] = []
    for m in index.rows:
        if not m["parser"].startswith("ours") or m["family"] not in t.spans:
            continue
        first_size, last_size = t.spans[m["family"]]
        if m["size"] == last_size:
            first = index.get(m["engine"], m["parser"], m["family"], m["dialect"], first_size)
            if first and first["total_s"] and m["total_s"]:
                where = f"{m['engine']} {DIALECT_TITLES[m['dialect']]} {FAMILY_TITLES[m['family']]}"
                spans.append((exponent(first["size"], first["total_s"], m["size"], m["total_s"]), where))
        if m["size"] >= first_size * 4 and (e := index.exponent(m)) is not None:
            steps.append(e)
    if not spans:
        return []
    lo, hi = min(spans), max(spans)
    step_text = f"; single 4x steps {min(steps):.2f} to {max(steps):.2f}" if steps else ""
    measured = f"{lo[0]:.2f} ({lo[1]}) to {hi[0]:.2f} ({hi[1]}){step_text}"
    return [Verdict(t.label, measured, _yes(all(t.low <= e <= t.high for e, _ in spans)))]


def server_share(server: dict[str, Any], t: targets.ServerShare) -> Verdict:
    shares = [profiled_share(server)]
    text = f"{shares[0]:.1%} under cProfile"
    if "py_spy" in server:
        shares.append(server["py_spy"]["share"])
        text += f", {shares[1]:.1%} of py-spy's samples"
    measured = f"{text} ({server['streams']} streams, {server['chars']:,} characters each)"
    return Verdict(t.label, measured, _yes(max(shares) <= t.most))


def all_verdicts(index: Index, servers: list[dict[str, Any]]) -> list[Verdict]:
    """Every target's verdict, in the order of benchmarks/targets.py (a target nothing measured is left out,
    except a speed-up: its workload is the point of a run)."""
    out = [speedup(index, t) for t in targets.SPEEDUPS]
    out.append(never_slower(index, targets.NEVER_SLOWER))
    out += per_delta(index, targets.CORE_PER_DELTA)
    for t in targets.FLOOR_RATIOS:
        out += floor_ratio(index, t)
    out += scaling(index, targets.SCALING)
    out += [server_share(s, targets.SERVER_SHARE) for s in servers]
    return out
