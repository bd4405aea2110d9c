"""Every table the docs show that follows from the code is shown as it is (``tests/docs_tables.py``)."""

from __future__ import annotations

import re

import pytest

from longcat_plugins.core import dialects as D
from tests.docs_tables import DOCUMENTS, INLINE, TABLES, inline_shown, shown
from tests.grammar_cases import written


@pytest.mark.parametrize("name", list(TABLES))
def test_the_docs_show_the_table_as_the_code_has_it(name: str) -> None:
    document, render = TABLES[name]
    assert shown(name) == render(), f"{document}: run python -m tests.docs_tables --write"


@pytest.mark.parametrize("document", DOCUMENTS)
def test_the_docs_show_the_inline_texts_as_the_code_has_them(document: str) -> None:
    for name, text in inline_shown(document):
        assert text == INLINE[name](), f"{document}: {name}: run python -m tests.docs_tables --write"


def test_every_inline_text_is_shown() -> None:
    assert {name for document in DOCUMENTS for name, _ in inline_shown(document)} == set(INLINE)


#: a test-only dialect whose tags and words hold what a table cell must escape (tags as Kimi-K2 writes them)
_SECTION = D.Block("<|tool_calls_section_begin|>", "<|tool_calls_section_end|>")
PIPES = D.Dialect(
    name="pipes",
    title="Pipes | sections",
    models="Kimi-K2 \\ test\nonly",
    block=_SECTION,
    trigger=_SECTION.open,
    prefix=f"{_SECTION.open}<|tool_call_begin|>functions.",
    name_suffix=":0<|tool_call_argument_begin|>",
    end=f"<|tool_call_end|>{_SECTION.close}",
    body="json",
)


def _cells(row: str) -> list[str]:
    """A table row's cells as GitHub's Markdown splits them: at each ``|`` that no backslash escapes."""
    cells, cell, i = [], "", 0
    while i < len(row):
        if row[i] == "\\":
            cell += row[i : i + 2]
            i += 2
            continue
        if row[i] == "|":
            cells.append(cell)
            cell = ""
        else:
            cell += row[i]
        i += 1
    return [c.strip() for c in [*cells, cell][1:-1]]


def _code_spans(cell: str) -> list[str]:
    """What the code spans of a cell show, their ``\\n``, ``\\\\`` and ``\\|`` escapes read back."""
    return [
        re.sub(r"\\(.)", lambda m: {"n": "\n", "r": "\r"}.get(m.group(1), m.group(1)), inner)
        for _, inner in re.findall(r"(`+)(.+?)\1", cell)
    ]


def _plain_text(cell: str) -> str:
    return re.sub(r"\\(.)", r"\1", cell).replace("<br>", "\n")


@pytest.mark.parametrize("name", ["dialects", "reading", "forced-dialects"])
def test_a_dialect_whose_tags_hold_a_pipe_keeps_the_table_whole(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setitem(D.DIALECTS, PIPES.name, PIPES)
    rows = TABLES[name][1]().splitlines()
    width = len(_cells(rows[0]))
    assert all(len(_cells(row)) == width for row in rows), name
    (row,) = [_cells(row) for row in rows if "Kimi" in row or "Pipes" in row]
    one_call = written(PIPES, "f", {"p": "v"})
    assert one_call in [span for cell in row for span in _code_spans(cell)]
    if name == "dialects":
        assert _plain_text(row[1]) == PIPES.title and _plain_text(row[2]) == PIPES.models
        opens, closes = (tag.replace("|", "\\|") for tag in (_SECTION.open, _SECTION.close))
        assert row[3] == f"`{opens}` ... `{closes}`"
    if name == "forced-dialects":
        assert _plain_text(row[2]) == PIPES.models
