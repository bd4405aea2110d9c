"""The CI smoke of the matrix: a fixed sample of cells that covers every value of every axis several times (and the
pairs that interact most), each cell with a few texts drawn from the ones it can serve."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from .cells import Cell, covering_sample

SEED = 20
TEXTS_PER_CELL = 5


def smoke_cells(apis: Sequence[str]) -> list[Cell]:
    return covering_sample(SEED, apis, per_value=15)


def smoke_texts(driver: Any, cell: Cell) -> list[Any]:
    texts = driver.texts_for(cell)
    rng = random.Random(f"{SEED}:{cell}")
    return rng.sample(texts, min(TEXTS_PER_CELL, len(texts)))
