"""docs/design.md shows the parser's transition table as it is in core/machine.py."""

from __future__ import annotations

from pathlib import Path

from longcat_plugins.core.machine import TRANSITIONS, Mode

DOC = Path(__file__).resolve().parents[2] / "docs" / "design.md"


def render_table() -> str:
    rows = ["| mode | trigger | next mode | action |", "| --- | --- | --- | --- |"]
    for (mode, trigger), (target, action) in TRANSITIONS.items():
        to = target.value if isinstance(target, Mode) else repr(target).lower().replace("_", " ")
        rows.append(f"| {mode.value} | {trigger.value} | {to} | {action.value} |")
    return "\n".join(rows)


def test_the_design_doc_shows_the_transition_table() -> None:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("-->", text.index("<!-- transitions")) + len("-->")
    end = text.index("<!-- /transitions -->")
    assert text[start:end].strip() == render_table()
