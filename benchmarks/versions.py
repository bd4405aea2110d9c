"""Two versions of the core, before and after a change, on the same workloads in one run: the same benchmark code
(this checkout's), each version's ``longcat_plugins`` in turn, rounds alternating so that a machine that slows down
slows both.

python -m benchmarks.versions BEFORE [AFTER] [--rounds 5] [--repeats 25]

BEFORE and AFTER are git revisions (AFTER: the working tree). Per workload: the median of every run of every round,
the worst run, and after's median over before's.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def measure(repeats: int) -> dict[str, list[float]]:
    """Seconds per run of the engine-free parser over each workload, in 4-character deltas."""
    from longcat_plugins.core import ParserOptions, StreamParser

    from .workloads import DIALECTS, WRITE_FILE_TOOL, agent_turn, chunks, huge_call, many_params_call, many_params_tool

    def run(text: str, tools: Any) -> float:
        parts = chunks(text, 4)
        start = time.perf_counter()
        parser = StreamParser(tools, ParserOptions())
        for part in parts:
            parser.feed(part)
        parser.finish()
        return time.perf_counter() - start

    times: dict[str, list[float]] = {}
    for dialect in DIALECTS:
        cases = {
            f"{dialect} / one 64k string": (huge_call(dialect, 65536), [WRITE_FILE_TOOL]),
            f"{dialect} / 2000 parameters": (many_params_call(dialect, 2000), [many_params_tool(2000)]),
            f"{dialect} / agent turn": (agent_turn(dialect), None),
        }
        for name, (text, tools) in cases.items():
            times[name] = [run(text, tools) for _ in range(repeats)]
    return times


def _core_of(revision: str | None, into: Path) -> Path:
    """A folder holding only ``longcat_plugins`` as it is at ``revision`` (None: the working tree)."""
    into.mkdir(parents=True)
    if revision is None:
        shutil.copytree(ROOT / "longcat_plugins", into / "longcat_plugins")
        return into
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", revision, "longcat_plugins"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def _measure_in(core: Path, repeats: int) -> dict[str, list[float]]:
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.versions", "--measure", "--repeats", str(repeats)],
        cwd=ROOT,
        env={"PYTHONPATH": f"{core}:{ROOT}", "PATH": "/usr/bin:/bin"},
        check=True,
        capture_output=True,
        text=True,
    )
    return dict(json.loads(done.stdout))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.versions", description=__doc__.split("\n\n")[0])
    parser.add_argument("before", nargs="?", help="git revision of the version before")
    parser.add_argument("after", nargs="?", help="git revision of the version after (default: the working tree)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=25, help="runs per workload in a round")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure:
        print(json.dumps(measure(args.repeats)))
        return 0
    if args.before is None:
        parser.error("give the revision to compare with")
    runs: dict[str, dict[str, list[float]]] = {"before": {}, "after": {}}
    with tempfile.TemporaryDirectory(prefix="longcat-versions-") as tmp:
        cores = {
            "before": _core_of(args.before, Path(tmp, "before").resolve()),
            "after": _core_of(args.after, Path(tmp, "after").resolve()),
        }
        for _ in range(args.rounds):
            for version, core in cores.items():
                for name, times in _measure_in(core, args.repeats).items():
                    runs[version].setdefault(name, []).extend(times)
    print(f"before {args.before}, after {args.after or 'the working tree'}: {args.rounds} rounds x {args.repeats}")
    print("| workload | before median (ms) | after median (ms) | after / before | before worst | after worst |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    ratios = []
    for name, before in runs["before"].items():
        after = runs["after"][name]
        ratio = statistics.median(after) / statistics.median(before)
        ratios.append(ratio)
        cells = [statistics.median(before), statistics.median(after)]
        print(
            f"| {name} | {cells[0] * 1e3:.2f} | {cells[1] * 1e3:.2f} | {ratio:.3f} | {max(before) * 1e3:.2f} | "
            f"{max(after) * 1e3:.2f} |"
        )
    print(f"after / before: median {statistics.median(ratios):.3f}, highest {max(ratios):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
