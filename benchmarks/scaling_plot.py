"""The scaling plot: total time against size, log-log, one panel per engine and family (needs matplotlib)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from .results import DIALECT_TITLES, FAMILY_TITLES, Index, Row, seconds


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
