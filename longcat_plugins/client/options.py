"""The options of a repair, beyond what the request says."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RepairOptions:
    """``reasoning``: the upstream splits no reasoning from the answer's text; ``<think>...</think>`` (and
    ``<longcat_think>``) left in it is moved to the API's reasoning field. Off: text stays in the field it came in."""

    reasoning: bool = False
