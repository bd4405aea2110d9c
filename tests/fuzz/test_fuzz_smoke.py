"""The fuzzer in CI: a fixed-seed smoke run of every generator and check, scaling on three adversarial patterns,
and one strict xfail per known fault (see ``known.py``), so that fixing a fault forces its entry out."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from longcat_plugins.core import Event, StreamParser
from longcat_plugins.core import dialects as D
from longcat_plugins.core.item_order import CallItemOrder
from tests.core.test_scaling import MAX_CALL_GROWTH, call_growth

from . import checks
from .cases import Case
from .checks import run_checks
from .known import KNOWN, KNOWN_SLOW, KnownBug, KnownSlow, known_slow
from .mutations import generate
from .runner import check_cases, minimize_all, pick, quiet, report
from .scaling import MODES, PATTERNS, measure, modes_of, pattern_size

SMOKE_SEED = 13
SMOKE_CASES = 1500
SMOKE_PATTERNS = ("lt-run", "tiny-calls-kv", "backslashes-in-string")
SMOKE_SIZE = 0.25
MAX_EXPONENT = 1.5  # linear is 1, quadratic 2


def test_fuzz_smoke_finds_nothing_new() -> None:
    quiet()
    cases, findings = check_cases(SMOKE_SEED, 0, SMOKE_CASES, skip_known=True, slow=None)
    assert cases == SMOKE_CASES
    if findings:
        minimized = minimize_all(pick(findings, 2), jobs=1)
        pytest.fail(
            "new findings (python -m tests.fuzz --show SEED:INDEX shows a case):\n"
            + report(cases, 0, findings, minimized)
        )


@pytest.mark.parametrize("pattern", SMOKE_PATTERNS)
def test_cost_is_linear_on_adversarial_pattern(pattern: str) -> None:
    """Counted, not timed (``tests/support/work.py``): per character, 4x the pattern makes no more calls."""
    for mode in modes_of(pattern):
        if known_slow(pattern, mode):
            continue
        growth = call_growth(PATTERNS[pattern][1], pattern_size(pattern, SMOKE_SIZE), MODES[mode])
        assert growth < MAX_CALL_GROWTH, f"{pattern} ({mode}): 4x the text makes {growth:.2f}x the calls per character"


def _still_fails(bug: KnownBug) -> list[checks.Failure]:
    return [
        f
        for f in run_checks(bug.reproducer)
        if f.check == bug.check and (bug.detail is None or re.search(bug.detail, f.detail))
    ]


@pytest.mark.parametrize(
    "bug", [pytest.param(b, marks=pytest.mark.xfail(strict=True, reason=b.what), id=b.name) for b in KNOWN]
)
def test_known_fault_is_fixed(bug: KnownBug) -> None:
    quiet()
    assert not _still_fails(bug)


@pytest.mark.parametrize(
    "slow", [pytest.param(s, marks=pytest.mark.xfail(strict=True, reason=s.what), id=s.name) for s in KNOWN_SLOW]
)
def test_known_slow_pattern_is_linear(slow: KnownSlow) -> None:
    pattern, size = slow.probe
    assert measure(pattern, slow.mode, size).exponent < MAX_EXPONENT


# -- the harness itself --------------------------------------------------------------------------------------------


def test_the_fuzzer_draws_every_dialect_the_parser_reads(tmp_path: Path) -> None:
    """``python -m tests.fuzz`` (what ``scripts/fuzz.sh`` runs), started without ``LONGCAT_EXTRA_DIALECTS``, has the
    parser read the test-only dialects as the tests do, and draws outputs in every dialect the parser reads."""
    repo = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if k != D.EXTRA_ENV_VAR} | {"PYTHONPATH": str(repo)}
    command = [sys.executable, "-m", "tests.fuzz", "--cases", "300", "--seed", "5", "--out", str(tmp_path)]
    done = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    line = next((line for line in done.stdout.splitlines() if line.startswith("dialects (cases): ")), None)
    assert line is not None, done.stdout
    drawn = dict(item.rsplit(" ", 1) for item in line.removeprefix("dialects (cases): ").split(", "))
    assert drawn.keys() == D.READ_DIALECTS.keys() and D.EXTRA_DIALECTS
    assert all(int(n) > 0 for n in drawn.values()), line


def test_cases_are_reproducible() -> None:
    assert generate(7, 123) == generate(7, 123)
    assert generate(7, 123) != generate(7, 124)


class _LosesLastChar(StreamParser):
    """A parser that drops the last character of every delta longer than one."""

    def feed(self, delta: str) -> list[Event]:
        return super().feed(delta[:-1] if len(delta) > 1 else delta)


class _Repeats(StreamParser):
    """A parser that sees every delta twice."""

    def feed(self, delta: str) -> list[Event]:
        return [*super().feed(delta), *super().feed(delta)]


#: text inside a call, between its parameters, then a second call: one large delta closes the first call and holds
#: the whole second one
TEXT_IN_CALL_THEN_CALL = Case(
    text="<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\nI also want the unit.\n"
    "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=get_time>\n"
    "<parameter=zone>\nCET\n</parameter>\n</function>\n</tool_call>",
    options={},
)


def test_large_deltas_keep_the_text_written_inside_a_call() -> None:
    """Whole, in large deltas and in deltas that end after tags, through what orders events for the item-by-item
    APIs: the sentence stays in the content, after its call and outside the next."""
    assert run_checks(TEXT_IN_CALL_THEN_CALL) == []


class _DropsHeldText(CallItemOrder):
    """Loses the text it held inside a call."""

    def finish(self, events: Sequence[Event]) -> list[Event]:
        self._held.clear()
        return super().finish(events)


def test_the_item_order_check_catches_lost_text(monkeypatch: pytest.MonkeyPatch) -> None:
    case = Case(text="<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\nnote\n<parameter=b>", options={})
    assert "item-order" not in {f.check for f in run_checks(case)}
    monkeypatch.setattr(checks, "CallItemOrder", _DropsHeldText)
    assert "item-order" in {f.check for f in run_checks(case)}


def test_checks_catch_a_lossy_or_repeating_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    case = Case(text="some text <b>and</b> more text", options={})
    assert run_checks(case) == []
    monkeypatch.setattr(checks, "StreamParser", _LosesLastChar)
    assert {"stream-equal", "accounting-verbatim"} <= {f.check for f in run_checks(case)}
    monkeypatch.setattr(checks, "StreamParser", _Repeats)
    assert "accounting-order" in {f.check for f in run_checks(case)}
