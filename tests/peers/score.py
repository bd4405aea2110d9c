"""Scores our parser and the engines' built-in parsers on the peers' test cases (tests/peers/cases.jsonl).

    python -m tests.peers.score [-v]                                      # the core only
    PYTHONPATH=. .venvs/vllm/bin/python -m tests.peers.score --engine vllm [-v]
    PYTHONPATH=. .venvs/sglang/bin/python -m tests.peers.score --engine sglang [-v]

A case is right for a parser when every run gives what the peer's test expects (the parts the case's ``checks`` name;
``tests.real.score.compare`` decides): the core in one piece, streamed in 1-, 4- and 7-character pieces, as one piece
and at seeded random splits; an engine parser through the engine's own entry points exactly as
``tests.real.score_engines`` drives it. Per peer the table counts: cases, ours right, any built-in right, both, only
ours, only a built-in, and declined cases (the peer's expectation is a convention this project declines; they are
counted apart and not scored for ours).
"""

from __future__ import annotations

import argparse
import logging
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.real.score import compare, load_cases, run_core, score_case

CASES_PATH = Path(__file__).with_name("cases.jsonl")
KNOWN_PATH = Path(__file__).with_name("known_failures.txt")
ALL_CHECKS = ("content", "reasoning", "tool_calls")
#: Seeded random splits the core is also streamed at (each a list of cut points).
RANDOM_SPLITS = 3


def cases(path: Path | str = CASES_PATH) -> list[dict[str, Any]]:
    return load_cases(path)


def _part(problem: str) -> str:
    """The part of a message a ``compare`` problem is about."""
    if problem.startswith("content "):
        return "content"
    if problem.startswith("reasoning "):
        return "reasoning"
    return "tool_calls"


def checked(case: dict[str, Any], problems: list[str]) -> list[str]:
    """The problems about the parts the peer's test asserts."""
    wanted = set(case.get("checks", ALL_CHECKS))
    return [p for p in problems if _part(p) in wanted]


