"""Python calls per delta of the core on the benchmark's token streams (cProfile's call counts: exact, where timings
on a shared machine are not), and the functions that make them.

python -m benchmarks.core_calls [--cases many/xml/500,agent/xml/4] [--top 12]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats

from longcat_plugins.core import ParserOptions, StreamParser

from .cases import Case, all_cases
from .tokens import Delta, load_tokenizer, token_deltas
from .workloads import DIALECTS

DEFAULT_CASES = "many/xml/125,many/xml/500,many/xml/2000,agent/xml/1,agent/xml/4,agent/xml/64"


def profile(case: Case, deltas: list[Delta]) -> pstats.Stats:
    parser = StreamParser(case.tools, ParserOptions(reasoning=case.reasoning_parser))
    feed = parser.feed
    texts = [text for text, _ in deltas]
    profiler = cProfile.Profile()
    profiler.enable()
    for text in texts:
        feed(text)
    parser.finish()
    profiler.disable()
    return pstats.Stats(profiler)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--cases", default=DEFAULT_CASES)
    ap.add_argument("--top", type=int, default=0, help="list the functions with the most calls")
    args = ap.parse_args()
    wanted = args.cases.split(",")
    tokenizer = load_tokenizer()
    cases = {c.key: c for c in all_cases(DIALECTS, (4096,), (125, 500, 2000), (1, 4, 64))}
    for key in wanted:
        case = cases[key]
        deltas = token_deltas(tokenizer, case.text, group=case.size if case.chunking == "tokens" else None, min_chars=3)
        profile(case, deltas)  # (once first: what is built once per process is not counted)
        stats = profile(case, deltas)
        calls = stats.total_calls  # type: ignore[attr-defined]
        print(f"{key:20} {len(deltas):6} deltas {calls:8} calls {calls / len(deltas):6.1f} per delta")
        if args.top:
            rows = sorted(stats.stats.items(), key=lambda kv: -kv[1][1])[: args.top]  # type: ignore[attr-defined]
            for (file, line, name), (_, ncalls, *_rest) in rows:
                print(f"    {ncalls / len(deltas):6.2f}  {name} ({file.rsplit('/', 1)[-1]}:{line})")


if __name__ == "__main__":
    main()
