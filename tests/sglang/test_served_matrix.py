"""The served-path matrix's smoke on SGLang: what SGLang's own Chat Completions serving serves, streamed or not, for
every parser configuration, tool choice, finish and tokenization, equals the core's one-pass reading of the same text
(``tests/served``; the whole matrix: ``python -m tests.served sglang``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from served_sglang import SglangDriver

from tests.served.cells import Cell
from tests.served.run import run_cell
from tests.served.smoke import smoke_cells, smoke_texts

pytestmark = pytest.mark.sglang

CELLS = smoke_cells(SglangDriver.apis)


@pytest.fixture(scope="module")
def driver() -> Iterator[SglangDriver]:
    driver = SglangDriver()
    yield driver
    driver.close()


def test_the_smoke_covers_every_axis() -> None:
    from tests.served.cells import AXES

    for name, values in AXES.items():
        seen = {getattr(cell, name) for cell in CELLS}
        assert seen == set(values) if name != "api" else seen == set(SglangDriver.apis), name


@pytest.mark.parametrize("cell", CELLS, ids=str)
def test_served_equals_the_one_pass_reading(driver: SglangDriver, cell: Cell) -> None:
    outcomes = [run_cell(driver, cell, text) for text in smoke_texts(driver, cell)]
    failed = [str(o) for o in outcomes if not o.ok]
    assert not failed, "\n".join(failed)
