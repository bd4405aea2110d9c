"""The core alone: cost per 4-character delta inside a long argument, and the floor it is compared with.

    python -m benchmarks.core_bench [--sizes 65536,262144] [--repeat 3]

The floor receives the same deltas through a method call and looks for '<' in each: the cheapest possible
incremental scan in Python.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from longcat_plugins.core import StreamParser

from .core_floors import FloorParser
from .workloads import (
    WRITE_FILE_TOOL,
    chunks,
    json_call,
    kv_call,
    kv_many_params,
    many_params_tool,
    xml_call,
    xml_many_params,
)


def run_core(deltas: list[str], tools: list[object]) -> None:
    parser = StreamParser(tools)
    feed = parser.feed
    for d in deltas:
        feed(d)
    parser.finish()


def run_floor(deltas: list[str], tools: list[object]) -> None:
    feed = FloorParser().feed
    for d in deltas:
        feed(d)


def best_of(
    repeat: int, fn: Callable[[list[str], list[object]], None], deltas: list[str], tools: list[object]
) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(deltas, tools)
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="16384,65536,262144")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print("| workload | size | deltas | core total (ms) | core per delta (us) | floor per delta (us) | core / floor |")
    print("|---|---|---|---|---|---|---|")
    workloads: list[tuple[str, Callable[[int], str], list[object]]] = [
        ("JSON, one string argument", json_call, [WRITE_FILE_TOOL]),
        ("XML, one string value", xml_call, [WRITE_FILE_TOOL]),
        ("key/value, one string value", kv_call, [WRITE_FILE_TOOL]),
    ]
    for name, make, tools in workloads:
        for size in sizes:
            deltas = chunks(make(size))
            core = best_of(args.repeat, run_core, deltas, tools)
            floor = best_of(args.repeat, run_floor, deltas, tools)
            print(
                f"| {name} | {size} | {len(deltas)} | {core * 1e3:.1f} | {core / len(deltas) * 1e6:.2f} |"
                f" {floor / len(deltas) * 1e6:.3f} | {core / floor:.1f} |"
            )
    many: list[tuple[str, Callable[[int], str]]] = [("XML", xml_many_params), ("key/value", kv_many_params)]
    for (name, make_many), count in ((m, c) for m in many for c in (500, 2000)):
        deltas = chunks(make_many(count))
        tools = [many_params_tool(count)]
        core = best_of(args.repeat, run_core, deltas, tools)
        floor = best_of(args.repeat, run_floor, deltas, tools)
        print(
            f"| {name}, {count} small parameters | {count} params | {len(deltas)} | {core * 1e3:.1f} |"
            f" {core / len(deltas) * 1e6:.2f} | {floor / len(deltas) * 1e6:.3f} | {core / floor:.1f} |"
        )


if __name__ == "__main__":
    main()
