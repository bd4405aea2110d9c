"""The served-path matrix's smoke on vLLM: what vLLM's own server serves, for every API, streamed or not, every
parser configuration, tool choice, finish and tokenization, equals the core's one-pass reading of the same text
(``tests/served``; the whole matrix: ``python -m tests.served vllm``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from served_vllm import VllmDriver

from tests.served.cells import Cell
from tests.served.run import run_cell
from tests.served.smoke import smoke_cells, smoke_texts

pytestmark = pytest.mark.vllm

CELLS = smoke_cells(VllmDriver.apis)


@pytest.fixture(scope="module")
def driver() -> Iterator[VllmDriver]:
    driver = VllmDriver()
    yield driver
    driver.close()


def test_the_smoke_covers_every_axis() -> None:
    from tests.served.cells import AXES

    for name, values in AXES.items():
        seen = {getattr(cell, name) for cell in CELLS}
        assert seen == set(values) if name != "api" else seen == set(VllmDriver.apis), name


@pytest.mark.parametrize("cell", CELLS, ids=str)
def test_served_equals_the_one_pass_reading(driver: VllmDriver, cell: Cell) -> None:
    outcomes = [run_cell(driver, cell, text) for text in smoke_texts(driver, cell)]
    failed = [str(o) for o in outcomes if not o.ok]
    assert not failed, "\n".join(failed)
