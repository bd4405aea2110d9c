"""A run of many cells: outcomes grouped by what went wrong, for a person to read."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable

from .run import Outcome


def _signature(problem: str) -> str:
    """A problem with its values left out, to group the same fault across texts."""
    return re.sub(r"(served|one pass|refuses tokens of the intended output:) .*", r"\1 ...", problem)[:160]


def summary(outcomes: Iterable[Outcome], examples: int = 2) -> str:
    outcomes = list(outcomes)
    ran = [o for o in outcomes if not o.skipped]
    failed = [o for o in ran if not o.ok]
    faults = Counter(o.engine_fault for o in ran if o.engine_fault)
    lines = [f"cells run: {len(ran)}, passed: {len(ran) - len(failed) - sum(faults.values())}, differ: {len(failed)}, "
             f"engine faults: {dict(faults)}, not applicable: {len(outcomes) - len(ran)}"]  # fmt: skip
    groups: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in failed:
        for problem in outcome.problems:
            groups[_signature(problem)].append(outcome)
    for signature, members in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        axes = Counter(f"{o.cell.api}/{'stream' if o.cell.stream else 'whole'}/{o.cell.parsers}" for o in members)
        lines.append(f"\n{len(members)} x {signature}\n   where: {dict(axes.most_common(6))}")
        for outcome in members[:examples]:
            lines.append(f"   e.g. {outcome}")
    return "\n".join(lines)
