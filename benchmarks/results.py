"""The parts' measurements (the JSON files benchmarks/part.py writes), indexed for comparison: each parser against
ours and against its engine's floor, and each size against the next smaller one."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .measure import exponent

FAMILY_TITLES = {"huge": "one huge string argument", "many": "many small parameters", "agent": "agent turn"}
DIALECT_TITLES = {"longcat_json": "LongCat JSON", "hermes_json": "Hermes JSON", "xml": "XML"}

Row = dict[str, Any]


def load(paths: Iterable[Path]) -> list[dict[str, Any]]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in paths if p.exists()]


def seconds(m: Row) -> float | None:
    """The measured time, else the extrapolated one."""
    return m["total_s"] if m["total_s"] is not None else m["estimate_s"]


def size_label(m: Row) -> str:
    if m["family"] in ("huge", "memory"):
        return f"{m['size'] // 1024}k chars"
    if m["family"] == "many":
        return f"{m['size']} params"
    return f"{m['size']}-token deltas"


def workload(m: Row) -> str:
    """``m``'s workload in words: dialect, family and size."""
    return f"{DIALECT_TITLES[m['dialect']]} {FAMILY_TITLES[m['family']]} {size_label(m)}"


def role_of(part: dict[str, Any], parser: str) -> str:
    """The parser's role (benchmarks/parsers.py): from the part's meta, else from the name."""
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

    def get(self, engine: str, parser: str, family: str, dialect: str, size: int) -> Row | None:
        return self.by_key.get((engine, parser, family, dialect, size))

    def timed(self, engine: str) -> list[Row]:
        """The engine's timing measurements (memory left out)."""
        return [m for m in self.rows if m["engine"] == engine and m["family"] != "memory"]

    def floor_ratio(self, m: Row) -> float | None:
        """The parser's time over the engine floor's on the same workload (1: as cheap as a parser can be)."""
        name = self.floor.get(m["engine"])
        floor = name and self.get(m["engine"], name, m["family"], m["dialect"], m["size"])
        t = seconds(m)
        if not floor or not floor["total_s"] or t is None:
            return None
        return t / floor["total_s"]

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
        return exponent(prev["size"], t0, m["size"], t1)


def _ours_name(part: dict[str, Any]) -> str:
    names = [m["parser"] for m in part["results"] if m["parser"].startswith("ours")]
    return names[0] if names else "ours"


def profiled_share(server: dict[str, Any]) -> float:
    """Our share of the replay server's CPU under cProfile (benchmarks/server_share.py's payload)."""
    profile = server["profiled"]["profile"]
    return float(profile["ours_inclusive_s"] / profile["profiled_cpu_s"])
