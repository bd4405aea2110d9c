"""``python -m tests.fuzz``: fuzz the core, or measure its scaling on adversarial patterns.

python -m tests.fuzz --cases 10000 --seed 1 --jobs 2        # findings grouped by check, minimized, and the
                                                            # cases drawn in each dialect the parser reads
python -m tests.fuzz --scaling                              # cost exponents at 1x and 4x size
python -m tests.fuzz --show 1:42                            # case 42 of seed 1 and what the checks say
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from longcat_plugins.core import parse

from .checks import run_checks
from .mutations import generate
from .runner import Finding, dialects_drawn, minimize_all, pick, quiet, report, run, save
from .scaling import PATTERNS, scaling_table


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=2000, help="number of cases (default 2000)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the run; case i of seed s is always the same")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    ap.add_argument("--out", type=Path, help="directory for the findings (default: a new temporary directory)")
    ap.add_argument(
        "--minimize", type=int, default=3, metavar="K", help="minimize up to K findings per check and known fault"
    )
    ap.add_argument("--skip-known", action="store_true", help="skip what tests/fuzz/known.py lists (as CI does)")
    ap.add_argument("--slow", type=float, default=10.0, help="report a case whose checks take longer (seconds)")
    ap.add_argument("--scaling", action="store_true", help="measure cost exponents instead of fuzzing")
    ap.add_argument("--patterns", nargs="*", help="with --scaling: only these patterns")
    ap.add_argument("--size", type=float, default=1.0, help="with --scaling: multiply every pattern's size")
    ap.add_argument("--show", metavar="SEED:INDEX", help="print one case and its failed checks")
    args = ap.parse_args(argv)
    quiet()

    if args.show:
        seed, index = (int(x) for x in args.show.split(":"))
        case = generate(seed, index)
        message = parse(case.text, case.tools, case.parser_options())
        print(case.generator)
        print(case.literal())
        print("content:", repr(message.content))
        print("reasoning:", repr(message.reasoning))
        print("calls:", [(c.name, c.arguments) for c in message.tool_calls])
        if case.expected is not None:
            print("expected:", case.expected)
        for failure in run_checks(case):
            print(f"[{failure.check}] {failure.detail}")
        return 0

    if args.scaling:
        names = args.patterns or list(PATTERNS)
        unknown = [n for n in names if n not in PATTERNS]
        if unknown:
            ap.error(f"unknown patterns: {', '.join(unknown)} (known: {', '.join(PATTERNS)})")
        scaling_table(names, args.size, echo=True)
        return 0

    out = args.out or Path(tempfile.mkdtemp(prefix="longcat-fuzz-"))
    t0 = time.perf_counter()
    done = 0
    findings: list[Finding] = []
    next_note = 0.0
    for n, found in run(args.cases, args.seed, args.jobs, args.skip_known, args.slow):
        done += n
        findings += found
        if time.perf_counter() - t0 > next_note:
            print(f"[fuzz] {done}/{args.cases} cases, {len(findings)} findings", file=sys.stderr, flush=True)
            next_note += 30
    seconds = time.perf_counter() - t0
    minimized = minimize_all(pick(findings, args.minimize), args.jobs)
    text = report(done, seconds, findings, minimized, dialects_drawn(args.seed, done))
    save(out, findings, minimized, text)
    print(text)
    print(f"\nfindings saved in {out}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
