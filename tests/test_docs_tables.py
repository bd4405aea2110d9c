"""Every table the docs show that follows from the code is shown as it is (``tests/docs_tables.py``)."""

from __future__ import annotations

import pytest

from tests.docs_tables import TABLES, shown


@pytest.mark.parametrize("name", list(TABLES))
def test_the_docs_show_the_table_as_the_code_has_it(name: str) -> None:
    document, render = TABLES[name]
    assert shown(name) == render(), f"{document}: run python -m tests.docs_tables --write"
