"""``longcat-plugins`` in a process whose CPU use is measured in windows that another process opens and closes.

    python -m benchmarks.profiled_serve --windows DIR [--profile 2,4] -- serve --replay FILE --port 0

SIGUSR1 opens a window, SIGUSR2 closes it and writes ``DIR/window-N.json`` (N = 1, 2, ...): the process's CPU
seconds (all threads), the main thread's, wall seconds, and for a window listed in ``--profile`` the cProfile
analysis of the main thread (CPU-time timer; vLLM's API server, our parsers and the replay engine all run on its
event loop): the share of our code, the top functions and the packages. ``benchmarks/server_share.py`` drives it.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import resource
import signal
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

#: our parser and adapter: the code whose share is measured
OURS = (f"longcat_plugins{os.sep}core{os.sep}", f"longcat_plugins{os.sep}vllm{os.sep}")
TOP = 25

Func = tuple[str, int, str]


def is_ours(func: Func) -> bool:
    return any(part in func[0] for part in OURS)


def package_of(func: Func) -> str:
    """The top-level package (or ``builtins``, or ``longcat_plugins.<sub>``) a profiled function belongs to."""
    filename = func[0]
    if filename == "~" or filename.startswith("<"):
        return "builtins (C)"
    parts = Path(filename).parts
    for anchor in ("site-packages", "dist-packages"):
        if anchor in parts:
            rest = parts[parts.index(anchor) + 1 :]
            return rest[0].removesuffix(".py") if rest else filename
    if "longcat_plugins" in parts:
        rest = parts[parts.index("longcat_plugins") + 1 :]
        return "longcat_plugins." + (rest[0].removesuffix(".py") if rest else "")
    if "benchmarks" in parts:
        return "benchmarks"
    return "stdlib"


def analyse(stats: pstats.Stats) -> dict[str, Any]:
    """Our share of the profiled CPU: own time of our functions, and inclusive time of the calls into our code
    from outside it (what serving one stream through our parsers costs, pydantic objects they build included)."""
    raw: dict[Func, Any] = stats.stats  # type: ignore[attr-defined]
    total = sum(tt for (_, _, tt, _, _) in raw.values())
    own = sum(tt for func, (_, _, tt, _, _) in raw.items() if is_ours(func))
    inclusive = 0.0
    entries: dict[str, float] = defaultdict(float)
    for func, (_, _, _, ct, callers) in raw.items():
        if not is_ours(func):
            continue
        name = f"{Path(func[0]).name}:{func[1]}({func[2]})"
        if not callers:  # called from a frame that was running when profiling began
            inclusive += ct
            entries[name] += ct
        for caller, edge in callers.items():
            if not is_ours(caller):
                inclusive += edge[3]
                entries[name] += edge[3]
    packages: dict[str, float] = defaultdict(float)
    for func, (_, _, tt, _, _) in raw.items():
        packages[package_of(func)] += tt
    top = sorted(raw.items(), key=lambda kv: kv[1][2], reverse=True)[:TOP]
    return {
        "profiled_cpu_s": total,
        "ours_own_s": own,
        "ours_inclusive_s": inclusive,
        "entries": dict(sorted(entries.items(), key=lambda kv: -kv[1])),
        "packages": dict(sorted(packages.items(), key=lambda kv: -kv[1])),
        "top": [
            {
                "function": f"{_short(func[0])}:{func[1]}({func[2]})",
                "calls": nc,
                "own_s": tt,
                "cumulative_s": ct,
                "ours": is_ours(func),
            }
            for func, (_, nc, tt, ct, _) in top
        ],
    }


def _short(filename: str) -> str:
    parts = Path(filename).parts
    for anchor in ("site-packages", "longcat_plugins", "benchmarks"):
        if anchor in parts:
            i = parts.index(anchor)
            return "/".join(parts[i + (anchor == "site-packages") :])
    return filename


class Windows:
    def __init__(self, out: Path, profiled: set[int]) -> None:
        self.out = out
        self.profiled = profiled
        self.n = 0
        self.start: tuple[float, float, float] | None = None
        self.profiler: cProfile.Profile | None = None

    @staticmethod
    def _clock() -> tuple[float, float, float]:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime + usage.ru_stime, time.thread_time(), time.perf_counter()

    def open(self, *_: Any) -> None:
        if self.start is not None:
            return
        self.n += 1
        if self.n in self.profiled:
            self.profiler = cProfile.Profile(time.thread_time_ns, 1e-9)
            self.profiler.enable()
        self.start = self._clock()

    def close(self, *_: Any) -> None:
        if self.start is None:
            return
        end = self._clock()
        profiler, self.profiler = self.profiler, None
        if profiler is not None:
            profiler.disable()
        process, thread, wall = (b - a for a, b in zip(self.start, end, strict=True))
        self.start = None
        result: dict[str, Any] = {"window": self.n, "process_cpu_s": process, "main_thread_cpu_s": thread}
        result["wall_s"] = wall
        if profiler is not None:
            stats = pstats.Stats(profiler)
            stats.dump_stats(str(self.out / f"window-{self.n}.prof"))
            result["profile"] = analyse(stats)
        tmp = self.out / f"window-{self.n}.json.tmp"
        tmp.write_text(json.dumps(result, indent=1), encoding="utf-8")
        tmp.replace(self.out / f"window-{self.n}.json")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--windows", type=Path, required=True, help="directory for window-N.json")
    ap.add_argument("--profile", default="", help="comma-separated window numbers to profile")
    ap.add_argument("command", nargs=argparse.REMAINDER, help="-- and the longcat-plugins command line")
    args = ap.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    args.windows.mkdir(parents=True, exist_ok=True)
    windows = Windows(args.windows, {int(n) for n in args.profile.split(",") if n})
    signal.signal(signal.SIGUSR1, windows.open)
    signal.signal(signal.SIGUSR2, windows.close)
    from longcat_plugins.cli import main as cli_main

    return int(cli_main(command) or 0)


if __name__ == "__main__":
    sys.exit(main())
