"""The whole served-path matrix on one engine (run in that engine's environment):

    python -m tests.served vllm [--sample N] [--seed S] [--texts K] [--every-text] [--only ID ...]
    python -m tests.served vllm --outputs N [--seed S] [--fuzz F] [--jobs J]
    python -m tests.served vllm --show-output I [--seed S] [--fuzz F]

``--sample N``: N cells drawn at random (default: every cell); ``--texts K``: K texts per cell, drawn at random
from the ones the cell can serve (default: all of them); ``--every-text``: instead, every text through every API,
mode, parser configuration and tokenization (tool choice auto, the model's end, 3 tokens per step); ``--only ID``:
only the texts whose id holds ID (``--only dangling_opener --only cut_call``), in every cell. Prints the
outcomes grouped by difference; exit status 1 if any cell differs.

``--outputs N``: the scaled run instead (:mod:`tests.served.scale`): N outputs, each a random cell with tokens per
step drawn from 1..64 or the whole turn, and a text it can serve, a share ``F`` of them (default 0.5) outputs of the
fuzzer's generators, served by ``J`` processes (default 1); ``--show-output I`` serves its output ``I`` again.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from .cells import every_cell
from .report import summary
from .run import run_cell


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.served")
    parser.add_argument("engine", choices=["vllm", "sglang"])
    parser.add_argument("--sample", type=int, default=0)
    parser.add_argument("--texts", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--every-text", action="store_true")
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--outputs", type=int, default=0)
    parser.add_argument("--fuzz", type=float, default=0.5)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--show-output", type=int, default=None)
    args = parser.parse_args(argv)
    if args.outputs or args.show_output is not None:
        from . import scale

        if args.show_output is not None:
            return scale.show(args.engine, args.seed, args.show_output, args.fuzz)
        return scale.main(args.engine, args.outputs, args.seed, args.fuzz, args.jobs)
    if args.engine == "vllm":
        sys.path.insert(0, "tests/vllm")
        from served_vllm import VllmDriver as Driver  # type: ignore[import-not-found]
    else:
        sys.path.insert(0, "tests/sglang")
        from served_sglang import SglangDriver as Driver  # type: ignore[import-not-found]
    driver = Driver()
    rng = random.Random(args.seed)
    cells = list(every_cell(driver.apis))
    if args.every_text:
        defaults = ("auto", "end", 3, False, True)
        cells = [c for c in cells if (c.tool_choice, c.finish, c.group, c.strict, c.parallel) == defaults]
    if args.sample:
        cells = rng.sample(cells, min(args.sample, len(cells)))
    start = time.monotonic()
    outcomes = []
    for cell in cells:
        texts = driver.texts_for(cell)
        if args.only:
            texts = [t for t in texts if any(part in t.id for part in args.only)]
        if args.texts:
            texts = rng.sample(texts, min(args.texts, len(texts)))
        outcomes.extend(run_cell(driver, cell, text) for text in texts)
    print(summary(outcomes))
    print(f"\n{len(cells)} cells, {len(outcomes)} cell x text runs, {time.monotonic() - start:.0f} s")
    close = getattr(driver, "close", None)
    if close is not None:
        close()
    return 0 if all(o.ok for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
