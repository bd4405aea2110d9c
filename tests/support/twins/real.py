"""Our parsers through an engine's own entry points on the corpus of real model outputs (tests/real/cases.jsonl).

The importing module names its engine's driver (tests/real/score_engines.py) ``DRIVER`` and imports ``*`` from
here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.real.score import load_cases
from tests.real.score_engines import Driver, behind, core_message, describe, differences, ours, run_case, score

__all__ = [
    "drivers",
    "test_ours_reads_as_many_cases_as_each_builtin_per_dialect",
    "test_ours_through_the_engine_gives_the_core_result",
]

CASES = load_cases()


@pytest.fixture(scope="module")
def drivers(request: pytest.FixtureRequest) -> Callable[[bool], Driver]:
    """The engine's driver with the tags as special tokens or split into pieces, made when first asked for."""
    made: dict[bool, Driver] = {}

    def get(split_tags: bool) -> Driver:
        if split_tags not in made:
            made[split_tags] = request.module.DRIVER(split_tags=split_tags)
        return made[split_tags]

    return get


def _configurations() -> list[Any]:
    params = []
    for case in CASES:
        params.append(pytest.param(case, True, id=f"{case['id']}-with-reasoning-parser"))
        if not case.get("reasoning_open"):  # without a reasoning parser the engine cannot know the prompt opened it
            params.append(pytest.param(case, False, id=f"{case['id']}-tool-parser-alone"))
    return params


@pytest.mark.parametrize("split_tags", [False, True], ids=["special-tags", "split-tags"])
@pytest.mark.parametrize(("case", "with_reasoning"), _configurations())
def test_ours_through_the_engine_gives_the_core_result(
    drivers: Callable[[bool], Driver], case: dict[str, Any], with_reasoning: bool, split_tags: bool
) -> None:
    driver = drivers(split_tags)
    runs = run_case(driver, ours(driver.contenders), case, with_reasoning)
    found = differences(driver, core_message(case, with_reasoning), runs)
    assert not found, describe(found)


def test_ours_reads_as_many_cases_as_each_builtin_per_dialect(drivers: Callable[[bool], Driver]) -> None:
    board = score(drivers(False), CASES)
    assert not behind(board), behind(board)
