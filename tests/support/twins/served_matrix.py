"""The served-path matrix's smoke: what an engine serves, for every API it has, streamed or not, every parser
configuration, tool choice, finish and tokenization, equals the core's one-pass reading of the same text
(``tests/served``; the whole matrix: ``python -m tests.served ENGINE``).

The importing module names its engine's matrix driver ``DRIVER`` and imports ``*`` from here."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.served.cells import AXES, Cell, with_
from tests.served.run import run_cell
from tests.served.smoke import smoke_cells, smoke_texts

__all__ = [
    "driver",
    "pytest_generate_tests",
    "test_pinned_cells",
    "test_served_equals_the_one_pass_reading",
    "test_the_smoke_covers_every_axis",
]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "cell" in metafunc.fixturenames:
        metafunc.parametrize("cell", smoke_cells(metafunc.module.DRIVER.apis), ids=str)


@pytest.fixture(scope="module")
def driver(request: pytest.FixtureRequest) -> Iterator[Any]:
    driver = request.module.DRIVER()
    yield driver
    driver.close()


def test_the_smoke_covers_every_axis(request: pytest.FixtureRequest) -> None:
    apis = request.module.DRIVER.apis
    cells = smoke_cells(apis)
    for name, values in AXES.items():
        seen = {getattr(cell, name) for cell in cells}
        assert seen == set(values) if name != "api" else seen == set(apis), name


def _assert_served_as_read(outcomes: list[Any]) -> None:
    failed = [str(o) for o in outcomes if not o.ok]
    assert not failed, "\n".join(failed)


def test_served_equals_the_one_pass_reading(driver: Any, cell: Cell) -> None:
    _assert_served_as_read([run_cell(driver, cell, text) for text in smoke_texts(driver, cell)])


#: (cell, text) pairs the whole matrix once found differing, kept in the smoke
PINNED: tuple[tuple[Cell, str], ...] = (
    # reasoning that is only whitespace, with the think tags split into several tokens: its tokens count
    (
        Cell(parsers="reasoning", tool_choice="none", strict=True, parallel=False, tokens="split"),
        "real:hermes_lmstudio825_empty_think_then_call",
    ),
    # text inside a call: a Responses stream takes it after the call (SGLang opened a second, nameless call item)
    (Cell(parsers="tool", group=3), "corpus:xml_stray_text_in_function"),
)


@pytest.mark.parametrize(("pinned", "text_id"), PINNED, ids=[f"{c}-{n}" for c, n in PINNED])
def test_pinned_cells(driver: Any, pinned: Cell, text_id: str) -> None:
    outcomes = []
    for served_cell in (with_(pinned, api=api, stream=stream) for api in driver.apis for stream in (False, True)):
        (text,) = [t for t in driver.texts_for(served_cell) if t.id == text_id]
        outcomes.append(run_cell(driver, served_cell, text))
    _assert_served_as_read(outcomes)
