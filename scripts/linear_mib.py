"""The core's cost at megabyte sizes, on every shape of ``tests/fuzz/scaling.py: SHAPES`` (the repeated prefixes of
every tag of every dialect the parser reads, many calls, many parameters, long values, reasoning, names written
without tags, JSON nesting...), read whole (one feed, as a non-streamed answer is) and in 64-character deltas.

Prints the CPU time at each size and the exponent between consecutive sizes (1: linear, 2: quadratic); a shape whose
exponent passes ``--flag`` is marked. A run longer than ``--cap`` seconds of CPU time stops that shape's larger sizes.

    python scripts/linear_mib.py                                  # every shape at 256 KiB and 1 MiB
    python scripts/linear_mib.py --sizes 256K,1M,2M,4M --shapes 'tag <function=' 'calls kv+tools'
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tests.conftest  # noqa: F401  (the test-only dialects are read too)
from tests.fuzz.runner import quiet
from tests.fuzz.scaling import SHAPES, capped_cpu_seconds

MODES = {"whole": None, "stream": 64}


def _size(text: str) -> int:
    units = {"K": 1024, "M": 1024 * 1024}
    return int(float(text[:-1]) * units[text[-1]]) if text[-1] in units else int(text)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="256K,1M")
    ap.add_argument("--shapes", nargs="*", help="only these shapes (exact names; default: all)")
    ap.add_argument("--match", default="", help="only shapes whose name contains this")
    ap.add_argument("--modes", default="whole,stream")
    ap.add_argument("--cap", type=float, default=60.0)
    ap.add_argument("--flag", type=float, default=1.25, help="mark an exponent above this")
    args = ap.parse_args()
    quiet()
    sizes = [_size(s) for s in args.sizes.split(",")]
    names = args.shapes or [name for name in SHAPES if args.match in name]
    print(f"{'shape':44} {'mode':6} " + " ".join(f"{s // 1024:>8}K" for s in sizes) + "  exponents", flush=True)
    for name in names:
        for mode in args.modes.split(","):
            times: list[float] = []
            for size in sizes:
                text, tools = SHAPES[name](size)
                under_cap = not times or times[-1] < args.cap
                times.append(capped_cpu_seconds(text, tools, MODES[mode], args.cap) if under_cap else math.inf)
            exps = [
                math.log(b / a) / math.log(sizes[i + 1] / sizes[i]) if a > 0 and b < math.inf else math.inf
                for i, (a, b) in enumerate(itertools.pairwise(times))
            ]
            flag = "  <<<" if any(e > args.flag for e in exps if times[0] > 0.02) else ""
            shown = " ".join(f"{t:9.3f}" if t < math.inf else f"{'>cap':>9}" for t in times)
            print(f"{name:44} {mode:6} {shown}  {' '.join(f'{e:.2f}' for e in exps)}{flag}", flush=True)


if __name__ == "__main__":
    main()