def core_runs(case: dict[str, Any]) -> dict[str, list[str]]:
    """The core's runs of a case (``score_case``'s, plus seeded random splits), each with its checked problems."""
    from tests.real.score import core_options
    from tests.support.events import feed, split_at

    runs = {name: checked(case, found) for name, found in score_case(case).items()}
    rng = random.Random(case["id"])
    text = case["text"]
    for i in range(RANDOM_SPLITS):
        cuts = [rng.randrange(1, max(2, len(text))) for _ in range(rng.randint(1, max(1, len(text) // 3)))]
        label = f"random-{i}"
        try:
            message = feed(split_at(text, cuts), case["tools"], core_options(case)).message
        except Exception as exc:  # a crash is a result here
            runs[label] = [f"raised {type(exc).__name__}: {exc}"]
            continue
        runs[label] = checked(case, compare(case["expected"], message))
    return runs


def core_message(case: dict[str, Any]) -> Any:
    return run_core(case, one_shot=True)


# ----------------------------------------------------------------------------------------------------------------------
# Engines
# ----------------------------------------------------------------------------------------------------------------------


def contenders(engine: str) -> tuple[Any, ...]:
    """Ours and the built-in pairs of an engine: each built-in tool parser of the dialects we read with ``qwen3``,
    and the first with ``deepseek_r1`` (vLLM) / ``deepseek-r1`` (SGLang)."""
    from tests.real.score_engines import Contender

    if engine == "vllm":
        tool_parsers = ("hermes", "qwen3_coder", "qwen3_xml")
        r1 = "deepseek_r1"
    else:
        tool_parsers = ("qwen25", "qwen3_coder", "hermes")
        r1 = "deepseek-r1"
    pairs = [Contender(f"{t}+qwen3", t, "qwen3") for t in tool_parsers]
    pairs.append(Contender(f"{tool_parsers[0]}+{r1}", tool_parsers[0], r1))
    return (Contender("ours", "longcat", "longcat", ours=True), *pairs)


def engine_runs(driver: Any, contender: Any, case: dict[str, Any]) -> dict[str, list[str]]:
    """One case through one parser pair of an engine, each run with its checked problems."""
    from tests.real.score_engines import mismatches, run_case

    return {name: checked(case, found) for name, found in mismatches(case, run_case(driver, contender, case)).items()}


def make_driver(engine: str) -> Any:
    from tests.real.score_engines import DRIVERS

    driver = DRIVERS[engine]()
    for name in ("vllm", "sglang", "longcat_plugins"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    return driver


# ----------------------------------------------------------------------------------------------------------------------
# Scoring
# ----------------------------------------------------------------------------------------------------------------------


def right(runs: dict[str, list[str]]) -> bool:
    return not any(runs.values())


def describe(runs: dict[str, list[str]]) -> str:
    from tests.real.score import describe as describe_runs

    return describe_runs(runs)


@dataclass
class Row:
    cases: int = 0
    ours: int = 0
    builtin: int = 0
    both: int = 0
    only_ours: int = 0
    only_builtin: int = 0
    declined: int = 0


@dataclass
class Board:
    """Per peer: the counts; per case: whether ours and which built-ins are right."""

    rows: dict[str, Row] = field(default_factory=dict)
    ours_wrong: dict[str, str] = field(default_factory=dict)  # case id -> what differs
    builtins_right: dict[str, list[str]] = field(default_factory=dict)  # case id -> built-ins right

    def add(self, case: dict[str, Any], ours_ok: bool, builtins_ok: list[str], ours_problem: str) -> None:
        row = self.rows.setdefault(case["peer"], Row())
        row.cases += 1
        self.builtins_right[case["id"]] = builtins_ok
        if case.get("declined"):
            row.declined += 1
            return
        if not ours_ok:
            self.ours_wrong[case["id"]] = ours_problem
        row.ours += int(ours_ok)
        row.builtin += int(bool(builtins_ok))
        row.both += int(ours_ok and bool(builtins_ok))
        row.only_ours += int(ours_ok and not builtins_ok)
        row.only_builtin += int(not ours_ok and bool(builtins_ok))

    def table(self) -> list[str]:
        head = ["peer", "cases", "ours", "built-in", "both", "only ours", "only built-in", "declined"]
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        total = Row()
        for peer in sorted(self.rows):
            r = self.rows[peer]
            for name in vars(total):
                setattr(total, name, getattr(total, name) + getattr(r, name))
            lines.append(self._line(peer, r))
        lines.append(self._line("all", total))
        return lines

    @staticmethod
    def _line(name: str, r: Row) -> str:
        cells = [r.cases, r.ours, r.builtin, r.both, r.only_ours, r.only_builtin, r.declined]
        return f"| {name} | " + " | ".join(str(c) for c in cells) + " |"


def score_core(all_cases: Sequence[dict[str, Any]]) -> Board:
    """The core alone: no built-in to compare with (every case counts as no built-in right)."""
    board = Board()
    for case in all_cases:
        runs = core_runs(case)
        board.add(case, right(runs), [], describe(runs))
    return board


def score_engine(engine: str, all_cases: Sequence[dict[str, Any]], driver: Any = None) -> Board:
    driver = driver or make_driver(engine)
    pairs = contenders(engine)
    board = Board()
    for case in all_cases:
        ours_runs: dict[str, list[str]] = {}
        ok: list[str] = []
        for contender in pairs:
            runs = engine_runs(driver, contender, case)
            if contender.ours:
                ours_runs = runs
            elif right(runs):
                ok.append(contender.name)
        board.add(case, right(ours_runs), ok, describe(ours_runs))
    return board


SCOPES = ("core", "vllm", "sglang")


def load_known(scope: str, path: Path = KNOWN_PATH) -> dict[str, str]:
    """The cases ours gets wrong in ``scope`` (``core``, ``vllm`` or ``sglang``), from ``known_failures.txt``: one
    ``<id>  <scopes, comma-separated>  <reason>`` line each."""
    known: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        case_id, scopes, reason = line.split(maxsplit=2)
        unknown = set(scopes.split(",")) - set(SCOPES)
        if unknown:
            raise ValueError(f"known_failures.txt: {case_id}: unknown scopes {sorted(unknown)}")
        if scope in scopes.split(","):
            known[case_id] = reason
    return known


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", choices=("core", "vllm", "sglang"), default="core")
    ap.add_argument("--cases", default=str(CASES_PATH))
    ap.add_argument("--verbose", "-v", action="store_true", help="print what ours gives for each case it gets wrong")
    args = ap.parse_args(argv)

    all_cases = cases(args.cases)
    logging.getLogger("longcat_plugins").setLevel(logging.CRITICAL)
    board = score_core(all_cases) if args.engine == "core" else score_engine(args.engine, all_cases)
    print(f"peers' test cases through {args.engine}: {len(all_cases)} cases")
    print("\n".join(board.table()))
    if board.ours_wrong:
        print("\nours wrong (built-ins right in brackets):")
        for case_id, problem in board.ours_wrong.items():
            right_ones = ", ".join(board.builtins_right.get(case_id, []))
            print(f"  {case_id} [{right_ones}]" + (f": {problem}" if args.verbose else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
