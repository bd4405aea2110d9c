"""The doctor's table and JSON output."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .model import Check, Status


def failed(checks: Sequence[Check]) -> list[Check]:
    return [c for c in checks if c.status is Status.FAIL]


def as_json(checks: Sequence[Check], header: dict[str, Any]) -> str:
    data = {**header, "ok": not failed(checks), "checks": [c.as_dict() for c in checks]}
    return json.dumps(data, ensure_ascii=False, indent=2)


def table(checks: Sequence[Check], width: int = 110) -> str:
    rows = [("SECTION", "CHECK", "STATUS", "DETAIL")]
    rows += [(c.section, c.name, c.status.value, c.detail) for c in checks]
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    w2 = max(len(r[2]) for r in rows)
    indent = w0 + w1 + w2 + 6
    lines = []
    for section, name, status, detail in rows:
        lines.append(f"{section:<{w0}}  {name:<{w1}}  {status:<{w2}}  " + _wrap(detail, indent, width))
    return "\n".join(lines)


def _wrap(text: str, indent: int, width: int) -> str:
    room = max(width - indent, 40)
    out: list[str] = []
    line = ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > room:
            out.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    out.append(line)
    return ("\n" + " " * indent).join(out)


def summary(checks: Sequence[Check]) -> str:
    problems = failed(checks)
    notes = [c for c in checks if c.status is Status.NOTE]
    warnings = [c for c in checks if c.status is Status.WARN]
    lines = []
    for c in [*problems, *warnings]:
        label = "problem" if c.status is Status.FAIL else "warning"
        lines.append(f"{label}: [{c.section}] {c.name}: {c.detail}")
        if c.fix:
            lines.append(f"  fix: {c.fix}")
    for c in notes:
        lines.append(f"note: [{c.section}] {c.detail}" + (f"; to use it: {c.fix}" if c.fix else ""))
    if problems:
        n = len(problems)
        lines.append(f"doctor: {n} problem{'s' if n > 1 else ''} found")
    else:
        lines.append("doctor: all checks passed" + (f" ({len(warnings)} warning(s))" if warnings else ""))
    return "\n".join(lines)
