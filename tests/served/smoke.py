"""The CI smoke of the matrix: a fixed sample of cells that covers every value of every axis several times (and the
pairs that interact most), each cell with a few texts drawn from the ones it can serve."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from .cells import Cell, covering_sample
from .texts import SEVERAL_EVENTS_SHAPES

SEED = 20
TEXTS_PER_CELL = 5
#: of which, texts whose events a large delta holds several of (when the cell serves them)
SEVERAL_EVENTS_PER_CELL = 2


def smoke_cells(apis: Sequence[str]) -> list[Cell]:
    return covering_sample(SEED, apis, per_value=15)


def smoke_texts(driver: Any, cell: Cell) -> list[Any]:
    texts = driver.texts_for(cell)
    rng = random.Random(f"{SEED}:{cell}")
    several = [t for t in texts if t.id.rsplit(":", 1)[-1] in SEVERAL_EVENTS_SHAPES]
    several = rng.sample(several, min(SEVERAL_EVENTS_PER_CELL, len(several)))
    others = [t for t in texts if t not in several]
    return several + rng.sample(others, min(TEXTS_PER_CELL - len(several), len(others)))
